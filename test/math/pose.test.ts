import { describe, expect, it } from 'vitest';
import { composeTrsAt } from '../../src/math/affine';
import { blendPoses, createPose, jointMatrices, localToModel, type Pose } from '../../src/math/pose';
import { nlerpInto } from '../../src/math/quat';

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 12): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i], `element ${i}: [${Array.from(actual)}] vs [${Array.from(expected)}]`).toBeCloseTo(expected[i], digits);
}

/** Rotation by `degrees` about the unit axis (x, y, z) as a quaternion (x, y, z, w). */
function axisAngle(x: number, y: number, z: number, degrees: number): number[] {
  const half = (degrees * Math.PI) / 360;
  return [x * Math.sin(half), y * Math.sin(half), z * Math.sin(half), Math.cos(half)];
}

function pose(translation: number[], rotation: number[], scale: number[]): Pose {
  const p = createPose(translation.length / 3);
  p.translation.set(translation);
  p.rotation.set(rotation);
  p.scale.set(scale);
  return p;
}

/** Same rotation: q equals r or -r. */
function expectSameRotations(actual: Float64Array, expected: Float64Array): void {
  for (let o = 0; o < expected.length; o += 4) {
    const dot = actual[o] * expected[o] + actual[o + 1] * expected[o + 1] + actual[o + 2] * expected[o + 2] + actual[o + 3] * expected[o + 3];
    expectClose(actual.subarray(o, o + 4), Array.from(expected.subarray(o, o + 4), (v) => v * Math.sign(dot)));
  }
}

const a = pose([1, 2, 3, 0, 0, 0], [...axisAngle(1, 0, 0, 30), ...axisAngle(0, 1, 0, -70)], [1, 1, 1, 2, 3, 4]);
const b = pose([-1, 0, 5, 4, 4, 4], [...axisAngle(0, 0, 1, 120), ...axisAngle(0, 0.6, 0.8, 200)], [2, 2, 2, 1, 1, 1]);

describe('blendPoses', () => {
  it('w = 0 gives a, w = 1 gives b (rotation up to sign)', () => {
    const out = createPose(2);
    blendPoses(a, b, 0, out);
    expect(Array.from(out.translation)).toEqual(Array.from(a.translation));
    expect(Array.from(out.scale)).toEqual(Array.from(a.scale));
    expectSameRotations(out.rotation, a.rotation);
    blendPoses(a, b, 1, out);
    expect(Array.from(out.translation)).toEqual(Array.from(b.translation));
    expect(Array.from(out.scale)).toEqual(Array.from(b.scale));
    expectSameRotations(out.rotation, b.rotation);
  });

  it('lerps translation and scale, nlerps rotation', () => {
    const out = blendPoses(a, b, 0.25, createPose(2));
    expectClose(out.translation, [0.5, 1.5, 3.5, 1, 1, 1]);
    expectClose(out.scale, [1.25, 1.25, 1.25, 1.75, 2.5, 3.25]);
    // Hand nlerp of identity -> 90 degrees about z at w = 0.25: (0, 0, 0.25 sin45, 0.75 + 0.25 cos45), normalised.
    const one = pose([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]);
    const two = pose([0, 0, 0], axisAngle(0, 0, 1, 90), [1, 1, 1]);
    const raw = [0, 0, 0.25 * Math.SQRT1_2, 0.75 + 0.25 * Math.SQRT1_2];
    expectClose(blendPoses(one, two, 0.25, createPose(1)).rotation, raw.map((v) => v / Math.hypot(...raw)));
    // At w = 0.5 nlerp and slerp agree: 45 degrees.
    expectClose(blendPoses(one, two, 0.5, createPose(1)).rotation, axisAngle(0, 0, 1, 45));
  });

  it('takes the short path: blending toward -b gives the same result as toward b', () => {
    const negated = pose(Array.from(b.translation), Array.from(b.rotation, (v) => -v), Array.from(b.scale));
    for (const w of [0.1, 0.5, 0.9]) {
      const direct = blendPoses(a, b, w, createPose(2));
      const flipped = blendPoses(a, negated, w, createPose(2));
      expectClose(flipped.rotation, direct.rotation);
    }
    // Concretely: 0 -> 350 degrees about z goes back 10 degrees, not forward 350, so halfway is -5 degrees.
    const q = new Float64Array(4);
    nlerpInto([0, 0, 0, 1], axisAngle(0, 0, 1, 350), 0, 0.5, q);
    expectClose(q, axisAngle(0, 0, 1, -5));
  });

  it('may write into one of its inputs', () => {
    const copy = pose(Array.from(a.translation), Array.from(a.rotation), Array.from(a.scale));
    const expected = blendPoses(a, b, 0.3, createPose(2));
    blendPoses(copy, b, 0.3, copy);
    expect(Array.from(copy.rotation)).toEqual(Array.from(expected.rotation));
    expect(Array.from(copy.translation)).toEqual(Array.from(expected.translation));
  });
});

describe('composeTrsAt, localToModel and jointMatrices', () => {
  it('composes T * R * S column-major', () => {
    const m = new Float64Array(16);
    composeTrsAt([1, 2, 3], 0, axisAngle(0, 0, 1, 90), 0, [2, 3, 4], 0, m, 0);
    // Columns: R x-axis * 2 = (0, 2, 0); R y-axis * 3 = (-3, 0, 0); z-axis * 4; translation.
    expectClose(m, [0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1]);
  });

  // Chain: node 0 translate (1, 0, 0); node 1 rotates 90 degrees about z at (0, 2, 0); node 2 scales 2 at (1, 0, 0).
  const chain = pose([1, 0, 0, 0, 2, 0, 1, 0, 0], [0, 0, 0, 1, ...axisAngle(0, 0, 1, 90), 0, 0, 0, 1], [1, 1, 1, 1, 1, 1, 2, 2, 2]);
  const parents = Int32Array.of(-1, 0, 1);
  const model0 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1];
  const model1 = [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 0, 1];
  // (1, 0, 0) in node 1's frame is (1, 2, 0) + Rz90 (1, 0, 0) = (1, 3, 0).
  const model2 = [0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 1, 3, 0, 1];

  it('walks a 3-node chain parent-first', () => {
    const model = localToModel(parents, chain, new Float64Array(48));
    expectClose(model.subarray(0, 16), model0);
    expectClose(model.subarray(16, 32), model1);
    expectClose(model.subarray(32, 48), model2);
  });

  it('treats every root independently', () => {
    const model = localToModel(Int32Array.of(-1, -1, 1), chain, new Float64Array(48));
    expectClose(model.subarray(16, 32), [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1]);
  });

  it('joint matrices are model * inverseBind, in skin joint order', () => {
    const model = localToModel(parents, chain, new Float64Array(48));
    const inverseBind = Float64Array.of(
      1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, // skin joint 0 (node 2): translate (0, -1, 0)
      1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1, // skin joint 1 (node 0): inverse of its model matrix
    );
    const out = jointMatrices(Int32Array.of(2, 0), inverseBind, model, new Float64Array(32));
    // model2 * T(0, -1, 0): translation (1, 3, 0) - (-2, 0, 0) = (3, 3, 0).
    expectClose(out.subarray(0, 16), [0, 2, 0, 0, -2, 0, 0, 0, 0, 0, 2, 0, 3, 3, 0, 1]);
    expectClose(out.subarray(16, 32), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  });
});
