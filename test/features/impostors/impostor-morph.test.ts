import { beforeAll, describe, expect, it } from 'vitest';
import { loadCharacter, type Character } from '../../../src/character/character';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { CrowdMorph } from '../../../src/features/morph/crowd-morph';
import { MESH_ONLY_PROP } from '../../../src/runtime/layout';
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

  // The atlas holds the clips' weights, so an instance with weights of its own (CrowdMorph.set,
  // setOne) stays a mesh: drawn as its impostor it showed its clip's shape instead (measured below).
  it('an instance with morph weights of its own stays a mesh at any distance, and becomes an impostor again when they go back to its clips; with a prop too, until both go', async (context) => {
    if (!device) return context.skip();
    const crowd = new Crowd(device, triangle, IMPOSTOR_TARGETS);
    const morph = new CrowdMorph(crowd);
    const impostors = new CrowdImpostors(crowd, SMALL_ATLAS);
    const id = crowd.add({ clipA: 'blink', timeA: 1.5, speedA: 0 });
    const { viewProjection, eye } = cameraAtSwitch(impostors, Math.PI, 0);
    const frame = async (asImpostors = true) => {
      impostors.enabled = asImpostors;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      return { pixels: await renderCrowd(device!, crowd, viewProjection, SIZE), impostors: (await crowd.readCullStats()).perLevel.at(-1) };
    };
    const clipShape = await frame();
    expect(clipShape.impostors).toBe(1);
    morph.set(id, [0, 0]); // both targets held at 0: the unmorphed triangle
    const own = await frame();
    expect(own.impostors, 'an instance with weights of its own drawn as an impostor (of its clip\'s weights)').toBe(0);
    const ownMesh = await frame(false);
    // Made-up violation: the impostor (the clip's weights) against the mesh with the instance's own.
    const wrong = overMesh(clipShape.pixels, ownMesh.pixels);
    console.log(`morph overrides: the clip's impostor against the overridden mesh ${wrong.mean.toFixed(2)}/255; the instance drawn ${overMesh(own.pixels, ownMesh.pixels).mean.toFixed(2)}`);
    expect(wrong.mean).toBeGreaterThan(8);
    expect(overMesh(own.pixels, ownMesh.pixels).mean).toBe(0);
    morph.setOne(id, 0, null); // one target back to its clip: the other still held
    expect((await frame()).impostors).toBe(0);
    morph.setOne(id, 1, null);
    expect((await frame()).impostors, 'every weight back to the clips').toBe(1);
    // Two reasons at once: the store keeps each (InstanceStore.setMeshOnly's reasons).
    const store = crowd.install({ featureName: 'probe' }).store;
    const handle = store.handle(id);
    morph.set(id, { [triangle.morphTargets[0].name]: 0.5 });
    store.setMeshOnly(handle, MESH_ONLY_PROP, true);
    morph.set(id, null);
    expect((await frame()).impostors, 'the prop\'s reason dropped with the morph\'s').toBe(0);
    store.setMeshOnly(handle, MESH_ONLY_PROP, false);
    expect((await frame()).impostors).toBe(1);
    crowd.destroy();
  }, 60_000);
});
