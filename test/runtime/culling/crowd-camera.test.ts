import { describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/runtime/crowd';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../../helpers/render';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** Sum of each channel over the drawn pixels. */
function channelSums(pixels: Uint8Array): [number, number, number] {
  const sums: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < pixels.length; i += 4) for (let c = 0; c < 3; c++) sums[c] += pixels[i + c];
  return sums;
}

describe.skipIf(!device)('Crowd.setLights (lights at run time)', () => {
  it('shades with the new lights from the next draw, refuses a wrong field changing nothing, and keeps them when the passes are re-made', async () => {
    const character = await testCharacter('CesiumMan');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4 });
    const { min, max } = character.bounds;
    const centre: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
    const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const { viewProjection } = lookAt([centre[0], centre[1] + size * 0.3, centre[2] + size * 1.6], centre);
    crowd.add();
    crowd.update(0);
    const before = await renderCrowd(device!, crowd, viewProjection, 64);
    expect(drawnPixels(before)).toBeGreaterThan(100);
    const [r0, g0, b0] = channelSums(before);
    expect(g0 + b0).toBeGreaterThan(0);

    // A red sun from the camera's side and no ambient: nothing but red reaches the picture.
    const red = { sun: { direction: [0, -0.3, -1] as [number, number, number], color: [1, 0, 0] as [number, number, number], intensity: 3 }, ambient: false as const };
    crowd.setLights(red);
    const lit = await renderCrowd(device!, crowd, viewProjection, 64);
    const [r1, g1, b1] = channelSums(lit);
    expect(g1 + b1).toBe(0);
    expect(r1).toBeGreaterThan(r0 * 0.2);

    // Refused, naming the field; the red lights stay.
    expect(() => crowd.setLights({ sun: { intensity: -2 } })).toThrow('lights.sun.intensity must be a finite number >= 0, got -2');
    expect(() => crowd.setLights({ moon: {} } as never)).toThrow('lights.moon is not a light');
    expect(differingPixels(await renderCrowd(device!, crowd, viewProjection, 64), lit)).toBe(0);

    // Re-made passes (a new skinning method) keep the lights last set.
    crowd.skinning = 'dual-quaternion';
    crowd.update(0);
    const remade = await renderCrowd(device!, crowd, viewProjection, 64);
    const [, g2, b2] = channelSums(remade);
    expect(g2 + b2).toBe(0);
    expect(drawnPixels(remade)).toBeGreaterThan(100);

    // Back to the defaults: the first picture (but for edge pixels of the other skinning method).
    crowd.setLights({});
    crowd.skinning = 'linear';
    crowd.update(0);
    expect(differingPixels(await renderCrowd(device!, crowd, viewProjection, 64), before)).toBe(0);
    crowd.destroy();
  });
});
