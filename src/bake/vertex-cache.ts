/**
 * Triangle order for the GPU's post-transform vertex cache, and vertex order for fetch, made at
 * load time (docs/draw.md). Hand-written rather than taken from meshoptimizer's encoder module
 * (`MeshoptEncoder.reorderMesh`), whose 20 KB of WebAssembly would ship with every page that
 * loads a character; this is the same method: Tom Forsyth's "Linear-speed vertex cache
 * optimisation" (2006) with the score tables meshoptimizer's optimizeVertexCache tunes for a
 * 16-entry cache: on the test models its orders cost the same vertex shader runs as
 * meshoptimizer's (test/bake/vertex-cache.test.ts measures both and holds it within a tenth).
 */

/** Entries of the modelled cache (LRU, as Forsyth's method models it; GPUs behave close to a 16-entry FIFO). */
const CACHE_SIZE = 16;
/** Live-triangle counts past this score as this many. */
const VALENCE_MAX = 8;
/** Score of a vertex by its cache position + 1 (0: not in the cache); meshoptimizer's kVertexScoreTable. */
const CACHE_SCORE = Float32Array.of(0, 0.779, 0.791, 0.789, 0.981, 0.843, 0.726, 0.847, 0.882, 0.867, 0.799, 0.642, 0.613, 0.6, 0.568, 0.372, 0.234);
/** Score of a vertex by how many of its triangles are not yet drawn (clamped to VALENCE_MAX). */
const LIVE_SCORE = Float32Array.of(0, 0.995, 0.713, 0.45, 0.404, 0.059, 0.005, 0.147, 0.006);

/** Throws unless `indices` is a triangle list over vertices 0 .. vertexCount - 1. */
function checkTriangles(indices: Uint32Array, vertexCount: number): void {
  if (!Number.isInteger(vertexCount) || vertexCount < 0) throw new Error(`vertexCount must be a non-negative integer, got ${vertexCount}`);
  if (indices.length % 3 !== 0) throw new Error(`indices must be a triangle list (a multiple of 3 long), got ${indices.length} indices`);
  for (let i = 0; i < indices.length; i++) {
    if (indices[i] >= vertexCount) throw new Error(`indices[${i}] is ${indices[i]}, past the last vertex (vertexCount ${vertexCount})`);
  }
}

/** Score of a vertex at `cachePosition` (-1: not cached) with `live` triangles left to draw. */
function vertexScore(cachePosition: number, live: number): number {
  return Math.fround(CACHE_SCORE[cachePosition + 1] + LIVE_SCORE[live < VALENCE_MAX ? live : VALENCE_MAX]);
}

/**
 * The triangles of `indices` (a triangle list over vertices 0 .. vertexCount - 1) in an order
 * that reuses the GPU's post-transform vertex cache: a new array, the same triangles with the same
 * corners in the same rotation (winding kept), over the same vertex numbers. `indices` is not
 * changed. O(triangles + vertices) time; typed arrays only. Throws, naming the input, on indices
 * that are not a triangle list over vertexCount vertices.
 */
