import { createPose, localToModel } from '../math/pose';
import type { Clip, Rig, TrsPath } from './rig';
import { FLOAT32_MAX } from './errors';
import { restPose } from './sampler';

/**
 * How many entries each clip's tables get (the rule bake.ts documents, in full):
 *
 * 1. The key grid. When all key times (and the duration) of a clip are whole multiples of one
 *    spacing (exported clips are: 24, 30 or 60 keys a second), the clip has N grid intervals and
 *    its tables get N * k + 1 entries, k entries per grid interval, so every key is an entry.
 * 2. k from key density: k = floor((S - 1) / N), S = the short-clip size (1024 by default), for
 *    a clip whose grid has fewer than S intervals, exactly as before (1023/N >= 1 entries per key
 *    interval, at most S entries). A longer clip starts at k = 1: one entry per key, so its table
 *    grows with its length instead of being capped at S (a 60 s clip at 30 keys a second has
 *    1801 entries, not 1024, and is no longer off by 0.5% of the model). A clip without a grid
 *    starts at S entries.
 * 3. Checked and refined. A clip with fewer than VERIFY_BELOW_ENTRIES_PER_KEY entries per grid
 *    interval, or without a grid, is measured against the exact sampler (tableError): at 1/4,
 *    1/2 and 3/4 of every entry interval and at every key. While the worst error is above the
 *    tolerance (TABLE_TOLERANCE of the rig's size for translations, TABLE_TOLERANCE radians for
 *    rotations, TABLE_TOLERANCE for scales and morph weights; never below float32 storage) the entry count is
 *    multiplied by (error / tolerance)^(1/order): order 3 on a grid for LINEAR rotations (nlerp
 *    between entries against slerp), 2 for other curves on a grid (CUBICSPLINE curvature), 1
 *    off any grid (keys between entries cut corners). Limits: the clip's share of the byte
 *    budget, MAX_REFINEMENT (64) times its starting entries, MAX_REFINEMENT_BYTES (16 MiB) more
 *    over all clips, so a damaged curve costs a warning rather than seconds. A refinement that
 *    does not at least halve the error is dropped, and is not even baked when a few samples of it
 *    at the worst time show that (errorBound). What stays above the tolerance is reported in a
 *    warning with the error reached (refineTable).
 * 4. The byte budget (maxTableBytes, 64 MiB by default, half of WebGPU's default storage binding
 *    size): when even the starting sizes exceed it, every clip is scaled down in proportion,
 *    with a warning.
 *
 * Clips with 8 or more entries per key interval (every bundled clip: at least 12) are not
 * measured here; test/anim/lut.test.ts measures them on every model (within 4e-7 of the model).
 */

/** Track-space tolerance of a refined table: a millionth of the rig's size, radians, or relative. */
export const TABLE_TOLERANCE = 1e-6;
/**
 * How far above the tolerance the error right at a grid's keys may be before a warning: the
 * file's float32 key times cause it (no table can remove it), so it is reported only past ten
 * times the aim, which is the 1e-5 accuracy bar itself.
 */
const KEY_TIME_SLACK = 10;
/** Rule 3 never takes a clip past this many times its starting entries (a damaged curve should not cost seconds). */
export const MAX_REFINEMENT = 64;
/** Rule 3 adds at most this many bytes of tables over all clips, on top of the starting sizes. */
export const MAX_REFINEMENT_BYTES = 16 * 2 ** 20;
/** Clips with at least this many entries per key-grid interval are not measured (rule 3). */
export const VERIFY_BELOW_ENTRIES_PER_KEY = 8;
/** A few float32 steps: what storing a value as f32 costs, relative to the value. */
const FLOAT32_FLOOR = 2 ** -21;

const FRAME_RATES = [24, 25, 30, 48, 50, 60, 120];

/**
 * Unique key times of every channel of `clip` (morph weights channels too), ascending. Lists equal
 * to the first (an exported clip's channels mostly share one) are skipped, the rest sorted as one
 * typed array: a million keys take milliseconds (a Set and a comparator sort took seconds).
 */
export function clipKeyTimes(clip: Clip): number[] {
  const lists = [...clip.channels, ...(clip.weights ?? [])].map((ch) => ch.times);
  if (lists.length === 0) return [];
  const first = lists[0];
  const others = lists.filter((times) => !sameTimes(times, first));
  if (others.length === 0) return Array.from(first);
  const all = new Float64Array(others.reduce((n, times) => n + times.length, first.length));
  all.set(first);
  others.reduce((o, times) => { all.set(times, o); return o + times.length; }, first.length);
  all.sort();
  const unique: number[] = [];
  for (const t of all) if (unique.length === 0 || t !== unique[unique.length - 1]) unique.push(t);
  return unique;
}

