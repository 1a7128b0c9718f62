import { createPose, type Pose } from '../math/pose';
import { quatMulAt } from '../math/quat';
import { check, FLOAT32_MAX, ModelError } from './errors';
import type { Clip, Rig, TrsPath } from './rig';
import { restPose, sampleChannel, sampleClip } from './sampler';
import { clipKeyTimes, MAX_REFINEMENT_BYTES, mib, refineTable, startingSize, tableTolerance, VERIFY_BELOW_ENTRIES_PER_KEY, type StartingSize, type TrackSampler } from './table-size';
import type { MorphLayout, MorphTrack } from './bake-morph';

export { keyAlignedEntries } from './table-size';
import type { BakedRootMotion } from './root-motion';

/**
 * The baked model: every clip sampled into lookup tables, laid out for the GPU. This file is
 * the contract between the bake and shaders/pose.wgsl (mirrored in src/bake/rig-data.ts).
 *
 * Layout
 * - `tracks` (one storage buffer): every track's entries, track after track, one vec4f each. A
 *   translation or scale entry is (x, y, z, 0), a rotation entry the quaternion (x, y, z, w).
 *   All tracks of clip c have `clipEntries[c]` entries; entry e holds the exact value at time
 *   e * d / (clipEntries[c] - 1), so entry 0 is t = 0 and the last is t = d (a STEP track's entry
 *   holds the value at the middle of its interval, the one a STEP read returns). Rotation entries
 *   are sign-continuous (each has a non-negative dot with the previous one), so neighbouring
 *   entries interpolate along the short path. Every entry is finite and within float32 range
 *   (a curve that leaves it, a CUBICSPLINE overshoot say, is a ModelError naming the channel).
 * - `clipEntries[c]`, sized from the clip's key density (table-size.ts has the rule in full):
 *   when the keys lie on a regular grid of N intervals (as exported clips do: 24, 30 or 60 keys
 *   a second), N * k + 1 entries, so every key lands exactly on an entry; interpolating across a
 *   LINEAR key's corner would otherwise cut it, an error proportional to the entry spacing (up
 *   to 3e-3 of the model's size on RobotExpressive's Dance at 1024 unaligned entries, 1e-6
 *   aligned). k = floor(1023 / N) for clips of fewer than 1024 grid intervals (at most 1024
 *   entries, as before); a longer clip gets one entry per key and more where measuring against
 *   the exact sampler asks for it (a 60 s clip at 30 keys a second: 1801 entries or more, never
 *   1024). Clips without a key grid start at 1024 entries and are refined the same way. The
 *   cost is 16 bytes per entry per track; all tables together stay within maxTableBytes.
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
 * - `morph` (models with morph targets, see BakedMorph): the clips' morph weights, four to a
 *   track, on the same entry grid as the clip's TRS tracks and sized and checked with them.
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
/** Entries per track of a short clip (one with fewer key intervals than this), and where clips without a key grid start. */
export const DEFAULT_MAX_ENTRIES_PER_TRACK = 1024;
/** Default budget for all tables (`tracks` plus `trackRefs`), bytes: half of WebGPU's default 128 MiB storage binding. */
export const DEFAULT_MAX_TABLE_BYTES = 64 * 1024 * 1024;
export const PATHS: readonly TrsPath[] = ['translation', 'rotation', 'scale'];

export interface BakedModel {
  /** Entries per track of each clip, at least 2 (see the layout). */
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
  /** The morph weights' tables, when the model has morph targets (undefined otherwise). */
  morph?: BakedMorph;
}

/**
 * Morph weights baked like the TRS tracks (src/bake/bake-morph.ts has the grouping). Per
 * instance the weights are a padded vector of `weightCount` floats (4 x groups), morph set m's
 * targets from `setBase[m]`. Reading is the TRS rule: clip c's group g is TRACK_NONE (the
 * default weights `rest`, or 0 in a difference clip) or the vec4 index in `tracks` of its entry
 * 0 (`clipEntries[c]` entries, TRACK_STEP for a STEP channel), mixed between two entries.
 */
