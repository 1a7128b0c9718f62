import type { Character } from '../character/character';
import { show } from '../math/show';
import type { AnimationState, CrowdOptions } from './crowd-types';
import type { InstanceAnimation } from './instance-records';

/**
 * Checks of what the Crowd's methods take, before anything changes: each throws an error that
 * names the input (`setAnimation: unknown field "spedA"`, `layers[1].clip: no clip "Jog" ...`).
 */

/** The fields each input object may have: any other is refused (a misspelt field would otherwise be ignored). */
export const ANIMATION_FIELDS = ['clipA', 'clipB', 'timeA', 'timeB', 'speedA', 'speedB', 'blend'] as const;
export const INIT_FIELDS = [...ANIMATION_FIELDS, 'transform'] as const;

/** Throws a TypeError naming `what` (and its expected shape) unless `value` is an object that is not an array. */
export function checkObject(value: unknown, what: string, shape: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${what} must be an object ${shape}, got ${show(value)}`);
}

/** Throws a RangeError naming the first own field of `value` that is not in `fields`. */
export function checkFields(value: object, fields: readonly string[], where: string): void {
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key) && !fields.includes(key)) {
      throw new RangeError(`${where}: unknown field ${JSON.stringify(key)} (fields: ${fields.join(', ')})`);
    }
  }
}

/** Checks CrowdOptions' capacity, formats and sample count; returns the capacity (default 1024). */
export function checkTargetOptions(options: CrowdOptions): number {
  const capacity = options.capacity ?? 1024;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${show(capacity)}`);
  if (typeof options.colorFormat !== 'string' || typeof options.depthFormat !== 'string') {
    throw new TypeError(`colorFormat and depthFormat must name the render pass's formats, got ${show(options.colorFormat)} and ${show(options.depthFormat)}`);
  }
  if (options.sampleCount !== undefined && options.sampleCount !== 1 && options.sampleCount !== 4) throw new RangeError(`sampleCount must be 1 or 4 (WebGPU's MSAA counts), got ${show(options.sampleCount)}`);
  return capacity;
}

/** `value` without its undefined fields. */
export function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Clip index of a name or index given as `field`; a RangeError starting with the field otherwise. */
export function clipOf(character: Character, clip: string | number, field: string): number {
  try {
    return character.clipIndex(clip);
  } catch (error) {
    throw new RangeError(`${field}: ${(error as Error).message}`);
  }
}

/** An animation with its clips resolved to indices. */
export function resolveAnimation(character: Character, state: Omit<AnimationState, 'clipA' | 'clipB'> & { clipA: string | number; clipB: string | number }): InstanceAnimation {
  return { ...state, clipA: clipOf(character, state.clipA, 'clipA'), clipB: clipOf(character, state.clipB, 'clipB') };
}

/** `value` as an array (undefined: empty); a TypeError naming `field` otherwise. */
export function list<T>(value: T[] | undefined, field: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array, got ${show(value)}`);
  return value;
}
