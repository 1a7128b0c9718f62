import { describe, expect, it } from 'vitest';
import { checkCurve, cubicEase, evaluateCurve } from '../../../src/anim/control/curves';

/** Blend curves (src/anim/control/curves.ts), against the formulas written out here. */

describe('blend curves', () => {
  it('cubic: beta(u) = (v^3 + 3v^2 u) beta_start + (3 v u^2 + u^3) beta_end, v = 1 - u', () => {
    for (const [start, end] of [[0, 1], [1, 0], [0.2, 0.7], [-1, 3]]) {
      for (let k = 0; k <= 20; k++) {
        const u = k / 20;
        const v = 1 - u;
        expect(cubicEase(u, start, end), `u = ${u}, ${start} -> ${end}`).toBeCloseTo((v ** 3 + 3 * v * v * u) * start + (3 * v * u * u + u ** 3) * end, 12);
      }
    }
    // Fade-in: 3u^2 - 2u^3, zero slope at both ends, 0.5 at the middle.
    for (let k = 0; k <= 20; k++) expect(cubicEase(k / 20)).toBeCloseTo(3 * (k / 20) ** 2 - 2 * (k / 20) ** 3, 12);
    expect(cubicEase(0.5)).toBe(0.5);
    expect((cubicEase(1e-4) - cubicEase(0)) / 1e-4).toBeLessThan(1e-3);
    expect((cubicEase(1) - cubicEase(1 - 1e-4)) / 1e-4).toBeLessThan(1e-3);
  });

  it('evaluateCurve: linear is u, cubic is the ease, a function is called; u and the result are clamped to [0, 1]', () => {
    expect([0, 0.25, 0.5, 1].map((u) => evaluateCurve('linear', u))).toEqual([0, 0.25, 0.5, 1]);
    expect(evaluateCurve('linear', -0.5)).toBe(0);
    expect(evaluateCurve('linear', 1.5)).toBe(1);
    expect(evaluateCurve('cubic', 0.25)).toBeCloseTo(3 / 16 - 2 / 64, 12);
    expect(evaluateCurve('cubic', 2)).toBe(1);
    const seen: number[] = [];
    const square = (u: number) => { seen.push(u); return u * u; };
    expect(evaluateCurve(square, 0.5)).toBe(0.25);
    expect(evaluateCurve(square, 3)).toBe(1);
    expect(seen).toEqual([0.5, 1]); // called with the clamped u
    expect(evaluateCurve(() => 1.7, 0.5)).toBe(1);
    expect(evaluateCurve(() => -0.2, 0.5)).toBe(0);
    expect(() => evaluateCurve(() => Infinity, 0.5)).toThrow(/custom blend curve returned Infinity at u = 0.5/);
  });

  it('checkCurve accepts "linear", "cubic" and functions, and names the field otherwise', () => {
    const f = (u: number) => u;
    expect(checkCurve('linear', 'x')).toBe('linear');
    expect(checkCurve('cubic', 'x')).toBe('cubic');
    expect(checkCurve(f, 'x')).toBe(f);
    expect(() => checkCurve('smoothstep', 'fade.curve')).toThrow(/fade\.curve must be "linear", "cubic" or a function of u in \[0, 1\], got "smoothstep"/);
  });
});
