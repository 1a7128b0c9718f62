import { show } from '../math/show';

/**
 * Argument checks shared by the crowd's input files (layer-input.ts so far): each throws an
 * error naming the field and what it should be, before anything is changed.
 */

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

/** `value` as an array (undefined: empty); a TypeError naming `field` otherwise. */
export function list<T>(value: T[] | undefined, field: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array, got ${show(value)}`);
  return value;
}