export interface BakedMorph {
  /** vec4 groups of weights per instance. */
  groups: number;
  /** Floats of weights per instance: 4 x groups (the padding is 0). */
  weightCount: number;
  /** First weight of each morph set (Rig.morphs order), a multiple of 4. */
  setBase: Uint32Array;
  /** Targets of each morph set. */
  targetCounts: Uint32Array;
  /** Rig node whose blend-mask weight applies to each group (MorphSet.maskNode). */
  maskNodes: Uint32Array;
  /** Default weights, padded: weightCount floats. */
  rest: Float32Array;
  /** Morph track entries, one vec4f each, track after track. */
  tracks: Float32Array;
  /** (clip * groups + group) -> vec4 index of the track's entry 0 | TRACK_STEP, or TRACK_NONE. */
  refs: Uint32Array;
  /** Morph tracks over all clips. */
  trackCount: number;
}

/** A difference clip to bake: clip `clip` minus the reference pose, named `name`. */
export interface DifferenceClip {
  clip: number;
  /** The pose subtracted: a clip at a time (seconds), or the rest pose. */
  reference: { clip: number; time: number } | 'rest';
  name: string;
}

export interface BakeOptions {
  /**
   * Entries per track of a short clip, at least 2 (default 1024): a clip whose keys need more
   * (a longer clip, see the layout) gets more. With alignToKeys false, every clip gets exactly this.
   */
  maxEntriesPerTrack?: number;
  /** Size tables from each clip's key grid (default true; see the layout above). False: maxEntriesPerTrack entries for every clip. */
  alignToKeys?: boolean;
  /** Most bytes of all tables together (default DEFAULT_MAX_TABLE_BYTES, 64 MiB). */
  maxTableBytes?: number;
  /** Difference clips to bake after the file's clips, for additive layers (see the layout above). */
  differences?: DifferenceClip[];
}

/**
 * Bakes every clip of `rig` into lookup tables (see the layout above). Load time only. Clips
 * whose tables stay above the accuracy aim (table-size.ts, rule 3) add a sentence each to
 * `rig.warnings`.
 */
export function bake(rig: Rig, options: BakeOptions = {}): BakedModel {
  const maxEntries = options.maxEntriesPerTrack ?? DEFAULT_MAX_ENTRIES_PER_TRACK;
  if (!Number.isInteger(maxEntries) || maxEntries < 2) throw new RangeError(`maxEntriesPerTrack must be an integer >= 2, got ${maxEntries}`);
  const maxBytes = options.maxTableBytes ?? DEFAULT_MAX_TABLE_BYTES;
  if (!(Number.isFinite(maxBytes) && maxBytes > 0)) throw new RangeError(`maxTableBytes must be a positive number of bytes, got ${maxBytes}`);
  const differences = options.differences ?? [];
  differences.forEach((d, i) => checkDifference(rig, d, i));
  const nodeCount = rig.nodes.count;
  // The morph half (bake-morph.ts) comes with the rig, for a rig with morph sets only (Rig.morphBake).
  if (rig.morphs.length > 0 && !rig.morphBake) throw new Error('bake: a rig with morph sets needs rig.morphBake (buildRig sets it)');
  const layout = rig.morphBake?.morphLayout(rig) ?? NO_MORPHS;
  const sources: BakedClipSource[] = [
    ...rig.clips.map((clip) => fileClipSource(rig, clip, layout)), ...differences.map((d) => differenceSource(rig, d, layout)),
  ];
  const clipCount = sources.length;
  const refBytes = clipCount * nodeCount * 3 * 4;
  check(refBytes <= maxBytes, () => `the model's ${clipCount} clips x ${nodeCount} rig nodes need ${mib(refBytes)} of track references, ` +
    `more than the ${mib(maxBytes)} its tables may take (maxTableBytes)`);
  const { entries: clipEntries, tables } = sizeAndBake(rig, sources, options.alignToKeys !== false, maxEntries, maxBytes - refBytes);

  // Each clip's table holds its TRS tracks, then its morph tracks: split them into the two tables.
  const trsFloats = (c: number) => sources[c].tracks.length * clipEntries[c] * 4;
  const tracks = new Float32Array(sources.reduce((n, _, c) => n + trsFloats(c), 0));
  const morphTracks = new Float32Array(tables.reduce((n, table, c) => n + table.length - trsFloats(c), 0));
  const trackRefs = new Uint32Array(clipCount * nodeCount * 3).fill(TRACK_NONE);
  const morphRefs = new Uint32Array(clipCount * layout.groups).fill(TRACK_NONE);
  let offset = 0; // vec4 index of the next track's entry 0
  let morphOffset = 0;
  sources.forEach((source, c) => {
    tracks.set(tables[c].subarray(0, trsFloats(c)), offset * 4);
    morphTracks.set(tables[c].subarray(trsFloats(c)), morphOffset * 4);
    source.tracks.forEach((track) => {
      trackRefs[(c * nodeCount + track.node) * 3 + PATHS.indexOf(track.path)] = offset | (track.step ? TRACK_STEP : 0);
      offset += clipEntries[c];
    });
    source.morph.forEach((track) => {
      morphRefs[c * layout.groups + track.group] = morphOffset | (track.step ? TRACK_STEP : 0);
      morphOffset += clipEntries[c];
    });
  });

  return {
    clipEntries, nodeCount, trackRefs, rest: restTable(rig), tracks,
    clipIsDifference: Uint8Array.from(sources, (_, c) => (c >= rig.clips.length ? 1 : 0)),
    trackCount: sources.reduce((sum, source) => sum + source.tracks.length, 0),
    clipNames: sources.map(({ clip }) => clip.name),
    clipDurations: Float32Array.from(sources, ({ clip }) => clip.duration),
    parents: rig.nodes.parent,
    ...(layout.groups > 0 ? { morph: rig.morphBake!.bakedMorph(layout, morphTracks, morphRefs, sources.reduce((n, source) => n + source.morph.length, 0)) } : {}),
  };
}

