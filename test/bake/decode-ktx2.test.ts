import { describe, expect, it } from 'vitest';
import { ktx2Decoder } from '../../src/runtime/ktx2-decoder';
import { ModelError } from '../../src/bake/errors';
import { readContainer } from '../../src/bake/glb';
import type { EncodedImage, GltfJson } from '../../src/bake/gltf-json';
import { loadCharacter, type Character } from '../../src/character/character';
import { loadClips } from '../../src/character/clips';
import { MaterialTextures } from '../../src/runtime/material-textures';
import { loadKtx2, nodeDecoders } from '../../tools/node-decoders';
import { requestNodeAdapter } from '../../tools/gpu-poser';
import { decodeImage, ktx2Compressed, smallTextures, webpCompressed, worstPoseGap } from '../helpers/compress';
import { arrayBufferOf, assetToGlb } from '../helpers/gltf-builder';
import { modelPath } from '../helpers/models';

/**
 * KHR_texture_basisu (src/bake/decode-ktx2.ts, handed in as ktx2Decoder(module)): CesiumMan with
 * its texture scaled to 64 x 64 (so encoding takes a second), written as KTX2 by ktx2-encoder
 * (Basis Universal's encoder, UASTC and ETC1S, mip chains), loads with the transcoder npm three
 * ships and gives the original's texels; without it the file is refused naming the option; a
 * damaged KTX2 image is a named ModelError; on Dawn the BC7 upload samples as the RGBA8 levels.
 *
 * EXT_texture_webp and EXT_texture_avif here too (the same small original; one file, so the
 * encoders are imported once): the loader picks the WebP or AVIF image over `source` and keeps its
 * bytes for the platform's image decoder; in Node the test decodes them with sharp (npm,
 * prebuilt libvips: tools/compress.ts decodeImage) and compares the texels with the PNG's.
 */

const SIDE = 64;
const small = await smallTextures(modelPath('CesiumMan'), SIDE);
const [uastc, etc1s] = [await ktx2Compressed(small), await ktx2Compressed(small, 'etc1s')];
const ktx2 = await loadKtx2();
const baseColour = async (file: ArrayBuffer): Promise<EncodedImage> => (await loadCharacter(file.slice(0), { decoders: { ktx2 } })).rig.primitives[0].material.baseColorImage!;

