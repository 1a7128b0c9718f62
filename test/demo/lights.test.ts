import { describe, expect, it } from 'vitest';
import { DEFAULT_LIGHTS, lightOptions, linear, readLights, writeLights } from '../../demo/lights';
import { demoSky } from '../../demo/sky';
import { resolveLights } from '../../src/runtime/lights';

describe('the demo light panel (demo/lights.ts)', () => {
  it('starts at the crowd\'s own default sun, with the generated sky in place of its ambient light', () => {
    const want = resolveLights(undefined);
    const options = lightOptions(DEFAULT_LIGHTS);
    const got = resolveLights(options);
    for (const key of ['direction', 'sun'] as const) {
      Array.from(got[key]).forEach((x, i) => expect(x, `${key}[${i}]`).toBeCloseTo(want[key][i], 4));
    }
    expect(options.ambient).toBe(false);
    // The environment is on by default: the page's one sky (the same object each time, so setLights keeps its prefiltered map).
    expect(DEFAULT_LIGHTS.environment).toBe(true);
    expect(got.environment?.image).toBe(demoSky());
    expect(got.environment?.intensity).toBe(1);
    expect(resolveLights(lightOptions(DEFAULT_LIGHTS)).environment?.image).toBe(got.environment?.image);
    // Switched off: no environment at all (lights.environment false).
    expect(lightOptions({ ...DEFAULT_LIGHTS, environment: false }).environment).toBe(false);
    expect(resolveLights(lightOptions({ ...DEFAULT_LIGHTS, environment: false })).environment).toBeUndefined();
  });

  it('aims the sun from its azimuth and elevation, converts sRGB colours to linear, drops a zero ambient', () => {
    const options = lightOptions({ ...DEFAULT_LIGHTS, sunAzimuth: 90, sunElevation: 90, sunColor: '#ff8000', ambientIntensity: 0, hemisphereIntensity: 2 });
    const l = resolveLights(options);
    expect(l.direction[1]).toBeCloseTo(-1, 6);
    expect(options.ambient).toBe(false);
    expect(linear('#ff8000')[0]).toBe(1);
    expect(linear('#ff8000')[1]).toBeCloseTo(0.2159, 3); // sRGB 128 -> linear
    const sun = resolveLights({ ...options, sun: { ...options.sun, direction: [0, 1, 0] } });
    expect(sun.sun[2]).toBe(0);
    expect(Array.from(l.sky)).toEqual(Array.from(resolveLights({ ambient: false, hemisphere: { sky: linear(DEFAULT_LIGHTS.sky), intensity: 2 } }).sky));
  });

  it('keeps the URL in step: only changed values are written, and read back as they were', () => {
    const params = new URLSearchParams();
    writeLights(params, DEFAULT_LIGHTS);
    expect(params.toString()).toBe('');
    const changed = { ...DEFAULT_LIGHTS, sunAzimuth: -45, sunIntensity: 4.5, sky: '#102030', hemisphereIntensity: 1.25 };
    writeLights(params, changed);
    expect(params.toString()).toBe('sunAz=-45&sunI=4.5&hemiI=1.25&sky=102030');
    const problems: string[] = [];
    expect(readLights(params, problems)).toEqual(changed);
    expect(problems).toEqual([]);
  });

  it('keeps the environment switch and intensity in the URL (env=0 / env=1, envI)', () => {
    const off = new URLSearchParams();
    writeLights(off, { ...DEFAULT_LIGHTS, environment: false, environmentIntensity: 2.5 });
    expect(off.toString()).toBe('envI=2.5&env=0');
    const problems: string[] = [];
    expect(readLights(off, problems)).toEqual({ ...DEFAULT_LIGHTS, environment: false, environmentIntensity: 2.5 });
    expect(readLights(new URLSearchParams('env=1'), problems)).toEqual(DEFAULT_LIGHTS);
    expect(problems).toEqual([]);
    expect(readLights(new URLSearchParams('env=no'), problems)).toEqual(DEFAULT_LIGHTS);
    expect(problems).toEqual(['URL parameter env=no must be 0 (no environment light) or 1; using the default']);
  });

  it('reports a bad value and keeps the default', () => {
    const problems: string[] = [];
    const state = readLights(new URLSearchParams('sunEl=abc&sunI=99&ground=green'), problems);
    expect(problems).toEqual([
      'URL parameter sunEl=abc is not a number; using the default',
      'URL parameter sunI=99 is outside [0, 10]; clamped',
      'URL parameter ground=green must be a colour rrggbb (hex); using the default',
    ]);
    expect(state).toEqual({ ...DEFAULT_LIGHTS, sunIntensity: 10 });
  });
});
