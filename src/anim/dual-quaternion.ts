import type { SkinnedPrimitive } from '../bake/rig';

/**
 * Dual-quaternion skinning on the CPU: the reference for the `'dual-quaternion'` mode of
 * shaders/pose.wgsl (joint matrix -> joint record) and shaders/skin.wgsl (blend), float64.
 *
 * Scale and shear are handled as Kavan et al. do ("Geometric Skinning with Approximate Dual
 * Quaternion Blending", ACM TOG 2008, section 4.3: two-phase skinning). Each joint matrix
 * M = [A | t] is split into a rotation R and the remainder S = R^T A, so that M v = R (S v) + t;
 * R is the polar rotation of A (A = R S with S symmetric: the joint's scale and shear in bind
 * space). A vertex is first moved by the linear blend of the remainders, sum w_i S_i, then by the
 * dual-quaternion blend of the rigid parts (R_i, t_i). Without scale every S_i is the identity
 * and this is plain dual-quaternion blending; with a single influence it is exactly M v.
 *
 * The joint record (JOINT_DQ in src/runtime/layout.ts), 16 numbers = 4 vec4f per joint:
 *   [0..3]   q: the unit quaternion (x, y, z, w) of R, the real part of the dual quaternion
 *   [4..7]   S row 0, then t.x
 *   [8..11]  S row 1, then t.y
 *   [12..15] S row 2, then t.z
 * i.e. the 3 rows of [S | t] after q. The dual part 0.5 (t, 0) q is formed while blending.
 *
 * Antipodality: q and -q are the same rotation; every influence is flipped into the hemisphere
 * of the vertex's first influence of non-zero weight (its real part's dot with the first's is
 * made >= 0) before the weighted sum, in the vertex shader's order: JOINTS_0[0], JOINTS_1[0],
 * JOINTS_0[1], JOINTS_1[1], ... (DQ_INFLUENCE_ORDER).
 */

/** Numbers per joint in a dual-quaternion joint record (JOINT_DQ.size / 4). */
export const DQ_RECORD_FLOATS = 16;


/** Visiting order of a vertex's influences (indices into its 4 or 8 weights): the vertex shader's. */
export const DQ_INFLUENCE_ORDER: Readonly<Record<4 | 8, readonly number[]>> = Object.freeze({
  4: Object.freeze([0, 1, 2, 3]),
  8: Object.freeze([0, 4, 1, 5, 2, 6, 3, 7]),
});

const scratch = {
  a: new Float64Array(9), x: new Float64Array(9), c: new Float64Array(9), r: new Float64Array(9),
  real: new Float64Array(4), dual: new Float64Array(4), s: new Float64Array(9), p: new Float64Array(3), n: new Float64Array(3),
};

/**
 * Below this |det(A)| / (|A|_F / sqrt 3)^3, a joint's 3x3 counts as degenerate (a scale near 0
 * on some axis: glTF's way to hide a part): R is the identity and S the whole 3x3, still exact for
 * that joint alone. Defined here, the float64 reference, and re-exported by src/runtime/layout.ts,
 * whence pose.wgsl's generated block takes it.
 */
export const DQ_DEGENERATE_DET = 1e-6;

/**
 * The rotation R of the polar decomposition A = R S of a row-major 3x3 `a` (S symmetric), by
 * Higham's scaled Newton iteration X <- (g X + X^-T / g) / 2, written row-major into `out`. A
 * reflection (det < 0) is taken out first (R of -A, so det R = +1 and S = R^T A is negative
 * definite). Returns false, with `out` the identity, for a degenerate `a` (DQ_DEGENERATE_DET).
 */
export function polarRotation(a: ArrayLike<number>, out: Float64Array): boolean {
  const { x, c } = scratch;
  const norm = frobenius(a);
  const det = det3(a);
  if (!(norm > 0) || !(Math.abs(det) > DQ_DEGENERATE_DET * (norm / Math.sqrt(3)) ** 3)) {
    out.fill(0); out[0] = out[4] = out[8] = 1;
    return false;
  }
  const sign = det < 0 ? -1 : 1;
  for (let i = 0; i < 9; i++) x[i] = sign * a[i];
  for (let k = 0; k < 50; k++) {
    cofactor(x, c); // X^-T = C / det X
    const d = det3(x);
    const g = Math.sqrt(frobenius(c) / Math.abs(d) / frobenius(x));
    let change = 0;
    for (let i = 0; i < 9; i++) {
      const next = 0.5 * (g * x[i] + c[i] / (g * d));
      change = Math.max(change, Math.abs(next - x[i]));
      x[i] = next;
    }
    if (change < 1e-15) break;
  }
  out.set(x);
  return true;
}

