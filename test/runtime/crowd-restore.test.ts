import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseControllerConfig } from '../../src/anim/control/config';
import type { Character } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import { CrowdControllers } from '../../src/features/controllers/crowd-controllers';
import { testCharacter } from '../helpers/character';
import { openTestDevice, readBuffer } from '../helpers/gpu';
import { modelPath } from '../helpers/models';
import { maxVertexGap } from '../helpers/skinned-gap';
import { readInstanceStack } from '../../tools/control-readback';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../helpers/render';

const never = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: 2 } as const;
const DT = 1 / 30;

/** Skinned vertices of instance `id` in two crowds of one character, the largest distance between them. */
async function vertexGap(character: Character, a: Crowd, b: Crowd, id: number): Promise<number> {
  const joints = async (crowd: Crowd) => new Float32Array(await readBuffer(crowd.device, crowd.jointMatrices));
  const [ra, rb] = await Promise.all([joints(a), joints(b)]);
  return maxVertexGap(character, ra, a.jointMatrixIndex(id), rb, b.jointMatrixIndex(id));
}

/** A crowd with every kind of instance: plain blends, a masked layer stack, CPU- and GPU-driven controllers. */
function populate(device: GPUDevice, robot: Character) {
  const crowd = new Crowd(device, robot, FORMATS);
  const text = readFileSync(modelPath('RobotExpressive').replace(/\.glb$/, '.controller.json'), 'utf8');
  const controllers = new CrowdControllers(crowd, parseControllerConfig(JSON.parse(text), robot.clipNames));
  const ids: number[] = [];
  const names = robot.clipNames;
  for (let i = 0; i < 3; i++) {
    ids.push(crowd.add({ clipA: names[i], clipB: names[i + 3], blend: 0.25 * i, timeA: 0.1 * i, speedA: 1 + 0.2 * i, transform: translation(3 * i, 0, 0) }));
  }
  const layered = crowd.add({ clipA: 'Walking', transform: translation(0, 0, 4) });
  crowd.setLayers(layered, { layers: [{ clip: 'Wave', weight: 0.8, mask: crowd.createMask({ root: 'Torso' }) }] });
  ids.push(layered);
  const cpu = crowd.add();
  controllers.add(cpu, -3, 0, 0, { driver: 'cpu' }).setSpeed(1);
  ids.push(cpu);
  for (let i = 0; i < 3; i++) {
    const id = crowd.add();
    controllers.add(id, 2 * i, -4, 0.5 * i).setSpeed(0.5 + 0.6 * i);
    ids.push(id);
  }
  return { crowd, controllers, ids };
}

function translation(x: number, y: number, z: number): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
}

/** One frame: the script's commands, the updates, the compute work, submitted and finished. */
async function frame(device: GPUDevice, scene: ReturnType<typeof populate>, f: number, submit = true): Promise<void> {
  const { crowd, controllers, ids } = scene;
  if (f === 12) controllers.get(ids[7])!.move(1, 0.5, true);
  if (f === 30) crowd.setBlend(ids[0], 0.9);
  if (f === 50) controllers.get(ids[5])!.setSpeed(2);
  if (f === 95) controllers.get(ids[6])!.requestAction(controllers.runtime.config.actions[0].name);
  if (f === 100) crowd.setAnimation(ids[1], { clipA: 'Dance', speedA: -1 });
  controllers.update(DT);
  crowd.update(DT);
  if (!submit) return;
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
}

describe.skipIf(!never)('a crowd restored on a new device after losing its own', () => {
  it('poses and draws every instance as a crowd that never lost its device does', async () => {
    const robot = await testCharacter('RobotExpressive');
    const { min, max } = robot.bounds;
    const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const reference = populate(never!, robot);
    const first = (await openTestDevice())!;
    const restored = populate(first, robot);
    const lost = restored.crowd.lost.then((info) => info.reason);
    let device = first;
    for (let f = 0; f < 130; f++) {
      if (f === 70) first.destroy(); // lost mid-run
      if (f === 76) {
        expect(await lost).toBe('destroyed');
        device = (await openTestDevice())!;
        restored.crowd.restore(device);
        expect(restored.crowd.device).toBe(device);
      }
      await frame(never!, reference, f);
      // While lost the app keeps calling update and encode: nothing throws, the CPU state goes on.
      await frame(device, restored, f, f < 70 || f >= 76 || f % 2 === 0);
      if (f === 80 || f === 129) {
        let worst = 0;
        for (const id of reference.ids) worst = Math.max(worst, await vertexGap(robot, reference.crowd, restored.crowd, id));
        // Placement (GPU-driven locomotion writes it on the GPU): float32 rounding apart.
        let placement = 0;
        for (const id of reference.ids) {
          const [want, got] = await Promise.all([readInstanceStack(never!, reference.crowd, id), readInstanceStack(device, restored.crowd, id)]);
          placement = Math.max(placement, Math.abs(got.x - want.x), Math.abs(got.z - want.z), Math.abs(got.yaw - want.yaw));
        }
        console.log(`restore: frame ${f}, worst skinned-vertex gap ${(worst / diagonal).toExponential(2)} of the diagonal, placement ${placement.toExponential(2)}`);
        expect(worst / diagonal, `frame ${f}`).toBeLessThan(1e-5);
        expect(placement, `frame ${f}`).toBeLessThan(1e-4);
      }
    }
    for (const id of reference.ids) expect(restored.crowd.getAnimation(id)).toEqual(reference.crowd.getAnimation(id));
    expect(restored.crowd.count).toBe(reference.crowd.count);
    // Drawn: the same picture, but for an edge pixel or two where the replayed positions round differently.
    const { viewProjection } = lookAt([4, 6, 16], [3, 1, 0]);
    const want = await renderCrowd(never!, reference.crowd, viewProjection, 128);
    const got = await renderCrowd(device, restored.crowd, viewProjection, 128);
    expect(drawnPixels(want)).toBeGreaterThan(500);
    expect(differingPixels(want, got)).toBeLessThanOrEqual(Math.ceil(drawnPixels(want) * 0.002));
    reference.crowd.destroy();
    restored.crowd.destroy();
    device.destroy();
  });
});
