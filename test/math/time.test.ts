import { describe, expect, it } from 'vitest';
import { wrapTime } from '../../src/math/time';

describe('wrapTime', () => {
  it('wraps into [0, d): t = d gives 0, negative t wraps forward, whole periods drop', () => {
    expect(wrapTime(1, 1)).toBe(0);
    expect(wrapTime(0.708, 0.708)).toBe(0);
    expect(wrapTime(-0.25, 1)).toBe(0.75);
    expect(wrapTime(2 * 1.5 + 0.3, 1.5)).toBeCloseTo(0.3, 12);
    expect(wrapTime(0.4, 1)).toBe(0.4);
    expect(wrapTime(-1e-20, 1)).toBe(0); // rounds to d, which must still come out as 0
  });

  it('gives 0 for a zero (or invalid) duration', () => {
    expect(wrapTime(3.7, 0)).toBe(0);
    expect(wrapTime(-2, 0)).toBe(0);
    expect(wrapTime(1, NaN)).toBe(0);
  });
});
