import { describe, expect, it } from 'vitest';
import { dualQuaternionJoints, skinPositionsDualQuaternion } from '../../../src/anim/dual-quaternion';
import { CpuPoser } from '../../../src/anim/evaluate';
import { sampleClip } from '../../../src/bake/sampler';
import type { Character } from '../../../src/character/character';
import { mat4d } from 'wgpu-matrix';
import { loadCharacter } from '../../../src/character/character';
import { IMPOSTOR_BOX_MARGIN, impostorBox } from '../../../src/features/impostors/impostor-box';
import type { HeldProp } from '../../../src/runtime/held-props';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_MODELS } from '../../helpers/models';
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

  it('holds the props every instance holds: each vertex of a sword on the Fox\'s head (its joint\'s model matrix by the exact sampler, times the offset), which the bare box does not', async () => {
    const fox = await testCharacter('Fox');
    const sword = await loadCharacter(readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb')).buffer.slice(0) as ArrayBuffer);
    const offset = Float64Array.of(100, 0, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0, 0, 10, 0, 1);
    const slot = fox.jointNames.indexOf('b_Head_05');
    const skin = fox.rig.skins[0];
    const j = slot - fox.gpu.skinSlotOffset[0];
    const inverseBind = Float64Array.from(skin.inverseBind.subarray(j * 16, j * 16 + 16));
    const held: HeldProp = { prop: sword, joint: 'b_Head_05', offset, slot, local: mat4d.multiply(mat4d.inverse(inverseBind), offset, new Float64Array(16)) };
    // The sword as loaded: one node at the origin (prop space), so its vertices are its positions.
    const rig = fox.rig;
    const poser = new CpuPoser(rig, (clip, t, out) => sampleClip(rig, clip, t, out));
    const swordVertices: Float64Array[] = [];
    for (let clip = 0; clip < fox.clipDurations.length; clip++) {
      for (let f = 0; f < 4; f++) {
        poser.evaluate({ clipA: clip, timeA: (f / 4) * fox.clipDurations[clip] });
        const m = mat4d.multiply(poser.jointMatrices(0).subarray(j * 16, j * 16 + 16), held.local, new Float64Array(16));
        for (const prim of sword.rig.primitives) {
          const out = new Float64Array(prim.positions.length);
          for (let v = 0; v < out.length; v += 3) {
            const [x, y, z] = [prim.positions[v], prim.positions[v + 1], prim.positions[v + 2]];
            for (let c = 0; c < 3; c++) out[v + c] = m[c] * x + m[c + 4] * y + m[c + 8] * z + m[c + 12];
          }
          swordVertices.push(out);
        }
      }
    }
    const box = impostorBox(fox, 4, undefined, [held]);
    const sides = clearance(box, [...swordVertices, ...bakedVertices(fox, 4)]);
    // Each side a margin from the nearest vertex, the Fox's or the sword's (the tables against the exact sampler: within 1e-4 of the diagonal).
    const m = Math.min(...sides);
    const margin = IMPOSTOR_BOX_MARGIN * diagonal(Array.from(box, (x, i) => (i < 3 ? x + m : x - m)));
    for (const side of sides) expect(Math.abs(side - margin)).toBeLessThan(1e-4 * diagonal(box));
    // Made-up violation: the bare box leaves the sword's tip out.
    expect(Math.min(...clearance(impostorBox(fox, 4), swordVertices))).toBeLessThan(0);
  });
});