const sameTimes = (a: Float32Array, b: Float32Array) => a === b || (a.length === b.length && a.every((t, i) => t === b[i]));

/** Spacing of float32 numbers near t: key times are float32, so they sit up to half of it off their grid. */
function float32Step(t: number): number {
  return t > 0 ? 2 ** (Math.floor(Math.log2(t)) - 23) : 0;
}

/**
 * Number of intervals N of the coarsest grid (spacing d / N) that every key time and the duration
 * lie on, at most `maxIntervals`; undefined when there is none. Candidate spacings: the smallest
 * key gap or a small fraction of it (keys at 0, 0.1, 0.25 have spacing 0.05), then the frame
 * rates animation tools export at.
 */
export function keyGridIntervals(clip: Clip, maxIntervals: number, times = clipKeyTimes(clip)): number | undefined {
  const d = clip.duration;
  if (!(d > 0)) return undefined;
  let gap = Infinity;
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i] - times[i - 1]);
  if (!Number.isFinite(gap)) gap = d;
  const onGrid = (t: number, step: number) => Math.abs(t / step - Math.round(t / step)) < 1e-3 + float32Step(t) / step;
  const candidates = [1, 2, 3, 4, 5, 6, 7, 8].map((k) => gap / k).concat(FRAME_RATES.map((fps) => 1 / fps));
  for (const step of candidates) {
    const intervals = Math.round(d / step);
    if (intervals < 1 || intervals > maxIntervals) continue;
    if (onGrid(d, step) && times.every((t) => onGrid(t, step))) return intervals;
  }
  return undefined;
}

/** Where a clip's tables start (rules 1 and 2): entries per track, and its grid intervals if any. */
export interface StartingSize {
  entries: number;
  /** Key-grid intervals N, or undefined when the keys lie on no grid. */
  grid?: number;
}

/**
 * Starting entries for `clip` (rules 1 and 2). `shortEntries` is S; `maxIntervals` bounds a long
 * clip's grid (from the byte budget); `times` its clipKeyTimes. Short clips keep the sizes of
 * the earlier rule exactly: a grid of fewer than S intervals is searched first.
 */
export function startingSize(clip: Clip, shortEntries: number, maxIntervals: number, times = clipKeyTimes(clip)): StartingSize {
  if (!(clip.duration > 0)) return { entries: 2, grid: 1 };
  const short = keyGridIntervals(clip, shortEntries - 1, times);
  if (short !== undefined) return { entries: short * Math.floor((shortEntries - 1) / short) + 1, grid: short };
  const long = keyGridIntervals(clip, Math.max(maxIntervals, shortEntries - 1), times);
  if (long !== undefined) return { entries: long + 1, grid: long };
  return { entries: shortEntries };
}

/**
 * Entries per track for `clip` under the short-clip rule alone (kept for its callers): N * k + 1
 * with k = floor((maxEntries - 1) / N) on a key grid of N < maxEntries intervals, one entry per
 * key on a longer grid, else maxEntries.
 */
export function keyAlignedEntries(clip: Clip, maxEntries: number, maxIntervals = Infinity): number {
  return startingSize(clip, maxEntries, maxIntervals).entries;
}

/** What a baked track holds: a TRS path, or 4 morph weights (src/bake/bake.ts, morph tracks). */
export type TrackPath = TrsPath | 'weights';

/** Per-path tolerance of a baked table, in track units (see rule 3). */
export interface TableTolerance {
  /** Model units. */
  translation: number;
  /** Radians. */
  rotation: number;
  /** Relative. */
  scale: number;
  /** Morph weights (unitless; a weight error e moves a vertex by e times its target's displacement). */
  weights: number;
}

/**
 * The rig's size: the bounding-box diagonal of its nodes' rest-pose origins (the skeleton's
 * extent), or, for a rig of one point, of its vertices as stored; 1 when both are empty.
 */
