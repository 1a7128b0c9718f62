import { composeTrsAt, multiplyAt } from '../math/affine';
import { quatMulAt } from '../math/quat';
import { check } from './errors';
import type { HumanoidMap } from './vrm-humanoid';
import { HUMAN_BONES } from './vrm-humanoid';
import { sampleChannel, slerpAt } from './sampler';
import { legSolver, legsToSolve, type Leg } from './leg-solve';
import { parentsFirst } from './hierarchy';
import type { Channel, Clip, Interpolation } from './rig';

/**
 * World-space retargeting of humanoid clips at bind time (docs/retargeting.md derives it). For
 * a body bone n mapped to clip bone c, with R the world rest rotations and W the animated world
 * rotations of each skeleton, the body bone turns in the world as the clip bone does from its rest:
 *
 *     W_body(n) = W_clip(c) * R_clip(c)^-1 * A(n) * R_body(n)
 *
 * where A(n) turns the body's rest bone direction onto the clip's (shortest arc: an A-pose arm
 * onto a T-pose arm; the identity when the rests point alike, whatever the local axes). Where both
 * hierarchies agree (the body parent p of n is mapped to the clip parent of c), the local rotation is
 *
 *     q_body(n) = W_body(p)^-1 * W_body(n) = O(p)^-1 * q_clip(c) * O(n),   O(x) = R_clip(x')^-1 * A(x) * R_body(x)
 *
 * (three-vrm's Mixamo loader: restWorldParentBody^-1 * restWorldParentClip * q * restWorldClip^-1 *
 * restWorldBody, with A added), constant on both sides of q, so it is computed per key, exactly.
 * Where they differ, every body node is computed from world rotations at the clip's key times:
 * unmapped body joints between two mapped ones (an extra spine joint) take the world rotation
 * interpolated between the two ends' by their rest length along the chain; other unmapped joints
 * keep their rest. The hips translation is the body's rest plus the clip's motion from its rest in
 * the world, scaled by the ratio of hip heights. Baked: nothing of this runs per frame.
 */

/** A skeleton as the binder sees it: parents and rest TRS per node (a rig's nodes or a clips file). */
export interface RestSkeleton {
  parent: Int32Array;
  restTranslation: Float64Array;
  restRotation: Float64Array;
  restScale: Float64Array;
}

/** The bones whose direction aims each bone (the first present in both skeletons), for A(n). */
const AIM: Readonly<Record<string, readonly string[]>> = (() => {
  const aim: Record<string, string[]> = {
    hips: ['spine', 'chest', 'upperChest', 'neck'], spine: ['chest', 'upperChest', 'neck', 'head'],
    chest: ['upperChest', 'neck', 'head'], upperChest: ['neck', 'head'], neck: ['head'],
  };
  for (const s of ['left', 'right']) {
    Object.assign(aim, {
      [`${s}Shoulder`]: [`${s}UpperArm`], [`${s}UpperArm`]: [`${s}LowerArm`], [`${s}LowerArm`]: [`${s}Hand`], [`${s}Hand`]: [`${s}MiddleProximal`],
      [`${s}UpperLeg`]: [`${s}LowerLeg`], [`${s}LowerLeg`]: [`${s}Foot`], [`${s}Foot`]: [`${s}Toes`],
      [`${s}ThumbMetacarpal`]: [`${s}ThumbProximal`], [`${s}ThumbProximal`]: [`${s}ThumbDistal`],
    });
    for (const f of ['Index', 'Middle', 'Ring', 'Little']) Object.assign(aim, { [`${s}${f}Proximal`]: [`${s}${f}Intermediate`], [`${s}${f}Intermediate`]: [`${s}${f}Distal`] });
  }
  return aim;
})();
const BONE_ID = new Map<string, number>(HUMAN_BONES.map((b, i) => [b, i]));