/** Unit quaternion (x, y, z, w) of a row-major rotation matrix (Shepperd's method), at `o` in `out`. */
export function quatFromRotation(r: ArrayLike<number>, out: Float64Array, o = 0): void {
  const trace = r[0] + r[4] + r[8];
  let x: number, y: number, z: number, w: number;
  if (trace > 0) {
    const s = Math.sqrt(trace + 1) * 2;
    w = s / 4; x = (r[7] - r[5]) / s; y = (r[2] - r[6]) / s; z = (r[3] - r[1]) / s;
  } else if (r[0] > r[4] && r[0] > r[8]) {
    const s = Math.sqrt(1 + r[0] - r[4] - r[8]) * 2;
    w = (r[7] - r[5]) / s; x = s / 4; y = (r[1] + r[3]) / s; z = (r[2] + r[6]) / s;
  } else if (r[4] > r[8]) {
    const s = Math.sqrt(1 + r[4] - r[0] - r[8]) * 2;
    w = (r[2] - r[6]) / s; x = (r[1] + r[3]) / s; y = s / 4; z = (r[5] + r[7]) / s;
  } else {
    const s = Math.sqrt(1 + r[8] - r[0] - r[4]) * 2;
    w = (r[3] - r[1]) / s; x = (r[2] + r[6]) / s; y = (r[5] + r[7]) / s; z = s / 4;
  }
  const inv = 1 / Math.hypot(x, y, z, w);
  out[o] = x * inv; out[o + 1] = y * inv; out[o + 2] = z * inv; out[o + 3] = w * inv;
}

/** Row-major rotation matrix of the unit quaternion at `o` in `q`. */
export function rotationFromQuat(q: ArrayLike<number>, o: number, out: Float64Array): void {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  out[0] = 1 - 2 * (y * y + z * z); out[1] = 2 * (x * y - w * z); out[2] = 2 * (x * z + w * y);
  out[3] = 2 * (x * y + w * z); out[4] = 1 - 2 * (x * x + z * z); out[5] = 2 * (y * z - w * x);
  out[6] = 2 * (x * z - w * y); out[7] = 2 * (y * z + w * x); out[8] = 1 - 2 * (x * x + y * y);
}

/**
 * The dual-quaternion joint record (16 numbers, see the top of this file) of the column-major
 * 4x4 joint matrix at `mo` in `matrices`, written at `o` in `out`. S is computed from the rounded
 * quaternion (S = R(q)^T A), so R(q) S = A holds to rounding whatever the polar iteration left.
 */
export function jointToDualQuaternion(matrices: ArrayLike<number>, mo: number, out: Float64Array | Float32Array, o: number): void {
  const { a, r, real } = scratch;
  for (let row = 0; row < 3; row++) for (let col = 0; col < 3; col++) a[row * 3 + col] = matrices[mo + col * 4 + row];
  polarRotation(a, r);
  quatFromRotation(r, real);
  rotationFromQuat(real, 0, r);
  out.set(real, o);
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) out[o + 4 + row * 4 + col] = r[row] * a[col] + r[3 + row] * a[3 + col] + r[6 + row] * a[6 + col];
    out[o + 4 + row * 4 + 3] = matrices[mo + 12 + row];
  }
}

/** jointToDualQuaternion of every matrix of `matrices` (16 numbers each), 16 numbers per joint in `out`. */
export function dualQuaternionJoints(matrices: ArrayLike<number>, out = new Float64Array(matrices.length)): Float64Array {
  for (let j = 0; j < matrices.length / 16; j++) jointToDualQuaternion(matrices, j * 16, out, j * DQ_RECORD_FLOATS);
  return out;
}

/**
 * Skins one vertex with dual-quaternion records: `records` holds 16 numbers per joint,
 * `joints` / `weights` the vertex's influences from `io` (`influences` of them, visited in
 * DQ_INFLUENCE_ORDER). Position at `po` in `position` and normal at `no` in `normal` (pass
 * undefined for none) are written to `outPosition` at `oo` and `outNormal` at `oo`. The normal
 * is transformed by the cofactor of the blended S (its inverse transpose times det, sign kept
 * so a reflection still points it out) and the blended rotation; it is not normalised.
 */
