import { describe, expect, it } from 'vitest';
import { copyLights, lightOptionsOf, resolveLights } from '../../src/runtime/lights';

describe('resolveLights (CrowdOptions.lights)', () => {
  it('defaults: a white sun of 0.65 pi along [-0.4, -1, -0.55] and a white ambient of 0.35 pi', () => {
    const l = resolveLights(undefined);
    const n = Math.hypot(0.4, 1, 0.55);
    expect(Array.from(l.direction)).toEqual([-0.4 / n, -1 / n, -0.55 / n].map(Math.fround));
    expect(l.sun[0]).toBeCloseTo(0.65 * Math.PI, 5);
    expect(l.sky[1]).toBeCloseTo(0.35 * Math.PI, 5);
    expect(Array.from(l.ground)).toEqual(Array.from(l.sky));
  });

  it('adds the hemisphere to the ambient term: sky above, ground below; ambient false drops it', () => {
    const l = resolveLights({ ambient: false, hemisphere: { sky: [1, 0.5, 0], ground: [0, 0, 0.25], intensity: 2 }, sun: { direction: [0, -2, 0], color: [1, 0, 0], intensity: 3 } });
    expect(Array.from(l.sky)).toEqual([2, 1, 0]);
    expect(Array.from(l.ground)).toEqual([0, 0, 0.5]);
    expect(Array.from(l.sun)).toEqual([3, 0, 0]);
    expect(Array.from(l.direction)).toEqual([0, -1, 0]);
  });

  it('names what is wrong', () => {
    expect(() => resolveLights({ sun: { intensity: -1 } })).toThrow('lights.sun.intensity must be a finite number >= 0, got -1');
    expect(() => resolveLights({ sun: { direction: [0, 0, 0] } })).toThrow('lights.sun.direction must not be the zero vector');
    expect(() => resolveLights({ ambient: { color: [1, -1, 0] } })).toThrow('lights.ambient.color must not be negative');
    expect(() => resolveLights({ hemisphere: { sky: [1, 1] as unknown as [number, number, number] } })).toThrow('lights.hemisphere.sky must be 3 finite numbers');
    expect(() => resolveLights({ moon: {} } as never)).toThrow('lights.moon is not a light');
    // float32 bounds (issue 41): colour x intensity per channel at most 1e30, an environment's intensity at most 1e25.
    expect(() => resolveLights({ sun: { intensity: 1e39 } })).toThrow(/lights.sun: color x intensity must be at most 1e30 a channel \(float32 on the GPU: skin.wgsl multiplies it by colour and tint\), got 1e\+39/);
    expect(() => resolveLights({ sun: { color: [1e20, 1, 1], intensity: 1e20 } })).toThrow(/lights.sun: color x intensity must be at most 1e30/);
    expect(() => resolveLights({ ambient: { intensity: 1e31 }, hemisphere: { sky: [1, 1, 1] } })).toThrow(/lights.ambient \+ lights.hemisphere.sky: color x intensity must be at most 1e30/);
    expect(() => resolveLights({ hemisphere: { sky: [0, 0, 0], ground: [1, 1, 1], intensity: 2e30 } })).toThrow(/lights.ambient \+ lights.hemisphere.ground/);
    expect(resolveLights({ sun: { color: [1e15, 1, 1], intensity: 1e15 } }).sun[0]).toBe(Math.fround(1e30));
    expect(() => resolveLights({ sun: { colour: [1, 1, 1] } } as never)).toThrow('lights.sun.colour is not a field');
  });

  it('lightOptionsOf resolves to the same lights; copyLights writes them in place', () => {
    const options = { sun: { direction: [1, -2, 0.5] as [number, number, number], color: [1, 0.5, 0.25] as [number, number, number], intensity: 2 }, ambient: { intensity: 0.5 }, hemisphere: { sky: [0, 0, 1] as [number, number, number], ground: [0.5, 0, 0] as [number, number, number] } };
    const l = resolveLights(options);
    const again = resolveLights(lightOptionsOf(l));
    for (const key of ['direction', 'sun', 'sky', 'ground'] as const) expect(Array.from(again[key]), key).toEqual(Array.from(l[key]));
    const into = resolveLights(undefined);
    const arrays = [into.direction, into.sun, into.sky, into.ground];
    copyLights(l, into);
    // The same arrays (what the skin pass uploads each frame), now holding l's values.
    expect([into.direction, into.sun, into.sky, into.ground]).toEqual(arrays);
    arrays.forEach((a, i) => expect(a).toBe([into.direction, into.sun, into.sky, into.ground][i]));
    for (const key of ['direction', 'sun', 'sky', 'ground'] as const) expect(Array.from(into[key]), key).toEqual(Array.from(l[key]));
  });
});
