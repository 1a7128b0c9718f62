import { MeshoptEncoder } from 'meshoptimizer/encoder';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SkinnedPrimitive } from '../../src/bake/rig';
import { optimizeVertexCache, vertexFetchRemap } from '../../src/bake/vertex-cache';
import { missesPerTriangle } from '../helpers/cache-misses';
import { loadModel } from '../helpers/models';

/** Each triangle as its corners rotated to start at the smallest (winding kept), sorted: equal for lists that draw the same triangles in any order. */
function triangleSet(indices: ArrayLike<number>): string[] {
  const out: string[] = [];
  for (let t = 0; t < indices.length; t += 3) {
    const c = [indices[t], indices[t + 1], indices[t + 2]];
    const r = c.indexOf(Math.min(...c));
    out.push(`${c[r]} ${c[(r + 1) % 3]} ${c[(r + 2) % 3]}`);
  }
  return out.sort();
}

/**
 * A primitive's triangles over vertices that differ: its indices, or for a non-indexed one (the
 * Fox), its corners welded by position, UV and skin (as draw-order.ts shares them), so the cache has
 * something to reuse. Returns the triangles and how many vertices they range over.
 */
function trianglesOf(prim: SkinnedPrimitive): { indices: Uint32Array; vertexCount: number } {
  if (prim.indices) return { indices: Uint32Array.from(prim.indices), vertexCount: prim.vertexCount };
  const seen = new Map<string, number>();
  const indices = new Uint32Array(prim.vertexCount);
  for (let v = 0; v < prim.vertexCount; v++) {
    const take = (data: ArrayLike<number> | undefined, n: number) => (data ? Array.from({ length: n }, (_, k) => data[v * n + k]) : []);
    const key = [...take(prim.positions, 3), ...take(prim.uvs, 2), ...take(prim.joints, prim.influences), ...take(prim.weights, prim.influences)].join(',');
    let u = seen.get(key);
    if (u === undefined) seen.set(key, (u = seen.size));
    indices[v] = u;
  }
  return { indices, vertexCount: seen.size };
}

/** meshoptimizer's order (MeshoptEncoder.reorderMesh: optimizeVertexCache, then the fetch remap, which leaves the FIFO misses as they are). */
function meshoptOrder(indices: Uint32Array): Uint32Array {
  const copy = Uint32Array.from(indices);
  MeshoptEncoder.reorderMesh(copy, true, false);
  return copy;
}

/** The quality bar: vertex shader runs per triangle at most 10% over meshoptimizer's. */
const withinTenPercentOf = (ours: number, meshopt: number) => ours <= meshopt * 1.1;

const MODELS = ['Fox', 'CesiumMan', 'RobotExpressive'];
/**
 * Whether the order as loaded is past the bar (what an optimiser that did nothing would return):
 * the Fox (1.98 runs a triangle as loaded, welded) and CesiumMan (2.08) are; RobotExpressive's primitives
 * arrive close to meshoptimizer's order already.
 */
const LOADED_ORDER_FAILS: Record<string, boolean> = { Fox: true, CesiumMan: true, RobotExpressive: false };