/** The morph layout of a rig without morph sets (and so with no weights channels). */
const NO_MORPHS: MorphLayout = {
  groups: 0, setBase: new Uint32Array(0), targetCounts: new Uint32Array(0), groupSet: new Uint32Array(0), rest: new Float32Array(0), maskNodes: new Uint32Array(0),
};

/** The rest pose as BakedModel.rest lays it out: 3 vec4f per node. */
export function restTable(rig: Rig): Float32Array {
  const nodeCount = rig.nodes.count;
  const rest = new Float32Array(nodeCount * 12);
  for (let i = 0; i < nodeCount; i++) {
    rest.set(rig.nodes.restTranslation.subarray(i * 3, i * 3 + 3), i * 12);
    rest.set(rig.nodes.restRotation.subarray(i * 4, i * 4 + 4), i * 12 + 4);
    rest.set(rig.nodes.restScale.subarray(i * 3, i * 3 + 3), i * 12 + 8);
  }
  return rest;
}

/**
 * Entries per track of every clip and its baked table (tracks one after another), by the rule
 * of table-size.ts, within `budget` bytes of tables.
 */
function sizeAndBake(rig: Rig, sources: BakedClipSource[], align: boolean, shortEntries: number, budget: number): { entries: Uint32Array; tables: Float32Array[] } {
  const bytesPer = (c: number, entries: number) => sources[c].samplers.length * entries * 16;
  const keyTimes = sources.map((source) => (align ? clipKeyTimes(source.clip) : []));
  const starts: StartingSize[] = sources.map((source, c) => {
    if (!align) return { entries: shortEntries };
    const tracks = Math.max(source.samplers.length, 1);
    return startingSize(source.clip, shortEntries, Math.floor(budget / (tracks * 16)) - 1, keyTimes[c]);
  });
  const startBytes = starts.reduce((n, start, c) => n + bytesPer(c, start.entries), 0);
  const allTracks = sources.reduce((n, source) => n + source.samplers.length, 0);
  const warn = (text: string) => { if (!rig.warnings.includes(text)) rig.warnings.push(text); };
  if (startBytes > budget) {
    // Even one entry per key is too much: every clip shrinks in proportion (off its key grid).
    const scale = budget / startBytes;
    const leastBytes = sources.reduce((n, _, c) => n + bytesPer(c, 2), 0);
    check(leastBytes <= budget, () => `the model's ${allTracks} animated tracks need at least ${mib(leastBytes)} of tables (2 entries each), ` +
      `more than the ${mib(budget)} they may take (maxTableBytes)`);
    starts.forEach((start, c) => {
      const entries = Math.max(2, Math.floor(start.entries * scale));
      if (entries < start.entries && sources[c].samplers.length > 0) {
        warn(`clip '${sources[c].clip.name}': baked with ${entries} entries per track instead of ${start.entries} to keep all tables within ${mib(budget)} (maxTableBytes)`);
        starts[c] = { entries };
      }
    });
  }
  const spare = Math.min(MAX_REFINEMENT_BYTES, Math.max(0, budget - starts.reduce((n, start, c) => n + bytesPer(c, start.entries), 0)));
  const tolerance = align ? tableTolerance(rig) : undefined;
  const entries = new Uint32Array(sources.length);
  const tables = sources.map((source, c) => {
    const start = starts[c];
    entries[c] = start.entries;
    const perKey = start.grid === undefined ? 0 : (start.entries - 1) / start.grid;
    if (!tolerance || source.samplers.length === 0 || perKey >= VERIFY_BELOW_ENTRIES_PER_KEY) return bakeClip(source, start.entries);
    const refined = refineTable({
      name: source.clip.name, duration: source.clip.duration, keyTimes: keyTimes[c], tracks: source.samplers,
      where: source.where, start, tolerance, bakeAt: (n) => bakeClip(source, n),
      entryAt: (k, e, n, out) => { sampleEntry(source.samplers[k], e, n, source.clip.duration, out); },
      shareBytes: bytesPer(c, start.entries) + (spare * source.samplers.length) / allTracks,
    });
    entries[c] = refined.entries;
    if (refined.warning) warn(refined.warning);
    return refined.table;
  });
  return { entries, tables };
}

