import { describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/runtime/crowd';
import { fitLight } from '../../../src/runtime/culling/shadow-pass';
import { LIGHT_DIRECTION } from '../../../src/runtime/skin-pass';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';
import { drawnPixels, lookAt, renderCrowd } from '../../helpers/render';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

describe.skipIf(!device)('ShadowPass', () => {
  it('validity: options and the shadows switch are checked, naming the field', async () => {
    const fox = await testCharacter('Fox');
    expect(() => new Crowd(device!, fox, { ...FORMATS, shadows: { mapSize: 0 } })).toThrow(/shadows.mapSize must be an integer in \[1, \d+\], got 0/);
    expect(() => new Crowd(device!, fox, { ...FORMATS, shadows: { distance: -1 } })).toThrow(/shadows.distance must be a positive number/);
    expect(() => new Crowd(device!, fox, { ...FORMATS, shadows: { strength: 2 } })).toThrow(/shadows.strength must be in \[0, 1\], got 2/);
    const plain = new Crowd(device!, fox, FORMATS);
    expect(() => { plain.shadows = true; }).toThrow(/created without shadows/);
    plain.destroy();
  });

  it('fitLight: the light\'s box holds the view up to the shadow distance', () => {
    const view = lookAt([0, 100, -500], [0, 0, 0], { far: 100000 });
    const light = fitLight(view.viewProjection, view.eye, LIGHT_DIRECTION, 2000, 300, new Float32Array(16));
    const project = (p: number[]) => [0, 1, 2, 3].map((r) => light[r] * p[0] + light[4 + r] * p[1] + light[8 + r] * p[2] + light[12 + r]);
    for (const point of [[0, 0, 0], [0, 100, -500], [300, 0, 800], [0, 300, 0]]) {
      const [x, y, z, w] = project(point);
      expect(Math.abs(x / w)).toBeLessThanOrEqual(1);
      expect(Math.abs(y / w)).toBeLessThanOrEqual(1);
      expect(z / w).toBeGreaterThanOrEqual(0);
      expect(z / w).toBeLessThanOrEqual(1);
    }
  });

  it('a caster outside the view is posed and shadows the instance under it; nothing gets lighter', async () => {
    const fox = await testCharacter('Fox');
    const crowd = new Crowd(device!, fox, { ...FORMATS, capacity: 4, lod: false, animationLod: false, shadows: { mapSize: 512 } });
    const small = crowd.add({ clipA: 'Survey', timeA: 1 });
    crowd.setPlacement(small, 0, 0, 0, 0);
    // A big fox hanging up the light's direction, out of the camera's view.
    const big = crowd.add({ clipA: 'Survey', timeA: 1 });
    const up = 700;
    crowd.setPlacement(big, -LIGHT_DIRECTION[0] * up, 20 - LIGHT_DIRECTION[1] * up, -LIGHT_DIRECTION[2] * up - 60, 0, 3);
    const view = lookAt([250, 120, -300], [0, 30, 0], { fovY: 0.5 });
    crowd.setCamera(view.viewProjection, view.eye);
    crowd.update(0);
    crowd.shadows = false;
    const lit = await renderCrowd(device!, crowd, view.viewProjection, 64);
    crowd.shadows = true;
    const shadowed = await renderCrowd(device!, crowd, view.viewProjection, 64);
    const stats = await crowd.readCullStats();
    expect(stats.visible).toBe(1);
    expect(stats.posed).toBe(2);
    expect(crowd.shadowMap?.mapSize).toBe(512);
    // Without the caster, only the fox's own body shades it (and no acne): far fewer darker pixels.
    crowd.setPlacement(big, 100000, 0, 0, 0);
    crowd.update(0);
    const self = await renderCrowd(device!, crowd, view.viewProjection, 64);
    const compare = (a: Uint8Array, b: Uint8Array) => {
      let darker = 0, lighter = 0;
      for (let i = 0; i < a.length; i += 4) {
        const x = a[i] + a[i + 1] + a[i + 2], y = b[i] + b[i + 1] + b[i + 2];
        if (y < x - 3) darker++;
        if (y > x + 3) lighter++;
      }
      return { darker, lighter };
    };
    const underCaster = compare(lit, shadowed);
    const alone = compare(lit, self);
    console.log(`shadow: ${underCaster.darker} of ${drawnPixels(lit)} pixels darker under the caster, ${alone.darker} from the fox's own body`);
    expect(drawnPixels(lit)).toBeGreaterThan(200);
    expect(underCaster.darker).toBeGreaterThan(drawnPixels(lit) * 0.3);
    expect(alone.darker).toBeLessThan(underCaster.darker / 3);
    expect(underCaster.lighter + alone.lighter).toBe(0);
    crowd.destroy();
  });
});
