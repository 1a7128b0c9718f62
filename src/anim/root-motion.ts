import { TRACK_NONE } from '../bake/bake';
import type { BakedRootMotion } from '../bake/root-motion';

/**
 * Root motion in closed form (the CPU reference for moving instances by their clips' root
 * motion; data from src/bake/root-motion.ts).
 *
 * A root-motion transform is a rigid motion of the ground plane, stored as (x, z, yaw): first
 * rotate by `yaw` radians about +y, then translate by (x, 0, z). In complex form, with w = z + i x,
 * a point w goes to (x, z) + e^(i yaw) w, and composing A then B gives
 * (w_B + e^(i yaw_B) w_A, yaw_A + yaw_B).
 *
 * Within one cycle, M(t) is read from the baked track (the two neighbouring entries, linearly, as
 * every table is read). For unwrapped clip time t = k d + r (k = floor(t / d), r in [0, d)):
 *
 *     M(t) = C^k * M(r),   C = M(d) the motion of one cycle,
 *     C^k = (w_C (1 - e^(i k yaw_C)) / (1 - e^(i yaw_C)),  k yaw_C)    (k w_C when yaw_C = 0),
 *
 * for any integer k, negative too. The motion between clip times t0 and t1 is M(t0)^-1 * M(t1),
 * expressed in the frame the character had at t0: forwards, backwards (t1 < t0 gives the inverse)
 * and across any number of loops, in constant time.
 */

/**
 * M(t) of `clip` at unwrapped clip time t (seconds; any real number) into out = [x, z, yaw].
 * A clip without root motion (a difference clip) or of zero duration gives the identity.
 */
export function rootMotionAt(motion: BakedRootMotion, clip: number, t: number, out: Float64Array): Float64Array {
  checkClip(motion, clip);
  if (!Number.isFinite(t)) throw new RangeError(`root motion time must be a finite number of seconds, got ${t}`);
  const d = motion.clipDurations[clip];
  const offset = motion.trackOffsets[clip];
  if (offset === TRACK_NONE || !(d > 0)) return out.fill(0);
  const k = Math.floor(t / d);
  const r = Math.min(Math.max(t - k * d, 0), d);
  // M(r) from the track: entries e * d / last, read like every baked table.
  const last = motion.clipEntries[clip] - 1;
  const u = (r / d) * last;
  const i = Math.min(Math.floor(u), last - 1);
  const f = u - i;
  const a = (offset + i) * 4;
  const track = motion.track;
  const rx = track[a] + (track[a + 4] - track[a]) * f;
  const rz = track[a + 2] + (track[a + 6] - track[a + 2]) * f;
  const ryaw = track[a + 3] + (track[a + 7] - track[a + 3]) * f;
  // C^k: translation w_C * s, s = (1 - e^(i k yaw)) / (1 - e^(i yaw)) = e^(i (k - 1) yaw / 2) sin(k yaw / 2) / sin(yaw / 2).
  const c = clip * 4;
  const cx = motion.cycle[c];
  const cz = motion.cycle[c + 2];
  const cyaw = motion.cycle[c + 3];
  const half = Math.sin(cyaw / 2);
  const ratio = Math.abs(half) > 1e-9 ? Math.sin((k * cyaw) / 2) / half : k * Math.cos((k * cyaw) / 2) / Math.cos(cyaw / 2);
  const phase = ((k - 1) * cyaw) / 2;
  const sRe = Math.cos(phase) * ratio;
  const sIm = Math.sin(phase) * ratio;
  // w_Ck = (cz + i cx) * s; then M = C^k * M(r): w = w_Ck + e^(i k yaw_C) w_r.
  const kyaw = k * cyaw;
  const cos = Math.cos(kyaw);
  const sin = Math.sin(kyaw);
  const wz = cz * sRe - cx * sIm + (rz * cos - rx * sin);
  const wx = cz * sIm + cx * sRe + (rz * sin + rx * cos);
  out[0] = wx;
  out[1] = wz;
  out[2] = kyaw + ryaw;
  return out;
}

/**
 * The root motion of `clip` from clip time t0 to t1 (seconds, unwrapped: t1 < t0 plays
 * backwards, spans may cover many loops) into out = [x, z, yaw]: M(t0)^-1 * M(t1), in the frame
 * the character had at t0. An instance at world transform W at t0 stands at
 * W * translate(x, 0, z) * rotateY(yaw) at t1.
 */
export function rootMotionBetween(motion: BakedRootMotion, clip: number, t0: number, t1: number, out: Float64Array): Float64Array {
  rootMotionAt(motion, clip, t0, out);
  const x0 = out[0], z0 = out[1], yaw0 = out[2];
  rootMotionAt(motion, clip, t1, out);
  // (w1 - w0) e^(-i yaw0), yaw1 - yaw0.
  const dz = out[1] - z0;
  const dx = out[0] - x0;
  const cos = Math.cos(yaw0);
  const sin = Math.sin(yaw0);
  out[0] = dx * cos - dz * sin;
  out[1] = dz * cos + dx * sin;
  out[2] -= yaw0;
  return out;
}

function checkClip(motion: BakedRootMotion, clip: number): void {
  if (!Number.isInteger(clip) || clip < 0 || clip >= motion.trackOffsets.length) {
    throw new RangeError(`clip ${clip} does not exist (the model has ${motion.trackOffsets.length} clips)`);
  }
}
