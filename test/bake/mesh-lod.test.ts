import { describe, expect, it } from 'vitest';
import { meshLods } from '../../src/bake/mesh-lod';
import { MeshoptSimplifier as simplifier } from '../../src/bake/meshopt-simplifier';
import { loadModel } from '../helpers/models';

describe('meshLods validity', () => {
  it('rejects level counts outside [2, 4] and ratios outside (0, 1), naming them', async () => {
    const { rig } = await loadModel('Fox');
    await expect(meshLods(rig, { simplifier, levels: 5 })).rejects.toThrow(/lod.levels must be an integer in \[2, 4\], got 5/);
    await expect(meshLods(rig, { simplifier, levels: 1 })).rejects.toThrow(/lod.levels/);
    await expect(meshLods(rig, { simplifier, ratio: 1 })).rejects.toThrow(/lod.ratio must be in \(0, 1\), got 1/);
  });
});

describe('meshLods: simplified index buffers over the shared vertices', () => {
  for (const name of ['Fox', 'CesiumMan', 'RobotExpressive']) {
    it(`${name}: every level is a valid triangle list of the primitive's vertices, smaller than the one before, with a growing error`, async () => {
      const { rig } = await loadModel(name);
      const lods = await meshLods(rig, { simplifier });
      expect(lods.indices.length).toBe(rig.primitives.length);
      expect(lods.errors[0]).toBe(0);
      for (let l = 1; l < 4; l++) expect(lods.errors[l]).toBeGreaterThanOrEqual(lods.errors[l - 1]);
      expect(lods.errors[3]).toBeGreaterThan(0);
      const totals = [rig.primitives.reduce((n, p) => n + (p.indices?.length ?? p.vertexCount), 0), 0, 0, 0];
      lods.indices.forEach((levels, p) => {
        expect(levels.length).toBe(3);
        let previous = rig.primitives[p].indices?.length ?? rig.primitives[p].vertexCount;
        levels.forEach((indices, l) => {
          expect(indices.length % 3).toBe(0);
          expect(indices.length).toBeLessThanOrEqual(previous);
          expect(indices.every((v) => v < rig.primitives[p].vertexCount)).toBe(true);
          previous = indices.length;
          totals[l + 1] += indices.length;
        });
      });
      // Each level aims at half the triangles of the one before; locked primitive borders may keep a few more.
      console.log(`${name}: indices per level ${totals.join(' / ')}, errors ${lods.errors.map((e) => e.toPrecision(2)).join(' / ')} model units`);
      expect(totals[1]).toBeLessThan(totals[0] * 0.6);
      expect(totals[3]).toBeLessThan(totals[0] * 0.3);
    });
  }
});
