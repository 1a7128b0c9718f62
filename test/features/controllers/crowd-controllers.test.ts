import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultControllerConfig, parseControllerConfig } from '../../../src/anim/control/config';
import { CpuPoser } from '../../../src/anim/evaluate';
import { sampleLut } from '../../../src/anim/lut';
import { buildMask } from '../../../src/anim/masks';
import { loadCharacter } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { HANDLE_SPAN } from '../../../src/runtime/instance-ids';
import { CrowdControllers } from '../../../src/features/controllers/crowd-controllers';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { testCharacter } from '../../helpers/character';
import { modelPath } from '../../helpers/models';
import { withFeatures } from '../../helpers/features';

const device = await openTestDevice();

/**
 * Expects the 3x3 part of `joints` GPU joint matrices (3 vec4f rows each, from matrix `first`)
 * to be a rotation by `yaw` about +y times the column-major reference `model`.
 */
function expectYawedLinearParts(rows: Float32Array, first: number, model: Float64Array, joints: number, yaw: number): void {
  for (let j = 0; j < joints; j++) {
    for (let col = 0; col < 3; col++) {
      const mx = model[j * 16 + col * 4], my = model[j * 16 + col * 4 + 1], mz = model[j * 16 + col * 4 + 2];
      const expected = [Math.cos(yaw) * mx + Math.sin(yaw) * mz, my, -Math.sin(yaw) * mx + Math.cos(yaw) * mz];
      for (let r = 0; r < 3; r++) expect(rows[(first + j) * 12 + r * 4 + col]).toBeCloseTo(expected[r], 3);
    }
  }
}
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

/**
 * Applies each instance's transform to its joint matrices in `rows` (3 rows of 4 per joint),
 * as the skin shader does: the pose pass writes them in model space.
 */
function placeRows(crowd: Crowd, rows: Float32Array, ids: number[]): Float32Array {
  for (const id of ids) {
    const w = crowd.getTransform(id);
    const first = crowd.jointMatrixIndex(id);
    for (let j = first; j < first + crowd.jointsPerInstance; j++) {
      const m = rows.slice(j * 12, j * 12 + 12);
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 4; c++) {
          rows[j * 12 + r * 4 + c] = w[r] * m[c] + w[4 + r] * m[4 + c] + w[8 + r] * m[8 + c] + (c === 3 ? w[12 + r] : 0);
        }
      }
    }
  }
  return rows;
}

