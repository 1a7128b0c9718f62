import type { Clip, Rig, TrsPath } from './rig';
import { restPose, sampleChannel, sampleClip } from './sampler';
import { createPose, type Pose } from '../math/pose';
import { quatMulAt } from '../math/quat';
import type { BakedRootMotion } from './root-motion';

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
 * - Difference clips (BakeOptions.differences) follow the file's clips: clip A made additive
 *   against a reference pose R (a clip at a time, or the rest pose) and baked as per-entry
 *   differences: translation A.t - R.t, rotation conj(R.r) * A.r, scale A.s / R.s (1 where R.s
 *   is 0). `clipIsDifference[c]` is 1 for them; where such a clip has no track (neither A nor R
 *   moves the node) the value is the identity (0, identity, 1), not the rest pose. An additive
 *   layer on a difference clip uses the identity as its reference: one table read instead of two.
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
  /** 1 for a difference clip (see the layout), 0 for a clip of the file. */
  clipIsDifference: Uint8Array;
  nodeCount: number;
  clipNames: string[];
  clipDurations: Float32Array;
  /** Parent rig node per node, -1 for roots (parent-first order). */
  parents: Int32Array;
  rest: Float32Array;
  trackRefs: Uint32Array;
  trackCount: number;
  tracks: Float32Array;
  /** Root motion taken out of the clips at load time (LoadOptions.rootMotion; src/bake/root-motion.ts). */
  rootMotion?: BakedRootMotion;
}

/** A difference clip to bake: clip `clip` minus the reference pose, named `name`. */
export interface DifferenceClip {
  clip: number;
  /** The pose subtracted: a clip at a time (seconds), or the rest pose. */
  reference: { clip: number; time: number } | 'rest';
  name: string;
}

export interface BakeOptions {
  /** Most entries per track, at least 2 (default 1024). */
  maxEntriesPerTrack?: number;
  /** Align entries to each clip's key grid (default true; see the layout above). */
  alignToKeys?: boolean;
  /** Difference clips to bake after the file's clips, for additive layers (see the layout above). */
  differences?: DifferenceClip[];
}

/** Bakes every clip of `rig` into lookup tables (see the layout above). Load time only. */
export function bake(rig: Rig, options: BakeOptions = {}): BakedModel {
  const maxEntries = options.maxEntriesPerTrack ?? DEFAULT_MAX_ENTRIES_PER_TRACK;
  if (!Number.isInteger(maxEntries) || maxEntries < 2) throw new RangeError(`maxEntriesPerTrack must be an integer >= 2, got ${maxEntries}`);
  const differences = options.differences ?? [];
  differences.forEach((d, i) => checkDifference(rig, d, i));
  const nodeCount = rig.nodes.count;
  const sources: BakedClipSource[] = [
    ...rig.clips.map((clip) => ({ clip, tracks: clip.channels.map((ch) => ({ node: ch.node, path: ch.path, step: ch.interpolation === 'STEP' })) })),
    ...differences.map((d) => differenceSource(rig, d)),
  ];
  const clipCount = sources.length;
  const clipEntries = Uint32Array.from(sources, ({ clip }) => (options.alignToKeys === false ? maxEntries : keyAlignedEntries(clip, maxEntries)));
  const totalEntries = sources.reduce((sum, source, c) => sum + source.tracks.length * clipEntries[c], 0);
  const tracks = new Float32Array(totalEntries * 4);
  const trackRefs = new Uint32Array(clipCount * nodeCount * 3).fill(TRACK_NONE);
  const value = new Float64Array(4);
  let offset = 0; // vec4 index of the next track's entry 0
  sources.forEach((source, c) => {
    const entries = clipEntries[c];
    source.tracks.forEach((track, k) => {
      for (let e = 0; e < entries; e++) {
        value.fill(0);
        const t = (e * source.clip.duration) / (entries - 1);
        if (source.sample) source.sample(track, t, value);
        else sampleChannel(source.clip.channels[k], t, value, 0);
        const o = (offset + e) * 4;
        if (track.path === 'rotation' && e > 0) {
          const dot = value[0] * tracks[o - 4] + value[1] * tracks[o - 3] + value[2] * tracks[o - 2] + value[3] * tracks[o - 1];
          if (dot < 0) for (let i = 0; i < 4; i++) value[i] = -value[i];
        }
        for (let i = 0; i < 4; i++) tracks[o + i] = value[i];
      }
      trackRefs[(c * nodeCount + track.node) * 3 + PATHS.indexOf(track.path)] = offset | (track.step ? TRACK_STEP : 0);
      offset += entries;
    });
  });

  const rest = new Float32Array(nodeCount * 12);
  for (let i = 0; i < nodeCount; i++) {
    rest.set(rig.nodes.restTranslation.subarray(i * 3, i * 3 + 3), i * 12);
    rest.set(rig.nodes.restRotation.subarray(i * 4, i * 4 + 4), i * 12 + 4);
    rest.set(rig.nodes.restScale.subarray(i * 3, i * 3 + 3), i * 12 + 8);
  }
  return {
    clipEntries, nodeCount, trackRefs, rest, tracks,
    clipIsDifference: Uint8Array.from(sources, (_, c) => (c >= rig.clips.length ? 1 : 0)),
    trackCount: sources.reduce((sum, source) => sum + source.tracks.length, 0),
    clipNames: sources.map(({ clip }) => clip.name),
    clipDurations: Float32Array.from(sources, ({ clip }) => clip.duration),
    parents: rig.nodes.parent,
  };
}

