import { describe, expect, it } from 'vitest';
import {
  DQ_INFLUENCE_ORDER, dualQuaternionJoints, jointToDualQuaternion, polarRotation, skinPositionsDualQuaternion, skinVertexDualQuaternion,
} from '../../src/anim/dual-quaternion';
import { CpuPoser } from '../../src/anim/evaluate';
import { skinPositions } from '../../src/anim/skinning';
import { buildRig } from '../../src/bake/build-rig';
import { sampleClip } from '../../src/bake/sampler';
import { multiplyAt } from '../../src/math/affine';
import { seededRandom } from '../helpers/prng';
import { MIDDLE_RING, ringArea, ringTilt, TWIST_DEGREES, twistRigModel } from '../helpers/twist-rig';

/** Column-major 4x4 of a rotation of `angle` radians about unit `axis`, then translation `t`. */
function rigid(axis: number[], angle: number, t: number[]): number[] {
  const [x, y, z] = axis;
  const c = Math.cos(angle), s = Math.sin(angle), k = 1 - c;
  return [
    c + x * x * k, y * x * k + z * s, z * x * k - y * s, 0,
    x * y * k - z * s, c + y * y * k, z * y * k + x * s, 0,
    x * z * k + y * s, y * z * k - x * s, c + z * z * k, 0,
    t[0], t[1], t[2], 1,
  ];
}

/** a * b, column-major 4x4s. */
function mul(a: number[], b: number[]): number[] {
  const out = new Float64Array(16);
  multiplyAt(a, 0, b, 0, out, 0);
  return Array.from(out);
}

/** Column-major 4x4 with the row-major 3x3 `m` as its linear part. */
function linear(m: number[]): number[] {
  return [m[0], m[3], m[6], 0, m[1], m[4], m[7], 0, m[2], m[5], m[8], 0, 0, 0, 0, 1];
}

function transform(m: ArrayLike<number>, p: number[]): number[] {
  return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
}

/** One vertex with influences (joint, weight) pairs, skinned with records (16 per joint). */
function skinOne(records: Float64Array, influences: [number, number][], p: number[], n?: number[]) {
  const count = influences.length > 4 ? 8 : 4;
  const joints = new Uint16Array(count), weights = new Float32Array(count);
  influences.forEach(([j, w], k) => { joints[k] = j; weights[k] = w; });
  const position = new Float64Array(3), normal = new Float64Array(3);
  skinVertexDualQuaternion(records, joints, weights, 0, count, p, 0, position, 0, n, 0, normal);
  return { position: Array.from(position), normal: Array.from(normal) };
}

const expectClose = (actual: number[], expected: number[], digits = 12) => actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i], digits));

