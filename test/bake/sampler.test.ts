import { describe, expect, it } from 'vitest';
import { buildRig } from '../../src/bake/build-rig';
import type { Channel, Interpolation, TrsPath } from '../../src/bake/rig';
import { sampleChannel, sampleClip } from '../../src/bake/sampler';
import { skinnedModel } from '../helpers/gltf-builder';
import { loadModel } from '../helpers/models';
import { createPose } from '../../src/math/pose';

function channel(path: TrsPath, interpolation: Interpolation, times: number[], values: number[]): Channel {
  return { node: 0, path, interpolation, times: Float32Array.from(times), values: Float32Array.from(values) };
}

function sample(ch: Channel, t: number): number[] {
  const out = new Float64Array(ch.path === 'rotation' ? 4 : 3);
  sampleChannel(ch, t, out, 0);
  return Array.from(out);
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 6): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i], `component ${i}: [${Array.from(actual)}] vs [${Array.from(expected)}]`).toBeCloseTo(expected[i], digits);
}

/** Rotation by `degrees` about +z as a quaternion (x, y, z, w). */
function zRotation(degrees: number): number[] {
  const half = (degrees * Math.PI) / 360;
  return [0, 0, Math.sin(half), Math.cos(half)];
}

describe('sampleChannel', () => {
  it('STEP holds each key until the next', () => {
    const ch = channel('translation', 'STEP', [0, 1, 2], [0, 0, 0, 1, 2, 3, 5, 5, 5]);
    expect(sample(ch, 0.5)).toEqual([0, 0, 0]);
    expect(sample(ch, 1)).toEqual([1, 2, 3]);
    expect(sample(ch, 1.999)).toEqual([1, 2, 3]);
    expect(sample(ch, 2)).toEqual([5, 5, 5]);
  });

  it('LINEAR interpolates translation and scale linearly', () => {
    const ch = channel('scale', 'LINEAR', [0, 2, 3], [0, 0, 0, 4, 8, -4, 4, 8, 0]);
    expect(sample(ch, 0.25)).toEqual([0.5, 1, -0.5]);
    expect(sample(ch, 1)).toEqual([2, 4, -2]);
    expect(sample(ch, 2.75)).toEqual([4, 8, -1]);
  });

  it('LINEAR rotation is a slerp: halfway between 0 and 90 degrees about z is 45 degrees', () => {
    const ch = channel('rotation', 'LINEAR', [0, 1], [...zRotation(0), ...zRotation(90)]);
    expectClose(sample(ch, 0.5), [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)], 7);
    // Slerp moves at constant angular speed (an nlerp would give 20.7 degrees at s = 0.25).
    expectClose(sample(ch, 0.25), zRotation(22.5), 7);
  });

  it('LINEAR rotation takes the short path when the second key is the negated quaternion', () => {
    const flipped = channel('rotation', 'LINEAR', [0, 1], [...zRotation(0), ...zRotation(90).map((v) => -v)]);
    const [x, y, z, w] = sample(flipped, 0.5);
    // Same rotation as 45 degrees (q or -q); the long way round would be 45 - 180 = -135 degrees.
    const sign = Math.sign(w);
    expectClose([x * sign, y * sign, z * sign, w * sign], zRotation(45), 7);
    expectClose(sample(flipped, 0.25).map((v) => v * Math.sign(sample(flipped, 0.25)[3])), zRotation(22.5), 7);
  });

  it('CUBICSPLINE translation is the Hermite spline with tangents scaled by the key interval', () => {
    // Keys at 1 s and 3 s (interval 2). Per key: in-tangent, value, out-tangent.
    const ch = channel('translation', 'CUBICSPLINE', [1, 3], [
      9, 9, 9, /**/ 0, 0, 0, /**/ 1, 0, 2,
      3, 1, 0, /**/ 4, 2, 0, /**/ 9, 9, 9,
    ]);
    // s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125;
    // p = 0.5 v0 + 0.125 * 2 * b0 + 0.5 v1 - 0.125 * 2 * a1.
    expectClose(sample(ch, 2), [0.25 + 2 - 0.75, 1 - 0.25, 0.5], 12);
    // s = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875.
    expectClose(sample(ch, 1.5), [0.28125 + 0.625 - 0.28125, 0.3125 - 0.09375, 0.5625], 12);
    expectClose(sample(ch, 1), [0, 0, 0], 12);
    expectClose(sample(ch, 3), [4, 2, 0], 12);
  });

  it('CUBICSPLINE rotation is normalised', () => {
    const ch = channel('rotation', 'CUBICSPLINE', [0, 1], [
      0, 0, 0, 0, /**/ ...zRotation(0), /**/ 0, 0, 1, 0,
      0, 0, 1, 0, /**/ ...zRotation(90), /**/ 0, 0, 0, 0,
    ]);
    const q = sample(ch, 0.5);
    // Unnormalised Hermite at s = 0.5: 0.5 q0 + 0.125 b0 + 0.5 q1 - 0.125 a1 = (0, 0, 0.5 sin45, 0.5 + 0.5 cos45).
    const raw = [0, 0, 0.5 * Math.SQRT1_2, 0.5 + 0.5 * Math.SQRT1_2];
    const length = Math.hypot(...raw);
    expectClose(q, raw.map((v) => v / length), 7); // keys are stored as float32
    expect(Math.hypot(...q)).toBeCloseTo(1, 12);
  });

  it('holds the first value before the first key and the last value after the last key', () => {
    const linear = channel('translation', 'LINEAR', [0.5, 1], [1, 2, 3, 4, 5, 6]);
    expect(sample(linear, 0)).toEqual([1, 2, 3]);
    expect(sample(linear, -3)).toEqual([1, 2, 3]);
    expect(sample(linear, 1)).toEqual([4, 5, 6]);
    expect(sample(linear, 7)).toEqual([4, 5, 6]);
    const cubic = channel('scale', 'CUBICSPLINE', [0.5, 1], [9, 9, 9, 1, 2, 3, 9, 9, 9, 8, 8, 8, 4, 5, 6, 8, 8, 8]);
    expect(sample(cubic, 0.1)).toEqual([1, 2, 3]); // the value, not the in-tangent
    expect(sample(cubic, 2)).toEqual([4, 5, 6]);
    const single = channel('translation', 'LINEAR', [0.3], [7, 8, 9]);
    expect(sample(single, 0)).toEqual([7, 8, 9]);
    expect(sample(single, 1)).toEqual([7, 8, 9]);
  });
});