describe.skipIf(!device)('CrowdControllers', () => {
  it('validity: a config for another model, a second controller, unknown ids', async () => {
    const fox = await testCharacter('Fox');
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, fox, FORMATS));
    expect(() => new CrowdControllers(crowd, defaultControllerConfig(robot.clipNames))).toThrow(/made for another model/);
    const controllers = new CrowdControllers(crowd, defaultControllerConfig(fox.clipNames));
    const id = crowd.add();
    controllers.add(id);
    expect(() => controllers.add(id)).toThrow(/already has a controller/);
    expect(() => controllers.get(999)).toThrow(/instance 999 does not exist: it was never added/);
    controllers.remove(id);
    expect(() => controllers.remove(id)).toThrow(/instance 0 has no controller/);
    expect(controllers.count).toBe(0);
    crowd.destroy();
  });

  it('an instance removed from the crowd (or cleared) takes its controller with it, so a reused handle starts free', async () => {
    const fox = await testCharacter('Fox');
    const crowd = withFeatures(new Crowd(device!, fox, FORMATS));
    const controllers = new CrowdControllers(crowd, defaultControllerConfig(fox.clipNames));
    const [a, b, c] = [crowd.add(), crowd.add(), crowd.add()];
    controllers.add(a, 0, 0, 0, { driver: 'cpu' }).setSpeed(1);
    controllers.add(b).setSpeed(1); // GPU-driven
    crowd.remove(a);
    crowd.remove(b);
    expect(controllers.count).toBe(0);
    expect(() => controllers.get(a)).toThrow(/instance 0 does not exist: it was removed/);
    // Frames go on without the removed ones (a CPU-driven controller would write a dead id).
    controllers.update(1 / 30);
    crowd.update(1 / 30);
    const reused = crowd.add();
    expect([a, b].map((id) => id + HANDLE_SPAN)).toContain(reused);
    expect(() => controllers.get(reused)).toThrow(/has no controller/);
    controllers.add(reused);
    controllers.add(c, 0, 0, 0, { driver: 'cpu' });
    crowd.clear();
    expect(controllers.count).toBe(0);
    controllers.update(1 / 30);
    crowd.destroy();
  });

  it('a crossing decided for an instance that is removed before it fires, its handle taken by another, is not heard by the newcomer', async () => {
    const fox = await testCharacter('Fox');
    // Events ten times a clip, so that most frames of a walk decide one.
    const events = fox.clipNames.map((name, clip) => Array.from({ length: 10 }, (_, k) => ({ time: (k + 0.5) / 10 * fox.clipDurations[clip], name: `${name}@${k}` })));
    const REPLACE_AT = 10;
    /** Per frame, the events heard as "id:name". */
    const run = (replace: boolean) => {
      const crowd = withFeatures(new Crowd(device!, fox, FORMATS));
      const controllers = new CrowdControllers(crowd, { ...defaultControllerConfig(fox.clipNames), events });
      let id = crowd.add();
      controllers.add(id, 0, 0, 0, { driver: 'cpu' }).setSpeed(1);
      const frames: string[][] = [];
      crowd.onEvent((who, name) => frames[frames.length - 1].push(`${who}:${name}`));
      for (let frame = 0; frame < 20; frame++) {
        frames.push([]);
        controllers.update(1 / 10); // decides this step's crossings, fired by crowd.update
        if (replace && frame === REPLACE_AT) {
          crowd.remove(id);
          id = crowd.add({ clipA: 'Survey', timeA: 0.99 }); // the same handle, a new generation, no controller, no event this frame
          expect(id).toBe(HANDLE_SPAN);
        }
        crowd.update(1 / 10);
      }
      crowd.destroy();
      return frames;
    };
    const plain = run(false);
    expect(plain[REPLACE_AT].length, 'the walking controller crosses an event in that frame').toBeGreaterThan(0);
    expect(plain[REPLACE_AT].every((e) => e.startsWith('0:'))).toBe(true);
    const replaced = run(true);
    expect(replaced[REPLACE_AT]).toEqual([]);
    expect(replaced.flat().filter((e) => e.startsWith(`${HANDLE_SPAN}:`) && !/:Survey@/.test(e))).toEqual([]);
  });

  it('rate matching follows the character\'s root motion unless matchRootSpeed is false; controlled instances do not move by root motion', async () => {
    const bytes = readFileSync(modelPath('Walker'));
    const walker = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'apply' } });
    const crowd = withFeatures(new Crowd(device!, walker, FORMATS));
    const config = parseControllerConfig(JSON.parse(readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8')), walker.clipNames);
    expect(() => new CrowdControllers(crowd, config, { matchRootSpeed: 'yes' as never })).toThrow(/matchRootSpeed must be true or false, got "yes"/);
    const matched = new CrowdControllers(crowd, config);
    // WalkForward travels 1.2 m per 1 s cycle along +z; Idle stands (no cycle).
    const cycles = matched.runtime.locomotion!.rootCycles!;
    expect([cycles[walker.clipIndex('WalkForward') * 2], cycles[walker.clipIndex('WalkForward') * 2 + 1]].map((v) => +v.toFixed(4))).toEqual([0, 1.2]);
    expect([cycles[walker.clipIndex('Idle') * 2], cycles[walker.clipIndex('Idle') * 2 + 1]]).toEqual([0, 0]);
    expect(new CrowdControllers(crowd, config, { matchRootSpeed: false }).runtime.locomotion!.rootCycles).toBeNull();
    const id = crowd.add({ clipA: 'WalkForward' });
    expect(crowd.movesByRootMotion(id)).toBe(true);
    matched.add(id, 0, 0, 0, { driver: 'cpu' });
    expect(crowd.movesByRootMotion(id)).toBe(false);
    crowd.destroy();
  });

  it('writes every controller\'s stack and placement into the crowd: the GPU poses what the controller says', async () => {
    const robot = await testCharacter('RobotExpressive');
    const text = readFileSync(modelPath('RobotExpressive').replace(/\.glb$/, '.controller.json'), 'utf8');
    const config = parseControllerConfig(JSON.parse(text), robot.clipNames);
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, config, { driver: 'cpu' });
    const ids = Array.from({ length: 6 }, () => crowd.add());
    ids.forEach((id, i) => controllers.add(id, i * 2, -i, 0.3 * i).setSpeed((i % 3) * 0.8));
    controllers.get(ids[1]).requestAction('Wave'); // masked upper-body action
    controllers.get(ids[4]).requestAction('Jump');
    for (let f = 0; f < 20; f++) { controllers.update(1 / 30); crowd.update(1 / 30); } // 0.67 s: fades done, actions playing
    controllers.remove(ids[2]);
    crowd.update(0);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const rows = placeRows(crowd, new Float32Array(await readBuffer(device!, crowd.jointMatrices)), [ids[0], ids[1], ids[3], ids[4], ids[5]]);
    const poser = new CpuPoser(robot.rig, (clip, t, out) => sampleLut(robot.baked, clip, t, out));
    const masks = config.masks.map((spec) => buildMask(robot.rig.nodes, spec));
    for (const id of [ids[0], ids[1], ids[3], ids[4], ids[5]]) {
      const c = controllers.get(id);
      const o = c.output;
      const layers = Array.from({ length: o.layerCount }, (_, i) => ({
        clip: o.layerClip[i], time: o.layerTime[i], weight: o.layerWeight[i], mask: o.layerMask[i] >= 0 ? masks[o.layerMask[i]] : undefined,
      }));
      poser.evaluateStack({ base: { clip: o.baseClip, time: o.baseTime }, layers, additive: [] });
      const model = poser.jointMatrices(0);
      // Joint matrix = placement (x, 0, z, yaw) * model * inverseBind: compare the placed translation of joint 0.
      const loco = c.locomotion!;
      const yaw = loco.heading;
      const x = model[12], y = model[13], z = model[14];
      const placed = [Math.cos(yaw) * x + Math.sin(yaw) * z + loco.positionX, y, -Math.sin(yaw) * x + Math.cos(yaw) * z + loco.positionZ];
      const first = crowd.jointMatrixIndex(id);
      for (let r = 0; r < 3; r++) expect(rows[first * 12 + r * 4 + 3]).toBeCloseTo(placed[r], 3);
      // And every joint's 3x3 part equals yaw * model 3x3 (rotation about +y).
      expectYawedLinearParts(rows, first, model, robot.rig.skins[0].joints.length, yaw);
    }
    expect(controllers.get(ids[1]).state).toBe('action:Wave');
    expect(controllers.count).toBe(5);
    crowd.destroy();
  });

  it('places instances of a model without locomotion where add() says, once', async () => {
    const cesium = await testCharacter('CesiumMan');
    const config = defaultControllerConfig(cesium.clipNames); // one clip: no locomotion
    expect(config.locomotion).toBeNull();
    const crowd = withFeatures(new Crowd(device!, cesium, FORMATS));
    const controllers = new CrowdControllers(crowd, config, { driver: 'cpu' });
    const id = crowd.add();
    controllers.add(id, 5, -3, 0);
    controllers.update(0.1);
    crowd.update(0.1);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const rows = placeRows(crowd, new Float32Array(await readBuffer(device!, crowd.jointMatrices)), [id]);
    const alone = withFeatures(new Crowd(device!, cesium, FORMATS));
    const reference = alone.add({ clipA: 0, timeA: 0.1, speedA: 0 });
    alone.update(0);
    const e2 = device!.createCommandEncoder();
    alone.encode(e2);
    device!.queue.submit([e2.finish()]);
    const unplaced = new Float32Array(await readBuffer(device!, alone.jointMatrices));
    expect(rows[3] - unplaced[alone.jointMatrixIndex(reference) * 12 + 3]).toBeCloseTo(5, 3);
    expect(rows[11] - unplaced[11]).toBeCloseTo(-3, 3);
    crowd.destroy();
    alone.destroy();
  });

  it('skips rewriting stacks that only moved on in time, and the GPU still shows the controller\'s times', async () => {
    const robot = await testCharacter('RobotExpressive');
    const text = readFileSync(modelPath('RobotExpressive').replace(/\.glb$/, '.controller.json'), 'utf8');
    const config = parseControllerConfig(JSON.parse(text), robot.clipNames);
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, config, { driver: 'cpu' });
    const id = crowd.add();
    const c = controllers.add(id);
    c.setSpeed(1.5); // fades into locomotion, accelerates, then walks/runs steadily
    const written: number[] = [];
    const original = crowd.setLayers.bind(crowd);
    crowd.setLayers = ((...args: Parameters<Crowd['setLayers']>) => { written.push(crowd.clock); return original(...args); }) as Crowd['setLayers'];
    for (let f = 0; f < 120; f++) { controllers.update(1 / 30); crowd.update(1 / 30); }
    crowd.setLayers = original;
    // Written while fading and accelerating, then not at all once the gait is steady.
    expect(written.length).toBeGreaterThan(3);
    expect(written.length).toBeLessThan(100);
    crowd.update(0);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const rows = placeRows(crowd, new Float32Array(await readBuffer(device!, crowd.jointMatrices)), [id]);
    const poser = new CpuPoser(robot.rig, (clip, t, out) => sampleLut(robot.baked, clip, t, out));
    const o = c.output;
    const layers = Array.from({ length: o.layerCount }, (_, i) => ({ clip: o.layerClip[i], time: o.layerTime[i], weight: o.layerWeight[i] }));
    poser.evaluateStack({ base: { clip: o.baseClip, time: o.baseTime }, layers, additive: [] });
    const model = poser.jointMatrices(0);
    const loco = c.locomotion!;
    // The 3x3 part of every joint: yaw * model (placement only rotates and translates).
    expectYawedLinearParts(rows, 0, model, robot.rig.skins[0].joints.length, loco.heading);
    crowd.destroy();
  });
});