/** Samples every track of `source` (TRS, then morph) at `entries` evenly spaced times into one table (tracks one after another). */
function bakeClip(source: BakedClipSource, entries: number): Float32Array {
  const table = new Float32Array(source.samplers.length * entries * 4);
  const value = new Float64Array(4);
  const d = source.clip.duration;
  source.samplers.forEach((sampler, k) => {
    for (let e = 0; e < entries; e++) {
      const t = sampleEntry(sampler, e, entries, d, value);
      const o = (k * entries + e) * 4;
      if (sampler.path === 'rotation' && e > 0) {
        const dot = value[0] * table[o - 4] + value[1] * table[o - 3] + value[2] * table[o - 2] + value[3] * table[o - 1];
        if (dot < 0) for (let i = 0; i < 4; i++) value[i] = -value[i];
      }
      for (let i = 0; i < 4; i++) {
        if (!(Math.abs(value[i]) <= FLOAT32_MAX)) {
          throw new ModelError(`${source.where(k)}: its value at ${t} s is ${value[i]}, outside the 32-bit float range the tables store`);
        }
        table[o + i] = value[i];
      }
    }
  });
  return table;
}

/** Entry e of `sampler`'s track at `entries` entries over `d` seconds into value[0..3] (float64, before the sign continuity); returns its time. */
function sampleEntry(sampler: TrackSampler, e: number, entries: number, d: number, value: Float64Array): number {
  value.fill(0);
  const t = (e * d) / (entries - 1);
  // A STEP entry is read over its whole interval: take the value held in the middle of it, so
  // a key that float32 rounding puts a hair after its grid time still starts on its entry.
  sampler.sample(sampler.step && e < entries - 1 ? ((e + 0.5) * d) / (entries - 1) : t, value);
  return t;
}

interface BakedTrack { node: number; path: TrsPath; step: boolean }

