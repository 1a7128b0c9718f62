import { describe, expect, it } from 'vitest';
import { CpuPoser, type ClipSampler } from '../../src/anim/evaluate';
import { StackEvaluator, weightedAverageStack, type CpuLayerStack } from '../../src/anim/layers';
import { sampleLut } from '../../src/anim/lut';
import { buildMask } from '../../src/anim/masks';
import { bake } from '../../src/bake/bake';
import type { RigNodes } from '../../src/bake/rig';
import { sampleClip } from '../../src/bake/sampler';
import { loadModel } from '../helpers/models';
import { blendPoses, createPose, type Pose } from '../../src/math/pose';

/**
 * Layered blending (src/anim/layers.ts) on a 3-node chain with a table sampler: each clip is one
 * hand-chosen pose, and the sample time is added to node 0's translation y (so times are seen to
 * reach the sampler). Every expected number below is worked out by hand from the table.
 */

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 12): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(actual[i], `element ${i}: [${Array.from(actual)}] vs [${Array.from(expected)}]`).toBeCloseTo(expected[i], digits);
}

/** Rotation by `degrees` about the unit axis (x, y, z) as a quaternion (x, y, z, w). */
function axisAngle(x: number, y: number, z: number, degrees: number): number[] {
  const half = (degrees * Math.PI) / 360;
  return [x * Math.sin(half), y * Math.sin(half), z * Math.sin(half), Math.cos(half)];
}
const rz = (degrees: number) => axisAngle(0, 0, 1, degrees);
const rx = (degrees: number) => axisAngle(1, 0, 0, degrees);
const ID = [0, 0, 0, 1];
const S = Math.SQRT1_2;
const sin = (degrees: number) => Math.sin((degrees * Math.PI) / 180);
const cos = (degrees: number) => Math.cos((degrees * Math.PI) / 180);
const normalised = (q: number[]) => q.map((v) => v / Math.hypot(...q));

/** A 3-node pose from per-node [t, r, s]. */
function pose(...nodes: [number[], number[], number[]][]): Pose {
  const p = createPose(nodes.length);
  nodes.forEach(([t, r, s], j) => {
    p.translation.set(t, j * 3);
    p.rotation.set(r, j * 4);
    p.scale.set(s, j * 3);
  });
  return p;
}

const node = (p: Pose, j: number) => ({
  t: Array.from(p.translation.subarray(j * 3, j * 3 + 3)),
  r: Array.from(p.rotation.subarray(j * 4, j * 4 + 4)),
  s: Array.from(p.scale.subarray(j * 3, j * 3 + 3)),
});

function expectNode(p: Pose, j: number, t: number[], r: number[], s: number[], digits = 12): void {
  const n = node(p, j);
  expectClose(n.t, t, digits);
  expectClose(n.r, r, digits);
  expectClose(n.s, s, digits);
}

function expectSamePose(actual: Pose, expected: Pose): void {
  expect(Array.from(actual.translation)).toEqual(Array.from(expected.translation));
  expect(Array.from(actual.rotation)).toEqual(Array.from(expected.rotation));
  expect(Array.from(actual.scale)).toEqual(Array.from(expected.scale));
}

// The rig: 0 hips (root), 1 spine (child of 0), 2 head (child of 1).
// Rest: node 0 at the origin; node 1 at (0, 1, 0) turned 90 degrees about z; node 2 at (0, 1, 0) scaled 2.
const rest = pose([[0, 0, 0], ID, [1, 1, 1]], [[0, 1, 0], rz(90), [1, 1, 1]], [[0, 1, 0], ID, [2, 2, 2]]);
const nodes: RigNodes = {
  count: 3,
  names: ['hips', 'spine', 'head'],
  gltfIndex: Int32Array.of(0, 1, 2),
  isJoint: Uint8Array.of(1, 1, 1),
  parent: Int32Array.of(-1, 0, 1),
  restTranslation: rest.translation,
  restRotation: rest.rotation,
  restScale: rest.scale,
};

