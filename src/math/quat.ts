/**
 * Quaternion helpers on flat arrays (x, y, z, w at an offset), float64, writing into a
 * caller-owned `out`: nothing here allocates.
 *
 * Rotation blend of the whole project: normalised lerp (nlerp) along the shortest path. The second
 * quaternion is negated when its dot with the first is negative, the two are mixed linearly and
 * the result is normalised (as ozz-animation's blending job does). It is cheap on the GPU,
 * commutes with the weighted sums that layered blending needs, and differs from slerp only in
 * angular speed across the blend, never in the end poses.
 */
export const ROTATION_BLEND = 'nlerp' as const;

/** Shortest-path nlerp of the quaternions at `o` in `a` and `b` (w in [0, 1]: 0 gives a), written at `o` in `out`. */
export function nlerpInto(a: ArrayLike<number>, b: ArrayLike<number>, o: number, w: number, out: Float64Array): void {
  const dot = a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3];
  const wb = dot < 0 ? -w : w;
  const wa = 1 - w;
  const x = a[o] * wa + b[o] * wb;
  const y = a[o + 1] * wa + b[o + 1] * wb;
  const z = a[o + 2] * wa + b[o + 2] * wb;
  const q = a[o + 3] * wa + b[o + 3] * wb;
  const inv = 1 / Math.hypot(x, y, z, q);
  out[o] = x * inv; out[o + 1] = y * inv; out[o + 2] = z * inv; out[o + 3] = q * inv;
}

/**
 * Hamilton product a * b of the quaternions at `oa` in `a` and `ob` in `b`, with `a` conjugated
 * first when `conjugateA` (conj(a) * b: the rotation from a to b), written at `o` in `out`.
 */
export function quatMulAt(a: ArrayLike<number>, oa: number, conjugateA: boolean, b: ArrayLike<number>, ob: number, out: Float64Array, o: number): void {
  const s = conjugateA ? -1 : 1;
  const ax = s * a[oa], ay = s * a[oa + 1], az = s * a[oa + 2], aw = a[oa + 3];
  const bx = b[ob], by = b[ob + 1], bz = b[ob + 2], bw = b[ob + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}
