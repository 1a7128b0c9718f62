/**
 * Exact comparisons of large values, made in milliseconds where vitest's matchers take seconds,
 * with the same outcome: a mismatch still goes through the matcher, for its diff and its failure.
 * Measured (vitest 4, Node 22, the shared 2-core machine): toEqual on a plain array walks it key by
 * key, 8.9 s of CPU for 1.06 million numbers and 27 s for the same numbers as one Float32Array;
 * `not.toBe` on two distinct objects (a pass) compares them deeply all the same, to word its
 * failure message: 9.8 s for two copies of the Walker clip library's tables
 * (character/clips.test.ts).
 */
import { expect } from 'vitest';

/**
 * `expect(actual, message).toEqual(expected)` for two arrays of numbers (plain or typed): passes at
 * once when they are of one kind (constructor) and length and every element is Object.is its
 * counterpart (toEqual's test for two numbers: NaN equals NaN, 0 is not -0); else toEqual decides.
 */
export function expectSameNumbers(actual: ArrayLike<number>, expected: ArrayLike<number>, message?: string): void {
  if (actual.constructor === expected.constructor && actual.length === expected.length) {
    let i = 0;
    while (i < actual.length && Object.is(actual[i], expected[i])) i++;
    if (i === actual.length) return;
  }
  expect(actual, message).toEqual(expected);
}

/** `expect(actual, message).not.toBe(other)`: not the same object (nor Object.is the same value). */
export function expectNotSame(actual: unknown, other: unknown, message = 'the same object'): void {
  expect(Object.is(actual, other), message).toBe(false);
}