const BASE = 0;
const OVER = 1;
const OVER2 = 2;
const ADD = 3;
const ZERO_REF = 4;
const ADD_NEGATED = 5;
const table: Pose[] = [];
table[BASE] = pose([[1, 2, 3], ID, [1, 1, 1]], [[0, 1, 0], ID, [1, 1, 1]], [[0, 2, 0], rz(30), [1, 2, 1]]);
table[OVER] = pose([[3, 2, 1], rz(90), [3, 3, 3]], [[2, 1, 0], rz(90), [2, 2, 2]], [[4, 0, 0], rz(90), [3, 2, 1]]);
// Node 1's rotation is stored negated (the same rotation as rz(90)): blends must take the short path.
table[OVER2] = pose([[10, 0, 0], rz(-90), [1, 1, 1]], [[0, 0, 0], rz(90).map((v) => -v), [1, 1, 1]], [[0, 0, 0], rz(-30), [1, 1, 1]]);
// Against the rest pose: node 0 moves (1, 0, 0), turns 90 about x, scales x by 2; node 1's rotation
// is rest * rx(90) = rz(90) * rx(90) = (1/2, 1/2, 1/2, 1/2), nothing else; node 2 moves (0, 0, 2),
// turns 90 about x and scales by (2, 1, 1/2).
table[ADD] = pose([[1, 0, 0], rx(90), [2, 1, 1]], [[0, 1, 0], [0.5, 0.5, 0.5, 0.5], [1, 1, 1]], [[0, 1, 2], rx(90), [4, 2, 1]]);
// The rest pose except node 0's scale, which has a zero x component.
table[ZERO_REF] = pose([[0, 0, 0], ID, [0, 1, 2]], [[0, 1, 0], rz(90), [1, 1, 1]], [[0, 1, 0], ID, [2, 2, 2]]);
// ADD with every rotation negated (the same rotations).
table[ADD_NEGATED] = pose(
  [[1, 0, 0], rx(90).map((v) => -v), [2, 1, 1]],
  [[0, 1, 0], [-0.5, -0.5, -0.5, -0.5], [1, 1, 1]],
  [[0, 1, 2], rx(90).map((v) => -v), [4, 2, 1]],
);

const sampler: ClipSampler = (clip, time, out) => {
  out.translation.set(table[clip].translation);
  out.rotation.set(table[clip].rotation);
  out.scale.set(table[clip].scale);
  out.translation[1] += time;
  return out;
};

function evaluate(stack: Partial<CpuLayerStack> & Pick<CpuLayerStack, 'base'>): Pose {
  const out = createPose(3);
  // Garbage in `out` must not leak into the result.
  out.translation.fill(NaN); out.rotation.fill(NaN); out.scale.fill(NaN);
  return new StackEvaluator(nodes, sampler).evaluate({ layers: [], additive: [], ...stack }, out);
}

const at = (clip: number, time = 0) => ({ clip, time });

