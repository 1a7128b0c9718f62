import { wrapTime } from '../math/time';
import type { BakedMorph } from './bake';
import type { Clip, Rig, WeightsChannel } from './rig';
import { sampleWeightsChannel } from './sampler';
import type { TrackSampler } from './table-size';

/**
 * The morph half of the bake (bake.ts bakes these tracks with the TRS tracks of the same clip,
 * on the same entry grid; see BakedMorph for the layout).
 *
 * Weights are grouped four to a track (one vec4f entry), set after set, each morph set starting
 * on a new group: set m's target t is weight setBase[m] + t of the padded per-instance weight
 * vector (weightCount = 4 x groups floats per instance; the padding is always 0). A group is a
 * track of a clip when the clip's weights channel of its set is not constant at the set's
 * default weights (RobotExpressive's 14 channels all hold 0, the default: they cost no table).
 *
 * Only a rig with morph sets reaches this module: it comes with the morph target reader
 * (load-morph.ts, fetched for a file with targets) and build-rig.ts hands it on as Rig.morphBake.
 */

/** How a rig's morph weights are laid out in groups of four. */
export interface MorphLayout {
  /** vec4 groups per instance. */
  groups: number;
  /** First padded weight of each morph set (a multiple of 4). */
  setBase: Uint32Array;
  /** Targets of each morph set. */
  targetCounts: Uint32Array;
  /** Morph set of each group. */
  groupSet: Uint32Array;
  /** Default weights, padded (4 x groups). */
  rest: Float32Array;
  /** Rig node whose mask weight applies to each group (the set's maskNode). */
  maskNodes: Uint32Array;
}

export function morphLayout(rig: Rig): MorphLayout {
  const setBase = new Uint32Array(rig.morphs.length);
  const groupSet: number[] = [];
  rig.morphs.forEach((set, m) => {
    setBase[m] = groupSet.length * 4;
    for (let g = 0; g < Math.ceil(set.defaultWeights.length / 4); g++) groupSet.push(m);
  });
  const rest = new Float32Array(groupSet.length * 4);
  rig.morphs.forEach((set, m) => rest.set(set.defaultWeights, setBase[m]));
  return {
    groups: groupSet.length, setBase, groupSet: Uint32Array.from(groupSet), rest,
    targetCounts: Uint32Array.from(rig.morphs, (set) => set.defaultWeights.length),
    maskNodes: Uint32Array.from(groupSet, (m) => rig.morphs[m].maskNode),
  };
}

/** A morph track to bake: group `group` of the padded weights. */
export interface MorphTrack {
  group: number;
  step: boolean;
}

/** Whether `channel` holds the same weights as `defaults` at every time (its keys do, and no tangent bends it). */
export function constantAtDefault(channel: WeightsChannel, defaults: Float32Array): boolean {
  const n = defaults.length;
  const cubic = channel.interpolation === 'CUBICSPLINE';
  const stride = cubic ? 3 * n : n;
  for (let k = 0; k < channel.times.length; k++) {
    for (let c = 0; c < n; c++) {
      if (channel.values[k * stride + (cubic ? n : 0) + c] !== defaults[c]) return false;
      if (cubic && (channel.values[k * stride + c] !== 0 || channel.values[k * stride + 2 * n + c] !== 0)) return false;
    }
  }
  return true;
}

/** The weights channels of `clip` that change something, by morph set. */
function movingChannels(rig: Rig, clip: Clip): Map<number, WeightsChannel> {
  const moving = new Map<number, WeightsChannel>();
  for (const ch of clip.weights ?? []) if (!constantAtDefault(ch, rig.morphs[ch.morph].defaultWeights)) moving.set(ch.morph, ch);
  return moving;
}

/** Writes group `group` of the padded weights held in `weights` (unpadded, one set) into out[0..3]. */
function groupOf(layout: MorphLayout, group: number, weights: Float64Array, out: Float64Array): void {
  const set = layout.groupSet[group];
  const first = group * 4 - layout.setBase[set];
  for (let c = 0; c < 4; c++) out[c] = first + c < layout.targetCounts[set] ? weights[first + c] : 0;
}