describe('jointToDualQuaternion: joint matrix -> (q, rows of [S | t])', () => {
  it('identity: q = (0, 0, 0, 1), S = I, t = 0', () => {
    const out = new Float64Array(16);
    jointToDualQuaternion(rigid([0, 0, 1], 0, [0, 0, 0]), 0, out, 0);
    expectClose(Array.from(out), [0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
  });

  it('90 degrees about z, then (1, 2, 3): q = (0, 0, sin 45, cos 45), S = I, t in the w column', () => {
    const out = new Float64Array(16);
    jointToDualQuaternion(rigid([0, 0, 1], Math.PI / 2, [1, 2, 3]), 0, out, 0);
    expectClose(Array.from(out), [0, 0, Math.SQRT1_2, Math.SQRT1_2, 1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3]);
  });

  it('180 degrees (w = 0, the non-trace branches of Shepperd\'s method) about x, y and z', () => {
    for (const axis of [[1, 0, 0], [0, 1, 0], [0, 0, 1]]) {
      const out = new Float64Array(16);
      jointToDualQuaternion(rigid(axis, Math.PI, [0, 0, 0]), 0, out, 0);
      expectClose(Array.from(out.subarray(0, 4)).map(Math.abs), [...axis, 0]);
    }
  });

  it('uniform scale 100 (RobotExpressive\'s nodes): S = 100 I, q the rotation alone', () => {
    const m = mul(rigid([0.6, 0.8, 0], 1.1, [4, 5, 6]), linear([100, 0, 0, 0, 100, 0, 0, 0, 100]));
    const out = new Float64Array(16);
    jointToDualQuaternion(m, 0, out, 0);
    const q = new Float64Array(16);
    jointToDualQuaternion(rigid([0.6, 0.8, 0], 1.1, [0, 0, 0]), 0, q, 0);
    expectClose(Array.from(out.subarray(0, 4)), Array.from(q.subarray(0, 4)));
    expectClose(Array.from(out.subarray(4)), [100, 0, 0, 4, 0, 100, 0, 5, 0, 0, 100, 6], 9);
  });

  it('scale and shear: S symmetric positive definite, R S = A, on 200 random matrices', () => {
    const random = seededRandom(5);
    const r = new Float64Array(9);
    for (let i = 0; i < 200; i++) {
      // A = R0 * P with P symmetric positive definite (a scaled, sheared joint).
      const b = Array.from({ length: 9 }, () => random() * 2 - 1);
      const p = [0, 1, 2].flatMap((row) => [0, 1, 2].map((col) => b[row] * b[col] + b[3 + row] * b[3 + col] + b[6 + row] * b[6 + col] + (row === col ? 0.2 : 0)));
      const axis = [random() - 0.5, random() - 0.5, random() - 0.5];
      const len = Math.hypot(...axis);
      const m = mul(rigid(axis.map((v) => v / len), random() * 6, [random(), random(), random()]), linear(p));
      const out = new Float64Array(16);
      jointToDualQuaternion(m, 0, out, 0);
      const s = [0, 1, 2].flatMap((row) => [0, 1, 2].map((col) => out[4 + row * 4 + col]));
      for (let row = 0; row < 3; row++) for (let col = 0; col < 3; col++) expect(s[row * 3 + col]).toBeCloseTo(s[col * 3 + row], 9);
      expectClose(s, p, 9);
      expect(polarRotation([0, 1, 2].flatMap((row) => [0, 1, 2].map((col) => m[col * 4 + row])), r)).toBe(true);
      // And the record reproduces the matrix on a point.
      const point = [random(), random(), random()];
      expectClose(skinOne(dualQuaternionJoints(m), [[0, 1]], point).position, transform(m, point), 9);
    }
  });

  it('a reflection: det R = +1 and S takes the sign, R S = A', () => {
    const m = mul(rigid([0, 1, 0], 0.7, [1, 0, 0]), linear([-1, 0, 0, 0, 1, 0, 0, 0, 1]));
    const out = new Float64Array(16);
    jointToDualQuaternion(m, 0, out, 0);
    expect(Math.hypot(...out.subarray(0, 4))).toBeCloseTo(1, 12);
    expectClose(skinOne(out, [[0, 1]], [0.3, -0.2, 0.5]).position, transform(m, [0.3, -0.2, 0.5]));
  });

  it('a degenerate joint (scale 0 on an axis, or 0 altogether): q identity, S the whole 3x3, still exact alone', () => {
    for (const scale of [[1, 0, 1], [0, 0, 0]]) {
      const m = mul(rigid([1, 0, 0], 0.5, [1, 2, 3]), linear([scale[0], 0, 0, 0, scale[1], 0, 0, 0, scale[2]]));
      const out = new Float64Array(16);
      jointToDualQuaternion(m, 0, out, 0);
      expectClose(Array.from(out.subarray(0, 4)), [0, 0, 0, 1]);
      expectClose(skinOne(out, [[0, 1]], [0.3, -0.2, 0.5]).position, transform(m, [0.3, -0.2, 0.5]));
      expect(out.every(Number.isFinite)).toBe(true);
    }
  });
});

describe('skinVertexDualQuaternion: two-phase dual-quaternion blending', () => {
  const a = rigid([0, 0, 1], 0.4, [1, 0, 0]);
  const b = rigid([0, 1, 0], -1.2, [0, 2, 0]);
  const records = dualQuaternionJoints([...a, ...b]);

  it('one influence (or all weight on one joint) is exactly the joint matrix, normals rotated', () => {
    const p = [0.3, 0.7, -0.1];
    expectClose(skinOne(records, [[1, 1]], p).position, transform(b, p));
    expectClose(skinOne(records, [[0, 0], [1, 1]], p).position, transform(b, p));
    const n = skinOne(records, [[0, 1]], p, [0, 1, 0]).normal;
    expectClose(n, [-Math.sin(0.4), Math.cos(0.4), 0]);
  });

  it('two joints with the same transform give that transform whatever the weights', () => {
    const same = dualQuaternionJoints([...a, ...a]);
    const p = [0.3, 0.7, -0.1];
    expectClose(skinOne(same, [[0, 0.3], [1, 0.7]], p).position, transform(a, p));
  });

  it('antipodality: negating a joint\'s quaternion changes nothing (it is flipped to the first influence\'s hemisphere)', () => {
    const flipped = records.slice();
    for (let i = 16; i < 20; i++) flipped[i] = -flipped[i];
    const p = [0.3, 0.7, -0.1];
    const expected = skinOne(records, [[0, 0.4], [1, 0.6]], p);
    const actual = skinOne(flipped, [[0, 0.4], [1, 0.6]], p);
    expectClose(actual.position, expected.position);
    // Without the flip the blend would pass through the long way round: not the same point.
    const q = records.subarray(16, 20);
    expect(q[0] * records[0] + q[1] * records[1] + q[2] * records[2] + q[3] * records[3]).toBeGreaterThan(0);
  });

  it('the blend of a pure rotation about one axis is the rotation by the weighted angle (no shrinking)', () => {
    // Joint 1: 150 degrees about y through the origin; 50/50 gives 75 degrees and keeps the radius.
    const turn = dualQuaternionJoints([...rigid([0, 1, 0], 0, [0, 0, 0]), ...rigid([0, 1, 0], (150 * Math.PI) / 180, [0, 0, 0])]);
    const { position } = skinOne(turn, [[0, 0.5], [1, 0.5]], [1, 0, 0]);
    const angle = (75 * Math.PI) / 180;
    expectClose(position, [Math.cos(angle), 0, -Math.sin(angle)]);
  });

  it('scale is blended linearly first (two-phase): joints scaled 1 and 3, 50/50, scale a point by 2', () => {
    const scaled = dualQuaternionJoints([...rigid([0, 0, 1], 0, [0, 0, 0]), ...linear([3, 0, 0, 0, 3, 0, 0, 0, 3])]);
    expectClose(skinOne(scaled, [[0, 0.5], [1, 0.5]], [1, 2, 3]).position, [2, 4, 6]);
  });

  it('8 influences are visited JOINTS_0[0], JOINTS_1[0], JOINTS_0[1], ... (the vertex shader\'s order): the pivot is the first non-zero of that order', () => {
    expect(DQ_INFLUENCE_ORDER[8]).toEqual([0, 4, 1, 5, 2, 6, 3, 7]);
    // Three joints 0, 170 and 340 degrees about z: the result depends on which one is the pivot.
    const turns = dualQuaternionJoints([0, 170, 340].flatMap((deg) => rigid([0, 0, 1], (deg * Math.PI) / 180, [0, 0, 0])));
    const joints = new Uint16Array([0, 0, 0, 0, 2, 1, 0, 0]), weights = new Float32Array([0, 0.3, 0, 0, 0.4, 0.3, 0, 0]);
    const out = new Float64Array(3);
    skinVertexDualQuaternion(turns, joints, weights, 0, 8, [1, 0, 0], 0, out, 0);
    // Order: k0 (w 0, skipped), k4 (joint 2, pivot: 340 = -20 degrees), k1 (joint 0), k5 (joint 1).
    // Sign-aligned to -20 degrees: 0 and 170 (= -190) degrees: the blend angle is 0.4 (-20) + 0.3 (0) + 0.3 (-190) = -65.
    const expected = skinOne(dualQuaternionJoints([0, 170, 340].flatMap((deg) => rigid([0, 0, 1], (deg * Math.PI) / 180, [0, 0, 0]))), [[2, 0.4], [0, 0.3], [1, 0.3]], [1, 0, 0]);
    expectClose(Array.from(out), expected.position);
    expect(Math.atan2(out[1], out[0]) * 180 / Math.PI).toBeLessThan(-30);
  });
});

describe('the twist rig: a cylinder, its middle ring 50/50 between two joints, one twisted 150 degrees', () => {
  const rig = buildRig(twistRigModel().builder.build());
  const poser = new CpuPoser(rig, (clip, t, out) => sampleClip(rig, clip, t, out));
  const prim = rig.primitives[0];

  function skinned(time: number) {
    poser.evaluate({ clipA: 0, timeA: time });
    const joints = poser.jointMatrices(0);
    return {
      linear: skinPositions(prim, joints, new Float64Array(prim.vertexCount * 3)),
      dq: skinPositionsDualQuaternion(prim, dualQuaternionJoints(joints), new Float64Array(prim.vertexCount * 3)),
    };
  }

  it('at rest both methods give the mesh as bound', () => {
    const { linear, dq } = skinned(0);
    for (let i = 0; i < linear.length; i++) {
      expect(linear[i]).toBeCloseTo(prim.positions[i], 6);
      expect(dq[i]).toBeCloseTo(prim.positions[i], 6);
    }
  });

  it('twisted: linear skinning collapses the middle cross-section to cos^2(75 deg) of its area, dual quaternions keep it', () => {
    const rest = ringArea(prim.positions);
    const { linear, dq } = skinned(1.5);
    const linearRatio = ringArea(linear) / rest;
    const dqRatio = ringArea(dq) / rest;
    console.log(`twist rig, ${TWIST_DEGREES} degrees, middle ring (${MIDDLE_RING}) area ratio: linear ${linearRatio.toFixed(4)}, dual quaternion ${dqRatio.toFixed(4)}`);
    expect(linearRatio).toBeCloseTo(Math.cos((75 * Math.PI) / 180) ** 2, 4);
    expect(dqRatio).toBeCloseTo(1, 6);
    expect(ringTilt(dq)).toBeLessThan(1e-9);
  });
});
