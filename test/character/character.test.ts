import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { restPose } from '../../src/bake/sampler';
import { loadCharacter } from '../../src/character/character';
import { MeshoptSimplifier } from '../../src/index';
import { modelPath } from '../helpers/models';

/**
 * Character.bounds (src/character/character.ts, restBounds): the rest pose's bounds, computed
 * without CpuPoser so that a page loading a character ships no blend, layer or morph code, held
 * to CpuPoser's rest pose (the reference). No GPU.
 */
describe('Character.bounds', () => {
  // Fox (one skin), RobotExpressive (rigid meshes as one-joint skins, several skins), RiggedFigure (a scaled root).
  it.each(['Fox', 'RobotExpressive', 'RiggedFigure'])('%s: the box of every vertex CpuPoser skins in the rest pose', async (name) => {
    const bytes = readFileSync(modelPath(name));
    const character = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    const { rig } = character;
    const poser = new CpuPoser(rig, (_clip, _t, out) => restPose(rig.nodes, out));
    poser.evaluate({ clipA: 0, timeA: 0 });
    const positions = poser.positions(rig.primitives);
    expect(positions.length).toBeGreaterThan(0);
    for (let c = 0; c < 3; c++) {
      const axis = positions.filter((_, i) => i % 3 === c);
      expect(character.bounds.min[c]).toBeCloseTo(Math.min(...axis), 9);
      expect(character.bounds.max[c]).toBeCloseTo(Math.max(...axis), 9);
    }
  });
});

/**
 * LoadOptions.lod (src/bake/mesh-lod.ts, checkMeshLodOptions): mesh LOD levels are made only
 * with meshoptimizer's simplifier handed in, so that a page without them does not ship it
 * (issue 33). `true`, the default before, is refused with the call that replaces it. No GPU.
 */
describe('LoadOptions.lod: mesh LOD levels with the simplifier handed in', () => {
  const fox = () => {
    const bytes = readFileSync(modelPath('Fox'));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  };

  it('none by default; 4 levels with { simplifier: MeshoptSimplifier } (exported by crowd-skin), 2 with levels: 2', async () => {
    expect((await loadCharacter(fox())).lods).toBeUndefined();
    const lods = (await loadCharacter(fox(), { lod: { simplifier: MeshoptSimplifier } })).lods!;
    expect(lods.errors.length).toBe(4);
    expect(lods.indices[0].length).toBe(3);
    expect((await loadCharacter(fox(), { lod: { simplifier: MeshoptSimplifier, levels: 2 } })).lods!.errors.length).toBe(2);
  });

  it('refuses lod: true and options without a simplifier before anything is downloaded, saying how to get mesh LOD now', async () => {
    // A URL nothing serves: a refusal that came after the download would be a network error instead.
    const url = 'http://127.0.0.1:9/nothing.glb';
    const how = /import \{ MeshoptSimplifier \} from 'crowd-skin'`, then `loadCharacter\(url, \{ lod: \{ simplifier: MeshoptSimplifier \} \}\)/;
    await expect(loadCharacter(url, { lod: true as never })).rejects.toThrow(/^lod: true no longer makes mesh LOD levels/);
    await expect(loadCharacter(url, { lod: true as never })).rejects.toThrow(how);
    await expect(loadCharacter(url, { lod: { levels: 3 } as never })).rejects.toThrow(/^lod\.simplifier must be meshoptimizer's MeshoptSimplifier, got undefined/);
    await expect(loadCharacter(url, { lod: { simplifier: {} } as never })).rejects.toThrow(/^lod\.simplifier must be meshoptimizer's MeshoptSimplifier, got an object/);
    await expect(loadCharacter(url, { lod: 'fine' as never })).rejects.toThrow(/^lod must be false or \{ simplifier, levels\?, ratio\? \}, got "fine"/);
    await expect(loadCharacter(url, { lod: { simplifier: MeshoptSimplifier, levels: 5 } })).rejects.toThrow(/^lod\.levels must be an integer in \[2, 4\], got 5/);
    await expect(loadCharacter(url, { lod: { simplifier: MeshoptSimplifier, ratio: 1 } })).rejects.toThrow(/^lod\.ratio must be in \(0, 1\), got 1/);
  });
});