describe('StackEvaluator: base and override layers', () => {
  it('base only is the base clip pose at the base time', () => {
    expectSamePose(evaluate({ base: at(BASE) }), table[BASE]);
    const later = evaluate({ base: at(BASE, 0.25) });
    expect(node(later, 0).t).toEqual([1, 2.25, 3]);
    expect(node(later, 1)).toEqual(node(table[BASE], 1));
  });

  it('one unmasked override layer lerps translation and scale and nlerps rotation', () => {
    const half = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 0.5 }] });
    // Identity vs 90 degrees about z at w = 0.5: nlerp at one half bisects the angle, 45 degrees.
    expectNode(half, 0, [2, 2, 2], rz(45), [2, 2, 2]);
    expectNode(half, 1, [1, 1, 0], rz(45), [1.5, 1.5, 1.5]);
    expectNode(half, 2, [2, 1, 0], rz(60), [2, 2, 1]); // 30 and 90 degrees: 60
    const quarter = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 0.25 }] });
    // nlerp at 0.25: (0, 0, 0.25 sin 45, 0.75 + 0.25 cos 45), normalised (20.7 degrees, not slerp's 22.5).
    expectNode(quarter, 0, [1.5, 2, 2.5], normalised([0, 0, 0.25 * S, 0.75 + 0.25 * S]), [1.5, 1.5, 1.5]);
    expectNode(quarter, 2, [1, 1.5, 0], normalised([0, 0, 0.75 * sin(15) + 0.25 * S, 0.75 * cos(15) + 0.25 * S]), [1.5, 2, 1]);
    // The layer's time reaches the sampler: its node 0 is at y = 2.5, the base at y = 2.
    expect(node(evaluate({ base: at(BASE), layers: [{ ...at(OVER, 0.5), weight: 0.5 }] }), 0).t).toEqual([2, 2.25, 2]);
  });

  it('one unmasked override layer is the two-clip blend, bit for bit', () => {
    const a = sampler(BASE, 0.1, createPose(3));
    const b = sampler(OVER, 0.3, createPose(3));
    for (const w of [0.1, 0.25, 0.5, 0.9, 1]) {
      const stack = evaluate({ base: at(BASE, 0.1), layers: [{ ...at(OVER, 0.3), weight: w }] });
      expectSamePose(stack, blendPoses(a, b, w, createPose(3)));
      // A mask of 1 everywhere is the same as no mask.
      const masked = evaluate({ base: at(BASE, 0.1), layers: [{ ...at(OVER, 0.3), weight: w, mask: Float32Array.of(1, 1, 1) }] });
      expectSamePose(masked, stack);
    }
  });

  it('a masked override layer mixes each node by weight * mask', () => {
    const mask = Float32Array.of(0, 1, 0.5);
    const full = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 1, mask }] });
    expect(node(full, 0)).toEqual(node(table[BASE], 0)); // mask 0: untouched
    expectNode(full, 1, [2, 1, 0], rz(90), [2, 2, 2]); // mask 1: all layer
    expectNode(full, 2, [2, 1, 0], rz(60), [2, 2, 1]); // mask 0.5: half way
    const half = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 0.5, mask }] });
    expect(node(half, 0)).toEqual(node(table[BASE], 0));
    expectNode(half, 1, [1, 1, 0], rz(45), [1.5, 1.5, 1.5]); // 0.5 * 1
    // 0.5 * 0.5 = 0.25: (0, 2, 0) + 0.25 (4, -2, 0); 0.75 rz(30) + 0.25 rz(90) normalised.
    expectNode(half, 2, [1, 1.5, 0], normalised([0, 0, 0.75 * sin(15) + 0.25 * S, 0.75 * cos(15) + 0.25 * S]), [1.5, 2, 1]);
  });

  it('override layers apply in order, each over the result of the ones before', () => {
    const ordered = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 0.5 }, { ...at(OVER2), weight: 0.5 }] });
    // After OVER at 0.5 node 0 is (2, 2, 2), rz(45), 2; then half way to (10, 0, 0), rz(-90), 1.
    expectNode(ordered, 0, [6, 1, 1], rz(-22.5), [1.5, 1.5, 1.5]);
    // Node 1: rz(45) toward -rz(90) (stored negated) takes the short path: 67.5 degrees.
    expectNode(ordered, 1, [0.5, 0.5, 0], rz(67.5), [1.25, 1.25, 1.25]);
    expectNode(ordered, 2, [1, 0.5, 0], rz(15), [1.5, 1.5, 1]);
    // The other order: (1, 2, 3) -> (5.5, 1, 1.5) -> (4.25, 1.5, 1.25).
    const swapped = evaluate({ base: at(BASE), layers: [{ ...at(OVER2), weight: 0.5 }, { ...at(OVER), weight: 0.5 }] });
    expectClose(node(swapped, 0).t, [4.25, 1.5, 1.25]);
  });

  it('a layer of weight 0 (or of mask 0 everywhere) changes nothing', () => {
    const one = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 0.3 }] });
    const padded = evaluate({
      base: at(BASE),
      layers: [
        { ...at(OVER2), weight: 0 },
        { ...at(OVER), weight: 0.3 },
        { ...at(OVER2), weight: 0, mask: Float32Array.of(1, 1, 1) },
        { ...at(OVER2), weight: 0.7, mask: Float32Array.of(0, 0, 0) },
      ],
      additive: [{ ...at(ADD), weight: 0, reference: 'rest' }, { ...at(ADD), weight: 1, reference: 'rest', mask: Float32Array.of(0, 0, 0) }],
    });
    expectSamePose(padded, one);
  });
});