/** World rest matrices (16 per node) and rotations (4 per node) of a skeleton whose nodes may come in any order. */
export function restWorld(s: RestSkeleton): { matrix: Float64Array; rotation: Float64Array } {
  const count = s.parent.length;
  const matrix = new Float64Array(count * 16);
  const rotation = new Float64Array(count * 4);
  const done = new Uint8Array(count);
  const local = new Float64Array(16);
  const visit = (n: number): void => {
    if (done[n]) return;
    const p = s.parent[n];
    composeTrsAt(s.restTranslation, n * 3, s.restRotation, n * 4, s.restScale, n * 3, local, 0);
    if (p < 0) {
      matrix.set(local, n * 16);
      rotation.set(s.restRotation.subarray(n * 4, n * 4 + 4), n * 4);
    } else {
      visit(p);
      multiplyAt(matrix, p * 16, local, 0, matrix, n * 16);
      quatMulAt(rotation, p * 4, false, s.restRotation, n * 4, rotation, n * 4);
    }
    done[n] = 1;
  };
  for (let n = 0; n < count; n++) {
    // An explicit stack guards deep chains: visit ancestors first, from the top.
    const chain: number[] = [];
    for (let p = n; p >= 0 && !done[p]; p = s.parent[p]) chain.push(p);
    for (let i = chain.length - 1; i >= 0; i--) visit(chain[i]);
  }
  return { matrix, rotation };
}

const q4 = () => new Float64Array(4);
const mul = (a: ArrayLike<number>, b: ArrayLike<number>, conjugateA = false) => { const o = q4(); quatMulAt(a, 0, conjugateA, b, 0, o, 0); return o; };
const at = (a: Float64Array, n: number) => a.subarray(n * 4, n * 4 + 4);

/** The shortest-arc rotation taking direction a onto direction b (both non-zero). */
export function rotationTo(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const la = Math.hypot(a[0], a[1], a[2]);
  const lb = Math.hypot(b[0], b[1], b[2]);
  if (!(la > 1e-12 && lb > 1e-12)) return Float64Array.of(0, 0, 0, 1);
  const [ax, ay, az] = [a[0] / la, a[1] / la, a[2] / la];
  const [bx, by, bz] = [b[0] / lb, b[1] / lb, b[2] / lb];
  const d = ax * bx + ay * by + az * bz;
  if (d < -1 + 1e-9) {
    // Opposite: half a turn about any axis perpendicular to a.
    const [px, py, pz] = Math.abs(ax) < 0.9 ? [0, -az, ay] : [az, 0, -ax];
    const l = Math.hypot(px, py, pz);
    return Float64Array.of(px / l, py / l, pz / l, 0);
  }
  const q = Float64Array.of(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx, 1 + d);
  const l = Math.hypot(q[0], q[1], q[2], q[3]);
  for (let c = 0; c < 4; c++) q[c] /= l;
  return q;
}

/** What one clips file's binding to one body needs, computed once (planRetarget) and used for each clip. */
export interface RetargetPlan {
  /** Body node and clip node of each mapped bone, body parent-first. */
  pairs: { body: number; clip: number }[];
  /** Per body node: 1 mapped, 2 between two mapped joints (spread), 0 keeps its rest. */
  kind: Uint8Array;
  /** Per body node of kind 2: the mapped ends (body nodes) and its fraction of the chain's rest length. */
  spread: Map<number, { from: number; to: number; f: number }>;
  /** Per body node: A(n) (4 each; identity unless mapped). */
  align: Float64Array;
  /** Whether every mapped pair's parents map to each other, so q transfers key by key (O(p)^-1 q O(n)). */
  sameHierarchy: boolean;
  /** Body hips and clip hips. */
  hips: { body: number; clip: number };
  /** The hips translation's map: body local motion = M (clip local motion), 9 numbers column-major. */
  translation: Float64Array;
  /** Body hip height / clip hip height. */
  rootScale: number;
  /** Legs whose ankles are solved onto the clip's scaled foot path (leg-solve.ts); empty when the legs are in proportion or legSolve is false. */
  legs: Leg[];
  body: RestSkeleton & { world: ReturnType<typeof restWorld> };
  clip: RestSkeleton & { world: ReturnType<typeof restWorld> };
}

/** Height of a world rest position: its y where positive (y up), else its distance from the origin. */
const heightOf = (m: Float64Array, n: number) => (m[n * 16 + 13] > 1e-9 ? m[n * 16 + 13] : Math.hypot(m[n * 16 + 12], m[n * 16 + 13], m[n * 16 + 14]));

