import { TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP, type BakedModel } from '../bake/bake';
import { IDENTITY_TRS, type Pose } from '../math/pose';
import { wrapTime } from '../math/time';

/**
 * The lookup-table evaluator: the pose of a clip at a time, read from the baked tables exactly
 * as shaders/pose.wgsl reads them (see the layout in bake/bake.ts).
 */

/** Position of wrapped time `t` in clip `clip`'s tracks: u in entries, entry i and fraction f in [0, 1]. */
export function tableCoordinate(baked: BakedModel, clip: number, t: number): { u: number; i: number; f: number } {
  const duration = baked.clipDurations[clip];
  const last = baked.clipEntries[clip] - 1;
  const u = duration > 0 ? Math.min((wrapTime(t, duration) / duration) * last, last) : 0;
  const i = Math.min(Math.floor(u), last - 1);
  return { u, i, f: u - i };
}

/** Writes the local pose of every node for `clip` at time t (seconds, wrapped) into `out`. */
export function sampleLut(baked: BakedModel, clip: number, t: number, out: Pose): Pose {
  if (!(clip >= 0 && clip < baked.clipNames.length)) throw new RangeError(`clip ${clip} does not exist (the model has ${baked.clipNames.length})`);
  const { u, i, f } = tableCoordinate(baked, clip, t);
  const { tracks, rest, trackRefs, nodeCount } = baked;
  const difference = baked.clipIsDifference[clip] === 1;
  for (let n = 0; n < nodeCount; n++) {
    for (let p = 0; p < 3; p++) {
      const ref = trackRefs[(clip * nodeCount + n) * 3 + p];
      const size = p === 1 ? 4 : 3;
      const target = p === 0 ? out.translation : p === 1 ? out.rotation : out.scale;
      const o = n * size;
      if (ref === TRACK_NONE) {
        // A difference clip's untouched node is the identity difference, not the rest pose.
        if (difference) for (let c = 0; c < size; c++) target[o + c] = IDENTITY_TRS[p * 4 + c];
        else for (let c = 0; c < size; c++) target[o + c] = rest[n * 12 + p * 4 + c];
        continue;
      }
      const step = (ref & TRACK_STEP) !== 0;
      const entry = step ? Math.floor(u) : i;
      const weight = step ? 0 : f;
      const a = ((ref & TRACK_INDEX_MASK) + entry) * 4;
      const b = step ? a : a + 4;
      for (let c = 0; c < size; c++) target[o + c] = tracks[a + c] + (tracks[b + c] - tracks[a + c]) * weight;
      if (size === 4) {
        const inv = 1 / Math.hypot(target[o], target[o + 1], target[o + 2], target[o + 3]);
        for (let c = 0; c < 4; c++) target[o + c] *= inv;
      }
    }
  }
  return out;
}

/**
 * Writes the morph weights (padded, BakedMorph.weightCount floats) of `clip` at time t (seconds,
 * wrapped) into `out`, read from the morph tables exactly as shaders/morph/morph.wgsl reads them:
 * groups without a track hold the default weights (0 in a difference clip).
 */
export function sampleMorphLut(baked: BakedModel, clip: number, t: number, out: Float64Array): Float64Array {
  const morph = baked.morph;
  if (!morph) return out;
  const { u, i, f } = tableCoordinate(baked, clip, t);
  const difference = baked.clipIsDifference[clip] === 1;
  for (let g = 0; g < morph.groups; g++) {
    const ref = morph.refs[clip * morph.groups + g];
    if (ref === TRACK_NONE) {
      for (let c = 0; c < 4; c++) out[g * 4 + c] = difference ? 0 : morph.rest[g * 4 + c];
      continue;
    }
    const step = (ref & TRACK_STEP) !== 0;
    const a = ((ref & TRACK_INDEX_MASK) + (step ? Math.floor(u) : i)) * 4;
    const b = step ? a : a + 4;
    const weight = step ? 0 : f;
    for (let c = 0; c < 4; c++) out[g * 4 + c] = morph.tracks[a + c] + (morph.tracks[b + c] - morph.tracks[a + c]) * weight;
  }
  return out;
}
