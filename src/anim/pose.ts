/**
 * Pose math: the TypeScript twin of the WGSL in shaders/. A Pose holds local TRS for every rig
 * node (see bake/rig.ts for conventions). Every function writes into a caller-owned `out`, so
 * nothing here allocates per call.
 *
 * Rotation blend: normalised lerp (nlerp) along the shortest path. The second quaternion is
 * negated when its dot with the first is negative, the two are mixed linearly and the result is
 * normalised (as ozz-animation's blending job does). It is cheap on the GPU, commutes with the
 * weighted sums that layered blending needs, and differs from slerp only in angular speed across
 * the blend, never in the end poses.
 */

export interface Pose {
  /** vec3 per node. */
  translation: Float64Array;
  /** Unit quaternion (x, y, z, w) per node. */
  rotation: Float64Array;
  /** vec3 per node. */
  scale: Float64Array;
}

/**
 * How rotations are blended, here and in the WGSL: `'nlerp'`, normalised linear interpolation
 * along the shortest path (the sign of one quaternion flipped when their dot is negative). The
 * pose dump prints it as `rotationBlend`.
 */
export const ROTATION_BLEND = 'nlerp' as const;

export function createPose(nodeCount: number): Pose {
  return {
    translation: new Float64Array(nodeCount * 3),
    rotation: new Float64Array(nodeCount * 4),
    scale: new Float64Array(nodeCount * 3),
  };
}

/**
 * Blends two local poses: w = 0 gives `a`, w = 1 gives `b` (w in [0, 1]). Translation and scale
 * lerp, rotation nlerp along the shortest path. `out` may alias `a` or `b`.
 */
export function blendPoses(a: Pose, b: Pose, w: number, out: Pose): Pose {
  const n = a.rotation.length / 4;
  for (let i = 0; i < n * 3; i++) {
    out.translation[i] = a.translation[i] + (b.translation[i] - a.translation[i]) * w;
    out.scale[i] = a.scale[i] + (b.scale[i] - a.scale[i]) * w;
  }
  for (let i = 0; i < n; i++) nlerpInto(a.rotation, b.rotation, i * 4, w, out.rotation);
  return out;
}

/** Shortest-path nlerp of the quaternions at `o` in `a` and `b`, written at `o` in `out`. */
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

/**
 * T * R * S of one node as a column-major 4x4, written at `o` in `dst`.
 * t, r, s are read at offsets ot (vec3), or (quat), os (vec3).
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

/**
 * Model-space (scene-space) matrices of every node: model[i] = model[parent[i]] * local[i], in
 * parent-first order. `out` holds 16 numbers per node.
 */
export function localToModel(parent: Int32Array, pose: Pose, out: Float64Array, scratch = new Float64Array(16)): Float64Array {
  for (let i = 0; i < parent.length; i++) {
    if (parent[i] < 0) {
      composeTrsAt(pose.translation, i * 3, pose.rotation, i * 4, pose.scale, i * 3, out, i * 16);
    } else {
      composeTrsAt(pose.translation, i * 3, pose.rotation, i * 4, pose.scale, i * 3, scratch, 0);
      multiplyAt(out, parent[i] * 16, scratch, 0, out, i * 16);
    }
  }
  return out;
}

/** Joint matrices of a skin: model(joint) * inverseBind(joint), 16 numbers per skin joint. */
export function jointMatrices(joints: Int32Array, inverseBind: Float64Array, model: Float64Array, out: Float64Array): Float64Array {
  for (let j = 0; j < joints.length; j++) multiplyAt(model, joints[j] * 16, inverseBind, j * 16, out, j * 16);
  return out;
}
