import { describe, expect, it } from 'vitest';
import { demoSky, generateSky, SKY_SIZE } from '../../demo/sky';
import { resolveEnvironment } from '../../src/runtime/environment-map';

describe('the demo\'s generated sky (demo/sky.ts)', () => {
  it('is a valid lights.environment image: brighter above the horizon than below, a bright horizon, a blue zenith', () => {
    const sky = demoSky();
    expect(resolveEnvironment({ image: sky })?.image).toBe(sky);
    expect([sky.width, sky.height]).toEqual([...SKY_SIZE]);
    const { width, height, data } = sky;
    const mean = (row: number, k: number) => {
      let sum = 0;
      for (let x = 0; x < width; x++) sum += data[(row * width + x) * 4 + k];
      return sum / width;
    };
    const luminance = (row: number) => 0.2126 * mean(row, 0) + 0.7152 * mean(row, 1) + 0.0722 * mean(row, 2);
    const top = 0;
    const aboveHorizon = height / 2 - 1;
    const bottom = height - 1;
    expect(mean(top, 2)).toBeGreaterThan(mean(top, 0)); // blue overhead
    expect(luminance(aboveHorizon)).toBeGreaterThan(0.8);
    expect(luminance(bottom)).toBeLessThan(0.15);
    expect(luminance(top)).toBeGreaterThan(3 * luminance(bottom));
    for (let i = 3; i < data.length; i += 4) expect(data[i]).toBe(1);
  });

  it('is made once per page: demoSky returns the same object', () => {
    expect(demoSky()).toBe(demoSky());
    expect(generateSky(8, 4).data).toHaveLength(8 * 4 * 4);
  });
});