describe('StackEvaluator: additive layers', () => {
  it("reference 'rest', weight 1: adds the whole difference from the rest pose", () => {
    const p = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 1, reference: 'rest' }] });
    // Node 0: (1, 2, 3) + (1, 0, 0); identity * rx(90); (1, 1, 1) * (2, 1, 1).
    expectNode(p, 0, [2, 2, 3], rx(90), [2, 1, 1]);
    // Node 1: conj(rest) * A = conj(rz(90)) * rz(90) * rx(90) = rx(90) (A * conj(rest) would be ry(90)).
    expectNode(p, 1, [0, 1, 0], rx(90), [1, 1, 1]);
    // Node 2: rotation * delta = rz(30) * rx(90) = (cos15 S, sin15 S, sin15 S, cos15 S) (rx(90) * rz(30) has y = -sin15 S).
    expectNode(p, 2, [0, 2, 2], [cos(15) * S, sin(15) * S, sin(15) * S, cos(15) * S], [2, 2, 0.5]);
  });

  it("reference 'rest', weight 0.5: half the translation, 45 degrees, scale times 1 + 0.5 (ratio - 1)", () => {
    const p = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 0.5, reference: 'rest' }] });
    expectNode(p, 0, [1.5, 2, 3], rx(45), [1.5, 1, 1]);
    expectNode(p, 1, [0, 1, 0], rx(45), [1, 1, 1]);
    // rz(30) * rx(45); scale (1, 2, 1) * (1 + 0.5 (2 - 1), 1, 1 + 0.5 (0.5 - 1)).
    const [s, c] = [sin(22.5), cos(22.5)];
    expectNode(p, 2, [0, 2, 1], [cos(15) * s, sin(15) * s, sin(15) * c, cos(15) * c], [1.5, 2, 0.75]);
  });

  it('takes the short path: a negated layer rotation gives the same result', () => {
    for (const weight of [0.5, 1]) {
      const direct = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight, reference: 'rest' }] });
      const negated = evaluate({ base: at(BASE), additive: [{ ...at(ADD_NEGATED), weight, reference: 'rest' }] });
      expectClose(negated.rotation, direct.rotation);
    }
    expectNode(evaluate({ base: at(BASE), additive: [{ ...at(ADD_NEGATED), weight: 0.5, reference: 'rest' }] }), 0, [1.5, 2, 3], rx(45), [1.5, 1, 1]);
  });

  it('a masked additive layer adds weight * mask of the difference', () => {
    const p = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 1, reference: 'rest', mask: Float32Array.of(1, 0, 0.5) }] });
    expectNode(p, 0, [2, 2, 3], rx(90), [2, 1, 1]);
    expect(node(p, 1)).toEqual(node(table[BASE], 1));
    const [s, c] = [sin(22.5), cos(22.5)];
    expectNode(p, 2, [0, 2, 1], [cos(15) * s, sin(15) * s, sin(15) * c, cos(15) * c], [1.5, 2, 0.75]);
  });

  it('a clip reference: the difference from that clip at its time', () => {
    // Node 0 against OVER: A - R = (1, 0, 0) - (3, 2, 1); conj(rz(90)) * rx(90) = (1/2, -1/2, -1/2, 1/2); ratio (2/3, 1/3, 1/3).
    const full = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 1, reference: at(OVER) }] });
    expectNode(full, 0, [-1, 0, 2], [0.5, -0.5, -0.5, 0.5], [2 / 3, 1 / 3, 1 / 3]);
    const half = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 0.5, reference: at(OVER) }] });
    // nlerp(identity, delta, 0.5) = (1/4, -1/4, -1/4, 3/4) / sqrt(3/4).
    const r = 1 / Math.sqrt(0.75);
    expectNode(half, 0, [0, 1, 2.5], [0.25 * r, -0.25 * r, -0.25 * r, 0.75 * r], [5 / 6, 2 / 3, 2 / 3]);
    // The same clip at two times: only the time difference (0.5 on node 0's y) is added.
    const times = evaluate({ base: at(BASE), additive: [{ ...at(ADD, 0.75), weight: 1, reference: at(ADD, 0.25) }] });
    expectNode(times, 0, [1, 2.5, 3], ID, [1, 1, 1]);
    expectNode(times, 1, [0, 1, 0], ID, [1, 1, 1]);
    expectNode(times, 2, [0, 2, 0], rz(30), [1, 2, 1]);
  });

  it('a zero reference scale component counts as a ratio of 1', () => {
    // Node 0's reference scale is (0, 1, 2) against A's (2, 1, 1): ratios (1, 1, 1/2).
    const full = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 1, reference: at(ZERO_REF) }] });
    expectNode(full, 0, [2, 2, 3], rx(90), [1, 1, 0.5]);
    const half = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 0.5, reference: at(ZERO_REF) }] });
    expectNode(half, 0, [1.5, 2, 3], rx(45), [1, 1, 0.75]);
    for (const p of [full, half]) for (const v of [...p.translation, ...p.rotation, ...p.scale]) expect(Number.isFinite(v)).toBe(true);
  });

  it('additive layers apply after all override layers', () => {
    const stack = evaluate({ base: at(BASE), layers: [{ ...at(OVER), weight: 0.5 }], additive: [{ ...at(ADD), weight: 1, reference: 'rest' }] });
    // Override first: node 0 is (2, 2, 2), rz(45), 2; then + (1, 0, 0), * rx(90), * (2, 1, 1).
    // rz(45) * rx(90) = (cos22.5 S, sin22.5 S, sin22.5 S, cos22.5 S).
    const [s, c] = [sin(22.5), cos(22.5)];
    expectNode(stack, 0, [3, 2, 2], [c * S, s * S, s * S, c * S], [4, 2, 2]);
    // Additive first and then the override would give (2, 2, 3) -> (2.5, 2, 2) and scale (2, 1, 1) -> (2.5, 2, 2).
    const additiveOnly = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 1, reference: 'rest' }] });
    const otherOrder = blendPoses(additiveOnly, table[OVER], 0.5, createPose(3));
    expectClose(node(otherOrder, 0).t, [2.5, 2, 2]);
    expectClose(node(otherOrder, 0).s, [2.5, 2, 2]);
    expect(stack.translation[0]).not.toBeCloseTo(otherOrder.translation[0], 6);
    expect(stack.scale[0]).not.toBeCloseTo(otherOrder.scale[0], 6);
  });

  it('two additive layers both add, in order', () => {
    const p = evaluate({ base: at(BASE), additive: [{ ...at(ADD), weight: 0.5, reference: 'rest' }, { ...at(ADD), weight: 0.5, reference: 'rest' }] });
    // Translation 2 * 0.5 (1, 0, 0); rotation rx(45) twice = rx(90); scale 1.5 * 1.5 in x.
    expectNode(p, 0, [2, 2, 3], rx(90), [2.25, 1, 1]);
  });

  it('one evaluator serves many stacks: results do not depend on earlier calls', () => {
    const stacks: CpuLayerStack[] = [
      { base: at(BASE), layers: [{ ...at(OVER), weight: 0.4, mask: Float32Array.of(0, 1, 0.5) }], additive: [{ ...at(ADD), weight: 0.7, reference: at(OVER2, 0.2) }] },
      { base: at(OVER2, 0.1), layers: [], additive: [{ ...at(ADD), weight: 0.6, reference: 'rest' }] },
      { base: at(ADD), layers: [{ ...at(BASE), weight: 0.9 }, { ...at(OVER), weight: 0.2 }], additive: [] },
    ];
    const shared = new StackEvaluator(nodes, sampler);
    const out = createPose(3);
    for (const stack of [...stacks, ...stacks.reverse()]) {
      shared.evaluate(stack, out);
      expectSamePose(out, new StackEvaluator(nodes, sampler).evaluate(stack, createPose(3)));
    }
  });
});