/** The plan of binding a clips file with humanoid `clipMap` to a body with humanoid `bodyMap` (both complete). */
export function planRetarget(body: RestSkeleton, bodyMap: HumanoidMap, clip: RestSkeleton, clipMap: HumanoidMap, legSolve = true): RetargetPlan {
  const count = body.parent.length;
  const bw = restWorld(body);
  const cw = restWorld(clip);
  const clipOf = new Int32Array(count).fill(-1);
  HUMAN_BONES.forEach((_, b) => { if (bodyMap.nodes[b] >= 0 && clipMap.nodes[b] >= 0) clipOf[bodyMap.nodes[b]] = clipMap.nodes[b]; });
  const boneOf = new Int32Array(count).fill(-1);
  HUMAN_BONES.forEach((_, b) => { if (bodyMap.nodes[b] >= 0) boneOf[bodyMap.nodes[b]] = b; });
  const kind = new Uint8Array(count);
  const align = new Float64Array(count * 4);
  const pairs: RetargetPlan['pairs'] = [];
  const mappedAbove = (n: number) => { let p = body.parent[n]; while (p >= 0 && clipOf[p] < 0) p = body.parent[p]; return p; };
  const dir = (m: Float64Array, from: number, to: number) => [0, 1, 2].map((k) => m[to * 16 + 12 + k] - m[from * 16 + 12 + k]);
  // Facing: the turn about +y taking the body's right-to-left hip direction onto the clip's (a VRM
  // 0.x body faces -z, its clips +z), part of every A(n), so the body faces as the clip does.
  const [left, right] = [BONE_ID.get('leftUpperLeg')!, BONE_ID.get('rightUpperLeg')!];
  const lb = dir(bw.matrix, bodyMap.nodes[right], bodyMap.nodes[left]);
  const lc = dir(cw.matrix, clipMap.nodes[right], clipMap.nodes[left]);
  const yaw = Math.atan2(lb[2] * lc[0] - lb[0] * lc[2], lb[0] * lc[0] + lb[2] * lc[2]);
  const face = Math.abs(yaw) < 1e-9 ? Float64Array.of(0, 0, 0, 1) : Float64Array.of(0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2));
  const turn = (q: Float64Array, v: number[]) => { const r = mul(mul(q, Float64Array.of(v[0], v[1], v[2], 0)), Float64Array.of(-q[0], -q[1], -q[2], q[3])); return [r[0], r[1], r[2]]; };
  for (let n = 0; n < count; n++) {
    align[n * 4 + 3] = 1;
    if (clipOf[n] < 0) continue;
    kind[n] = 1;
    pairs.push({ body: n, clip: clipOf[n] });
    const aim = (AIM[HUMAN_BONES[boneOf[n]]] ?? []).map((b) => BONE_ID.get(b)!).find((b) => bodyMap.nodes[b] >= 0 && clipMap.nodes[b] >= 0);
    if (aim !== undefined) {
      align.set(mul(rotationTo(turn(face, dir(bw.matrix, n, bodyMap.nodes[aim])), dir(cw.matrix, clipOf[n], clipMap.nodes[aim])), face), n * 4);
    } else {
      const up = mappedAbove(n);
      align.set(up >= 0 ? at(align, up) : face, n * 4);
    }
  }
  // Chains: unmapped nodes between a mapped node and its nearest mapped ancestor share their rotation.
  const spread = new Map<number, { from: number; to: number; f: number }>();
  for (const { body: d } of pairs) {
    const between: number[] = [];
    let p = body.parent[d];
    while (p >= 0 && clipOf[p] < 0) { between.push(p); p = body.parent[p]; }
    if (p < 0 || between.length === 0) continue;
    const length = (n: number) => Math.hypot(body.restTranslation[n * 3], body.restTranslation[n * 3 + 1], body.restTranslation[n * 3 + 2]);
    const chain = [...between].reverse().concat(d); // from the node below p down to d
    const total = chain.reduce((s, n) => s + length(n), 0);
    let sum = 0;
    for (const n of chain.slice(0, -1)) {
      sum += length(n);
      if (!spread.has(n)) { spread.set(n, { from: p, to: d, f: total > 0 ? sum / total : 0.5 }); kind[n] = 2; }
    }
  }
  const sameHierarchy = spread.size === 0 && pairs.every(({ body: n, clip: c }) => {
    const p = body.parent[n];
    return p < 0 ? clip.parent[c] < 0 || clipOf.indexOf(clip.parent[c]) < 0 : clipOf[p] === clip.parent[c];
  });
  const hipsBone = BONE_ID.get('hips')!;
  const hips = { body: bodyMap.nodes[hipsBone], clip: clipMap.nodes[hipsBone] };
  const hb = heightOf(bw.matrix, hips.body);
  const hc = heightOf(cw.matrix, hips.clip);
  const rootScale = hb > 1e-9 && hc > 1e-9 ? hb / hc : 1;
  const legs = legSolve ? legsToSolve(body.parent, bodyMap, bw.matrix, clipMap, cw.matrix, rootScale) : [];
  return {
    pairs, kind, spread, align, sameHierarchy, hips, rootScale, legs,
    translation: motionMap(bw.matrix, body.parent[hips.body], cw.matrix, clip.parent[hips.clip], rootScale),
    body: { ...body, world: bw }, clip: { ...clip, world: cw },
  };
}