describe('sampleClip', () => {
  it('wraps time into the clip and keeps the rest TRS of what the clip does not animate', () => {
    // skinnedModel: node 'arm' (rig node 1, rest translation (0, 1, 0)) rotates 0 -> 90 degrees about z over 1 s.
    const rig = buildRig(skinnedModel().builder.build());
    const pose = sampleClip(rig, 0, 1.25, createPose(rig.nodes.count));
    expectClose(pose.rotation.subarray(4, 8), zRotation(22.5), 7);
    expect(Array.from(pose.translation)).toEqual([0, 0, 0, 0, 1, 0]);
    expect(Array.from(pose.rotation.subarray(0, 4))).toEqual([0, 0, 0, 1]);
    expect(Array.from(pose.scale)).toEqual([1, 1, 1, 1, 1, 1]);
    expectClose(sampleClip(rig, 0, -0.5, createPose(rig.nodes.count)).rotation.subarray(4, 8), zRotation(45), 7);
  });
});

// ---- InterpolationTest.glb: an independent reference written from the glTF spec -------------

type Quat = [number, number, number, number];
const quatMul = (a: Quat, b: Quat): Quat => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];

/** Slerp as qa * (qa^-1 qb)^s via axis and angle (a different formula from the sampler's). */
function slerpByPower(qa: Quat, qb: Quat, s: number): Quat {
  let d = quatMul([-qa[0], -qa[1], -qa[2], qa[3]], qb);
  if (d[3] < 0) d = d.map((v) => -v) as Quat;
  const half = Math.acos(Math.min(1, d[3]));
  if (half < 1e-9) return qa;
  const k = Math.sin(s * half) / Math.sin(half);
  return quatMul(qa, [d[0] * k, d[1] * k, d[2] * k, Math.cos(s * half)]);
}

/** Cubic Hermite segment evaluated as a Bezier curve by de Casteljau. */
function bezier(p0: number, p1: number, p2: number, p3: number, s: number): number {
  const lerp = (a: number, b: number) => a + (b - a) * s;
  const [a, b, c] = [lerp(p0, p1), lerp(p1, p2), lerp(p2, p3)];
  return lerp(lerp(a, b), lerp(b, c));
}

/** glTF value of a channel at time t, computed from its raw keys. */
function reference(ch: Channel, t: number): number[] {
  const n = ch.path === 'rotation' ? 4 : 3;
  const cubic = ch.interpolation === 'CUBICSPLINE';
  const key = (k: number, part: 0 | 1 | 2) => Array.from(ch.values.subarray(((cubic ? 3 * k + part : k) * n), (cubic ? 3 * k + part : k) * n + n));
  const times = Array.from(ch.times);
  if (t <= times[0]) return key(0, 1);
  if (t >= times[times.length - 1]) return key(times.length - 1, 1);
  let k = 0;
  while (times[k + 1] <= t) k++;
  const dt = times[k + 1] - times[k];
  const s = (t - times[k]) / dt;
  if (ch.interpolation === 'STEP') return key(k, 1);
  if (cubic) {
    const [v0, b0, a1, v1] = [key(k, 1), key(k, 2), key(k + 1, 0), key(k + 1, 1)];
    const p = v0.map((_, c) => bezier(v0[c], v0[c] + (dt * b0[c]) / 3, v1[c] - (dt * a1[c]) / 3, v1[c], s));
    const length = n === 4 ? Math.hypot(...p) : 1;
    return p.map((v) => v / length);
  }
  if (n === 4) return slerpByPower(key(k, 1) as Quat, key(k + 1, 1) as Quat, s);
  return key(k, 1).map((v, c) => v + (key(k + 1, 1)[c] - v) * s);
}