describe('weightedAverageStack', () => {
  it('turns weights [w1, w2, w3] into a base and override layers of weight w2/(w1+w2), w3/(w1+w2+w3)', () => {
    const stack = weightedAverageStack([{ ...at(BASE, 0.1), weight: 1 }, { ...at(OVER, 0.2), weight: 3 }, { ...at(OVER2, 0.3), weight: 4 }]);
    expect(stack).toEqual({
      base: { clip: BASE, time: 0.1 },
      layers: [{ clip: OVER, time: 0.2, weight: 0.75 }, { clip: OVER2, time: 0.3, weight: 0.5 }],
      additive: [],
    });
    const fractions = weightedAverageStack([{ ...at(0), weight: 0.2 }, { ...at(1), weight: 0.3 }, { ...at(2), weight: 0.1 }, { ...at(3), weight: 0.4 }]);
    expect(fractions.layers.map((l) => l.clip)).toEqual([1, 2, 3]);
    expectClose(fractions.layers.map((l) => l.weight), [0.6, 1 / 6, 0.4], 15);
    // One clip: just the base.
    expect(weightedAverageStack([{ ...at(OVER, 0.5), weight: 0.3 }])).toEqual({ base: { clip: OVER, time: 0.5 }, layers: [], additive: [] });
  });

  it('reproduces the normalised weighted average of translation and scale', () => {
    const p = evaluate(weightedAverageStack([{ ...at(BASE), weight: 2 }, { ...at(OVER), weight: 1 }, { ...at(OVER2), weight: 3 }]));
    // Node 0: (2 (1, 2, 3) + (3, 2, 1) + 3 (10, 0, 0)) / 6; scale (2 * 1 + 3 + 3 * 1) / 6 = 4/3.
    expectClose(node(p, 0).t, [35 / 6, 1, 7 / 6]);
    expectClose(node(p, 0).s, [4 / 3, 4 / 3, 4 / 3]);
    // Node 2: (2 (0, 2, 0) + (4, 0, 0)) / 6; scale (2 (1, 2, 1) + (3, 2, 1) + 3 (1, 1, 1)) / 6.
    expectClose(node(p, 2).t, [4 / 6, 4 / 6, 0]);
    expectClose(node(p, 2).s, [8 / 6, 9 / 6, 6 / 6]);

    const weights = [0.1, 0.4, 0.2, 0.3];
    const clips = [BASE, OVER, OVER2, ADD];
    const four = evaluate(weightedAverageStack(clips.map((clip, i) => ({ ...at(clip), weight: weights[i] }))));
    for (let k = 0; k < 9; k++) {
      expect(four.translation[k]).toBeCloseTo(clips.reduce((sum, clip, i) => sum + weights[i] * table[clip].translation[k], 0), 12);
      expect(four.scale[k]).toBeCloseTo(clips.reduce((sum, clip, i) => sum + weights[i] * table[clip].scale[k], 0), 12);
    }
    expect(four.translation[0]).toBeCloseTo(0.1 * 1 + 0.4 * 3 + 0.2 * 10 + 0.3 * 1, 12);
  });

  it('skips zero weights, leading ones included', () => {
    expect(weightedAverageStack([{ ...at(0), weight: 0 }, { ...at(1), weight: 0 }, { ...at(2, 0.4), weight: 2 }, { ...at(3, 0.6), weight: 2 }])).toEqual({
      base: { clip: 2, time: 0.4 },
      layers: [{ clip: 3, time: 0.6, weight: 0.5 }],
      additive: [],
    });
    expect(weightedAverageStack([{ ...at(0), weight: 1 }, { ...at(1), weight: 0 }, { ...at(2), weight: 1 }]).layers).toEqual([{ clip: 2, time: 0, weight: 0.5 }]);
    expect(weightedAverageStack([{ ...at(0), weight: 1 }, { ...at(1), weight: 1 }, { ...at(2), weight: 0 }]).layers).toEqual([{ clip: 1, time: 0, weight: 0.5 }]);
  });

  it('rejects no clips, all-zero, negative and non-finite weights with a RangeError', () => {
    expect(() => weightedAverageStack([])).toThrow(RangeError);
    expect(() => weightedAverageStack([{ ...at(0), weight: 0 }, { ...at(1), weight: 0 }])).toThrow(RangeError);
    expect(() => weightedAverageStack([{ ...at(0), weight: 0 }, { ...at(1), weight: 0 }])).toThrow(/needs a positive weight/);
    expect(() => weightedAverageStack([{ ...at(0), weight: 1 }, { ...at(1), weight: -0.5 }])).toThrow(RangeError);
    expect(() => weightedAverageStack([{ ...at(0), weight: 1 }, { ...at(1), weight: -0.5 }])).toThrow(/got -0.5/);
    expect(() => weightedAverageStack([{ ...at(0), weight: NaN }, { ...at(1), weight: 1 }])).toThrow(RangeError);
    expect(() => weightedAverageStack([{ ...at(0), weight: 1 }, { ...at(1), weight: Infinity }])).toThrow(RangeError);
  });
});