interface BakedTrack { node: number; path: TrsPath; step: boolean }

/** What one baked clip is made of: a clip of the file (sampled per channel), or a difference clip (sampled by `sample`). */
interface BakedClipSource {
  /** Name, duration and key times (for entry alignment). */
  clip: Clip;
  tracks: BakedTrack[];
  sample?: (track: BakedTrack, t: number, out: Float64Array) => void;
}

function checkDifference(rig: Rig, d: DifferenceClip, i: number): void {
  const where = `differences[${i}]`;
  const clips = rig.clips.length;
  const ok = (c: number) => Number.isInteger(c) && c >= 0 && c < clips;
  if (!ok(d.clip)) throw new RangeError(`${where}.clip ${d.clip} does not exist (the model has ${clips} clips)`);
  if (d.reference !== 'rest' && (!ok(d.reference.clip) || !Number.isFinite(d.reference.time))) {
    throw new RangeError(`${where}.reference must be 'rest' or a clip of the model at a finite time`);
  }
  if (!d.name || rig.clips.some((c) => c.name === d.name)) throw new RangeError(`${where}.name '${d.name}' is empty or already names a clip`);
}

/** A difference clip: every node the clip or its reference moves gets translation, rotation and scale tracks of A - R. */
function differenceSource(rig: Rig, d: DifferenceClip): BakedClipSource {
  const clip = rig.clips[d.clip];
  const reference = createPose(rig.nodes.count);
  if (d.reference === 'rest') restPose(rig.nodes, reference);
  else sampleClip(rig, d.reference.clip, d.reference.time, reference);
  const moved = new Set<number>(clip.channels.map((ch) => ch.node));
  if (d.reference !== 'rest') for (const ch of rig.clips[d.reference.clip].channels) moved.add(ch.node);
  const tracks: BakedTrack[] = [...moved].sort((a, b) => a - b).flatMap((node) => PATHS.map((path) => ({ node, path, step: false })));
  const pose = createPose(rig.nodes.count);
  let sampledAt = NaN;
  return {
    clip: { name: d.name, duration: clip.duration, channels: clip.channels },
    tracks,
    sample(track, t, out) {
      if (t !== sampledAt) { sampleClip(rig, d.clip, t, pose); sampledAt = t; }
      differenceAt(pose, reference, track.node, track.path, out);
    },
  };
}

/** The difference A - R of one node and path (rules in the layout above), into out[0..3]. */
export function differenceAt(a: Pose, r: Pose, node: number, path: TrsPath, out: Float64Array): void {
  if (path === 'rotation') {
    quatMulAt(r.rotation, node * 4, true, a.rotation, node * 4, out, 0);
    return;
  }
  const o = node * 3;
  for (let c = 0; c < 3; c++) {
    if (path === 'translation') out[c] = a.translation[o + c] - r.translation[o + c];
    else out[c] = r.scale[o + c] === 0 ? 1 : a.scale[o + c] / r.scale[o + c];
  }
  out[3] = 0;
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
