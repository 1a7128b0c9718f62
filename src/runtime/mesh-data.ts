import type { SkinnedPrimitive } from '../bake/rig';
import { MORPH_HEADER } from './layout';

/**
 * Vertex data of one primitive as the skin pass uploads it: joints already offset to joint
 * slots, normals derived where the file has none, UVs zero where it has none.
 */
export interface PrimitiveVertices {
  positions: Float32Array;
  normals: Float32Array;
  /** TEXCOORD_0 (2 per vertex), or TEXCOORD_0 and TEXCOORD_1 interleaved (4 per vertex) when `uvSets` is 2. */
  uvs: Float32Array;
  uvSets: 1 | 2;
  /** COLOR_0 as linear RGBA, 4 per vertex (white where the primitive has none). */
  colors: Float32Array;
  /** TANGENT (4 per vertex) when the primitive carries it; else undefined (MeshBuffers binds a shared 16-byte stand-in). */
  tangents?: Float32Array;
  /** Slot index per influence, `influences` per vertex. */
  joints: Uint16Array;
  weights: Float32Array;
  influences: 4 | 8;
}

export function primitiveVertices(prim: SkinnedPrimitive, slotOffset: number): PrimitiveVertices {
  const joints = new Uint16Array(prim.joints.length);
  for (let i = 0; i < joints.length; i++) {
    const slot = prim.joints[i] + slotOffset;
    if (slot > 0xffff) throw new RangeError(`joint slot ${slot} does not fit in uint16 (too many joints across skins)`);
    joints[i] = slot;
  }
  return {
    positions: prim.positions,
    normals: prim.normals ?? smoothNormals(prim),
    uvs: prim.uvs1 ? interleaveUvs(prim, prim.uvs1) : prim.uvs ?? new Float32Array(prim.vertexCount * 2),
    uvSets: prim.uvs1 ? 2 : 1,
    colors: prim.colors ?? new Float32Array(prim.vertexCount * 4).fill(1),
    tangents: prim.tangents,
    joints, weights: prim.weights, influences: prim.influences,
  };
}

/** (u0, v0, u1, v1) per vertex; TEXCOORD_0 zero where the primitive has none. */
function interleaveUvs(prim: SkinnedPrimitive, uvs1: Float32Array): Float32Array {
  const out = new Float32Array(prim.vertexCount * 4);
  for (let v = 0; v < prim.vertexCount; v++) {
    if (prim.uvs) out.set(prim.uvs.subarray(v * 2, v * 2 + 2), v * 4);
    out.set(uvs1.subarray(v * 2, v * 2 + 2), v * 4 + 2);
  }
  return out;
}

/** Area-weighted vertex normals from the triangles (flat per face for non-indexed geometry). */
export function smoothNormals(prim: SkinnedPrimitive): Float32Array {
  const p = prim.positions;
  const normals = new Float32Array(prim.vertexCount * 3);
  const triangles = prim.indices ? prim.indices.length / 3 : prim.vertexCount / 3;
  const index = (k: number) => (prim.indices ? prim.indices[k] : k);
  for (let t = 0; t < triangles; t++) {
    const a = index(t * 3) * 3, b = index(t * 3 + 1) * 3, c = index(t * 3 + 2) * 3;
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    for (const v of [a, b, c]) { normals[v] += nx; normals[v + 1] += ny; normals[v + 2] += nz; }
  }
  for (let v = 0; v < normals.length; v += 3) {
    const len = Math.hypot(normals[v], normals[v + 1], normals[v + 2]) || 1;
    normals[v] /= len; normals[v + 1] /= len; normals[v + 2] /= len;
  }
  return normals;
}

/**
 * A primitive's morph-target buffer as shaders/skin.wgsl reads it (MORPH_HEADER, then the
 * displacements vertex by vertex, target by target: POSITION (x, y, z, 0), then NORMAL when the
 * primitive has normal displacements). `setBase`: first weight of each morph set in an
 * instance's weights; `weightCount`: weights per instance. A primitive without targets gets the
 * header alone, with targetCount 0 (the shader reads nothing more).
 */
export function morphTargetData(prim: SkinnedPrimitive, setBase: ArrayLike<number>, weightCount: number): Float32Array<ArrayBuffer> {
  const morph = prim.morph;
  const targets = morph ? morph.positions.length : 0;
  const normals = morph?.normals ? 1 : 0;
  const stride = 1 + normals;
  const header = MORPH_HEADER.size / 4;
  // At least one vec4f after the header: a binding holds one element of its runtime-sized array.
  const out = new Float32Array(header + Math.max(4, prim.vertexCount * targets * stride * 4));
  const words = new Uint32Array(out.buffer, 0, header);
  words[MORPH_HEADER.weightBase / 4] = morph ? setBase[morph.set] : 0;
  words[MORPH_HEADER.targetCount / 4] = targets;
  words[MORPH_HEADER.weightStride / 4] = weightCount;
  words[MORPH_HEADER.normals / 4] = normals;
  for (let t = 0; t < targets; t++) {
    const p = morph!.positions[t];
    const n = morph!.normals?.[t];
    for (let v = 0; v < prim.vertexCount; v++) {
      const o = header + (v * targets + t) * stride * 4;
      out[o] = p[v * 3]; out[o + 1] = p[v * 3 + 1]; out[o + 2] = p[v * 3 + 2];
      if (n) { out[o + 4] = n[v * 3]; out[o + 5] = n[v * 3 + 1]; out[o + 6] = n[v * 3 + 2]; }
    }
  }
  return out;
}
