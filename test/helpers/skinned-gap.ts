import { skinPositions } from '../../src/anim/skinning';
import type { Character } from '../../src/character/character';

/**
 * Largest distance between the skinned vertices of two instances of `character`, over every
 * primitive: the first's joint matrices start at matrix `a` of `rowsA`, the second's at matrix
 * `b` of `rowsB` (joint buffers read back: 3 vec4f rows per matrix).
 */
export function maxVertexGap(character: Character, rowsA: Float32Array, a: number, rowsB: Float32Array, b: number): number {
  const joints = (rows: Float32Array, first: number, skin: number) => {
    const count = character.rig.skins[skin].joints.length;
    const out = new Float64Array(count * 16);
    for (let j = 0; j < count; j++) {
      const g = (first + character.gpu.skinSlotOffset[skin] + j) * 12;
      for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[j * 16 + c * 4 + r] = rows[g + r * 4 + c];
      out[j * 16 + 15] = 1;
    }
    return out;
  };
  let worst = 0;
  for (const prim of character.rig.primitives) {
    const pa = new Float64Array(prim.vertexCount * 3);
    const pb = new Float64Array(prim.vertexCount * 3);
    skinPositions(prim, joints(rowsA, a, prim.skin), pa, 0);
    skinPositions(prim, joints(rowsB, b, prim.skin), pb, 0);
    for (let i = 0; i < pa.length; i += 3) worst = Math.max(worst, Math.hypot(pa[i] - pb[i], pa[i + 1] - pb[i + 1], pa[i + 2] - pb[i + 2]));
  }
  return worst;
}
