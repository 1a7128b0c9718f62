import { triangleList, type Rig, type SkinnedPrimitive } from './rig';
import { optimizeVertexCache, vertexFetchRemap } from './vertex-cache';

/**
 * The vertices and triangle order a character's primitives are drawn with (docs/draw.md), made
 * once at load time: the vertex stage is the draw's cost, so every level's triangles are ordered
 * for the GPU's post-transform vertex cache (vertex-cache.ts, the method of meshoptimizer's
 * optimizeVertexCache), and a faceted primitive's vertices are shared between its faces.
 */
export interface DrawOrder {
  /**
   * Per primitive: for each of its vertices, the GPU vertex it is drawn as (a faceted primitive:
   * see sharesVertices; its vertex buffers hold each distinct vertex once, in the order the
   * optimised triangles first use them, vertex-cache.ts vertexFetchRemap), or undefined where
   * the GPU holds the primitive's vertices as loaded.
   */
  vertexOf: (Uint32Array | undefined)[];
  /** Per primitive, per LOD level (0: the primitive's own triangles): triangle indices over the GPU's vertices. */
  levels: Uint32Array[][];
}

/**
 * Whether `prim` is drawn with shared vertices and the normal of each face derived in the fragment
 * stage: a non-indexed primitive without NORMAL, TANGENT or morph targets, whose normals are flat
 * per face (glTF: "client implementations MUST calculate flat normals"; mesh-data.ts smoothNormals
 * gives each triangle's own), so its vertices differ only by that normal. The Fox: 1,728 vertices, 434 distinct.
 */
export function sharesVertices(prim: SkinnedPrimitive): boolean {
  return prim.indices === undefined && prim.normals === undefined && prim.morph === undefined && prim.tangents === undefined;
}

/**
 * The draw order of `rig`'s primitives, `lods[p][l - 1]` being primitive p's triangles at level
 * l >= 1 (Character.lods.indices; none: level 0 alone). Triangles of alphaMode BLEND primitives
 * keep their order (blending depends on it).
 */
export function drawOrder(rig: Rig, lods: Uint32Array[][] = []): DrawOrder {
  const vertexOf: (Uint32Array | undefined)[] = [];
  const levels = rig.primitives.map((prim, p) => {
    const all = [triangleList(prim), ...(lods[p] ?? [])];
    const blended = prim.material.alphaMode === 'BLEND';
    if (!sharesVertices(prim)) {
      vertexOf.push(undefined);
      return blended ? all : all.map(cacheOrder);
    }
    // Distinct vertices in first-use order, then the cache order over them, then the vertices
    // renumbered in the order that order first uses them.
    const unique = distinctVertices(prim);
    const shared = all.map((level) => level.map((v) => unique[v]));
    if (blended || shared[0].length < 3) {
      vertexOf.push(unique);
      return shared;
    }
    const distinct = vertexCountOf(unique);
    const ordered = optimizeVertexCache(shared[0], distinct);
    // Level 0 uses every vertex (non-indexed), so the remap covers them all.
    const remap = vertexFetchRemap(ordered, distinct);
    vertexOf.push(unique.map((u) => remap[u]));
    return [ordered.map((v) => remap[v]), ...shared.slice(1).map((level) => cacheOrder(level.map((v) => remap[v])))];
  });
  return { vertexOf, levels };
}

/** `triangles` (a triangle list) reordered for the vertex cache, over the same vertices. */
function cacheOrder(triangles: Uint32Array): Uint32Array {
  if (triangles.length < 6) return triangles;
  return optimizeVertexCache(triangles, vertexCountOf(triangles));
}

/** The number of vertices `indices` ranges over: its largest index + 1 (0 when empty). */
function vertexCountOf(indices: Uint32Array): number {
  let count = 0;
  for (let i = 0; i < indices.length; i++) if (indices[i] >= count) count = indices[i] + 1;
  return count;
}

/**
 * Vertices equal in every attribute the GPU reads of a shared-vertex primitive (all but the
 * normal, which is derived): for each vertex, its distinct vertex (numbered by first use).
 */
function distinctVertices(prim: SkinnedPrimitive): Uint32Array {
  const streams: [ArrayLike<number>, number][] = [[prim.positions, 3], [prim.joints, prim.influences], [prim.weights, prim.influences]];
  if (prim.uvs) streams.push([prim.uvs, 2]);
  if (prim.uvs1) streams.push([prim.uvs1, 2]);
  if (prim.colors) streams.push([prim.colors, 4]);
  if (prim.tangents) streams.push([prim.tangents, 4]);
  const seen = new Map<string, number>();
  const unique = new Uint32Array(prim.vertexCount);
  const key: number[] = [];
  for (let v = 0; v < prim.vertexCount; v++) {
    key.length = 0;
    for (const [data, size] of streams) for (let k = 0; k < size; k++) key.push(data[v * size + k]);
    const text = key.join(',');
    let u = seen.get(text);
    if (u === undefined) seen.set(text, (u = seen.size));
    unique[v] = u;
  }
  return unique;
}