/** Mean absolute difference of two RGBA8 texel lists, per channel, in 1/255. */
function meanDifference(a: Uint8Array, b: Uint8Array): number {
  expect(a.length).toBe(b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

describe('KTX2: what is refused, and how', () => {
  it('a file that requires KHR_texture_basisu, without the transcoder: the option and the package named; the CLI hands it in', async () => {
    await expect(loadCharacter(uastc.slice(0))).rejects.toThrow(
      /^the file requires extension KHR_texture_basisu, which needs decoders: \{ ktx2: ktx2Decoder\(await BASIS\(\)\) \}, ktx2Decoder from 'crowd-skin', BASIS from npm three's examples\/jsm\/libs\/basis$/);
    await expect(loadClips(uastc.slice(0))).rejects.toThrow(/^clips file 'clips0': the file requires extension KHR_texture_basisu/);
    expect((await nodeDecoders(uastc)).ktx2).toBe(ktx2);
    expect((await nodeDecoders(small)).ktx2).toBeUndefined();
  });

  it('ktx2Decoder refuses what is not a transcoder module, saying what it is', () => {
    expect(() => ktx2Decoder(() => 0)).toThrow(/^ktx2Decoder\(module\): module is a function \(call it and await the module it resolves to\)/);
    expect(() => ktx2Decoder(Promise.resolve())).toThrow(/module is a promise \(await it\)/);
    expect(() => ktx2Decoder({})).toThrow(/module is not a Basis Universal transcoder module/);
  });

  it('a truncated or corrupted KTX2 image is a named ModelError, never a crash inside the transcoder', async () => {
    const container = readContainer(uastc);
    const json = container.json as GltfJson;
    const view = json.images![0].bufferView!;
    let refused = 0;
    const damages = ['truncate', 'level index', 'size', 'levels', 'corrupt', 'zero'] as const;
    for (const damage of damages) {
      const broken = structuredClone(json);
      const bin = container.bin!.slice();
      const v = broken.bufferViews![view];
      const start = v.byteOffset ?? 0;
      const header = new DataView(bin.buffer, start);
      if (damage === 'truncate') v.byteLength = Math.floor(v.byteLength / 2);
      else if (damage === 'level index') header.setUint32(80, 0x7fffffff, true);
      else if (damage === 'size') header.setUint32(20, 1 << 20, true);
      else if (damage === 'levels') header.setUint32(40, 30, true);
      else if (damage === 'corrupt') for (let b = 200; b < v.byteLength; b += 7) bin[start + b] ^= 0xa5;
      else bin.fill(0, start + 200, start + v.byteLength);
      try {
        await loadCharacter(arrayBufferOf(assetToGlb({ json: broken, buffers: [bin], images: [] })), { decoders: { ktx2 } });
      } catch (error) {
        expect(error, String(error)).toBeInstanceOf(ModelError);
        expect((error as Error).message).toMatch(/^image 0: KHR_texture_basisu: /);
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(4); // the four header damages at least; damaged UASTC blocks may still transcode
  });
});

describe('KTX2: files that load with the transcoder handed in', () => {
  it.each([['UASTC', uastc, 4], ['ETC1S', etc1s, 12]] as const)('%s: every mip level transcoded; level 0 within the codec\'s error of the original PNG; poses unchanged', async (_, file, tolerance) => {
    const image = await baseColour(file);
    const original = await loadCharacter(small.slice(0));
    const png = await decodeImage(original.rig.primitives[0].material.baseColorImage!.bytes);
    expect(image.mimeType).toBe('image/ktx2');
    expect([image.ktx2!.width, image.ktx2!.height, image.ktx2!.rgba.length]).toEqual([SIDE, SIDE, 7]);
    image.ktx2!.rgba.forEach((level, l) => expect(level.length).toBe(Math.max(1, SIDE >> l) ** 2 * 4));
    expect(meanDifference(image.ktx2!.rgba[0], png.data)).toBeLessThan(tolerance);
    expect(image.ktx2!.blocks('bc7')!.map((level) => level.length)).toEqual([4096, 1024, 256, 64, 16, 16, 16]);
    expect(worstPoseGap(original, await loadCharacter(file.slice(0), { decoders: { ktx2 } }))).toBe(0);
  });
});

const texels = (character: Character) => decodeImage(character.rig.primitives[0].material.baseColorImage!.bytes);

describe('WebP and AVIF textures: the file\'s image, decoded in Node, against the original PNG', () => {
  it.each([
    ['WebP lossless', 'webp', undefined, 0],
    ['WebP at quality 80', 'webp', 80, 6],
    ['AVIF at quality 80', 'avif', 80, 6],
  ] as const)('%s: required extension read, texels within the codec\'s error, poses unchanged', async (_, format, quality, tolerance) => {
    const file = await webpCompressed(small, quality, format);
    const required = (readContainer(file).json as { extensionsRequired?: string[] }).extensionsRequired;
    expect(required).toContain(format === 'webp' ? 'EXT_texture_webp' : 'EXT_texture_avif');
    const character = await loadCharacter(file);
    const original = await loadCharacter(small.slice(0));
    const reference = await texels(original);
    expect(character.rig.primitives[0].material.baseColorImage!.mimeType).toBe(`image/${format}`);
    const decoded = await texels(character);
    expect([decoded.width, decoded.height]).toEqual([reference.width, reference.height]);
    const difference = meanDifference(decoded.data, reference.data);
    if (tolerance === 0) expect(difference).toBe(0);
    else expect(difference).toBeLessThan(tolerance);
    expect(worstPoseGap(original, character)).toBe(0);
  });
});

const adapter = await requestNodeAdapter();
const hasBc = adapter?.features.has('texture-compression-bc') ?? false;

describe.skipIf(!hasBc)('KTX2 on Dawn: BC7 where the device has texture-compression-bc', () => {
  it('uploads BC7 levels (a quarter of RGBA8\'s bytes) that sample as the transcoded RGBA8 texels; without the feature, RGBA8', async () => {
    const image = await baseColour(uastc);
    for (const features of [['texture-compression-bc'], []] as GPUFeatureName[][]) {
      const device = await (await requestNodeAdapter())!.requestDevice({ requiredFeatures: features }); // an adapter makes one device
      const made: GPUTexture[] = [];
      const textures = new MaterialTextures(device, new Map(), (t) => (made.push(t), t));
      const view = textures.view(image, 'rgba8unorm', 'ktx2');
      expect(made[0].format).toBe(features.length ? 'bc7-rgba-unorm' : 'rgba8unorm');
      // BC7: 16 bytes per 4x4 block, the small levels a whole block each; RGBA8: 4 per texel.
      expect(textures.bytes).toBe(features.length ? 4096 + 1024 + 256 + 64 + 16 * 3 : 4 * (4096 + 1024 + 256 + 64 + 16 + 4 + 1));
      expect(meanDifference(await sampleLevel0(device, view), image.ktx2!.rgba[0])).toBeLessThan(features.length ? 3 : 0.01);
      device.destroy();
    }
  });
});

/** Level 0 of a SIDE x SIDE texture view, read texel by texel (textureLoad) into an RGBA8 target and back. */
async function sampleLevel0(device: GPUDevice, view: GPUTextureView): Promise<Uint8Array> {
  const module = device.createShaderModule({ code: `
    @group(0) @binding(0) var t: texture_2d<f32>;
    @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f { return vec4f(vec2f(f32(i & 1u), f32(i >> 1u)) * 4.0 - 1.0, 0.0, 1.0); }
    @fragment fn fs(@builtin(position) p: vec4f) -> @location(0) vec4f { return textureLoad(t, vec2u(p.xy), 0); }` });
  const pipeline = device.createRenderPipeline({ layout: 'auto', vertex: { module }, fragment: { module, targets: [{ format: 'rgba8unorm' }] }, primitive: { topology: 'triangle-list' } });
  const target = device.createTexture({ size: [SIDE, SIDE], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const out = device.createBuffer({ size: SIDE * SIDE * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginRenderPass({ colorAttachments: [{ view: target.createView(), loadOp: 'clear', storeOp: 'store' }] });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: view }] }));
  pass.draw(3);
  pass.end();
  encoder.copyTextureToBuffer({ texture: target }, { buffer: out, bytesPerRow: SIDE * 4 }, [SIDE, SIDE]);
  device.queue.submit([encoder.finish()]);
  await out.mapAsync(GPUMapMode.READ);
  return new Uint8Array(out.getMappedRange().slice(0));
}