describe('sampleClip on InterpolationTest.glb', async () => {
  const { rig } = await loadModel('InterpolationTest');

  it('has the 9 one-channel clips of the file', () => {
    expect(rig.clips.map((c) => `${c.name}: ${c.channels[0].interpolation} ${c.channels[0].path}`)).toEqual([
      'Step Scale: STEP scale', 'Linear Scale: LINEAR scale', 'CubicSpline Scale: CUBICSPLINE scale',
      'Step Rotation: STEP rotation', 'CubicSpline Rotation: CUBICSPLINE rotation', 'Linear Rotation: LINEAR rotation',
      'Step Translation: STEP translation', 'CubicSpline Translation: CUBICSPLINE translation', 'Linear Translation: LINEAR translation',
    ]);
  });

  it.each(rig.clips.map((clip, index) => ({ name: clip.name, index })))('$name matches the reference computed from its keys', ({ index }) => {
    const clip = rig.clips[index];
    const ch = clip.channels[0];
    const n = ch.path === 'rotation' ? 4 : 3;
    const pose = createPose(rig.nodes.count);
    const times = [0, 0.01, 0.2, 0.3, 0.45, 0.6, 0.79, 0.9, 1.1, 1.27, 1.4, 1.6, clip.duration * 0.999];
    for (const key of ch.times) times.push(key, key + 1e-3);
    for (const t of times.filter((time) => time < clip.duration)) {
      sampleClip(rig, index, t, pose);
      const target = ch.path === 'translation' ? pose.translation : ch.path === 'rotation' ? pose.rotation : pose.scale;
      const actual = Array.from(target.subarray(ch.node * n, ch.node * n + n));
      const expected = reference(ch, t);
      const sign = n === 4 && actual[3] * expected[3] + actual[2] * expected[2] < 0 ? -1 : 1;
      expectClose(actual, expected.map((v) => v * sign), 5);
    }
  });

  it('gives the hand-derived values at chosen times', () => {
    const at = (clipName: string, t: number) => {
      const index = rig.clips.findIndex((c) => c.name === clipName);
      const ch = rig.clips[index].channels[0];
      const pose = sampleClip(rig, index, t, createPose(rig.nodes.count));
      const n = ch.path === 'rotation' ? 4 : 3;
      const target = ch.path === 'translation' ? pose.translation : ch.path === 'rotation' ? pose.rotation : pose.scale;
      return Array.from(target.subarray(ch.node * n, ch.node * n + n));
    };
    // Scale keys: 1 at 1/24 s, 0.5 at 10/24 s, 1 at 21/24 s, ...
    expectClose(at('Step Scale', 0.5), [0.5, 0.5, 0.5]);
    expectClose(at('Step Scale', 0.4), [1, 1, 1]);
    expectClose(at('Linear Scale', 5.5 / 24), [0.75, 0.75, 0.75], 5);
    expectClose(at('Linear Scale', 0), [1, 1, 1]); // before the first key
    // Rotation keys: 0, -45, -90, -135, -180 degrees about z at 0, 10/24, 21/24, 30/24, 41/24 s.
    expectClose(at('Step Rotation', 0.5), zRotation(-45), 4);
    expectClose(at('Linear Rotation', 5 / 24), zRotation(-22.5), 4);
    expectClose(at('Linear Rotation', 25.5 / 24), zRotation(-112.5), 4);
    // Translation keys (y): 6.665, 10, 6, 10, 6 at 0, 11/24, 20/24, 31/24, 41/24 s (STEP); LINEAR at 0, 10/24, 20/24, ...
    expect(at('Step Translation', 0.6)[1]).toBeCloseTo(10, 4);
    expect(at('Step Translation', 0.9)[1]).toBeCloseTo(6, 4);
    expect(at('Linear Translation', 15 / 24)[1]).toBeCloseTo(8, 4);
    // CUBICSPLINE translation has zero tangents: halfway between keys is the mean (smoothstep at s = 0.5).
    expect(at('CubicSpline Translation', 15 / 24)[1]).toBeCloseTo(8, 4);
    // Zero tangents, s = 0.25: smoothstep gives 0.15625 of the way from 10 to 6.
    expect(at('CubicSpline Translation', 12.5 / 24)[1]).toBeCloseTo(10 - 4 * 0.15625, 4);
  });
});