export function rigSize(rig: Rig): number {
  const model = localToModel(rig.nodes.parent, restPose(rig.nodes, createPose(rig.nodes.count)), new Float64Array(rig.nodes.count * 16));
  const size = diagonal(rig.nodes.count, (i, c) => model[i * 16 + 12 + c]);
  if (size > 0) return size;
  let largest = 0;
  for (const prim of rig.primitives) largest = Math.max(largest, diagonal(prim.vertexCount, (i, c) => prim.positions[i * 3 + c]));
  return largest > 0 ? largest : 1;
}

function diagonal(count: number, at: (i: number, c: number) => number): number {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i++) {
    for (let c = 0; c < 3; c++) { lo[c] = Math.min(lo[c], at(i, c)); hi[c] = Math.max(hi[c], at(i, c)); }
  }
  return count > 0 ? Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) : 0;
}

export function tableTolerance(rig: Rig): TableTolerance {
  return { translation: TABLE_TOLERANCE * rigSize(rig), rotation: TABLE_TOLERANCE, scale: TABLE_TOLERANCE, weights: TABLE_TOLERANCE };
}

/** One track of a clip being baked: its path, how it interpolates, and its exact value at a time. */
export interface TrackSampler {
  path: TrackPath;
  step: boolean;
  /**
   * How fast the table's error falls with more entries between keys: 3 for a LINEAR rotation
   * (nlerp against slerp), 2 otherwise (curvature of a CUBICSPLINE or difference curve).
   */
  order: 2 | 3;
  /** Writes the exact value at t seconds into out[0..3]. */
  sample(t: number, out: Float64Array): void;
}

/** The worst error of a baked table against the exact sampler, as a ratio to the tolerance. */
export interface TableError {
  /** Worst error / tolerance (<= 1 meets the tolerance). */
  ratio: number;
  /** That error in track units, and the units. */
  value: number;
  unit: string;
  /** Track index and time of the worst error. */
  track: number;
  time: number;
}

const UNITS: Record<TrackPath, string> = { translation: 'model units', rotation: 'radians', scale: '(unitless scale)', weights: '(morph weight)' };

/**
 * Measures `table` (tracks one after another, `entries` vec4 each, read as the GPU reads them:
 * mix of two neighbouring entries, rotations normalised) against the exact sampler: `between`
 * at 1/4, 1/2 and 3/4 of every entry interval, `atKeys` at every time in `keyTimes`. STEP tracks
 * are skipped: they read one entry, and a step between entries shows at most one interval late.
 */
export function tableError(tracks: TrackSampler[], table: Float32Array, entries: number, duration: number,
  keyTimes: number[], tolerance: TableTolerance): { between: TableError; atKeys: TableError } {
  const none = (): TableError => ({ ratio: 0, value: 0, unit: '', track: 0, time: 0 });
  const between = none();
  const atKeys = none();
  const measured = new Float64Array(2);
  const last = entries - 1;
  const consider = (worst: TableError, k: number, track: TrackSampler, t: number, u: number) => {
    const i = Math.min(Math.floor(u), last - 1);
    readError(track, t, table, (k * entries + i) * 4, u - i, tolerance, measured);
    const [value, allowed] = measured;
    if (value / allowed > worst.ratio) Object.assign(worst, { ratio: value / allowed, value, unit: UNITS[track.path], track: k, time: t });
  };
  tracks.forEach((track, k) => {
    if (track.step || last < 1) return;
    for (let e = 0; e < last; e++) {
      for (const s of [0.25, 0.5, 0.75]) consider(between, k, track, ((e + s) * duration) / last, e + s);
    }
    for (const t of keyTimes) if (t > 0 && t < duration) consider(atKeys, k, track, t, (t / duration) * last);
  });
  return { between, atKeys };
}

const read = new Float64Array(4);
const exact = new Float64Array(4);

/**
 * Reads `track` as the GPU does, at fraction f from the entry at float `a` of `table` to the
 * next, and measures it against the exact value at t seconds: writes the distance and the error
 * allowed there (the tolerance, or a few float32 steps of the value) into out[0] and out[1].
 */
function readError(track: TrackSampler, t: number, table: Float32Array, a: number, f: number, tolerance: TableTolerance, out: Float64Array): void {
  for (let c = 0; c < 4; c++) read[c] = table[a + c] + (table[a + 4 + c] - table[a + c]) * f;
  exact.fill(0);
  track.sample(t, exact);
  out[0] = trackDistance(track.path, read, exact);
  const size = track.path === 'rotation' ? 0 : Math.hypot(exact[0], exact[1], exact[2], track.path === 'weights' ? exact[3] : 0);
  out[1] = Math.max(tolerance[track.path], FLOAT32_FLOOR * size);
}

