/**
 * The skin pass's material constants (src/runtime/material-data.ts materialConstants): which
 * textures a material's pipeline samples and whether it holds alphaMode MASK's discard, and that a
 * pipeline which samples nothing draws the same picture, to the bit, as one sampling the white
 * stand-ins (what a material without textures was drawn with before the constants).
 */
import { describe, expect, it } from 'vitest';
import { loadCharacter, type Character } from '../../src/character/character';
import { materialConstants, materialConstantsKey } from '../../src/runtime/material-data';
import { Crowd } from '../../src/runtime/crowd';
import { featureModelUrl } from '../e2e/materials/feature-model';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { differingPixels, drawnPixels, renderCrowd } from '../helpers/render';

const device = await openTestDevice();

/** The materials test's feature character: metal-rough, occlusion and emissive textures, MASK, BLEND, unlit. */
function featureCharacter(): Promise<Character> {
  const url = featureModelUrl();
  const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
}

describe('materialConstants', () => {
  it('samples only the textures a material has, and discards only under alphaMode MASK', async () => {
    const fox = (await testCharacter('Fox')).rig.primitives[0].material;
    expect(materialConstants(fox)).toEqual({ BASE_COLOR_MAP: 1, METAL_ROUGH_MAP: 0, OCCLUSION_MAP: 0, EMISSIVE_MAP: 0, ALPHA_MASK: 0 });
    const feature = (await featureCharacter()).rig.primitives.map((p) => p.material);
    const emissive = feature.find((m) => m.emissiveImage)!;
    expect(materialConstants(emissive)).toMatchObject({ EMISSIVE_MAP: 1, ALPHA_MASK: 0 });
    const mask = feature.find((m) => m.alphaMode === 'MASK')!;
    expect(materialConstants(mask)).toMatchObject({ BASE_COLOR_MAP: 1, ALPHA_MASK: 1 });
    expect(feature.some((m) => materialConstants(m).METAL_ROUGH_MAP === 1 && materialConstants(m).OCCLUSION_MAP === 0)).toBe(true);
    // The key tells apart what the constants tell apart.
    expect(materialConstantsKey(fox)).not.toBe(materialConstantsKey(mask));
    expect(materialConstantsKey(emissive)).toBe(Object.values(materialConstants(emissive)).join(''));
  });
});

describe.skipIf(!device)('the skin pass with materialConstants', () => {
  /** The feature character's 9 instances drawn into a 192 x 192 frame (renderCrowd), read back as RGBA8. */
  async function draw(character: Character): Promise<Uint8Array> {
    const crowd = new Crowd(device!, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: 9 });
    const { min, max } = character.bounds;
    const size = Math.max(max[0] - min[0], max[1] - min[1]);
    for (let i = 0; i < 9; i++) {
      const id = crowd.add({ timeA: i * 0.1 });
      crowd.setPlacement(id, ((i % 3) - 1) * size * 0.2, ((Math.floor(i / 3)) - 1) * size * 0.2, -i * 0.01, i * 0.4, 1);
    }
    crowd.update(0);
    const cx = (min[0] + max[0]) / 2, cy = (min[1] + max[1]) / 2;
    const s = 1.6 / size; // an orthographic view of the bounds, z into [0, 1)
    const viewProjection = new Float32Array([s, 0, 0, 0, 0, s, 0, 0, 0, 0, -0.1 / size, 0, -cx * s, -cy * s, 0.5, 1]);
    const pixels = await renderCrowd(device!, crowd, viewProjection, 192);
    crowd.destroy();
    return pixels;
  }

  it('a material whose textures are left out draws the picture its white stand-ins drew, to the bit', async () => {
    // In Node no image is decoded, so the loaded character's textures are the white stand-ins, sampled
    // (its constants 1); without its images nothing is sampled (0): the two pictures must be one.
    const sampled = await featureCharacter();
    const bare = await featureCharacter();
    for (const { material: m } of bare.rig.primitives) m.baseColorImage = m.metallicRoughnessImage = m.occlusionImage = m.emissiveImage = undefined;
    expect(sampled.rig.primitives.some((p) => Object.values(materialConstants(p.material)).slice(0, 4).some((v) => v === 1))).toBe(true);
    const [a, b] = [await draw(sampled), await draw(bare)];
    expect(drawnPixels(a)).toBeGreaterThan(2000); // the spheres fill much of the frame
    expect(differingPixels(a, b)).toBe(0);
  });
});