export function skinVertexDualQuaternion(
  records: ArrayLike<number>, joints: ArrayLike<number>, weights: ArrayLike<number>, io: number, influences: 4 | 8,
  position: ArrayLike<number>, po: number, outPosition: Float64Array, oo: number,
  normal?: ArrayLike<number>, no = 0, outNormal?: Float64Array,
): void {
  const { real, dual, s } = scratch;
  real.fill(0); dual.fill(0); s.fill(0);
  let pivot = -1;
  for (const k of DQ_INFLUENCE_ORDER[influences]) {
    const w = weights[io + k];
    if (w === 0) continue;
    const j = joints[io + k] * DQ_RECORD_FLOATS;
    const qx = records[j], qy = records[j + 1], qz = records[j + 2], qw = records[j + 3];
    const tx = records[j + 7], ty = records[j + 11], tz = records[j + 15];
    if (pivot < 0) pivot = j;
    const dot = qx * records[pivot] + qy * records[pivot + 1] + qz * records[pivot + 2] + qw * records[pivot + 3];
    const ws = dot < 0 ? -w : w;
    real[0] += ws * qx; real[1] += ws * qy; real[2] += ws * qz; real[3] += ws * qw;
    // Dual part 0.5 (t, 0) q: vector 0.5 (qw t + t x q.xyz), scalar -0.5 t . q.xyz.
    dual[0] += ws * 0.5 * (qw * tx + ty * qz - tz * qy);
    dual[1] += ws * 0.5 * (qw * ty + tz * qx - tx * qz);
    dual[2] += ws * 0.5 * (qw * tz + tx * qy - ty * qx);
    dual[3] -= ws * 0.5 * (tx * qx + ty * qy + tz * qz);
    for (let row = 0; row < 3; row++) for (let col = 0; col < 3; col++) s[row * 3 + col] += w * records[j + 4 + row * 4 + col];
  }
  const inv = 1 / Math.hypot(real[0], real[1], real[2], real[3]);
  for (let i = 0; i < 4; i++) { real[i] *= inv; dual[i] *= inv; }
  const { p } = scratch;
  const x = position[po], y = position[po + 1], z = position[po + 2];
  for (let row = 0; row < 3; row++) p[row] = s[row * 3] * x + s[row * 3 + 1] * y + s[row * 3 + 2] * z;
  rotate(real, p);
  const vx = real[0], vy = real[1], vz = real[2], w0 = real[3];
  const ex = dual[0], ey = dual[1], ez = dual[2], e0 = dual[3];
  // Translation 2 dual conj(real): 2 (w0 e - e0 v + v x e).
  outPosition[oo] = p[0] + 2 * (w0 * ex - e0 * vx + vy * ez - vz * ey);
  outPosition[oo + 1] = p[1] + 2 * (w0 * ey - e0 * vy + vz * ex - vx * ez);
  outPosition[oo + 2] = p[2] + 2 * (w0 * ez - e0 * vz + vx * ey - vy * ex);
  if (normal && outNormal) {
    const { n, c } = scratch;
    cofactor(s, c);
    const sign = det3(s) < 0 ? -1 : 1;
    const nx = normal[no], ny = normal[no + 1], nz = normal[no + 2];
    for (let row = 0; row < 3; row++) n[row] = sign * (c[row * 3] * nx + c[row * 3 + 1] * ny + c[row * 3 + 2] * nz);
    rotate(real, n);
    outNormal.set(n, oo);
  }
}

/**
 * Dual-quaternion skinned positions of a primitive (the reference for the 'dual-quaternion' mode
 * of shaders/skin.wgsl; skinPositions in skinning.ts is the linear one): `records` holds 16
 * numbers per skin joint (dualQuaternionJoints). Writes 3 numbers per vertex into `out` from
 * `o`, and the normals (not normalised) into `normals` from `o` when both it and the
 * primitive's normals are given.
 */
export function skinPositionsDualQuaternion(prim: SkinnedPrimitive, records: ArrayLike<number>, out: Float64Array, o = 0, normals?: Float64Array): Float64Array {
  const { positions, influences } = prim;
  const primNormals = normals ? prim.normals : undefined;
  for (let v = 0; v < prim.vertexCount; v++) {
    skinVertexDualQuaternion(records, prim.joints, prim.weights, v * influences, influences, positions, v * 3, out, o + v * 3, primNormals, v * 3, normals);
  }
  return out;
}

/** Rotates `v` (3 numbers) in place by the unit quaternion `q`: v + 2 q.xyz x (q.xyz x v + q.w v). */
function rotate(q: ArrayLike<number>, v: Float64Array): void {
  const qx = q[0], qy = q[1], qz = q[2], qw = q[3];
  const x = v[0], y = v[1], z = v[2];
  const cx = qy * z - qz * y + qw * x, cy = qz * x - qx * z + qw * y, cz = qx * y - qy * x + qw * z;
  v[0] = x + 2 * (qy * cz - qz * cy);
  v[1] = y + 2 * (qz * cx - qx * cz);
  v[2] = z + 2 * (qx * cy - qy * cx);
}

function det3(m: ArrayLike<number>): number {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/** Cofactor matrix of row-major `m` (det(m) m^-T), row-major: its rows are row1 x row2, row2 x row0, row0 x row1. */
function cofactor(m: ArrayLike<number>, out: Float64Array): void {
  out[0] = m[4] * m[8] - m[5] * m[7]; out[1] = m[5] * m[6] - m[3] * m[8]; out[2] = m[3] * m[7] - m[4] * m[6];
  out[3] = m[7] * m[2] - m[8] * m[1]; out[4] = m[8] * m[0] - m[6] * m[2]; out[5] = m[6] * m[1] - m[7] * m[0];
  out[6] = m[1] * m[5] - m[2] * m[4]; out[7] = m[2] * m[3] - m[0] * m[5]; out[8] = m[0] * m[4] - m[1] * m[3];
}

function frobenius(m: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += m[i] * m[i];
  return Math.sqrt(sum);
}
