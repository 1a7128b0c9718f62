import { CLOCK_TICKS_PER_SECOND } from './layout';
import { show } from '../math/show';
import { wrapTime } from '../math/time';

/*
 * The clip clock: how the GPU passes turn a record and the crowd clock into a clip position,
 * in integers so that no float32 product of the clock is ever rounded.
 *
 * Float32 time (time = phase + speed x clock, wrapped) lost up to ulp(speed x clock) / 2, 3e-5 s
 * just before the crowd's 600 s rebase, and a phase deep into a long clip half an ulp of itself
 * (3e-5 s at 999 s): up to 9e-5 of a model's size. Here a clip position is a fraction of one turn
 * (one turn = the clip's duration) in 64-bit fixed point, so wrapping is an integer overflow:
 *
 *     position(clock) = phase x 2^32 + rate x ticks  (mod 2^64, in 2^-64 turns)
 *                     + speed x rest / duration      (float32, a fraction of one tick's motion)
 *
 *   phase  u32, the position at clock 0 in 2^-32 turns (1000 s / 2^32 = 2.3e-7 s in a 1000 s clip)
 *   rate   u64 as two u32 words, speed / duration in 2^-64 turns per tick, mod 2^64 (whole turns
 *          per tick drop out; a negative rate is its two's complement)
 *   ticks  i32, the crowd clock in CLOCK_TICKS_PER_SECOND (2^-20 s), rounded; rest = clock - ticks
 *
 * The GPU forms rate x ticks exactly from 16-bit halves (CLIP_CLOCK in wgsl-constants.ts), then
 * the table entry and the fraction between entries from the 64-bit position (entry x last, again
 * exact), so a clip's time is good to ~1e-9 of its duration at any clock and any depth. The CPU
 * writes phase and rate from its float64 phases and speeds when a record changes (O(1) per event,
 * nothing per frame); a rebase rewrites only the phases. `gpuClipTime` is the float64 twin of
 * what the GPU computes, for tools and tests.
 */

const TWO_32 = 2 ** 32;
/** 2^64 turns units per tick over 1 turn per second: rate = speed / duration x RATE_SCALE. */
const RATE_SCALE = 2 ** 64 / CLOCK_TICKS_PER_SECOND;

/** The largest |crowd clock| (seconds) the passes take: its tick count must fit an i32 (2048 s less a margin). */
export const MAX_GPU_CLOCK_SECONDS = 2047;

/** The crowd clock `clock` (seconds) as a tick count for the passes (nearest tick); throws a RangeError naming `what` unless |clock| <= MAX_GPU_CLOCK_SECONDS. */
export function clockTicks(clock: number, what = 'clock'): number {
  if (!(Math.abs(clock) <= MAX_GPU_CLOCK_SECONDS)) {
    throw new RangeError(`${what} must be a number of seconds within +-${MAX_GPU_CLOCK_SECONDS} (the crowd rebases its clock every 600 s), got ${show(clock)}`);
  }
  return Math.round(clock * CLOCK_TICKS_PER_SECOND);
}

/** What is left of `clock` (seconds) after `ticks` whole ticks: seconds, at most half a tick. */
export function clockResidual(clock: number, ticks: number): number {
  return clock - ticks / CLOCK_TICKS_PER_SECOND;
}

/** Clip time `time` (seconds, any value) of a clip of `duration` seconds as a phase word: 2^-32 turns, rounded, in [0, 2^32); 0 for a clip without duration. */
export function phaseTurns(time: number, duration: number): number {
  if (!(duration > 0)) return 0;
  const wrapped = time >= 0 && time < duration ? time : wrapTime(time, duration); // rebases pass wrapped times
  const turns = Math.round((wrapped / duration) * TWO_32);
  return turns >= TWO_32 ? 0 : turns;
}

/**
 * Writes the rate of a clip of `duration` seconds playing at `speed` into out[lo] (low word) and
 * out[hi] (high word): round(speed / duration x 2^64 / CLOCK_TICKS_PER_SECOND) mod 2^64, two's
 * complement when negative; 0 for a clip without duration (or a rate beyond float64). Allocation-free.
 */
export function writeRate(speed: number, duration: number, out: Uint32Array, lo: number, hi: number): void {
  const x = duration > 0 ? Math.round((speed / duration) * RATE_SCALE) : 0;
  if (!Number.isFinite(x)) {
    out[lo] = 0;
    out[hi] = 0;
    return;
  }
  const high = Math.floor(x / TWO_32);
  out[lo] = x - high * TWO_32; // exact: both are multiples of x's ulp, the difference in [0, 2^32)
  out[hi] = high; // a Uint32Array keeps it mod 2^32 (exactly, as ToUint32 works on the integer's value)
}

/**
 * The clip time (seconds, in [0, duration)) the GPU computes at crowd clock `clock` for a clip of
 * `duration` seconds recorded as (phase, rateLo, rateHi, speed): the float64 twin of clipTurns and
 * clipEntry in shaders/pose.wgsl, exact in BigInt where the shader is exact. For tools and tests.
 */
export function gpuClipTime(phase: number, rateLo: number, rateHi: number, speed: number, duration: number, clock: number): number {
  if (!(duration > 0)) return 0;
  const ticks = clockTicks(clock);
  const rate = (BigInt(rateHi >>> 0) << 32n) | BigInt(rateLo >>> 0);
  const position = BigInt.asUintN(64, (BigInt(phase >>> 0) << 32n) + rate * BigInt(ticks));
  const turns = Number(position) / 2 ** 64 + (Math.fround(speed) * Math.fround(clockResidual(clock, ticks))) / duration;
  return wrapTime(turns * duration, duration);
}
