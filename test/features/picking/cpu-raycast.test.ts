import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { CrowdPicking } from '../../../src/features/picking/crowd-picking';
import { intersectTriangle } from '../../../src/features/picking/cpu-raycast';
import { Crowd } from '../../../src/runtime/crowd';
import { ARM_LENGTH, FIGURE_HALF_DEPTH, SHOULDER } from '../../helpers/figure-rig';
import { openTestDevice } from '../../helpers/gpu';
import { figureCharacter, testCharacter } from '../../helpers/character';
import { settlePick } from '../../helpers/picking';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const towardsMinusZ = (x: number, y: number) => ({ origin: [x, y, 5], direction: [0, 0, -1] });

/** The GPU pick of `ray`, after the frame that records it and the update that maps it. */
function gpuPick(crowd: Crowd, picking: CrowdPicking, ray: { origin: number[]; direction: number[] }) {
  return settlePick(device!, crowd, picking.pick(ray, { maxDistance: 400 })); // depth resolves 400 x 2^-24 along the ray
}

describe('intersectTriangle', () => {
  it('hits a triangle from either face at the right parameter, and misses beside it', () => {
    const v = [0, 0, 0, 1, 0, 0, 0, 1, 0];
    expect(intersectTriangle([0.2, 0.2, 3], [0, 0, -1], v, 0, 3, 6)).toBeCloseTo(3, 12);
    expect(intersectTriangle([0.2, 0.2, -2], [0, 0, 2], v, 0, 3, 6)).toBeCloseTo(1, 12);
    expect(intersectTriangle([0.6, 0.6, 3], [0, 0, -1], v, 0, 3, 6)).toBe(-1);
    expect(intersectTriangle([0.2, 0.2, 3], [1, 0, 0], v, 0, 3, 6)).toBe(-1);
  });
});

describe.skipIf(!device)('CrowdPicking.raycast: synchronous, against the CPU-posed mesh', () => {
  it('hits a posed limb where the bind pose has nothing (with the instance id), at once, and misses it in the bind pose', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    crowd.add({ clipA: 'rest', transform: mat4.translation([0, 0, -30]) }); // another instance, out of the ray's way
    const id = crowd.add({ clipA: 'armOut' });
    const x = SHOULDER[0] + ARM_LENGTH * 0.7;
    const hits = picking.raycast(towardsMinusZ(x, SHOULDER[1]));
    expect(hits).toHaveLength(1);
    expect(hits[0].id).toBe(id);
    expect(hits[0].distance).toBeCloseTo(5 - FIGURE_HALF_DEPTH, 6);
    expect(hits[0].point[0]).toBeCloseTo(x, 6);
    expect(hits[0].point[2]).toBeCloseTo(FIGURE_HALF_DEPTH, 6);
    crowd.setAnimation(id, { clipA: 'rest', clipB: 'rest' });
    expect(picking.raycast(towardsMinusZ(x, SHOULDER[1]))).toEqual([]);
    crowd.destroy();
  });

  it('misses between the legs of a standing figure, though its bounding box is hit; hits a leg beside the gap', async () => {
    const character = await figureCharacter();
    const crowd = new Crowd(device!, character, FORMATS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'rest' });
    const { min, max } = character.bounds;
    expect(min[0] < 0 && max[0] > 0 && min[1] < 0.5 && max[1] > 0.5).toBe(true); // the ray crosses the box
    expect(picking.raycast(towardsMinusZ(0, 0.5))).toEqual([]);
    expect(picking.raycast(towardsMinusZ(0.25, 0.5)).map((h) => h.id)).toEqual([id]);
    crowd.destroy();
  });

  it('reports every instance along the ray, nearest first, each with its instance id, following setTransform and maxDistance', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const far = crowd.add({ clipA: 'rest', transform: mat4.translation([0, 0, -3]) });
    const near = crowd.add({ clipA: 'rest' });
    const hits = picking.raycast(towardsMinusZ(0, 1.5));
    expect(hits.map((h) => h.id)).toEqual([near, far]);
    expect(hits[1].distance).toBeCloseTo(8 - FIGURE_HALF_DEPTH, 6);
    expect(picking.raycast(towardsMinusZ(0, 1.5), { maxDistance: 6 }).map((h) => h.id)).toEqual([near]);
    crowd.setTransform(near, mat4.translation([10, 0, 0]));
    expect(picking.raycast(towardsMinusZ(0, 1.5)).map((h) => h.id)).toEqual([far]);
    crowd.destroy();
  });

  it('leaves out instances with a layer stack and counts them (their pose is on the GPU only)', async () => {
    const crowd = new Crowd(device!, await figureCharacter(), FORMATS);
    const picking = new CrowdPicking(crowd);
    const id = crowd.add({ clipA: 'rest' });
    crowd.setLayers(id, { layers: [{ clip: 'armOut', weight: 1 }] });
    expect(picking.raycast(towardsMinusZ(0, 1.5))).toEqual([]);
    expect(picking.raycastSkipped).toBe(1);
    crowd.setLayers(id, null);
    expect(picking.raycast(towardsMinusZ(0, 1.5)).map((h) => h.id)).toEqual([id]);
    expect(picking.raycastSkipped).toBe(0);
    expect(() => picking.raycast({ origin: [0, 0, 0], direction: [0, 0, 0] })).toThrow(/ray.direction/);
    crowd.destroy();
  });

  it('agrees with the GPU pick (the frame\'s own skinning) on a running Fox crowd: same instance, same distance', async () => {
    const fox = await testCharacter('Fox');
    const crowd = new Crowd(device!, fox, FORMATS);
    const picking = new CrowdPicking(crowd);
    [-60, 0, 60].forEach((x, i) => crowd.add({ clipA: 'Run', clipB: 'Walk', blend: 0.3 * i, timeA: i * 0.3, transform: mat4.translation([x, 0, i * -40]) }));
    crowd.update(0.37);
    const { min, max } = fox.bounds;
    const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    let hitsBoth = 0;
    const mismatched: number[][] = [];
    for (let x = -100; x <= 100; x += 10) {
      for (let y = 5; y <= 80; y += 15) {
        const ray = { origin: [x, y, 200], direction: [0.05, -0.05, -1] };
        const cpu = picking.raycast(ray, { maxDistance: 400 })[0] ?? null;
        const gpu = await gpuPick(crowd, picking, ray);
        // A ray grazing an edge may fall either side in float32 on the GPU: allowed once or twice, counted.
        if ((cpu === null) !== (gpu === null)) mismatched.push([x, y]);
        else if (cpu && gpu) {
          hitsBoth++;
          expect(cpu.id).toBe(gpu.id);
          // Measured: up to 0.09 Fox units (float32 skinning and rasterisation against float64), ~5e-4 of its size.
          expect(Math.abs(cpu.distance - gpu.distance)).toBeLessThan(1e-3 * diagonal);
        }
      }
    }
    expect(hitsBoth).toBeGreaterThan(10);
    expect(mismatched.length, `rays where one hits and the other misses: ${JSON.stringify(mismatched)}`).toBeLessThanOrEqual(2);
    crowd.destroy();
  }, 120_000);
});
