/**
 * Every problem found in a model file is reported as a `ModelError` whose message names the
 * exact place ("skin 0: inverseBindMatrices has 18 matrices, joints has 19"), so that a user
 * can find it in the file without a debugger.
 */
export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelError';
  }
}

/** Throws a ModelError with `message` unless `condition` holds. */
export function check(condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new ModelError(typeof message === 'string' ? message : message());
}

/**
 * A JSON value as a message shows it: numbers and booleans as written, strings quoted (cut at
 * 40 characters), "missing" for an absent field, "JSON null", "an array of N" or "an object".
 * Never the words undefined or null on their own, which read like a bug in the loader.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'JSON null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `a ${typeof value}`.replace(/^a object$/, 'an object');
}

/** Largest finite 32-bit float: tables and GPU buffers store values as f32. */
export const FLOAT32_MAX = 3.4028234663852886e38;