/** inverse(linear part of the body parent's world) * scale * (linear part of the clip parent's world), column-major 3x3. */
function motionMap(bm: Float64Array, bp: number, cm: Float64Array, cp: number, scale: number): Float64Array {
  const linear = (m: Float64Array, p: number) => (p < 0 ? [1, 0, 0, 0, 1, 0, 0, 0, 1] : [0, 1, 2, 4, 5, 6, 8, 9, 10].map((i) => m[p * 16 + i]));
  const b = linear(bm, bp);
  const c = linear(cm, cp);
  // Inverse of b by cofactors (column-major: element (r, k) at k * 3 + r).
  const e = (r: number, k: number) => b[k * 3 + r];
  const det = e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1)) - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0)) + e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0));
  check(Math.abs(det) > 1e-12, 'the body\'s hips have a parent with zero scale: its motion cannot be retargeted');
  const inv = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    for (let k = 0; k < 3; k++) {
      const [r1, r2] = [(k + 1) % 3, (k + 2) % 3];
      const [k1, k2] = [(r + 1) % 3, (r + 2) % 3];
      inv[k * 3 + r] = (e(r1, k1) * e(r2, k2) - e(r1, k2) * e(r2, k1)) / det;
    }
  }
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) for (let k = 0; k < 3; k++) for (let j = 0; j < 3; j++) out[k * 3 + r] += inv[j * 3 + r] * scale * c[k * 3 + j];
  return out;
}

/** O(x) = R_clip(x')^-1 * A(x) * R_body(x): the clip bone's world frame -> the body bone's. */
function offset(plan: RetargetPlan, n: number, c: number): Float64Array {
  return mul(at(plan.clip.world.rotation, c), mul(at(plan.align, n), at(plan.body.world.rotation, n)), true);
}

/** The clip's channels on the body (the header's rules): rotations of mapped and chain nodes, the hips translation. */
export function retargetHumanoidClip(plan: RetargetPlan, clip: Clip): Channel[] {
  const out: Channel[] = [];
  const hipsMove = clip.channels.find((ch) => ch.node === plan.hips.clip && ch.path === 'translation');
  if (hipsMove) out.push(moveHips(plan, hipsMove));
  const rotations = clip.channels.filter((ch) => ch.path === 'rotation');
  if (plan.sameHierarchy && plan.legs.length === 0) {
    for (const { body: n, clip: c } of plan.pairs) {
      const p = plan.body.parent[n];
      const cp = plan.clip.parent[c];
      // O(p) for the parents: the mapped parent's, or (at the root) the rest worlds above.
      const left = p >= 0 && plan.kind[p] === 1 ? offset(plan, p, cp)
        : mul(cp >= 0 ? at(plan.clip.world.rotation, cp) : Float64Array.of(0, 0, 0, 1), p >= 0 ? at(plan.body.world.rotation, p) : Float64Array.of(0, 0, 0, 1), true);
      const right = offset(plan, n, c);
      const ch = rotations.find((r) => r.node === c);
      const source = ch ?? { node: c, path: 'rotation' as const, interpolation: 'STEP' as Interpolation, times: Float32Array.of(0), values: Float32Array.from(at(plan.clip.restRotation, c)) };
      const values = new Float32Array(source.values.length);
      const q = q4();
      for (let o = 0; o < values.length; o += 4) {
        // left^-1 q right is linear in q: CUBICSPLINE tangents transform alike.
        quatMulAt(left, 0, true, mul(source.values.subarray(o, o + 4), right), 0, q, 0);
        values.set(q, o);
      }
      out.push({ node: n, path: 'rotation', interpolation: source.interpolation, times: source.times, values });
    }
    return out;
  }
  return [...out, ...resampled(plan, clip.channels, hipsMove && out[0])];
}