/** Morph tracks of a clip of the file and their exact samplers (the glTF sampler on its weights channels). */
export function fileMorphTracks(rig: Rig, layout: MorphLayout, clip: Clip): { tracks: MorphTrack[]; samplers: TrackSampler[] } {
  const tracks: MorphTrack[] = [];
  const samplers: TrackSampler[] = [];
  for (const [set, channel] of [...movingChannels(rig, clip)].sort((a, b) => a[0] - b[0])) {
    const weights = new Float64Array(layout.targetCounts[set]);
    const step = channel.interpolation === 'STEP';
    for (let g = layout.setBase[set] / 4; g < layout.groups && layout.groupSet[g] === set; g++) {
      tracks.push({ group: g, step });
      samplers.push({
        path: 'weights', step, order: 2,
        sample(t, out) {
          sampleWeightsChannel(channel, weights.length, t, weights, 0);
          groupOf(layout, g, weights, out);
        },
      });
    }
  }
  return { tracks, samplers };
}

/**
 * Morph tracks of a difference clip: clip A's weights minus the reference's (a clip at a time,
 * or the defaults for 'rest'), both at wrapped times, for every set that either moves; other
 * groups read 0 (nothing added).
 */
export function differenceMorphTracks(rig: Rig, layout: MorphLayout, a: Clip, reference: { clip: Clip; time: number } | 'rest'):
  { tracks: MorphTrack[]; samplers: TrackSampler[] } {
  const ofA = movingChannels(rig, a);
  const ofR = reference === 'rest' ? new Map<number, WeightsChannel>() : movingChannels(rig, reference.clip);
  const sets = [...new Set([...ofA.keys(), ...ofR.keys()])].sort((x, y) => x - y);
  const tracks: MorphTrack[] = [];
  const samplers: TrackSampler[] = [];
  for (const set of sets) {
    const n = layout.targetCounts[set];
    const defaults = Float64Array.from(rig.morphs[set].defaultWeights);
    const r = new Float64Array(defaults);
    const chR = ofR.get(set);
    if (chR && reference !== 'rest') sampleWeightsChannel(chR, n, wrapTime(reference.time, reference.clip.duration), r, 0);
    const w = new Float64Array(n);
    for (let g = layout.setBase[set] / 4; g < layout.groups && layout.groupSet[g] === set; g++) {
      tracks.push({ group: g, step: false });
      samplers.push({
        path: 'weights', step: false, order: 2,
        sample(t, out) {
          const chA = ofA.get(set);
          // Wrapped, as the TRS difference tracks sample clip A (sampleClip): the last entry reads t = 0.
          if (chA) sampleWeightsChannel(chA, n, wrapTime(t, a.duration), w, 0);
          else w.set(defaults);
          for (let c = 0; c < n; c++) w[c] -= r[c];
          groupOf(layout, g, w, out);
        },
      });
    }
  }
  return { tracks, samplers };
}

/** The BakedMorph of `layout` over the morph tables bake.ts split off (`trackCount` tracks over all clips). */
export function bakedMorph(layout: MorphLayout, tracks: Float32Array, refs: Uint32Array, trackCount: number): BakedMorph {
  const { groups, setBase, targetCounts, maskNodes, rest } = layout;
  return { groups, weightCount: groups * 4, setBase, targetCounts, maskNodes, rest, tracks, refs, trackCount };
}

/** Morph group `group` in words, for bake.ts's messages: its set's mesh and the weights it holds. */
export function describeGroup(rig: Rig, layout: MorphLayout, group: number): string {
  const set = layout.groupSet[group];
  const first = group * 4 - layout.setBase[set];
  return `mesh '${rig.morphs[set].name}' weights ${first}..${Math.min(first + 4, layout.targetCounts[set]) - 1}`;
}
