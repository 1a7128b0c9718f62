import { composeTrsAt, multiplyAt } from '../math/affine';
import { quatMulAt } from '../math/quat';
import { parentsFirst } from './hierarchy';
import type { RetargetPlan } from './retarget';
import type { Channel } from './rig';
import { sampleChannel } from './sampler';
import type { HumanoidMap } from './vrm-humanoid';
import { HUMAN_BONES } from './vrm-humanoid';

/**
 * The leg solve of humanoid retargeting (docs/retargeting.md, "Feet"): on a body whose legs are
 * not in the proportion of its hip height to the clip's (a long thigh on a short shin), copying
 * rotations puts the ankle elsewhere than the clip's, scaled, so planted feet slide. At each key
 * time of the resampled clip, a two-bone solve turns the knee, then the whole leg about the hip,
 * so that the ankle reaches the hips' position plus the clip's hips-to-ankle vector times the
 * hip-height ratio; the foot keeps its world rotation. Bind time only, float64.
 */

/** One leg to solve: body nodes of the upper leg, lower leg and foot (a direct chain), and the clip's hips and foot. */
export interface Leg {
  upper: number;
  lower: number;
  foot: number;
  clipFoot: number;
  /** World rest axis to bend the knee about when the leg is straight: the body's right (from left to right hip), so knees bend back. */
  bend: number[];
}

/** Relative difference of leg proportions under which no leg is solved (the rotations already place the ankle). */
const PROPORTION_TOLERANCE = 1e-3;

const boneOf = (map: HumanoidMap, bone: string) => map.nodes[HUMAN_BONES.indexOf(bone as never)];

/**
 * The legs of a body to solve: those whose upper leg, lower leg and foot form a direct chain in
 * the body and are all mapped, and whose thigh or shin is not in the hips' proportion (`scale`)
 * to the clip's. Rest positions: world matrices of both skeletons (16 per node).
 */
export function legsToSolve(bodyParent: Int32Array, body: HumanoidMap, bodyWorld: Float64Array, clip: HumanoidMap, clipWorld: Float64Array, scale: number): Leg[] {
  const legs: Leg[] = [];
  const [lh, rh] = [boneOf(body, 'leftUpperLeg'), boneOf(body, 'rightUpperLeg')];
  const right = lh >= 0 && rh >= 0 ? [0, 1, 2].map((k) => bodyWorld[rh * 16 + 12 + k] - bodyWorld[lh * 16 + 12 + k]) : [-1, 0, 0];
  const distance = (m: Float64Array, a: number, b: number) => Math.hypot(m[a * 16 + 12] - m[b * 16 + 12], m[a * 16 + 13] - m[b * 16 + 13], m[a * 16 + 14] - m[b * 16 + 14]);
  for (const side of ['left', 'right']) {
    const [upper, lower, foot] = ['UpperLeg', 'LowerLeg', 'Foot'].map((b) => boneOf(body, `${side}${b}`));
    const [cu, cl, cf] = ['UpperLeg', 'LowerLeg', 'Foot'].map((b) => boneOf(clip, `${side}${b}`));
    if ([upper, lower, foot, cu, cl, cf].some((n) => n < 0) || bodyParent[lower] !== upper || bodyParent[foot] !== lower) continue;
    const thigh = distance(bodyWorld, upper, lower) / (distance(clipWorld, cu, cl) * scale);
    const shin = distance(bodyWorld, lower, foot) / (distance(clipWorld, cl, cf) * scale);
    if (Math.abs(thigh - 1) > PROPORTION_TOLERANCE || Math.abs(shin - 1) > PROPORTION_TOLERANCE) legs.push({ upper, lower, foot, clipFoot: cf, bend: right });
  }
  return legs;
}

