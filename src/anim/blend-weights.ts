import { weightedAverageStack, type CpuLayerStack } from './layers';

/**
 * The output of a blend space (BlendSpace1D, BlendSpace2D): a short weighted list of clips with
 * the playback rate that keeps their cycles in phase. Caller-owned and reused: create one with
 * createBlendWeights() at init and pass it to every evaluate(), which overwrites it and allocates
 * nothing. Only entries [0, count) are meaningful; the rest hold stale values.
 *
 * Phase sync. Locomotion clips (walk, jog, run; or forward, strafe-left, ...) have different cycle
 * lengths, and blending them at their own rates drifts the footsteps apart. Instead the blend has
 * one cycle of duration
 *
 *     D = sum_i w_i * d_i        (seconds; d_i = clip i's duration, w_i its weight)
 *
 * and every clip plays at rate r_i = d_i / D, so each one finishes its own cycle in exactly D
 * seconds. Equivalently, keep one normalised phase u in [0, 1) for the blend, advance it by
 * dt / D each frame (advancePhase) and sample clip i at time u * d_i (clipTimeAtPhase): the left
 * foot of every clip comes down at the same u, so footsteps line up whatever the weights. (This
 * assumes the clips are authored to start at the same point of the cycle, e.g. left foot down.)
 */
export interface BlendWeights {
  /** Entries the arrays hold, fixed at creation. */
  readonly capacity: number;
  /** Entries filled by the last evaluate(), in [1, capacity]. 0 before the first evaluate(). */
  count: number;
  /** Clip index of each entry, as given to the blend space. */
  readonly clips: Uint32Array;
  /** Index of each entry in the array given to the blend space's constructor. */
  readonly entries: Int32Array;
  /** Weight of each entry, in (0, 1]; the first `count` sum to 1 (within 1e-9). */
  readonly weights: Float64Array;
  /** Duration d_i of each entry's clip, seconds (> 0). */
  readonly durations: Float64Array;
  /** Playback rate of each entry, d_i / D (1 = real time): all clips finish a cycle together. */
  readonly rates: Float64Array;
  /** D = sum_i w_i * d_i, seconds: the length of one cycle of the blend. */
  cycleDuration: number;
}

/** A reusable blend-space output for up to `capacity` clips (1D needs 2, 2D needs 3). */
export function createBlendWeights(capacity = 4): BlendWeights {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`createBlendWeights: capacity must be an integer >= 1, got ${show(capacity)}`);
  }
  return {
    capacity,
    count: 0,
    clips: new Uint32Array(capacity),
    entries: new Int32Array(capacity),
    weights: new Float64Array(capacity),
    durations: new Float64Array(capacity),
    rates: new Float64Array(capacity),
    cycleDuration: 0,
  };
}

/**
 * Time in seconds at which entry `i` of `weights` is sampled at normalised phase `phase` in
 * [0, 1): phase * d_i, so in [0, d_i).
 */
export function clipTimeAtPhase(weights: BlendWeights, i: number, phase: number): number {
  checkPhase(phase, 'clipTimeAtPhase');
  if (!Number.isInteger(i) || i < 0 || i >= weights.count) {
    throw new RangeError(`clipTimeAtPhase: entry ${show(i)} is out of range; the blend has ${weights.count} entries`);
  }
  return phase * weights.durations[i];
}

/**
 * Fills times[i] = phase * d_i (seconds) for the `count` entries of `weights`, phase in [0, 1).
 * `times` is caller-owned with room for `count` values; returns it.
 */
export function clipTimesAtPhase<T extends { [i: number]: number; length: number }>(weights: BlendWeights, phase: number, times: T): T {
  checkPhase(phase, 'clipTimesAtPhase');
  checkEvaluated(weights, 'clipTimesAtPhase');
  if (times.length < weights.count) throw new RangeError(`clipTimesAtPhase: times has room for ${times.length} values, the blend has ${weights.count} entries`);
  for (let i = 0; i < weights.count; i++) times[i] = phase * weights.durations[i];
  return times;
}