/** Body local rotations of every mapped and chain node, from world rotations at the clip's key times. */
function resampled(plan: RetargetPlan, channels: Channel[], hipsMove: Channel | undefined): Channel[] {
  const rotations = channels.filter((ch) => ch.path === 'rotation');
  const cubic = rotations.some((ch) => ch.interpolation === 'CUBICSPLINE');
  const step = rotations.length > 0 && rotations.every((ch) => ch.interpolation === 'STEP');
  const keys = [...new Set(rotations.flatMap((ch) => Array.from(ch.times)))].sort((a, b) => a - b);
  if (keys.length === 0) keys.push(0);
  // CUBICSPLINE sources are written as LINEAR keys, four per source interval.
  const times = cubic ? keys.flatMap((t, i) => (i + 1 < keys.length ? [0, 1, 2, 3].map((k) => t + ((keys[i + 1] - t) * k) / 4) : [t])) : keys;
  const { body, clip } = plan;
  const clipCount = clip.parent.length;
  const bodyCount = body.parent.length;
  const clipOrder = parentsFirst(clip.parent);
  const outputs = Array.from({ length: bodyCount }, (_, n) => n).filter((n) => plan.kind[n] !== 0);
  const values = outputs.map(() => new Float32Array(times.length * 4));
  const local = new Float64Array(clipCount * 4);
  const cWorld = new Float64Array(clipCount * 4);
  const bWorld = new Float64Array(bodyCount * 4);
  const g = new Float64Array(bodyCount * 4); // W_clip * R_clip^-1 * A per mapped body node: its world turn from rest
  const q = q4();
  const legs = plan.legs.length > 0 ? legSolver(plan, channels, hipsMove) : undefined;
  times.forEach((t, k) => {
    local.set(clip.restRotation);
    for (const ch of rotations) sampleChannel(ch, t, local, ch.node * 4);
    for (const n of clipOrder) {
      const p = clip.parent[n];
      if (p < 0) cWorld.set(at(local, n), n * 4); else quatMulAt(cWorld, p * 4, false, local, n * 4, cWorld, n * 4);
    }
    for (const { body: n, clip: c } of plan.pairs) g.set(mul(mul(at(cWorld, c), at(clip.world.rotation, c).map((v, i) => (i < 3 ? -v : v))), at(plan.align, n)), n * 4);
    for (let n = 0; n < bodyCount; n++) {
      const p = body.parent[n];
      if (plan.kind[n] === 0) {
        if (p < 0) bWorld.set(at(body.restRotation, n), n * 4); else quatMulAt(bWorld, p * 4, false, body.restRotation, n * 4, bWorld, n * 4);
        continue;
      }
      let turn = at(g, n);
      if (plan.kind[n] === 2) {
        const s = plan.spread.get(n)!;
        turn = q4();
        slerpAt(g, s.from * 4, g, s.to * 4, s.f, turn, 0);
      }
      quatMulAt(turn, 0, false, body.world.rotation, n * 4, bWorld, n * 4);
    }
    if (legs) legs.solve(t, bWorld, g);
    outputs.forEach((n, i) => {
      const p = body.parent[n];
      if (p < 0) q.set(at(bWorld, n)); else quatMulAt(bWorld, p * 4, true, bWorld, n * 4, q, 0);
      // Keys sign-continuous, as the bake expects.
      const o = k * 4;
      const flip = k > 0 && q[0] * values[i][o - 4] + q[1] * values[i][o - 3] + q[2] * values[i][o - 2] + q[3] * values[i][o - 1] < 0 ? -1 : 1;
      for (let c = 0; c < 4; c++) values[i][o + c] = flip * q[c];
    });
  });
  const timeArray = Float32Array.from(times);
  return outputs.map((n, i) => ({ node: n, path: 'rotation' as const, interpolation: step ? 'STEP' as const : 'LINEAR' as const, times: timeArray, values: values[i] }));
}

/** The hips translation: body rest + M (clip value - clip rest); tangents (CUBICSPLINE) by M alone. */
function moveHips(plan: RetargetPlan, ch: Channel): Channel {
  const cubic = ch.interpolation === 'CUBICSPLINE';
  const m = plan.translation;
  const values = new Float32Array(ch.values.length);
  const b = plan.hips.body * 3;
  const c = plan.hips.clip * 3;
  for (let o = 0; o < values.length; o += 3) {
    const isValue = !cubic || (o / 3) % 3 === 1;
    const d = [0, 1, 2].map((k) => ch.values[o + k] - (isValue ? plan.clip.restTranslation[c + k] : 0));
    for (let r = 0; r < 3; r++) values[o + r] = (isValue ? plan.body.restTranslation[b + r] : 0) + m[r] * d[0] + m[3 + r] * d[1] + m[6 + r] * d[2];
  }
  return { node: plan.hips.body, path: 'translation', interpolation: ch.interpolation, times: ch.times, values };
}
