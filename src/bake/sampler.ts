import type { Pose } from '../math/pose';
import { wrapTime } from '../math/time';
import { PATH_COMPONENTS, type Channel, type Interpolation, type Rig, type RigNodes, type WeightsChannel } from './rig';

/**
 * The exact glTF 2.0 sampler: the reference every faster path is checked against. Times are in
 * seconds; arithmetic is float64.
 */

/** Writes the rest pose of every node into `out`. */
export function restPose(nodes: RigNodes, out: Pose): Pose {
  out.translation.set(nodes.restTranslation);
  out.rotation.set(nodes.restRotation);
  out.scale.set(nodes.restScale);
  return out;
}

/** Index k of the last key with times[k] <= t (t strictly inside the key range). */
function findKey(times: Float32Array, t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

/**
 * Value of one channel at time t (not wrapped: before the first key holds the first value,
 * after the last holds the last), written at `o` in `out`.
 */
export function sampleChannel(channel: Channel, t: number, out: Float64Array, o: number): void {
  const n = PATH_COMPONENTS[channel.path];
  sampleKeys(channel.times, channel.values, channel.interpolation, n, n === 4, t, out, o);
}

/**
 * Morph weights of one weights channel at time t (not wrapped, held outside the keys like
 * sampleChannel), `targetCount` of them written from `o` in `out`. LINEAR interpolates each
 * weight linearly (glTF: weights are scalars, never slerped).
 */
export function sampleWeightsChannel(channel: WeightsChannel, targetCount: number, t: number, out: Float64Array, o: number): void {
  sampleKeys(channel.times, channel.values, channel.interpolation, targetCount, false, t, out, o);
}

/**
 * The glTF sampler over keys of `n` components each (`values` laid out as glTF does, with
 * in-tangent, value, out-tangent per CUBICSPLINE key); `rotation` slerps LINEAR keys and
 * normalises CUBICSPLINE results.
 */
function sampleKeys(times: Float32Array, values: Float32Array, interpolation: Interpolation, n: number, rotation: boolean, t: number, out: Float64Array, o: number): void {
  const cubic = interpolation === 'CUBICSPLINE';
  const stride = cubic ? 3 * n : n; // floats per key
  const valueAt = cubic ? n : 0; // value offset inside a key (after the in-tangent)
  const last = times.length - 1;
  if (t <= times[0] || last === 0) {
    for (let c = 0; c < n; c++) out[o + c] = values[valueAt + c];
    return;
  }
  if (t >= times[last]) {
    for (let c = 0; c < n; c++) out[o + c] = values[last * stride + valueAt + c];
    return;
  }
  const k = findKey(times, t);
  const a = k * stride + valueAt;
  const b = (k + 1) * stride + valueAt;
  if (interpolation === 'STEP') {
    for (let c = 0; c < n; c++) out[o + c] = values[a + c];
    return;
  }
  const dt = times[k + 1] - times[k];
  const s = (t - times[k]) / dt;
  if (cubic) {
    // Hermite spline, tangents scaled by the key interval (glTF 2.0, Appendix C).
    const s2 = s * s, s3 = s2 * s;
    const h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    const outTangent = k * stride + 2 * n;
    const inTangent = (k + 1) * stride;
    for (let c = 0; c < n; c++) {
      out[o + c] = h00 * values[a + c] + h10 * dt * values[outTangent + c] + h01 * values[b + c] + h11 * dt * values[inTangent + c];
    }
    if (rotation) normalizeAt(out, o);
    return;
  }
  if (rotation) {
    slerpAt(values, a, values, b, s, out, o);
    return;
  }
  for (let c = 0; c < n; c++) out[o + c] = values[a + c] + (values[b + c] - values[a + c]) * s;
}

function normalizeAt(q: Float64Array, o: number): void {
  const inv = 1 / Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
  for (let c = 0; c < 4; c++) q[o + c] *= inv;
}

/** Spherical linear interpolation along the shortest path, exact to float64 rounding. */
export function slerpAt(qa: ArrayLike<number>, oa: number, qb: ArrayLike<number>, ob: number, s: number, out: Float64Array, o: number): void {
  let dot = qa[oa] * qb[ob] + qa[oa + 1] * qb[ob + 1] + qa[oa + 2] * qb[ob + 2] + qa[oa + 3] * qb[ob + 3];
  let sign = 1;
  if (dot < 0) { dot = -dot; sign = -1; }
  let wa: number;
  let wb: number;
  if (dot > 0.9999999) {
    wa = 1 - s; wb = s; // angle too small for sin(); lerp then normalise is exact to rounding here
  } else {
    const angle = Math.acos(Math.min(dot, 1));
    const inv = 1 / Math.sin(angle);
    wa = Math.sin((1 - s) * angle) * inv;
    wb = Math.sin(s * angle) * inv;
  }
  wb *= sign;
  for (let c = 0; c < 4; c++) out[o + c] = qa[oa + c] * wa + qb[ob + c] * wb;
  normalizeAt(out, o);
}

/**
 * Local pose of every rig node for clip `clipIndex` at time t (seconds, wrapped into the clip's
 * duration). Nodes the clip does not animate keep their rest TRS.
 */
export function sampleClip(rig: Rig, clipIndex: number, t: number, out: Pose): Pose {
  const clip = rig.clips[clipIndex];
  const time = wrapTime(t, clip.duration);
  restPose(rig.nodes, out);
  for (const channel of clip.channels) {
    const target = channel.path === 'translation' ? out.translation : channel.path === 'rotation' ? out.rotation : out.scale;
    sampleChannel(channel, time, target, channel.node * PATH_COMPONENTS[channel.path]);
  }
  return out;
}

/**
 * Morph weights of every morph set of the rig for clip `clipIndex` at time t (seconds, wrapped
 * into the clip's duration), set after set (`Rig.morphs` order, each its targetCount weights,
 * unpadded) into `out`. Sets the clip does not animate keep their default weights.
 */
export function sampleMorphWeights(rig: Rig, clipIndex: number, t: number, out: Float64Array): Float64Array {
  const clip = rig.clips[clipIndex];
  const time = wrapTime(t, clip.duration);
  const starts = morphStarts(rig);
  rig.morphs.forEach((set, m) => out.set(set.defaultWeights, starts[m]));
  for (const channel of clip.weights ?? []) {
    sampleWeightsChannel(channel, rig.morphs[channel.morph].defaultWeights.length, time, out, starts[channel.morph]);
  }
  return out;
}

/** Where each morph set's weights start in an unpadded weight list (sampleMorphWeights), and their total at the end. */
export function morphStarts(rig: Pick<Rig, 'morphs'>): number[] {
  const starts = [0];
  for (const set of rig.morphs) starts.push(starts[starts.length - 1] + set.defaultWeights.length);
  return starts;
}