/**
 * The phase `dt` seconds after `phase`: phase + dt / D wrapped into [0, 1), with D the blend's
 * current cycle duration. dt may be negative (playing backwards).
 */
export function advancePhase(phase: number, dt: number, weights: BlendWeights): number {
  checkPhase(phase, 'advancePhase');
  if (!Number.isFinite(dt)) throw new RangeError(`advancePhase: dt must be a finite number of seconds, got ${show(dt)}`);
  checkEvaluated(weights, 'advancePhase');
  const u = phase + dt / weights.cycleDuration;
  const wrapped = u - Math.floor(u);
  return wrapped >= 1 ? 0 : wrapped;
}

/**
 * The blend at `phase` as a layer stack, through weightedAverageStack (layers.ts): the first
 * entry is the base, each later one an override layer, every clip at time phase * d_i.
 * Allocates (as weightedAverageStack does): a convenience for tools and tests. Per-frame code
 * should copy clips, weights, rates and clipTimesAtPhase() into its own records instead.
 */
export function blendSpaceStack(weights: BlendWeights, phase: number): CpuLayerStack {
  checkPhase(phase, 'blendSpaceStack');
  checkEvaluated(weights, 'blendSpaceStack');
  const entries = [];
  for (let i = 0; i < weights.count; i++) {
    entries.push({ clip: weights.clips[i], time: phase * weights.durations[i], weight: weights.weights[i] });
  }
  return weightedAverageStack(entries);
}

/** Resets `out` before a blend space writes its entries with pushEntry(). */
export function beginBlend(out: BlendWeights, needed: number, where: string): void {
  if (out.capacity < needed) {
    throw new RangeError(`${where}: the output has capacity ${out.capacity}, this blend space needs ${needed} (createBlendWeights(${needed}))`);
  }
  out.count = 0;
}

/** Appends one entry to `out`, skipping weights that are not > 0. */
export function pushEntry(out: BlendWeights, entry: number, clip: number, duration: number, weight: number): void {
  if (!(weight > 0)) return;
  const i = out.count++;
  out.entries[i] = entry;
  out.clips[i] = clip;
  out.durations[i] = duration;
  out.weights[i] = weight;
}

/** Normalises the weights to sum to 1 and fills the cycle duration D and the rates d_i / D. */
export function finishBlend(out: BlendWeights): BlendWeights {
  let total = 0;
  for (let i = 0; i < out.count; i++) total += out.weights[i];
  let cycle = 0;
  for (let i = 0; i < out.count; i++) {
    out.weights[i] /= total;
    cycle += out.weights[i] * out.durations[i];
  }
  out.cycleDuration = cycle;
  for (let i = 0; i < out.count; i++) out.rates[i] = out.durations[i] / cycle;
  return out;
}

/** A value for an error message: numbers as JavaScript prints them (NaN, -Infinity), others as JSON. */
export function show(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Validates one entry's clip index (integer in [0, 2^32)) and duration (finite seconds > 0). */
export function checkClipAndDuration(entry: { clip: unknown; duration: unknown }, where: string): void {
  const { clip, duration } = entry;
  if (typeof clip !== 'number' || !Number.isInteger(clip) || clip < 0 || clip > 0xffffffff) {
    throw new RangeError(`${where}.clip must be a clip index (an integer >= 0), got ${show(clip)}`);
  }
  if (typeof duration !== 'number' || !(duration > 0) || !Number.isFinite(duration)) {
    throw new RangeError(`${where}.duration must be a finite number of seconds > 0, got ${show(duration)}`);
  }
}

function checkPhase(phase: number, where: string): void {
  if (!(phase >= 0 && phase < 1)) throw new RangeError(`${where}: phase must be in [0, 1), got ${show(phase)}`);
}

function checkEvaluated(weights: BlendWeights, where: string): void {
  if (!(weights.count >= 1)) throw new RangeError(`${where}: the blend weights are empty; call a blend space's evaluate() first`);
}