/**
 * A lower bound, from a few samples, of the error tableError would find at `entries` entries per
 * track (as refineTable weighs it): track k's two entries around `time` computed alone
 * (RefineInput.entryAt, as the bake stores them) and read where tableError reads, at 1/4, 1/2 and
 * 3/4 of their interval and, with `atKey`, at `time` itself (a key time). The bake keeps a
 * rotation's entries sign-continuous from entry 0, which this does not reach: the pair (signs
 * relative as the bake makes them) is read both ways round and the smaller error kept (they differ
 * only where the read is perpendicular to the exact value). Undefined when an entry leaves float32
 * range (the full bake refuses it) or the pair's dot is 0 (the bake's flip then depends on entry i's sign).
 */
function errorBound(input: RefineInput, k: number, entries: number, time: number, atKey: boolean): number | undefined {
  const { duration, tolerance } = input;
  const track = input.tracks[k];
  const last = entries - 1;
  const i = Math.min(Math.floor((time / duration) * last), last - 1);
  const pair = new Float32Array(8); // entries i and i + 1 as stored
  const value = new Float64Array(4);
  for (let n = 0; n < 2; n++) {
    input.entryAt(k, i + n, entries, value);
    const dot = value[0] * pair[0] + value[1] * pair[1] + value[2] * pair[2] + value[3] * pair[3];
    if (n === 1 && track.path === 'rotation' && dot === 0) return undefined; // the bake's flip here depends on entry i's sign
    const flip = n === 1 && track.path === 'rotation' && dot < 0;
    for (let c = 0; c < 4; c++) {
      if (!(Math.abs(value[c]) <= FLOAT32_MAX)) return undefined;
      pair[n * 4 + c] = flip ? -value[c] : value[c];
    }
  }
  const flipped = pair.map((v) => -v);
  const measured = new Float64Array(2);
  const ratio = (t: number, f: number) => {
    readError(track, t, pair, 0, f, tolerance, measured);
    const ratio = measured[0] / measured[1];
    if (track.path !== 'rotation') return ratio;
    readError(track, t, flipped, 0, f, tolerance, measured);
    return Math.min(ratio, measured[0] / measured[1]);
  };
  let bound = Math.max(...[0.25, 0.5, 0.75].map((s) => ratio(((i + s) * duration) / last, s)));
  if (atKey && time > 0 && time < duration) bound = Math.max(bound, ratio(time, (time / duration) * last - i));
  return bound;
}

/** Distance between a table value and the exact one: Euclidean (4 components for morph weights), or the angle between rotations. */
function trackDistance(path: TrackPath, read: Float64Array, exact: Float64Array): number {
  if (path === 'weights') return Math.hypot(read[0] - exact[0], read[1] - exact[1], read[2] - exact[2], read[3] - exact[3]);
  if (path !== 'rotation') return Math.hypot(read[0] - exact[0], read[1] - exact[1], read[2] - exact[2]);
  const length = Math.hypot(read[0], read[1], read[2], read[3]);
  const sign = read[0] * exact[0] + read[1] * exact[1] + read[2] * exact[2] + read[3] * exact[3] < 0 ? -1 : 1;
  let diff = 0;
  let sum = 0;
  for (let c = 0; c < 4; c++) {
    const q = (read[c] / length) * sign;
    diff += (q - exact[c]) ** 2;
    sum += (q + exact[c]) ** 2;
  }
  return 4 * Math.atan2(Math.sqrt(diff), Math.sqrt(sum)); // the rotation angle between them, exact for small angles
}