describe('StackEvaluator on Fox', () => {
  const requests = [
    { clipA: 0, timeA: 1.3, clipB: 1, timeB: 0.4, blend: 0.35 },
    { clipA: 2, timeA: 0.9, clipB: 0, timeB: 2.1, blend: 0.8 },
    { clipA: 1, timeA: 0.2, clipB: 2, timeB: 0.7, blend: 1 },
    { clipA: 1, timeA: -0.3, clipB: 1, timeB: 0.5, blend: 0.5 },
  ];

  it('one unmasked override layer equals the two-clip CpuPoser path exactly (exact and lut samplers)', async () => {
    const { rig } = await loadModel('Fox');
    expect(rig.clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run']);
    const baked = bake(rig);
    const samplers: [string, ClipSampler][] = [
      ['exact', (c, t, out) => sampleClip(rig, c, t, out)],
      ['lut', (c, t, out) => sampleLut(baked, c, t, out)],
    ];
    const everywhere = buildMask(rig.nodes, { root: 'root' });
    expect(Array.from(everywhere).every((w) => w === 1)).toBe(true);
    for (const [, sampler] of samplers) {
      const poser = new CpuPoser(rig, sampler);
      const evaluator = new StackEvaluator(rig.nodes, sampler);
      for (const r of requests) {
        const expected = poser.pose(r);
        const layer = { clip: r.clipB, time: r.timeB, weight: r.blend };
        const stack = evaluator.evaluate({ base: { clip: r.clipA, time: r.timeA }, layers: [layer], additive: [] }, createPose(rig.nodes.count));
        expectSamePose(stack, expected);
        const masked = evaluator.evaluate({ base: { clip: r.clipA, time: r.timeA }, layers: [{ ...layer, mask: everywhere }], additive: [] }, createPose(rig.nodes.count));
        expectSamePose(masked, expected);
      }
    }
  });

  it('an upper-body layer: nodes under the mask root are the two-clip blend, the others the base, exactly', async () => {
    const { rig } = await loadModel('Fox');
    const sampler: ClipSampler = (c, t, out) => sampleClip(rig, c, t, out);
    const upper = buildMask(rig.nodes, { root: 'b_Spine01_02' });
    const poser = new CpuPoser(rig, sampler);
    const evaluator = new StackEvaluator(rig.nodes, sampler);
    const r = requests[0];
    const blended = poser.pose(r);
    const base = sampleClip(rig, r.clipA, r.timeA, createPose(rig.nodes.count));
    const stack = evaluator.evaluate({ base: { clip: r.clipA, time: r.timeA }, layers: [{ clip: r.clipB, time: r.timeB, weight: r.blend, mask: upper }], additive: [] }, createPose(rig.nodes.count));
    let changed = 0;
    for (let j = 0; j < rig.nodes.count; j++) {
      const expected = upper[j] === 1 ? node(blended, j) : node(base, j);
      expect(node(stack, j), rig.nodes.names[j]).toEqual(expected);
      if (upper[j] === 1 && JSON.stringify(node(blended, j)) !== JSON.stringify(node(base, j))) changed++;
    }
    // The layer does move the upper body (Survey vs Walk differ there).
    expect(changed).toBeGreaterThan(5);
  });
});