/** What one baked clip is made of: a clip of the file (sampled per channel), or a difference clip. */
interface BakedClipSource {
  /** Name, duration and key times (for entry alignment). */
  clip: Clip;
  tracks: BakedTrack[];
  /** Morph tracks, baked after the TRS tracks. */
  morph: MorphTrack[];
  /** The exact value of each track, in `tracks` order, then `morph` order. */
  samplers: TrackSampler[];
  /** Track k (of samplers) in words, for messages. */
  where(k: number): string;
}

/** Track k of a source in words: a TRS track (node and path) or a morph group (its set's targets). */
function describeTrack(rig: Rig, layout: MorphLayout, tracks: BakedTrack[], morph: MorphTrack[], k: number): string {
  if (k < tracks.length) return `node '${rig.nodes.names[tracks[k].node]}' ${tracks[k].path}`;
  return rig.morphBake!.describeGroup(rig, layout, morph[k - tracks.length].group);
}

/** A clip of the file: one track per channel, sampled by the exact glTF sampler; morph tracks after them. */
function fileClipSource(rig: Rig, clip: Clip, layout: MorphLayout): BakedClipSource {
  const tracks = clip.channels.map((ch) => ({ node: ch.node, path: ch.path, step: ch.interpolation === 'STEP' }));
  const morph = rig.morphBake?.fileMorphTracks(rig, layout, clip) ?? { tracks: [], samplers: [] };
  return {
    clip, tracks, morph: morph.tracks,
    samplers: [...clip.channels.map((ch): TrackSampler => ({
      path: ch.path, step: ch.interpolation === 'STEP', order: ch.path === 'rotation' && ch.interpolation === 'LINEAR' ? 3 : 2,
      sample: (t, out) => sampleChannel(ch, t, out, 0),
    })), ...morph.samplers],
    where: (k) => `animation '${clip.name}' (${describeTrack(rig, layout, tracks, morph.tracks, k)})`,
  };
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

/** A difference clip: every node the clip or its reference moves gets translation, rotation and scale tracks of A - R; morph weights likewise. */
function differenceSource(rig: Rig, d: DifferenceClip, layout: MorphLayout): BakedClipSource {
  const clip = rig.clips[d.clip];
  const reference = createPose(rig.nodes.count);
  if (d.reference === 'rest') restPose(rig.nodes, reference);
  else sampleClip(rig, d.reference.clip, d.reference.time, reference);
  const moved = new Set<number>(clip.channels.map((ch) => ch.node));
  if (d.reference !== 'rest') for (const ch of rig.clips[d.reference.clip].channels) moved.add(ch.node);
  const tracks: BakedTrack[] = [...moved].sort((a, b) => a - b).flatMap((node) => PATHS.map((path) => ({ node, path, step: false })));
  const pose = createPose(rig.nodes.count);
  let sampledAt = NaN;
  const morph = rig.morphBake?.differenceMorphTracks(rig, layout, clip, d.reference === 'rest' ? 'rest' : { clip: rig.clips[d.reference.clip], time: d.reference.time }) ?? { tracks: [], samplers: [] };
  return {
    clip: { name: d.name, duration: clip.duration, channels: clip.channels, weights: clip.weights },
    tracks, morph: morph.tracks,
    samplers: [...tracks.map((track): TrackSampler => ({
      path: track.path, step: false, order: 2,
      sample(t, out) {
        if (t !== sampledAt) { sampleClip(rig, d.clip, t, pose); sampledAt = t; }
        differenceAt(pose, reference, track.node, track.path, out);
      },
    })), ...morph.samplers],
    where: (k) => `additive clip '${d.name}' (${describeTrack(rig, layout, tracks, morph.tracks, k)})`,
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

/** Bytes of the baked tables (tracks + refs + rest + durations, and the morph tables when there are any), as uploaded to the GPU. */
export function bakedBytes(baked: BakedModel): number {
  const morph = baked.morph ? baked.morph.tracks.byteLength + baked.morph.refs.byteLength + baked.morph.rest.byteLength : 0;
  return baked.tracks.byteLength + baked.trackRefs.byteLength + baked.rest.byteLength + baked.clipDurations.byteLength + morph;
}