/** Bytes as a message shows them. */
export const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 1)} MiB`;

/** A clip's table to refine (rule 3). */
export interface RefineInput {
  name: string;
  duration: number;
  keyTimes: number[];
  tracks: TrackSampler[];
  /** Track k in words, for the warning. */
  where(k: number): string;
  start: StartingSize;
  /** Most bytes this clip's tables may take. */
  shareBytes: number;
  tolerance: TableTolerance;
  /** Bakes the clip's table at `entries` entries per track. */
  bakeAt(entries: number): Float32Array;
  /** Entry e of track k at `entries` entries per track, exactly as bakeAt computes it before storing (float64, not yet sign-continuous) into out[0..3]. */
  entryAt(k: number, e: number, entries: number, out: Float64Array): void;
}

const worstOf = (e: { between: TableError; atKeys: TableError }) => (e.atKeys.ratio > e.between.ratio ? e.atKeys : e.between);

/**
 * Rule 3: measures the starting table and refines it while that helps, within the byte share.
 * Returns the table kept, its entries, and a warning when it stays above the tolerance.
 *
 * On a key grid the error right at a key cannot be refined away: it comes from the key's float32
 * time sitting off the grid (up to 3e-5 s at 1000 s), and cuts the key's corner by that much
 * whatever the spacing. So a grid's table is refined only while the error between keys is above
 * the tolerance and at least twice the error at keys. Off any grid, keys fall between entries and
 * both errors shrink in proportion to the entry spacing.
 */
export function refineTable(input: RefineInput): { entries: number; table: Float32Array; warning?: string } {
  const { start, tracks, duration, keyTimes, tolerance } = input;
  const onGrid = start.grid !== undefined;
  const bytes = (entries: number) => tracks.length * entries * 16;
  let entries = start.entries;
  let table = input.bakeAt(entries);
  let error = tableError(tracks, table, entries, duration, keyTimes, tolerance);
  // What refining may reduce: between keys on a grid, everything off one.
  const reducible = (e: typeof error) => (onGrid ? e.between : worstOf(e));
  const wantsMore = (e: typeof error) => reducible(e).ratio > Math.max(1, onGrid ? 2 * e.atKeys.ratio : 0);
  let stopped = '';
  // The most entries this clip may take: MAX_REFINEMENT times its start, and its byte share.
  const byShare = Math.floor(input.shareBytes / Math.max(bytes(1), 1));
  const most = Math.min(MAX_REFINEMENT * start.entries, byShare);
  for (let round = 0; round < 4 && wantsMore(error); round++) {
    const worst = reducible(error);
    const order = onGrid ? tracks[worst.track].order : 1;
    const wanted = (entries - 1) * Math.max(2, Math.ceil(1.25 * worst.ratio ** (1 / order))) + 1;
    // Entries stay N * k + 1 (on the grid); a step that does not fit is cut to the most that does.
    const factor = Math.floor((Math.min(wanted, most) - 1) / (entries - 1));
    if (factor < 2) {
      stopped = wanted > byShare
        ? `a table that fine would take ${mib(bytes(wanted))}, more than this clip's share of maxTableBytes`
        : `it would need ${wanted} entries per track, more than ${MAX_REFINEMENT} times the ${start.entries} it started with`;
      break;
    }
    const next = (entries - 1) * factor + 1;
    // Where the error is worst, a few samples of the finer table first: when they alone do not
    // halve it, neither would the whole table (keys far closer together than even the finer
    // spacing: one key time of 1e30 stretches a 1 s clip), and the bake and measure are skipped.
    const bound = errorBound(input, worst.track, next, worst.time, !onGrid && worst === error.atKeys);
    if (bound !== undefined && bound > worst.ratio / 2) {
      stopped = 'more entries do not help';
      break;
    }
    const finer = input.bakeAt(next);
    const finerError = tableError(tracks, finer, next, duration, keyTimes, tolerance);
    if (reducible(finerError).ratio > worst.ratio / 2) {
      stopped = 'more entries do not help';
      break;
    }
    [entries, table, error] = [next, finer, finerError];
  }
  // Near keys on a grid, the file's own float32 times are the limit: reported past the bar only.
  const worst = onGrid && error.atKeys.ratio <= KEY_TIME_SLACK && !wantsMore(error) ? undefined : worstOf(error);
  if (!worst || worst.ratio <= 1) return { entries, table };
  if (onGrid && worst === error.atKeys) stopped = `its key times sit up to ${keyOffset(keyTimes, duration / start.grid!).toExponential(1)} s off their ${(duration / start.grid!).toPrecision(4)} s grid (float32 rounding)`;
  const warning = `clip '${input.name}': its ${entries}-entry tables read up to ${worst.value.toExponential(1)} ${worst.unit} off the exact sampler ` +
    `(${input.where(worst.track)} at ${worst.time.toFixed(3)} s; the bake aims for ${(worst.value / worst.ratio).toExponential(1)}): ${stopped || 'not refined further'}`;
  return { entries, table, warning };
}

/** Largest distance of a key time from the nearest multiple of `step`, seconds. */
function keyOffset(keyTimes: number[], step: number): number {
  let worst = 0;
  for (const t of keyTimes) worst = Math.max(worst, Math.abs(t - Math.round(t / step) * step));
  return worst;
}
