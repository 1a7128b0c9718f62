import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { loadCharacter } from '../../../src/character/character';
import { CrowdPicking, MAX_PENDING_PICKS } from '../../../src/features/picking/crowd-picking';
import { Crowd } from '../../../src/runtime/crowd';
import { ARM_LENGTH, FIGURE_HALF_DEPTH, SHOULDER } from '../../helpers/figure-rig';
import { arrayBufferOf } from '../../helpers/gltf-builder';
import { openTestDevice } from '../../helpers/gpu';
import { figureCharacter, testCharacter } from '../../helpers/character';
import { lookAt, renderCrowd } from '../../helpers/render';
import { CrowdMorph } from '../../../src/features/morph/crowd-morph';
import { CrowdRootMotion } from '../../../src/features/root-motion/crowd-root-motion';
import { readFileSync } from 'node:fs';
import { modelPath } from '../../helpers/models';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** One frame: update, encode (the pick is recorded after the pose pass), submit. */
function frame(crowd: Crowd): void {
  crowd.update(0);
  const encoder = device!.createCommandEncoder();
  crowd.encode(encoder);
  device!.queue.submit([encoder.finish()]);
}

/** Runs the frames a request needs: the one that records it and the next update, which maps its readback. */
async function answer<T>(crowd: Crowd, request: Promise<T>): Promise<T> {
  frame(crowd);
  crowd.update(0);
  return request;
}

const towardsMinusZ = (x: number, y: number) => ({ origin: [x, y, 5], direction: [0, 0, -1] });

