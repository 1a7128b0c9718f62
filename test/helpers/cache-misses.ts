/**
 * Vertex shader runs of a triangle list through a FIFO post-transform cache of `size` entries, per
 * triangle (3 for a list that shares nothing, about 0.5 at best for a regular grid): how
 * draw-order.test.ts and vertex-cache.test.ts measure a triangle order.
 */
export function missesPerTriangle(indices: ArrayLike<number>, size = 16): number {
  const cache: number[] = [];
  let misses = 0;
  for (let i = 0; i < indices.length; i++) {
    if (cache.includes(indices[i])) continue;
    misses++;
    cache.push(indices[i]);
    if (cache.length > size) cache.shift();
  }
  return misses / (indices.length / 3);
}
