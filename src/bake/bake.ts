import { PATH_COMPONENTS, type Clip, type Rig, type TrsPath } from './rig';
import { sampleChannel } from './sampler';

/**
 * The baked model: every clip sampled into lookup tables, laid out for the GPU. This file is
 * the contract between the bake and shaders/pose.wgsl (mirrored in src/gpu/rig-data.ts).
 *
 * Layout
 * - `tracks` (one storage buffer): every track's entries, track after track, one vec4f each. A
 *   translation or scale entry is (x, y, z, 0), a rotation entry the quaternion (x, y, z, w).
 *   All tracks of clip c have `clipEntries[c]` entries (at most maxEntriesPerTrack, 1024 by
 *   default); entry e holds the exact value at time e * d / (clipEntries[c] - 1), so entry 0 is
 *   t = 0 and the last is t = d. Rotation entries are sign-continuous (each has a non-negative
 *   dot with the previous one), so neighbouring entries interpolate along the short path.
 * - `clipEntries[c]` is chosen so that every key of the clip lands exactly on an entry when the
 *   keys lie on a regular grid (as exported clips do: 24, 30 or 60 keys a second): the entry
 *   spacing divides the key spacing. Interpolating across a LINEAR key's corner would otherwise
 *   cut it, an error proportional to the entry spacing (up to 3e-3 of the model's size on
 *   RobotExpressive's Dance at 1024 entries, 1e-6 when aligned). Clips without a key grid use
 *   maxEntriesPerTrack entries.
 * - `trackRefs`: for clip c, node n, path p (0 translation, 1 rotation, 2 scale), the u32 at
 *   (c * nodeCount + n) * 3 + p is TRACK_NONE (the clip does not animate it: use the rest
 *   value) or the vec4 index of the track's entry 0, with TRACK_STEP set when the channel is
 *   STEP-interpolated.
 * - `rest`: 3 vec4f per node (translation, 0), (rotation), (scale, 0).
 * - `clipDurations`: seconds per clip.
 *
 * Only animated (clip, node, path) triples get a track, so a clip that moves 6 of 43 joints
 * costs 6 tracks, not 43 x 3.
 *
 * Reading (src/anim/lut.ts and pose.wgsl do exactly this), with last = clipEntries[c] - 1:
 * u = wrap(t) / d * last, i = min(floor(u), last - 1), f = u - i,
 * value = mix(entry i, entry i + 1, f), rotations normalised. STEP tracks read entry floor(u)
 * alone, so a step is never smeared.
 */
export const TRACK_NONE = 0xffffffff;
export const TRACK_STEP = 0x80000000;
export const TRACK_INDEX_MASK = 0x7fffffff;
export const DEFAULT_MAX_ENTRIES_PER_TRACK = 1024;
export const PATHS: readonly TrsPath[] = ['translation', 'rotation', 'scale'];

export interface BakedModel {
  /** Entries per track of each clip (2 .. maxEntriesPerTrack). */
  clipEntries: Uint32Array;
  nodeCount: number;
  clipNames: string[];
  clipDurations: Float32Array;
  /** Parent rig node per node, -1 for roots (parent-first order). */
  parents: Int32Array;
  rest: Float32Array;
  trackRefs: Uint32Array;
  trackCount: number;
  tracks: Float32Array;
}

export interface BakeOptions {
  /** Most entries per track, at least 2 (default 1024). */
  maxEntriesPerTrack?: number;
  /** Align entries to each clip's key grid (default true; see the layout above). */
  alignToKeys?: boolean;
}

