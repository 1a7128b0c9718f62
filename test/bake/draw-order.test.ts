import { describe, expect, it } from 'vitest';
import { drawOrder, sharesVertices } from '../../src/bake/draw-order';
import { meshLods } from '../../src/bake/mesh-lod';
import { MeshoptSimplifier } from '../../src/bake/meshopt-simplifier';
import { triangleList, type SkinnedPrimitive } from '../../src/bake/rig';
import { missesPerTriangle } from '../helpers/cache-misses';
import { loadModel } from '../helpers/models';

/**
 * Each triangle as the text of its three corners' attributes (every attribute the GPU reads of a
 * shared-vertex primitive: all but the normal), rotated to start at its smallest corner (winding
 * kept), sorted: equal for two lists that draw the same triangles in any order.
 */
function triangles(prim: SkinnedPrimitive, indices: ArrayLike<number>, vertexOf: (v: number) => number): string[] {
  const corner = (v: number) => {
    const s = vertexOf(v);
    const take = (data: ArrayLike<number> | undefined, n: number) => (data ? Array.from({ length: n }, (_, k) => data[s * n + k]) : []);
    return [...take(prim.positions, 3), ...take(prim.uvs, 2), ...take(prim.joints, prim.influences), ...take(prim.weights, prim.influences)].join(',');
  };
  const out: string[] = [];
  for (let t = 0; t < indices.length; t += 3) {
    const c = [corner(indices[t]), corner(indices[t + 1]), corner(indices[t + 2])];
    const r = c.indexOf([...c].sort()[0]);
    out.push([c[r], c[(r + 1) % 3], c[(r + 2) % 3]].join(' | '));
  }
  return out.sort();
}

describe('triangleList: a primitive\'s own triangles', () => {
  it('its indices where it has them (the same array), 0 .. vertexCount - 1 where it has none', () => {
    const indices = Uint32Array.of(2, 1, 0, 0, 3, 2);
    expect(triangleList({ indices, vertexCount: 4 })).toBe(indices);
    expect([...triangleList({ vertexCount: 6 })]).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('drawOrder: the vertices and triangle order the crowd draws with', () => {
  it('Fox (faceted, no NORMAL): its 1,728 vertices drawn as 434 shared ones; every level draws the same triangles, with far fewer vertex shader runs', async () => {
    const { rig } = await loadModel('Fox');
    const lods = await meshLods(rig, { simplifier: MeshoptSimplifier });
    const order = await drawOrder(rig, lods.indices);
    const prim = rig.primitives[0];
    expect(sharesVertices(prim)).toBe(true);
    const vertexOf = order.vertexOf[0]!;
    expect(vertexOf.length).toBe(1728);
    const gpuVertices = Math.max(...vertexOf) + 1;
    expect(gpuVertices).toBe(434);
    // A GPU vertex stands for vertices equal in every attribute it uploads.
    const source = new Uint32Array(gpuVertices);
    vertexOf.forEach((g, v) => { source[g] = v; });
    const levels = [Uint32Array.from({ length: 1728 }, (_, i) => i), ...lods.indices[0]];
    expect(order.levels[0].length).toBe(levels.length);
    levels.forEach((level, l) => {
      expect(order.levels[0][l].length).toBe(level.length);
      expect(order.levels[0][l].every((g) => g < gpuVertices)).toBe(true);
      expect(triangles(prim, order.levels[0][l], (g) => source[g])).toEqual(triangles(prim, level, (v) => v));
    });
    const before = missesPerTriangle(levels[0]);
    const after = missesPerTriangle(order.levels[0][0]);
    console.log(`Fox level 0: vertex shader runs per triangle ${before.toFixed(2)} as loaded, ${after.toFixed(2)} in draw order (16-entry FIFO)`);
    expect(before).toBe(3);
    expect(after).toBeLessThan(1.2);
  });

  it('CesiumMan (indexed, with NORMAL): vertices as loaded; each level the same triangles, reordered for the cache, no worse', async () => {
    const { rig } = await loadModel('CesiumMan');
    const lods = await meshLods(rig, { simplifier: MeshoptSimplifier });
    const order = await drawOrder(rig, lods.indices);
    rig.primitives.forEach((prim, p) => {
      expect(sharesVertices(prim)).toBe(false);
      expect(order.vertexOf[p]).toBeUndefined();
      const levels = [prim.indices!, ...lods.indices[p]];
      levels.forEach((level, l) => {
        expect(triangles(prim, order.levels[p][l], (v) => v)).toEqual(triangles(prim, level, (v) => v));
        expect(missesPerTriangle(order.levels[p][l])).toBeLessThanOrEqual(missesPerTriangle(level) + 1e-9);
      });
      console.log(`CesiumMan primitive ${p} level 0: vertex shader runs per triangle ${missesPerTriangle(levels[0]).toFixed(2)} as loaded, ${missesPerTriangle(order.levels[p][0]).toFixed(2)} in draw order`);
    });
  });

  it('keeps the triangle order of an alphaMode BLEND primitive (blending depends on it), and draws level 0 alone without LOD levels', async () => {
    const { rig } = await loadModel('CesiumMan');
    const blended = { ...rig, primitives: rig.primitives.map((p) => ({ ...p, material: { ...p.material, alphaMode: 'BLEND' as const } })) };
    const order = await drawOrder(blended);
    rig.primitives.forEach((prim, p) => {
      expect(order.levels[p].length).toBe(1);
      expect(Array.from(order.levels[p][0])).toEqual(Array.from(prim.indices!));
    });
  });
});