export function optimizeVertexCache(indices: Uint32Array, vertexCount: number): Uint32Array {
  checkTriangles(indices, vertexCount);
  const faceCount = indices.length / 3;
  const out = new Uint32Array(indices.length);
  if (faceCount === 0) return out;

  // Adjacency: the undrawn triangles of vertex v are adjacent[offsets[v] .. offsets[v] + live[v]).
  const live = new Uint32Array(vertexCount);
  for (let i = 0; i < indices.length; i++) live[indices[i]]++;
  const offsets = new Uint32Array(vertexCount);
  for (let v = 1; v < vertexCount; v++) offsets[v] = offsets[v - 1] + live[v - 1];
  const adjacent = new Uint32Array(indices.length);
  const filled = new Uint32Array(vertexCount);
  for (let t = 0; t < faceCount; t++) {
    for (let k = 0; k < 3; k++) {
      const v = indices[t * 3 + k];
      adjacent[offsets[v] + filled[v]++] = t;
    }
  }

  const vertexScores = new Float32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) vertexScores[v] = vertexScore(-1, live[v]);
  const triangleScores = new Float32Array(faceCount);
  for (let t = 0; t < faceCount; t++) {
    triangleScores[t] = vertexScores[indices[t * 3]] + vertexScores[indices[t * 3 + 1]] + vertexScores[indices[t * 3 + 2]];
  }
  const emitted = new Uint8Array(faceCount);

  // The cache, most recent first; a triangle pushes at most 3 entries past CACHE_SIZE before the trim.
  let cache = new Uint32Array(CACHE_SIZE + 3);
  let next = new Uint32Array(CACHE_SIZE + 3);
  let cacheCount = 0;
  let current = 0;
  let inputCursor = 1;
  let written = 0;

  while (current >= 0) {
    const a = indices[current * 3];
    const b = indices[current * 3 + 1];
    const c = indices[current * 3 + 2];
    out[written++] = a;
    out[written++] = b;
    out[written++] = c;
    emitted[current] = 1;
    triangleScores[current] = 0;

    // The triangle's corners move to the front; the rest keep their order.
    let write = 0;
    next[write++] = a;
    next[write++] = b;
    next[write++] = c;
    for (let i = 0; i < cacheCount; i++) {
      const v = cache[i];
      next[write] = v;
      if (v !== a && v !== b && v !== c) write++;
    }
    const swap = cache;
    cache = next;
    next = swap;
    cacheCount = write > CACHE_SIZE ? CACHE_SIZE : write;

    // The drawn triangle leaves its corners' lists (which keeps live[] current).
    for (let k = 0; k < 3; k++) {
      const v = indices[current * 3 + k];
      const start = offsets[v];
      const end = start + live[v];
      for (let i = start; i < end; i++) {
        if (adjacent[i] === current) {
          adjacent[i] = adjacent[end - 1];
          live[v]--;
          break;
        }
      }
    }

    // Rescore the vertices the cache holds (and those it just dropped) and their triangles; the best is drawn next.
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < write; i++) {
      const v = cache[i];
      if (live[v] === 0) continue;
      const score = vertexScore(i >= CACHE_SIZE ? -1 : i, live[v]);
      const diff = score - vertexScores[v];
      vertexScores[v] = score;
      const start = offsets[v];
      const end = start + live[v];
      for (let j = start; j < end; j++) {
        const t = adjacent[j];
        triangleScores[t] += diff;
        const triangleScore = triangleScores[t];
        if (triangleScore > bestScore) {
          best = t;
          bestScore = triangleScore;
        }
      }
    }

    // A dead end (no cached vertex has a triangle left): the first undrawn triangle in input order.
    if (best < 0) {
      while (inputCursor < faceCount && emitted[inputCursor]) inputCursor++;
      if (inputCursor < faceCount) best = inputCursor;
    }
    current = best;
  }
  return out;
}

/**
 * For each of vertexCount vertices, its number when vertices are renumbered in the order
 * `indices` first uses them (so the draw fetches vertex memory front to back), or 0xffffffff for
 * a vertex no index uses. Throws, naming the input, on an index past vertexCount.
 */
export function vertexFetchRemap(indices: Uint32Array, vertexCount: number): Uint32Array {
  if (!Number.isInteger(vertexCount) || vertexCount < 0) throw new Error(`vertexCount must be a non-negative integer, got ${vertexCount}`);
  const remap = new Uint32Array(vertexCount).fill(0xffffffff);
  let nextVertex = 0;
  for (let i = 0; i < indices.length; i++) {
    const v = indices[i];
    if (v >= vertexCount) throw new Error(`indices[${i}] is ${v}, past the last vertex (vertexCount ${vertexCount})`);
    if (remap[v] === 0xffffffff) remap[v] = nextVertex++;
  }
  return remap;
}
