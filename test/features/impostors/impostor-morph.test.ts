import { beforeAll, describe, expect, it } from 'vitest';
import { loadCharacter, type Character } from '../../../src/character/character';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { CrowdMorph } from '../../../src/features/morph/crowd-morph';
import { Crowd } from '../../../src/runtime/crowd';
import { arrayBufferOf, assetToGlb, morphModel } from '../../helpers/gltf-builder';
import { gpuSuite } from '../../helpers/gpu-suite';
import { cameraAtSwitch, IMPOSTOR_TARGETS, SMALL_ATLAS, SWITCH_VIEW } from '../../helpers/impostor-camera';
import { overMesh, renderCrowd } from '../../helpers/render';

const SIZE = SWITCH_VIEW.size;

describe('impostor morph targets (GPU): a crowd with CrowdMorph bakes its clips\' morph weights', () => {
  let device: GPUDevice | undefined;
  let triangle: Character;
  gpuSuite({}, (gpu) => { device = gpu.device; });
  beforeAll(async () => { triangle = await loadCharacter(arrayBufferOf(assetToGlb(morphModel().builder.build()))); });

  /** The morph model's triangle (clip 'blink' at 1.5 s, frozen) just past the switch from -z: as impostors, and as its mesh. */
  async function draw(morphed: 'before' | 'after' | false): Promise<{ impostor: Uint8Array; mesh: Uint8Array }> {
    const crowd = new Crowd(device!, triangle, IMPOSTOR_TARGETS);
    if (morphed === 'before') new CrowdMorph(crowd);
    // 4 frames a clip (clip 'blink', 2 s: frame 3 at 1.5 s, its weights (0.6, 0.9)), 4 azimuths (180: a view cell, the side the triangle's winding faces).
    const impostors = new CrowdImpostors(crowd, SMALL_ATLAS);
    crowd.add({ clipA: 'blink', timeA: 1.5, speedA: 0 });
    if (morphed === 'after') {
      // CrowdMorph installed after the bake: the crowd's passes are made again and the atlas with them.
      await impostors.bake();
      new CrowdMorph(crowd);
      expect(impostors.baked).toBe(false);
    }
    const { viewProjection, eye } = cameraAtSwitch(impostors, Math.PI, 0);
    const frame = async (asImpostors: boolean) => {
      impostors.enabled = asImpostors;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, viewProjection, SIZE);
      expect((await crowd.readCullStats()).perLevel).toEqual(asImpostors ? [0, 1] : [1]); // one mesh level, then the impostors
      return pixels;
    };
    const result = { impostor: await frame(true), mesh: await frame(false) };
    crowd.destroy();
    return result;
  }

  it('shows the clip\'s morphed shape at the switch, CrowdMorph installed before the bake or after it; without CrowdMorph the unmorphed one, as its mesh', async (context) => {
    if (!device) return context.skip();
    const morphed = await draw('before');
    const plain = await draw(false);
    const late = overMesh((await draw('after')).impostor, morphed.mesh);
    const here = overMesh(morphed.impostor, morphed.mesh);
    const unmorphed = overMesh(plain.impostor, plain.mesh);
    // Made-up violation: the atlas without the morph weights (the crowd's without CrowdMorph) against the morphed mesh.
    const violation = overMesh(plain.impostor, morphed.mesh);
    console.log(`morph targets at the switch: ${here.mean.toFixed(2)}/255 over ${here.pixels} pixels (CrowdMorph installed after the first bake: ${late.mean.toFixed(2)}); without CrowdMorph ${unmorphed.mean.toFixed(2)}; the unmorphed atlas against the morphed mesh ${violation.mean.toFixed(2)}`);
    expect(here.pixels).toBeGreaterThan(50);
    expect(here.mean).toBeLessThanOrEqual(8);
    expect(late.mean).toBeLessThanOrEqual(8);
    expect(unmorphed.mean).toBeLessThanOrEqual(8);
    expect(violation.mean).toBeGreaterThan(8);
  }, 60_000);
});