describe.skipIf(!device)('CrowdPicking.pick: against the posed mesh', () => {
  it('hits a posed limb where the bind pose has nothing, and misses it in the bind pose', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'armOut' });
    // Halfway along the outstretched arm, in front of it: in the bind pose that is empty air.
    const x = SHOULDER[0] + ARM_LENGTH * 0.7;
    const hit = await answer(crowd, picking.pick(towardsMinusZ(x, SHOULDER[1])));
    expect(hit).not.toBeNull();
    expect(hit!.id).toBe(id);
    expect(hit!.distance).toBeCloseTo(5 - FIGURE_HALF_DEPTH, 4);
    expect(hit!.point[0]).toBeCloseTo(x, 5);
    expect(hit!.point[2]).toBeCloseTo(FIGURE_HALF_DEPTH, 4);
    crowd.setAnimation(id, { clipA: 'rest', clipB: 'rest' });
    expect(await answer(crowd, picking.pick(towardsMinusZ(x, SHOULDER[1])))).toBeNull();
    crowd.destroy();
  });

  it('misses between the legs of a standing figure, though its bounding box is hit; hits a leg beside the gap', async () => {
    const character = await figureCharacter();
    const crowd = new Crowd(device!, character, FORMATS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'rest' });
    const { min, max } = character.bounds;
    expect(min[0] < 0 && max[0] > 0 && min[1] < 0.5 && max[1] > 0.5).toBe(true); // the ray crosses the box
    expect(await answer(crowd, picking.pick(towardsMinusZ(0, 0.5)))).toBeNull();
    expect((await answer(crowd, picking.pick(towardsMinusZ(0.25, 0.5))))?.id).toBe(id);
    crowd.destroy();
  });

  it('reports the nearest of two along a ray, from either side, and follows setTransform', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const far = crowd.add({ clipA: 'rest', transform: mat4.translation([0, 0, -3]) });
    const near = crowd.add({ clipA: 'rest' });
    const front = picking.pick(towardsMinusZ(0, 1.5));
    const back = picking.pick({ origin: [0, 1.5, -10], direction: [0, 0, 2] });
    frame(crowd);
    crowd.update(0);
    const [a, b] = await Promise.all([front, back]);
    expect(a).toMatchObject({ id: near });
    expect(a!.distance).toBeCloseTo(5 - FIGURE_HALF_DEPTH, 4);
    expect(b).toMatchObject({ id: far });
    expect(b!.distance).toBeCloseTo(10 - 3 - FIGURE_HALF_DEPTH, 4);
    crowd.setTransform(near, mat4.translation([0, 0, -6]));
    expect(await answer(crowd, picking.pick(towardsMinusZ(0, 1.5)))).toMatchObject({ id: far });
    crowd.destroy();
  });

  it('does not report a removed instance: removed before the frame (the one behind it is hit) or before the answer (null)', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const far = crowd.add({ clipA: 'rest', transform: mat4.translation([0, 0, -3]) });
    const near = crowd.add({ clipA: 'rest' });
    crowd.remove(near);
    expect(await answer(crowd, picking.pick(towardsMinusZ(0, 1.5)))).toMatchObject({ id: far });
    const late = picking.pick(towardsMinusZ(0, 1.5));
    frame(crowd);
    crowd.remove(far);
    crowd.update(0);
    expect(await late).toBeNull();
    crowd.destroy();
  });

  it('names ids as the crowd reported them after instances moved between slots (removals, layers), and for instances added before it; hits a limb a layer posed', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const before = Array.from({ length: 4 }, (_, i) => crowd.add({ clipA: 'rest', transform: mat4.translation([i * 2, 0, 0]) }));
    const picking = new CrowdPicking(crowd);
    const after = Array.from({ length: 4 }, (_, i) => crowd.add({ clipA: 'rest', transform: mat4.translation([i * 2, 0, -5]) }));
    crowd.remove(before[0]);
    crowd.setLayers(after[1], { layers: [{ clip: 'armOut', weight: 1 }] });
    crowd.remove(after[0]);
    for (const [i, id] of before.entries()) {
      if (i === 0) continue;
      expect(await answer(crowd, picking.pick(towardsMinusZ(i * 2, 1.5)))).toMatchObject({ id });
    }
    expect(await answer(crowd, picking.pick({ origin: [2, 1.5, -12], direction: [0, 0, 1] }))).toMatchObject({ id: after[1] });
    // after[1]'s arm is out by its override layer alone (its clips hold the rest pose).
    const armX = 2 + SHOULDER[0] + ARM_LENGTH * 0.7;
    expect(await answer(crowd, picking.pick({ origin: [armX, SHOULDER[1], -12], direction: [0, 0, 1] }))).toMatchObject({ id: after[1] });
    expect(await answer(crowd, picking.pick({ origin: [armX + 4, SHOULDER[1], -12], direction: [0, 0, 1] }))).toBeNull(); // after[3], no layer
    expect(await answer(crowd, picking.pick({ origin: [0, 1.5, -12], direction: [0, 0, 1] }))).toBeNull();
    crowd.destroy();
  });

  it('with a camera (culling, indirect draws), pickPointer hits what the camera drew and nothing it culled', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'armOut' });
    const culled = crowd.add({ clipA: 'rest', transform: mat4.translation([0, 0, 20]) }); // behind the camera
    const projection = mat4.perspective(0.8, 1, 0.1, 100);
    const viewProjection = mat4.multiply(projection, mat4.lookAt([0, 1.5, 8], [0, 1.5, 0], [0, 1, 0]));
    crowd.setCamera(viewProjection, [0, 1.5, 8]);
    const camera = { viewProjection, width: 200, height: 200 };
    const hit = await answer(crowd, picking.pickPointer(100, 100, camera));
    expect(hit).toMatchObject({ id });
    expect(hit!.distance).toBeCloseTo(8 - 0.1 - FIGURE_HALF_DEPTH, 3); // from the near plane
    expect(await answer(crowd, picking.pickPointer(5, 5, camera))).toBeNull();
    // A ray from behind the camera through both: only the drawn one is found.
    expect(await answer(crowd, picking.pick({ origin: [0, 1.5, 30], direction: [0, 0, -1] }))).toMatchObject({ id });
    crowd.clearCamera();
    expect(await answer(crowd, picking.pick({ origin: [0, 1.5, 30], direction: [0, 0, -1] }))).toMatchObject({ id: culled });
    crowd.destroy();
  });

  it('refuses bad rays, cameras and rectangles by name, and more than MAX_PENDING_PICKS in flight, queueing nothing', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const camera = { viewProjection: mat4.identity(), width: 10, height: 10 };
    expect(() => picking.pick({ origin: [0, 0], direction: [0, 0, 1] })).toThrow(/^ray\.origin must be 3 finite numbers, got an array$/);
    expect(() => picking.pick({ origin: [0, 0, 0], direction: [0, 0, 0] })).toThrow(/^ray\.direction must have a non-zero finite length/);
    expect(() => picking.pick(towardsMinusZ(0, 0), { maxDistance: -1 })).toThrow(/^maxDistance must be a positive finite number of world units, got -1$/);
    expect(() => picking.pickPointer(NaN, 0, camera)).toThrow(/^pointer position must be finite numbers, got \(NaN, 0\)$/);
    expect(() => picking.pickPointer(0, 0, { ...camera, width: 0 })).toThrow(/^camera\.width and camera\.height must be positive finite numbers, got 0 x 10$/);
    expect(() => picking.selectRect({ x0: 0, y0: 0, x1: Infinity, y1: 1 }, camera)).toThrow(/^rect\.x1 must be a finite number, got Infinity$/);
    expect(picking.pending).toBe(0);
    const requests = Array.from({ length: MAX_PENDING_PICKS }, () => picking.pick(towardsMinusZ(0, 1.5)));
    expect(() => picking.pick(towardsMinusZ(0, 1.5))).toThrow(/^16 picks are already in flight/);
    frame(crowd);
    crowd.update(0);
    expect(await Promise.all(requests)).toEqual(requests.map(() => null));
    expect(picking.pending).toBe(0);
    crowd.destroy();
  });

  it('a real model (Fox, culled, at its LOD levels): every pointer pick agrees with the pixel the crowd drew there', async () => {
    const fox = await testCharacter('Fox');
    const crowd = new Crowd(device!, fox, FORMATS);
    const picking = new CrowdPicking(crowd);
    const ids = [-60, 0, 60].map((x, i) => crowd.add({ clipA: 'Run', timeA: i * 0.3, transform: mat4.translation([x, 0, i * -40]) }));
    const size = 64;
    const { viewProjection, eye } = lookAt([0, 80, 220], [0, 30, -40], { near: 10, far: 1000 });
    crowd.setCamera(viewProjection, eye);
    const camera = { viewProjection, width: size, height: size };
    crowd.update(0.1);
    const pixels: [number, number][] = [];
    for (let y = 2; y < size; y += 5) for (let x = 2; x < size; x += 5) pixels.push([x, y]);
    const hits: (number | null)[] = [];
    let image: Uint8Array | undefined;
    for (let i = 0; i < pixels.length; i += MAX_PENDING_PICKS) {
      const requests = pixels.slice(i, i + MAX_PENDING_PICKS).map(([x, y]) => picking.pickPointer(x + 0.5, y + 0.5, camera));
      image = await renderCrowd(device!, crowd, viewProjection, size); // records the picks in the same frame
      crowd.update(0);
      for (const hit of await Promise.all(requests)) hits.push(hit ? hit.id : null);
    }
    const drawn = pixels.map(([x, y]) => image![(y * size + x) * 4] + image![(y * size + x) * 4 + 1] + image![(y * size + x) * 4 + 2] > 0);
    const disagree = pixels.filter((_, i) => drawn[i] !== (hits[i] !== null));
    expect(drawn.filter(Boolean).length).toBeGreaterThan(10);
    expect(new Set(hits.filter((h) => h !== null))).toEqual(new Set(ids));
    expect(disagree.length, `pixels where the pick and the picture disagree: ${JSON.stringify(disagree)}`).toBeLessThanOrEqual(1);
    crowd.destroy();
  });

  it('a character with morph targets (RobotExpressive with CrowdMorph): the morph entry points pick too', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = new Crowd(device!, robot, FORMATS);
    new CrowdMorph(crowd);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'Idle' });
    const { min, max } = robot.bounds;
    const centre = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, max[2] + 10];
    const hit = await answer(crowd, picking.pick({ origin: centre, direction: [0, 0, -1] }));
    expect(hit).toMatchObject({ id });
    expect(await answer(crowd, picking.pick({ origin: [max[0] * 3, max[1] * 3, max[2] + 10], direction: [0, 0, -1] }))).toBeNull();
    crowd.destroy();
  });

  it('keeps picking after a new skinning method (the passes re-made) and after restore onto a new device; a request read back across a restore is refused by name', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'armOut' });
    const x = SHOULDER[0] + ARM_LENGTH * 0.7;
    expect(await answer(crowd, picking.pick(towardsMinusZ(x, SHOULDER[1])))).toMatchObject({ id });
    crowd.skinning = 'dual-quaternion';
    expect(await answer(crowd, picking.pick(towardsMinusZ(x, SHOULDER[1])))).toMatchObject({ id });
    const stranded = picking.pick(towardsMinusZ(x, SHOULDER[1]));
    frame(crowd);
    const other = (await openTestDevice())!;
    crowd.restore(other);
    await expect(stranded).rejects.toThrow(/^picking: the crowd was restored onto a new device before this request was read back; ask again$/);
    const again = picking.pick(towardsMinusZ(x, SHOULDER[1]));
    crowd.update(0);
    const encoder = other.createCommandEncoder();
    crowd.encode(encoder);
    other.queue.submit([encoder.finish()]);
    crowd.update(0);
    expect(await again).toMatchObject({ id });
    crowd.destroy();
    other.destroy();
  });

  it('follows root motion applied on the GPU (Walker, mode "apply"): hit where it walked to, nothing where it started', async () => {
    const bytes = readFileSync(modelPath('Walker'));
    const walker = await loadCharacter(arrayBufferOf(bytes), { rootMotion: { mode: 'apply' } });
    const crowd = new Crowd(device!, walker, FORMATS);
    new CrowdRootMotion(crowd);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'WalkForward' });
    const start = crowd.getTransform(id).slice(12, 15);
    for (let f = 0; f < 90; f++) { // 3 s of walking
      crowd.update(1 / 30);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    const now = crowd.getTransform(id);
    const { max } = walker.bounds;
    const moved = Math.hypot(now[12] - start[0], now[14] - start[2]);
    expect(moved).toBeGreaterThan(max[1]); // walked more than its height
    const down = (x: number, z: number) => ({ origin: [x, max[1] * 3, z], direction: [0, -1, 0] });
    expect(await answer(crowd, picking.pick(down(now[12], now[14])))).toMatchObject({ id });
    expect(await answer(crowd, picking.pick(down(start[0], start[2])))).toBeNull();
    crowd.destroy();
  });
});
