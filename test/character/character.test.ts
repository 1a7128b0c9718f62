import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { restPose } from '../../src/bake/sampler';
import { loadCharacter } from '../../src/character/character';
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
