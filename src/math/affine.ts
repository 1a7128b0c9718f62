/** Column-major 4x4 affine helpers on flat arrays, float64, writing into a caller-owned `dst`. */

/** The 4x4 identity, column-major. Shared, never written. */
export const IDENTITY_MATRIX: readonly number[] = Object.freeze([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);

/**
 * T * R * S of one node as a column-major 4x4, written at `o` in `dst`.
 * t, r, s are read at offsets ot (vec3), or (unit quaternion x, y, z, w), os (vec3).
 */
export function composeTrsAt(
  t: ArrayLike<number>, ot: number, r: ArrayLike<number>, or: number, s: ArrayLike<number>, os: number,
  dst: Float64Array, o: number,
): void {
  const x = r[or], y = r[or + 1], z = r[or + 2], w = r[or + 3];
  const sx = s[os], sy = s[os + 1], sz = s[os + 2];
  const xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
  dst[o] = (1 - 2 * (yy + zz)) * sx; dst[o + 1] = 2 * (xy + wz) * sx; dst[o + 2] = 2 * (xz - wy) * sx; dst[o + 3] = 0;
  dst[o + 4] = 2 * (xy - wz) * sy; dst[o + 5] = (1 - 2 * (xx + zz)) * sy; dst[o + 6] = 2 * (yz + wx) * sy; dst[o + 7] = 0;
  dst[o + 8] = 2 * (xz + wy) * sz; dst[o + 9] = 2 * (yz - wx) * sz; dst[o + 10] = (1 - 2 * (xx + yy)) * sz; dst[o + 11] = 0;
  dst[o + 12] = t[ot]; dst[o + 13] = t[ot + 1]; dst[o + 14] = t[ot + 2]; dst[o + 15] = 1;
}

/** out(at oo) = a(at oa) * b(at ob), column-major 4x4. `out` must not alias the inputs' ranges. */
export function multiplyAt(a: ArrayLike<number>, oa: number, b: ArrayLike<number>, ob: number, out: Float64Array, oo: number): void {
  for (let c = 0; c < 4; c++) {
    const b0 = b[ob + c * 4], b1 = b[ob + c * 4 + 1], b2 = b[ob + c * 4 + 2], b3 = b[ob + c * 4 + 3];
    for (let r = 0; r < 4; r++) {
      out[oo + c * 4 + r] = a[oa + r] * b0 + a[oa + 4 + r] * b1 + a[oa + 8 + r] * b2 + a[oa + 12 + r] * b3;
    }
  }
}