describe('optimizeVertexCache: triangle order for the post-transform vertex cache', () => {
  beforeAll(async () => {
    await MeshoptEncoder.ready;
  });

  it.each(MODELS)('%s: every triangle kept with its winding, indices in range, the input untouched', async (name) => {
    const { rig } = await loadModel(name);
    for (const prim of rig.primitives) {
      const { indices, vertexCount } = trianglesOf(prim);
      const before = Uint32Array.from(indices);
      const ordered = optimizeVertexCache(indices, vertexCount);
      expect(ordered.length).toBe(indices.length);
      expect(ordered.every((v) => v < vertexCount)).toBe(true);
      expect(triangleSet(ordered)).toEqual(triangleSet(indices));
      expect(indices).toEqual(before);
    }
  });

  it.each(MODELS)("%s: vertex shader runs per triangle (16-entry FIFO) within a tenth of meshoptimizer's", async (name) => {
    const { rig } = await loadModel(name);
    let ourMisses = 0;
    let meshoptMisses = 0;
    let loadedMisses = 0;
    let triangles = 0;
    rig.primitives.forEach((prim, p) => {
      const { indices, vertexCount } = trianglesOf(prim);
      const ours = missesPerTriangle(optimizeVertexCache(indices, vertexCount));
      const meshopt = missesPerTriangle(meshoptOrder(indices));
      const loaded = missesPerTriangle(indices);
      console.log(`${name} primitive ${p} (${indices.length / 3} triangles): vertex shader runs per triangle ${loaded.toFixed(3)} as loaded, ${ours.toFixed(3)} ours, ${meshopt.toFixed(3)} meshoptimizer`);
      // Per primitive where there is room to order (a handful of triangles is all misses either way).
      if (indices.length / 3 >= 64) expect(withinTenPercentOf(ours, meshopt)).toBe(true);
      const n = indices.length / 3;
      ourMisses += ours * n;
      meshoptMisses += meshopt * n;
      loadedMisses += loaded * n;
      triangles += n;
    });
    expect(withinTenPercentOf(ourMisses / triangles, meshoptMisses / triangles)).toBe(true);
    console.log(`${name}: vertex shader runs per triangle ${(loadedMisses / triangles).toFixed(3)} as loaded, ${(ourMisses / triangles).toFixed(3)} ours, ${(meshoptMisses / triangles).toFixed(3)} meshoptimizer`);
    // The bar can fail: the order as loaded is past it where meshoptimizer gains much.
    expect(withinTenPercentOf(loadedMisses / triangles, meshoptMisses / triangles)).toBe(!LOADED_ORDER_FAILS[name]);
  });

  it('orders a strip of quads along the strip (each new triangle one new vertex), not as given', () => {
    // 200 quads in a row, listed shuffled (a fixed LCG): vertices 2i, 2i+1 on the two rails.
    const quads = 200;
    const order = Array.from({ length: quads }, (_, i) => i);
    let seed = 12345;
    for (let k = quads - 1; k > 0; k--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (k + 1);
      [order[k], order[j]] = [order[j], order[k]];
    }
    const list: number[] = [];
    for (const i of order) {
      list.push(2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 2, 2 * i + 1, 2 * i + 3);
    }
    const indices = Uint32Array.from(list);
    const ordered = optimizeVertexCache(indices, 2 * quads + 2);
    expect(triangleSet(ordered)).toEqual(triangleSet(indices));
    expect(missesPerTriangle(indices)).toBeGreaterThan(1.5);
    expect(missesPerTriangle(ordered)).toBeLessThan(1.05);
  });

  it('returns an empty list for no triangles and refuses what is not a triangle list over vertexCount vertices', () => {
    expect(optimizeVertexCache(new Uint32Array(0), 0).length).toBe(0);
    expect(() => optimizeVertexCache(Uint32Array.of(0, 1), 2)).toThrow(/^indices must be a triangle list \(a multiple of 3 long\), got 2 indices$/);
    expect(() => optimizeVertexCache(Uint32Array.of(0, 1, 5), 3)).toThrow(/^indices\[2\] is 5, past the last vertex \(vertexCount 3\)$/);
    expect(() => optimizeVertexCache(Uint32Array.of(0, 1, 2), -1)).toThrow(/^vertexCount must be a non-negative integer, got -1$/);
  });
});

describe('vertexFetchRemap: vertices renumbered in order of first use', () => {
  it("numbers vertices by first use, marks unused ones 0xffffffff, and agrees with meshoptimizer's remap", async () => {
    await MeshoptEncoder.ready;
    const indices = Uint32Array.of(4, 2, 0, 0, 2, 5, 5, 2, 4);
    const remap = vertexFetchRemap(indices, 7);
    expect(Array.from(remap)).toEqual([2, 0xffffffff, 1, 0xffffffff, 0, 3, 0xffffffff]);
    const { rig } = await loadModel('CesiumMan');
    const { indices: cesium, vertexCount } = trianglesOf(rig.primitives[0]);
    const ordered = optimizeVertexCache(cesium, vertexCount);
    // reorderMesh with triangles false runs its fetch remap (optimizeVertexFetchRemap) alone.
    const [meshoptRemap] = MeshoptEncoder.reorderMesh(Uint32Array.from(ordered), false, false);
    expect(vertexFetchRemap(ordered, vertexCount)).toEqual(meshoptRemap);
    expect(() => vertexFetchRemap(Uint32Array.of(0, 3), 3)).toThrow(/^indices\[1\] is 3, past the last vertex \(vertexCount 3\)$/);
  });
});