const sub = (p: Float64Array, a: number, b: number) => [p[a * 3] - p[b * 3], p[a * 3 + 1] - p[b * 3 + 1], p[a * 3 + 2] - p[b * 3 + 2]];
const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: number[], b: number[]) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const axisAngle = (axis: number[], angle: number) => {
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  const s = Math.sin(angle / 2) / l;
  return Float64Array.of(axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2));
};
const rotate = (q: Float64Array, v: number[]) => {
  // v + 2 w (u x v) + 2 u x (u x v), u = q.xyz
  const u = [q[0], q[1], q[2]];
  const t = cross(u, v).map((c) => 2 * c);
  const ut = cross(u, t);
  return [v[0] + q[3] * t[0] + ut[0], v[1] + q[3] * t[1] + ut[1], v[2] + q[3] * t[2] + ut[2]];
};

/**
 * Solves `leg` in place: `world` holds the body's world rotations (4 per node), `position` its
 * world positions (3 per node), `target` the ankle's goal. `bend` is the axis to bend about when
 * the leg is straight (the knee's bend plane is otherwise kept). Changes the upper and lower leg's
 * world rotations (the foot's is kept: its local rotation is derived from them by the caller).
 */
export function solveLeg(leg: Leg, world: Float64Array, position: Float64Array, target: number[], bend: number[]): void {
  const { upper: a, lower: b, foot: c } = leg;
  const ab = sub(position, b, a);
  const bc = sub(position, c, b);
  const la = Math.hypot(...ab);
  const lb = Math.hypot(...bc);
  const toTarget = [target[0] - position[a * 3], target[1] - position[a * 3 + 1], target[2] - position[a * 3 + 2]];
  const d = Math.min(Math.max(Math.hypot(...toTarget), Math.abs(la - lb) * 1.0001 + 1e-9), (la + lb) * 0.99999);
  // Knee: the angle at b between (a - b) and (c - b), turned to the one that makes |c - a| = d.
  const u = ab.map((v) => -v);
  const current = Math.acos(Math.min(1, Math.max(-1, dot(u, bc) / (la * lb))));
  const wanted = Math.acos(Math.min(1, Math.max(-1, (la * la + lb * lb - d * d) / (2 * la * lb))));
  let axis = cross(u, bc);
  if (Math.hypot(...axis) < 1e-9 * la * lb) axis = bend;
  const knee = axisAngle(axis, wanted - current);
  quatMulAt(knee, 0, false, world, b * 4, world, b * 4);
  const kneeTurned = rotate(knee, bc);
  const ankle = [ab[0] + kneeTurned[0], ab[1] + kneeTurned[1], ab[2] + kneeTurned[2]];
  // Hip: the shortest arc taking the ankle's direction from the hip onto the target's.
  const n = cross(ankle, toTarget);
  const cos = dot(ankle, toTarget) / (Math.hypot(...ankle) * Math.hypot(...toTarget));
  if (Math.hypot(...n) < 1e-12 || !(cos < 1)) return;
  const hip = axisAngle(n, Math.acos(Math.max(-1, cos)));
  quatMulAt(hip, 0, false, world, a * 4, world, a * 4);
  quatMulAt(hip, 0, false, world, b * 4, world, b * 4);
}

/**
 * The leg solve at time t (leg-solve.ts): world positions of the clip (its channels sampled, full
 * TRS) and of the body (its hips translation `hipsMove` sampled, rest offsets turned by the world
 * rotations in `bWorld`, scaled by the rest's world scale), each leg's ankle sent to the body's
 * hips plus the clip's hips-to-ankle vector times rootScale.
 */
