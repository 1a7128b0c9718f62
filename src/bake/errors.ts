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
