import type { SkinnedPrimitive } from '../bake/rig';

/**
 * Skins a primitive's positions on the CPU (the reference for shaders/skin.wgsl):
 * p = sum_i w_i * jointMatrix[j_i] * v over all influences. `joints` holds 16 numbers per skin
 * joint (model * inverseBind). Writes 3 numbers per vertex into `out` from float offset `o`.
 * `positions` replaces the primitive's own (morphed positions: src/anim/morph.ts).
 */
export function skinPositions(prim: SkinnedPrimitive, joints: ArrayLike<number>, out: Float64Array, o = 0,
  positions: ArrayLike<number> = prim.positions): Float64Array {
  const { influences } = prim;
  for (let v = 0; v < prim.vertexCount; v++) {
    const x = positions[v * 3], y = positions[v * 3 + 1], z = positions[v * 3 + 2];
    let px = 0, py = 0, pz = 0;
    for (let k = 0; k < influences; k++) {
      const w = prim.weights[v * influences + k];
      if (w === 0) continue;
      const m = prim.joints[v * influences + k] * 16;
      px += w * (joints[m] * x + joints[m + 4] * y + joints[m + 8] * z + joints[m + 12]);
      py += w * (joints[m + 1] * x + joints[m + 5] * y + joints[m + 9] * z + joints[m + 13]);
      pz += w * (joints[m + 2] * x + joints[m + 6] * y + joints[m + 10] * z + joints[m + 14]);
    }
    out[o + v * 3] = px; out[o + v * 3 + 1] = py; out[o + v * 3 + 2] = pz;
  }
  return out;
}

/**
 * Skins normals as shaders/skin.wgsl does: n' = sum_i w_i * linear(jointMatrix[j_i]) * n, not
 * normalised (exact for rotations and uniform scale, the usual approximation otherwise).
 * `normals` holds 3 numbers per vertex; writes 3 per vertex into `out` from offset `o`.
 */
export function skinNormals(prim: SkinnedPrimitive, joints: ArrayLike<number>, normals: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const { influences } = prim;
  for (let v = 0; v < prim.vertexCount; v++) {
    const x = normals[v * 3], y = normals[v * 3 + 1], z = normals[v * 3 + 2];
    let nx = 0, ny = 0, nz = 0;
    for (let k = 0; k < influences; k++) {
      const w = prim.weights[v * influences + k];
      if (w === 0) continue;
      const m = prim.joints[v * influences + k] * 16;
      nx += w * (joints[m] * x + joints[m + 4] * y + joints[m + 8] * z);
      ny += w * (joints[m + 1] * x + joints[m + 5] * y + joints[m + 9] * z);
      nz += w * (joints[m + 2] * x + joints[m + 6] * y + joints[m + 10] * z);
    }
    out[o + v * 3] = nx; out[o + v * 3 + 1] = ny; out[o + v * 3 + 2] = nz;
  }
  return out;
}
