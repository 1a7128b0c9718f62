import { describe, expect, it } from 'vitest';
import { animationStep, distanceForPixels, frustumPlanes, insideAll, instanceBounds, lodLevel, NEVER, poseDue, projectionScale } from '../../../src/runtime/culling/cull-math';
import { lookAt } from '../../helpers/render';

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

describe('cull-math: the TypeScript twin of shaders/culling/cull.wgsl', () => {
  it('frustumPlanes of the identity matrix: the clip box x, y in [-1, 1], z in [0, 1]', () => {
    const planes = new Float64Array(24);
    frustumPlanes(IDENTITY, planes);
    expect(Array.from(planes)).toEqual([1, 0, 0, 1, -1, 0, 0, 1, 0, 1, 0, 1, 0, -1, 0, 1, 0, 0, 1, 0, 0, 0, -1, 1]);
  });

  it('a box is inside when it reaches the inner side of every plane, by its exact oriented extent', () => {
    const planes = new Float64Array(24);
    frustumPlanes(IDENTITY, planes);
    const unit = [-0.1, -0.1, -0.1, 0.1, 0.1, 0.1];
    const at = (x: number, y: number, z: number, s = 1) => [s, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0, x, y, z, 1];
    expect(insideAll(planes, instanceBounds(at(0, 0, 0.5), unit, [0, 0, 0]))).toBe(true);
    expect(insideAll(planes, instanceBounds(at(1.09, 0, 0.5), unit, [0, 0, 0]))).toBe(true); // reaches x = 0.99
    expect(insideAll(planes, instanceBounds(at(1.11, 0, 0.5), unit, [0, 0, 0]))).toBe(false);
    expect(insideAll(planes, instanceBounds(at(1.3, 0, 0.5, 3), unit, [0, 0, 0]))).toBe(true); // scaled 3x: reaches 1.0
    expect(insideAll(planes, instanceBounds(at(0, 0, -0.2), unit, [0, 0, 0]))).toBe(false); // behind the near plane
    // Rotated 45 degrees about z, the box's x extent grows to 0.1 * sqrt(2).
    const c = Math.SQRT1_2;
    const rotated = [c, c, 0, 0, -c, c, 0, 0, 0, 0, 1, 0, 1.13, 0, 0.5, 1];
    expect(insideAll(planes, instanceBounds(rotated, unit, [0, 0, 0]))).toBe(true);
  });

  it('instanceBounds: distance to the bounding sphere (0 inside it) and the largest column norm as scale', () => {
    const b = instanceBounds([2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1], [-1, -1, -1, 1, 1, 1], [0, 0, 0]);
    expect(b.centre).toEqual([10, 0, 0]);
    expect(b.scale).toBe(2);
    expect(b.distance).toBeCloseTo(10 - Math.sqrt(4 + 1 + 1), 12);
    expect(instanceBounds(IDENTITY, [-1, -1, -1, 1, 1, 1], [0.5, 0, 0]).distance).toBe(0);
  });

  it('projectionScale is cot(fovY / 2) for a perspective camera; distanceForPixels inverts the projection', () => {
    const { viewProjection } = lookAt([3, 4, 5], [0, 1, 0], { fovY: 1 });
    expect(projectionScale(viewProjection)).toBeCloseTo(1 / Math.tan(0.5), 5);
    // 2 units seen at 100 units with cot = 2 on a 1000-pixel view span 2 * 2 / 100 * 500 = 20 pixels.
    expect(distanceForPixels(2, 20, 2, 1000)).toBe(100);
    expect(distanceForPixels(2, 0, 2, 1000)).toBe(NEVER);
  });

  it('lodLevel counts the thresholds reached; animationStep and poseDue as documented', () => {
    const thresholds = [10, 20, 40, NEVER];
    expect([0, 9.9, 10, 25, 40, 1e9].map((d) => lodLevel(d, thresholds, 4))).toEqual([0, 0, 1, 2, 3, 3]);
    expect(lodLevel(1e9, thresholds, 2)).toBe(1);
    expect([0, 5, 10, 50].map((d) => animationStep(d, [5, 10]))).toEqual([1, 2, 4, 4]);
    // Step 4, slot 3: due on frames 1, 5, 9 by phase; or when stale; or when the slot changed hands.
    expect([1, 2, 3, 4, 5].map((f) => poseDue(f, 3, 4, f - 1, false))).toEqual([true, false, false, false, true]);
    expect(poseDue(7, 3, 4, 2, false)).toBe(true); // 5 frames old
    expect(poseDue(6, 3, 4, 5, true)).toBe(true);
    expect(poseDue(6, 3, 1, 5, false)).toBe(true);
  });
});
