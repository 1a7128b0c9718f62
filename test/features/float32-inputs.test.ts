import { describe, expect, it } from 'vitest';
import { CrowdAppearance } from '../../src/features/appearance/crowd-appearance';
import { CrowdPicking } from '../../src/features/picking/crowd-picking';
import { CrowdProps } from '../../src/features/props/crowd-props';
import { bound, checkF32, F32_MAX, fitsF32, WORLD } from '../../src/math/float32';
import { Crowd } from '../../src/runtime/crowd';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { lookAt } from '../helpers/render';

/**
 * Issue 41's sweep over the features' numeric inputs for the float32 gap: a number checked finite
 * in float64 but Infinity on the GPU (1e39), or past the bound under which the GPU's arithmetic on
 * it stays finite (world coordinates: +-1e12, src/math/float32.ts WORLD). Props' offsets,
 * appearance tints, picking rays and cameras; each refusal names its bound and changes nothing.
 * The kernel's own (transforms, placement, speeds, the camera) are in
 * test/runtime/crowd-refusals.test.ts, steering's in test/features/steering/bounds.test.ts; root
 * motion takes no number of its own (its anchors are the crowd's transforms). One crowd.
 */

describe('checkF32', () => {
  it('takes a number within the range and names the range otherwise', () => {
    const range = { min: -1e9, max: 1e9 };
    expect(checkF32(1e9, 'x', range, 'why')).toBe(1e9);
    expect(() => checkF32(1e39, 'x', range, 'why')).toThrow(/^x must be a number in \[-1e9, 1e9\] \(why\), got 1e\+39$/);
    expect(() => checkF32(NaN, 'x', range, 'why')).toThrow(/got NaN/);
    expect(() => checkF32('1', 'x', range, 'why')).toThrow(/got "1"/);
    expect(() => checkF32(0, 'r', { min: 0, max: 1, open: true }, 'why')).toThrow(/r must be a number in \(0, 1\]/);
    expect([bound(1e-6), bound(0.001), bound(2.5), bound(1e6), bound(-F32_MAX)]).toEqual(['1e-6', '1e-3', '2.5', '1e6', '-3.4028235e38']);
    expect([fitsF32(F32_MAX), fitsF32(1e39), fitsF32(1e-40), fitsF32(0), fitsF32(-1e-30)]).toEqual([true, false, false, true, true]);
  });
});

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

describe.skipIf(!device)('the features refuse what float32 cannot hold (issue 41)', async () => {
  const character = await testCharacter('SimpleSkin');
  const crowd = new Crowd(device!, character, FORMATS);
  const props = new CrowdProps(crowd);
  const look = new CrowdAppearance(crowd);
  const picking = new CrowdPicking(crowd);
  const id = crowd.add();
  const moved = (i: number, v: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1].map((x, k) => (k === i ? v : x));

  it('props: an offset element past +-1e12', () => {
    const joint = character.jointNames[0];
    expect(() => props.attach(character, { joint, offset: moved(12, 1e39) })).toThrow(/offset\[12\] must be a number in \[-1e12, 1e12\] \(float32 on the GPU: the cull pass squares world distances\), got 1e\+39/);
    expect(() => props.attach(character, { joint, offset: moved(0, -2e12) })).toThrow(/offset\[0\] must be a number in \[-1e12, 1e12\]/);
    expect(props.ids).toEqual([]);
    props.detach(props.attach(character, { joint, offset: moved(14, WORLD.max) })); // the bound itself is taken
  });

  it('appearance: a tint channel past 1e6', () => {
    look.setTint(id, 2, 1, 0.5);
    expect(() => look.setTint(id, 1e39, 1, 1)).toThrow(/tint red must be a number in \[0, 1e6\] \(float32 on the GPU: skin.wgsl multiplies it by the colour and the lights\), got 1e\+39/);
    expect(() => look.setTint(id, 1, 1, 2e6)).toThrow(/tint blue must be a number in \[0, 1e6\]/);
    expect(Array.from(look.getTint(id))).toEqual([2, 1, 0.5]);
  });

  it('picking: a ray origin or maxDistance past +-1e12, a camera matrix past float32', () => {
    const ray = { origin: [0, 0, 5], direction: [0, 0, -1] };
    expect(() => picking.pick({ ...ray, origin: [1e39, 0, 5] })).toThrow(/ray.origin\[0\] must be a number in \[-1e12, 1e12\] \(float32 on the GPU/);
    expect(() => picking.raycast({ ...ray, origin: [0, -2e12, 5] })).toThrow(/ray.origin\[1\] must be a number in \[-1e12, 1e12\]/);
    expect(() => picking.pick(ray, { maxDistance: 1e39 })).toThrow(/maxDistance must be a number in \[-1e12, 1e12\]/);
    const camera = { viewProjection: Array.from(lookAt([0, 1, 3], [0, 1, 0]).viewProjection), width: 100, height: 100 };
    camera.viewProjection[5] = 1e39;
    expect(() => picking.selectRect({ x0: 0, y0: 0, x1: 10, y1: 10 }, camera)).toThrow(/camera.viewProjection\[5\] must be a number in \[-3.4028235e38, 3.4028235e38\] \(the GPU holds it as float32\)/);
    // Within the bounds (and the default maxDistance, cut to the bound): taken.
    expect(picking.raycast({ ...ray, origin: [0, 0, WORLD.max] })).toEqual([]);
  });
});