export function legSolver(plan: RetargetPlan, channels: Channel[], hipsMove: Channel | undefined) {
  const { body, clip } = plan;
  const clipOrder = parentsFirst(clip.parent);
  const pose = { t: Float64Array.from(clip.restTranslation), r: Float64Array.from(clip.restRotation), s: Float64Array.from(clip.restScale) };
  const local = new Float64Array(16);
  const clipWorld = new Float64Array(clip.parent.length * 16);
  const position = new Float64Array(body.parent.length * 3);
  const hipsT = new Float64Array(3);
  const scaleOf = (n: number) => (n < 0 ? 1 : Math.hypot(body.world.matrix[n * 16], body.world.matrix[n * 16 + 1], body.world.matrix[n * 16 + 2]));
  const below = new Uint8Array(body.parent.length);
  below[plan.hips.body] = 1;
  for (let n = plan.hips.body + 1; n < below.length; n++) if (body.parent[n] >= 0 && below[body.parent[n]]) below[n] = 1;
  const bm = body.world.matrix;
  return {
    solve(t: number, bWorld: Float64Array, turn: Float64Array): void {
      pose.t.set(clip.restTranslation); pose.r.set(clip.restRotation); pose.s.set(clip.restScale);
      for (const ch of channels) sampleChannel(ch, t, ch.path === 'translation' ? pose.t : ch.path === 'rotation' ? pose.r : pose.s, ch.node * (ch.path === 'rotation' ? 4 : 3));
      for (const n of clipOrder) {
        composeTrsAt(pose.t, n * 3, pose.r, n * 4, pose.s, n * 3, local, 0);
        if (clip.parent[n] < 0) clipWorld.set(local, n * 16); else multiplyAt(clipWorld, clip.parent[n] * 16, local, 0, clipWorld, n * 16);
      }
      const h = plan.hips.body;
      if (hipsMove) sampleChannel(hipsMove, t, hipsT, 0); else hipsT.set(body.restTranslation.subarray(h * 3, h * 3 + 3));
      for (let n = 0; n < body.parent.length; n++) {
        const p = body.parent[n];
        const offset = n === h ? hipsT : body.restTranslation.subarray(n * 3, n * 3 + 3);
        if (!below[n] || n === h) {
          // Above the hips, the rest; the hips, their translation through the parent's rest world.
          if (n !== h) { position.set(bm.subarray(n * 16 + 12, n * 16 + 15), n * 3); continue; }
          for (let r = 0; r < 3; r++) position[n * 3 + r] = p < 0 ? offset[r] : bm[p * 16 + 12 + r] + bm[p * 16 + r] * offset[0] + bm[p * 16 + 4 + r] * offset[1] + bm[p * 16 + 8 + r] * offset[2];
          continue;
        }
        const k = scaleOf(p);
        const v = [0, 1, 2].map((c) => offset[c] * k);
        const q = bWorld.subarray(p * 4, p * 4 + 4);
        const u = [q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]].map((c) => 2 * c);
        const w = [q[1] * u[2] - q[2] * u[1], q[2] * u[0] - q[0] * u[2], q[0] * u[1] - q[1] * u[0]];
        for (let r = 0; r < 3; r++) position[n * 3 + r] = position[p * 3 + r] + v[r] + q[3] * u[r] + w[r];
      }
      const ch = plan.hips.clip;
      for (const leg of plan.legs) {
        const target = [0, 1, 2].map((r) => position[h * 3 + r] + plan.rootScale * (clipWorld[leg.clipFoot * 16 + 12 + r] - clipWorld[ch * 16 + 12 + r]));
        // Bend about the body's right, turned as the hips turn, when a leg is straight: knees bend back.
        const bend = leg.bend;
        const g = turn.subarray(h * 4, h * 4 + 4);
        const u = [g[1] * bend[2] - g[2] * bend[1], g[2] * bend[0] - g[0] * bend[2], g[0] * bend[1] - g[1] * bend[0]].map((c) => 2 * c);
        const turned = [0, 1, 2].map((r) => bend[r] + g[3] * u[r] + [g[1] * u[2] - g[2] * u[1], g[2] * u[0] - g[0] * u[2], g[0] * u[1] - g[1] * u[0]][r]);
        solveLeg(leg, bWorld, position, target, turned);
      }
    },
  };
}
