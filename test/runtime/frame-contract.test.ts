import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultControllerConfig } from '../../src/anim/control/config';
import { CrowdControllers } from '../../src/features/controllers/crowd-controllers';
import { CrowdRootMotion } from '../../src/features/root-motion/crowd-root-motion';
import { CrowdSteering } from '../../src/features/steering/crowd-steering';
import { loadCharacter, type Character } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import { INSTANCE } from '../../src/runtime/layout';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice, readBuffer } from '../helpers/gpu';
import { kernelOf } from '../helpers/kernel';
import { modelPath } from '../helpers/models';

/**
 * What a user may do between `crowd.update(dt)` and `crowd.encode(encoder)` (docs/embedding.md,
 * "The frame"): change the crowd (add, remove, setPlacement, ...) and encode without updating
 * again. The encode draws the crowd as it is then: its changes since the update go up with the
 * encode, and the passes of the features that bind the store's buffers (steering, controllers,
 * root motion) follow a growth in between. Read back: every live instance's world matrix in the
 * GPU's records against the CPU's (crowd.worldTransform).
 */
const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

/** A translation to (x, 0, z), column-major. */
const at = (x: number, z = 0) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, z, 1];

/** Encodes and submits one view of `crowd`, failing on any validation error. */
async function encode(crowd: Crowd): Promise<void> {
  await expectNoGpuError(device!, () => {
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
  });
}

/** The largest gap between the GPU's record world matrices and the CPU's world transforms of `ids`. */
async function worldGap(crowd: Crowd, ids: readonly number[]): Promise<number> {
  const store = kernelOf(crowd).store;
  const records = new Float32Array(await readBuffer(device!, store.instanceBuffer));
  let worst = 0;
  for (const id of ids) {
    const o = (store.slotOfId(id) * INSTANCE.size) / 4;
    const cpu = crowd.worldTransform(id);
    for (let k = 0; k < 16; k++) worst = Math.max(worst, Math.abs(records[o + k] - cpu[k]));
  }
  return worst;
}

let walker: Promise<Character> | undefined;

/** The Walker loaded with root motion mode 'apply' (once). */
function walkerApplied(): Promise<Character> {
  const bytes = readFileSync(modelPath('Walker'));
  return (walker ??= loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'apply' } }));
}

describe.skipIf(!device)('the frame: changes between update and encode', () => {
  it('reach that encode: a remove moves the last instance into the hole, an add past the capacity replaces every buffer', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 3 });
    const ids = [0, 1, 2].map((i) => crowd.add({ clipA: 'Walk', transform: at(i + 1) }));
    crowd.update(1 / 60);
    await encode(crowd);
    crowd.update(1 / 60);
    // The last instance moves into the first's slot: the GPU's slot 0 held the removed one's record (drawn in its place).
    crowd.remove(ids.shift()!);
    await encode(crowd);
    expect(await worldGap(crowd, ids), 'after a remove').toBe(0);
    crowd.update(1 / 60);
    // Past the capacity of 3: the records go into new buffers, which held zeros (nobody drawn).
    ids.push(crowd.add({ clipA: 'Run', transform: at(4) }), crowd.add({ transform: at(5) }));
    await encode(crowd);
    expect(await worldGap(crowd, ids), 'after growth').toBe(0);
    crowd.destroy();
  });

  it('the passes of steering, controllers and root motion follow a growth in between (they bound the buffers it replaced)', async () => {
    const walker = await walkerApplied();
    const crowd = new Crowd(device!, walker, { ...FORMATS, capacity: 4 });
    new CrowdRootMotion(crowd);
    const steering = new CrowdSteering(crowd);
    const controllers = new CrowdControllers(crowd, defaultControllerConfig(walker.clipNames));
    const moving = crowd.add({ clipA: 0, transform: at(-4) }); // root motion moves it
    const agent = crowd.add({ transform: at(4) });
    steering.addAgent(agent, { radius: 0.3, maxSpeed: 1, goal: [4, 10] });
    const controlled = crowd.add();
    controllers.add(controlled, 0, 0, 0).setSpeed(1);
    const step = (dt: number) => { controllers.update(dt); crowd.update(dt); };
    for (let f = 0; f < 3; f++) {
      step(0.1);
      await encode(crowd);
    }
    step(0.1);
    const added = [crowd.add({ transform: at(8) }), crowd.add({ transform: at(9) })]; // past the capacity of 4
    await encode(crowd); // each pass bound the replaced buffers: a validation error, and the frame lost
    // Root motion and the plain instances as the CPU has them; the agent and the controlled one moved on the GPU.
    expect(await worldGap(crowd, [moving, ...added])).toBeLessThan(1e-4);
    const store = kernelOf(crowd).store;
    const records = new Float32Array(await readBuffer(device!, store.instanceBuffer));
    const z = (id: number) => records[(store.slotOfId(id) * INSTANCE.size) / 4 + 14];
    expect(z(agent)).toBeGreaterThan(0.05);
    expect(z(controlled)).toBeGreaterThan(0.05);
    crowd.destroy();
  });

  it('a blend changed in between moves a root-motion instance on from its new anchor, which goes up with the record', async () => {
    const crowd = new Crowd(device!, await walkerApplied(), FORMATS);
    new CrowdRootMotion(crowd);
    const moving = crowd.add({ clipA: 0, transform: at(-4) });
    for (let f = 0; f < 6; f++) {
      crowd.update(0.1);
      await encode(crowd);
    }
    crowd.update(0.1);
    // Root motion folds the walk so far into a new anchor; with the record and without the anchor
    // the GPU moved it from its old anchor under the new blend.
    crowd.setAnimation(moving, { clipB: 1, blend: 0.7 });
    await encode(crowd);
    expect(await worldGap(crowd, [moving])).toBeLessThan(1e-4);
    crowd.destroy();
  });
});
