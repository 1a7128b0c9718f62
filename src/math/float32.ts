import { show } from './show';

/**
 * Bounds of numbers that reach the GPU as float32. A number the CPU checks in float64 can still
 * break a shader: float32 cannot hold it (beyond F32_MAX it becomes Infinity; below
 * F32_MIN_NORMAL GPUs may flush it to 0), or the shader's arithmetic on it (squares, sums,
 * products with other inputs) overflows to Infinity and then NaN. Each input that reaches a
 * shader therefore has a bound chosen so that the shader's worst arithmetic on it stays finite,
 * and the check names that bound (checkF32). The TypeScript twins of the shaders compute in
 * float64 and agree with the GPU within those bounds.
 */

/** The largest finite float32, 3.4028234663852886e38 (2^128 - 2^104). */
export const F32_MAX = 3.4028234663852886e38;
/** The smallest normal positive float32, 2^-126 (about 1.18e-38); GPUs may flush smaller numbers to 0. */
export const F32_MIN_NORMAL = 2 ** -126;

/** What the float32 bound of a value says when it is refused (checkF32's `why`, F32_HOLDS). */
export const F32_WHY = 'the GPU holds it as float32';
/** Every finite float32 value: what float32 holds at all (the looser bound of a number the GPU only stores). */
export const F32_HOLDS: F32Range = { min: -F32_MAX, max: F32_MAX };

/**
 * World coordinates the kernel takes (transform elements, placement, camera position, prop
 * offsets, picking rays), model units: the cull pass squares world distances and extents
 * (shaders/culling/cull.wgsl: length(centre - camera), the box's half axes), so that
 * 3 x (2e12 x model extent)^2 stays far under F32_MAX for models up to 1e6 units across.
 */
export const WORLD: F32Range = { min: -1e12, max: 1e12 };
/** Why WORLD bounds a number (its refusal says it). */
export const WORLD_WHY = 'float32 on the GPU: the cull pass squares world distances';

/** A closed range [min, max] for checkF32 (both finite, min <= max). */
export interface F32Range {
  readonly min: number;
  readonly max: number;
  /** Whether min itself is refused (a value must be > min): for "> 0" inputs. */
  readonly open?: boolean;
}

/**
 * `value` when it is a number in `range`; otherwise a RangeError naming `name`, the range and why
 * (e.g. "goal[0] must be a number in [-1e9, 1e9] (float32 on the GPU: the step squares
 * coordinate differences), got 1e+39"). `why` says what in the shader sets the bound.
 */
export function checkF32(value: unknown, name: string, range: F32Range, why: string): number {
  if (typeof value === 'number' && (range.open ? value > range.min : value >= range.min) && value <= range.max) return value;
  throw new RangeError(`${name} must be a number in ${range.open ? '(' : '['}${bound(range.min)}, ${bound(range.max)}] (${why}), got ${show(value)}`);
}

/** A bound as a message writes it: 1e9, 1e-6, 0, 2.5, 3.4028235e38 (exponents without "+", at most 8 digits). */
export function bound(value: number): string {
  const a = Math.abs(value);
  return a !== 0 && (a >= 1e5 || a < 1e-2) ? Number(value.toPrecision(8)).toExponential().replace('e+', 'e') : String(value);
}

/** Whether float32 holds `value` as itself or a normal neighbour: finite, |value| <= F32_MAX, and 0 or |value| >= F32_MIN_NORMAL. */
export function fitsF32(value: number): boolean {
  const a = Math.abs(value);
  return a === 0 || (a >= F32_MIN_NORMAL && a <= F32_MAX);
}
