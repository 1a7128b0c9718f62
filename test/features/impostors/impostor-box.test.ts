import { describe, expect, it } from 'vitest';
import { dualQuaternionJoints, skinPositionsDualQuaternion } from '../../../src/anim/dual-quaternion';
import { CpuPoser } from '../../../src/anim/evaluate';
import { sampleClip } from '../../../src/bake/sampler';
import type { Character } from '../../../src/character/character';
import { IMPOSTOR_BOX_MARGIN, impostorBox } from '../../../src/features/impostors/impostor-box';
import { testCharacter } from '../../helpers/character';

const diagonal = (b: ArrayLike<number>) => Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);

/**
 * Every vertex of `character` at frame f of `frames` of each clip (f / frames of its duration),
 * posed by the exact glTF sampler (not the lookup tables impostorBox reads), skinned linearly and
 * with dual quaternions, and morphed by the clip's weights (linearly skinned; a crowd with
 * CrowdMorph bakes it so): 3 numbers per vertex.
 */
function bakedVertices(character: Character, frames: number): Float64Array[] {
  const rig = character.rig;
  const poser = new CpuPoser(rig, (clip, t, out) => sampleClip(rig, clip, t, out));
  const out: Float64Array[] = [];
  for (let clip = 0; clip < character.clipDurations.length; clip++) {
    for (let f = 0; f < frames; f++) {
      const request = { clipA: clip, timeA: (f / frames) * character.clipDurations[clip] };
      poser.evaluate(request);
      out.push(poser.positions(rig.primitives));
      // Morphed by the clip's weights, as a crowd with CrowdMorph bakes it (the exact sampler's weights).
      if (rig.morphs.length > 0) out.push(poser.positions(rig.primitives, poser.morphWeights(request)));
      for (const prim of rig.primitives) {
        const records = dualQuaternionJoints(poser.jointMatrices(prim.skin));
        out.push(skinPositionsDualQuaternion(prim, records, new Float64Array(prim.vertexCount * 3)));
      }
    }
  }
  return out;
}

/** Per side of `box` (-x, -y, -z, +x, +y, +z): the least distance from a vertex of `lists` to it (negative: a vertex outside). */
function clearance(box: ArrayLike<number>, lists: Float64Array[]): number[] {
  const least = [Infinity, Infinity, Infinity, Infinity, Infinity, Infinity];
  for (const p of lists) {
    for (let v = 0; v < p.length; v += 3) {
      for (let c = 0; c < 3; c++) {
        least[c] = Math.min(least[c], p[v + c] - box[c]);
        least[c + 3] = Math.min(least[c + 3], box[c + 3] - p[v + c]);
      }
    }
  }
  return least;
}

describe('impostorBox', () => {
  it('holds every vertex of every baked frame (exact sampler, linear and dual-quaternion skinning) with its margin on each side, and no more: far tighter than the animation box where that one is loose', async () => {
    for (const [name, looser] of [['Fox', 1.05], ['CesiumMan', 1.15], ['RobotExpressive', 2.2]] as const) {
      const character = await testCharacter(name);
      const box = impostorBox(character, 4);
      const sides = clearance(box, bakedVertices(character, 4));
      // The vertices' own box (the box less its margin) and the margin it was given.
      const m = Math.min(...sides);
      const inner = Array.from(box, (x, i) => (i < 3 ? x + m : x - m));
      const margin = IMPOSTOR_BOX_MARGIN * diagonal(inner);
      // Each side a margin from the nearest vertex (within 1e-4 of the diagonal: the tables against the exact sampler).
      for (const side of sides) expect(Math.abs(side - margin)).toBeLessThan(1e-4 * diagonal(box));
      const ratio = diagonal(character.animationBounds.box) / diagonal(box);
      console.log(`${name}: impostorBox diagonal ${diagonal(box).toFixed(3)}, the animation box ${ratio.toFixed(2)}x`);
      expect(ratio).toBeGreaterThan(looser);
    }
  });

  it('frames the frames it is made for: fewer frames miss vertices the atlas bakes (a made-up violation)', async () => {
    const fox = await testCharacter('Fox');
    const sides = clearance(impostorBox(fox, 2), bakedVertices(fox, 16));
    expect(Math.min(...sides)).toBeLessThan(0);
    expect(() => impostorBox({ ...fox, rig: { ...fox.rig, primitives: [] } } as Character, 4)).toThrow(/has no vertices to frame/);
  });
});