/** Bakes every clip of `rig` into lookup tables (see the layout above). Load time only. */
export function bake(rig: Rig, options: BakeOptions = {}): BakedModel {
  const maxEntries = options.maxEntriesPerTrack ?? DEFAULT_MAX_ENTRIES_PER_TRACK;
  if (!Number.isInteger(maxEntries) || maxEntries < 2) throw new RangeError(`maxEntriesPerTrack must be an integer >= 2, got ${maxEntries}`);
  const nodeCount = rig.nodes.count;
  const clipCount = rig.clips.length;
  const clipEntries = Uint32Array.from(rig.clips, (clip) => (options.alignToKeys === false ? maxEntries : keyAlignedEntries(clip, maxEntries)));
  const totalEntries = rig.clips.reduce((sum, clip, c) => sum + clip.channels.length * clipEntries[c], 0);
  const tracks = new Float32Array(totalEntries * 4);
  const trackRefs = new Uint32Array(clipCount * nodeCount * 3).fill(TRACK_NONE);
  const value = new Float64Array(4);
  let offset = 0; // vec4 index of the next track's entry 0
  rig.clips.forEach((clip, c) => {
    const entries = clipEntries[c];
    for (const channel of clip.channels) {
      const n = PATH_COMPONENTS[channel.path];
      for (let e = 0; e < entries; e++) {
        value.fill(0);
        sampleChannel(channel, (e * clip.duration) / (entries - 1), value, 0);
        const o = (offset + e) * 4;
        if (n === 4 && e > 0) {
          const dot = value[0] * tracks[o - 4] + value[1] * tracks[o - 3] + value[2] * tracks[o - 2] + value[3] * tracks[o - 1];
          if (dot < 0) for (let i = 0; i < 4; i++) value[i] = -value[i];
        }
        for (let i = 0; i < 4; i++) tracks[o + i] = value[i];
      }
      const ref = (c * nodeCount + channel.node) * 3 + PATHS.indexOf(channel.path);
      trackRefs[ref] = offset | (channel.interpolation === 'STEP' ? TRACK_STEP : 0);
      offset += entries;
    }
  });

  const rest = new Float32Array(nodeCount * 12);
  for (let i = 0; i < nodeCount; i++) {
    rest.set(rig.nodes.restTranslation.subarray(i * 3, i * 3 + 3), i * 12);
    rest.set(rig.nodes.restRotation.subarray(i * 4, i * 4 + 4), i * 12 + 4);
    rest.set(rig.nodes.restScale.subarray(i * 3, i * 3 + 3), i * 12 + 8);
  }
  return {
    clipEntries, nodeCount, trackRefs, rest, tracks,
    trackCount: rig.clips.reduce((sum, clip) => sum + clip.channels.length, 0),
    clipNames: rig.clips.map((c) => c.name),
    clipDurations: Float32Array.from(rig.clips, (c) => c.duration),
    parents: rig.nodes.parent,
  };
}

const FRAME_RATES = [24, 25, 30, 48, 50, 60, 120];

/**
 * Entries per track for `clip`: when all its key times (and its duration) are whole multiples
 * of one spacing, the largest count <= maxEntries whose intervals divide that grid, so every
 * key is an entry; otherwise maxEntries.
 */
export function keyAlignedEntries(clip: Clip, maxEntries: number): number {
  const d = clip.duration;
  if (!(d > 0)) return 2;
  const times = [...new Set(clip.channels.flatMap((ch) => Array.from(ch.times)))].sort((a, b) => a - b);
  let gap = Infinity;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i] - times[i - 1]);
  if (!Number.isFinite(gap)) gap = d;
  const onGrid = (t: number, step: number) => Math.abs(t / step - Math.round(t / step)) < 1e-3;
  // Candidate grids: the smallest key gap or a small fraction of it (keys at 0, 0.1, 0.25 have
  // grid 0.05), then the frame rates animation tools export at.
  const candidates = [1, 2, 3, 4, 5, 6, 7, 8].map((k) => gap / k).concat(FRAME_RATES.map((fps) => 1 / fps));
  for (const step of candidates) {
    const intervals = Math.round(d / step);
    if (intervals < 1 || intervals > maxEntries - 1) continue;
    if (onGrid(d, step) && times.every((t) => onGrid(t, step))) return intervals * Math.floor((maxEntries - 1) / intervals) + 1;
  }
  return maxEntries;
}

/** Bytes of the baked tables (tracks + refs + rest + durations), as uploaded to the GPU. */
export function bakedBytes(baked: BakedModel): number {
  return baked.tracks.byteLength + baked.trackRefs.byteLength + baked.rest.byteLength + baked.clipDurations.byteLength;
}
