/**
 * src/three/three-meshes.ts's base-colour texture from a KTX2 (KHR_texture_basisu) image, drawn by
 * three's WebGPURenderer in Node (Dawn on SwiftShader): CesiumMan with its texture at 64 x 64, as
 * UASTC KTX2 made by the tests' ktx2Compressed (test/bake/decode-ktx2.test.ts's file), loaded with
 * three's transcoder. The glTF material three-meshes.ts makes holds the transcoded RGBA8 levels
 * (the whole mip chain, sRGB, glTF's top-left UV origin), and the picture three draws with it is
 * the one it draws with the PNG original's texels in the same material, within 3/255 mean.
 */
import { describe, expect, it } from 'vitest';
import {
  AmbientLight, Color, DataTexture, DirectionalLight, LinearFilter, LinearMipmapLinearFilter, PerspectiveCamera, Scene, SRGBColorSpace,
  type Mesh, type MeshStandardNodeMaterial,
} from 'three/webgpu';
import { loadCharacter } from '../../src/index';
import { loadKtx2 } from '../../tools/node-decoders';
import { decodeImage, ktx2Compressed, smallTextures } from '../helpers/compress';
import { openTestDevice } from '../helpers/gpu';
import { modelPath } from '../helpers/models';
import { comparePictures, coveredPixels, renderPicture, threeCrowds } from '../helpers/three-scene';

const device = await openTestDevice();
const SIDE = 64; // the texture's texels a side
const SIZE = 64; // the picture's pixels a side

describe.skipIf(!device)('a KTX2 base colour under three (WebGPU in Node)', () => {
  it('holds the transcoded levels and draws as the PNG original does', async () => {
    const png = await smallTextures(modelPath('CesiumMan'), SIDE);
    const character = await loadCharacter(await ktx2Compressed(png), { decoders: { ktx2: await loadKtx2() } });
    const image = character.rig.primitives[0].material.baseColorImage!;
    expect(image.mimeType).toBe('image/ktx2');
    const original = await decodeImage((await loadCharacter(png)).rig.primitives[0].material.baseColorImage!.bytes);
    expect([original.width, original.height]).toEqual([SIDE, SIDE]);

    const crowds = await threeCrowds(device!, SIZE, SIZE);
    const crowd = crowds.createCrowd(character, { capacity: 1, shading: 'three' });
    crowd.add({ clipA: 0, timeA: 0.4, speedA: 0 });
    crowd.update(0);
    const scene = new Scene();
    scene.background = new Color(0, 0, 0);
    const light = new DirectionalLight(0xffffff, 2);
    light.position.set(1, 2, 3);
    scene.add(crowds.sceneObject(crowd), new AmbientLight(0xffffff, 1.5), light);
    const camera = new PerspectiveCamera(30, 1, 0.1, 100);
    camera.position.set(0, 0.8, 2.4);
    camera.lookAt(0, 0.7, 0);

    // The material's map: the KTX2 image's RGBA8 levels, every one, at the PNG's size and colour space.
    const material = (crowds.sceneObject(crowd).getObjectsByProperty('isMesh', true)[0] as Mesh).material as MeshStandardNodeMaterial;
    const map = material.map as DataTexture;
    expect(map.isDataTexture).toBe(true);
    expect([map.image.width, map.image.height]).toEqual([SIDE, SIDE]);
    expect(map.mipmaps.length, 'the mip chain').toBe(Math.log2(SIDE) + 1);
    expect(map.mipmaps.map((m) => (m as { data: Uint8Array }).data)).toEqual(image.ktx2!.rgba);
    expect([map.colorSpace, map.flipY, map.minFilter]).toEqual([SRGBColorSpace, false, LinearMipmapLinearFilter]);

    const drawn = await renderPicture(crowds, scene, camera);
    // The same material with the PNG's texels (one level, its chain made by three), as the PNG character's bitmap would be.
    const reference = new DataTexture(original.data, SIDE, SIDE);
    [reference.magFilter, reference.minFilter, reference.generateMipmaps] = [LinearFilter, LinearMipmapLinearFilter, true];
    [reference.flipY, reference.colorSpace, reference.needsUpdate] = [false, SRGBColorSpace, true];
    material.map = reference;
    material.needsUpdate = true;
    const expected = await renderPicture(crowds, scene, camera);
    const difference = comparePictures(drawn, expected, [0, 0, 0], 24);
    console.log(`KTX2 under three: ${coveredPixels(expected, [0, 0, 0])} px covered, mean ${difference.mean.toFixed(2)}/255 from the PNG's`);
    expect(coveredPixels(expected, [0, 0, 0]), 'CesiumMan is drawn').toBeGreaterThan(300);
    // UASTC's own error on these texels is under 4/255 (decode-ktx2.test.ts); lit and filtered, the picture's mean stays under it.
    expect(difference.mean, 'the KTX2 picture is not the PNG one').toBeLessThan(3);
    reference.dispose();
    crowds.dispose();
  }, 60_000);
});
