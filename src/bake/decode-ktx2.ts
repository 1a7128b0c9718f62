import { dropRequired } from './decode-meshopt';
import { check, describeValue, ModelError } from './errors';
import type { EncodedImage, GltfAsset } from './gltf-json';

/**
 * KHR_texture_basisu (gltf-transform etc1s / uastc, gltfpack -tc): a texture's image is a KTX2
 * file of Basis Universal data (ETC1S or UASTC), transcoded here by the Basis Universal
 * transcoder module the page handed in (src/runtime/ktx2-decoder.ts, which alone imports this module).
 * Every KTX2 image is checked (container lengths, here, before the transcoder reads a byte)
 * and transcoded at load to RGBA8, every mip level, which both proves its data sound (a
 * damaged one is a ModelError naming the image) and serves any device; the upload
 * (ktx2-upload.ts) asks `blocks` for BC7, ETC2 or ASTC 4x4 where the device has the feature.
 */

/** The members of a Basis Universal transcoder module (BASIS() of basis_transcoder.js) called here; three.js's KTX2Loader calls the same. */
export interface BasisModule {
  initializeBasis(): void;
  KTX2File: new (data: Uint8Array) => BasisKtx2File;
}

interface BasisKtx2File {
  isValid(): boolean;
  getWidth(): number;
  getHeight(): number;
  getLevels(): number;
  getHasAlpha(): boolean;
  startTranscoding(): boolean;
  getImageTranscodedSizeInBytes(level: number, layer: number, face: number, format: number): number;
  transcodeImage(dst: Uint8Array, level: number, layer: number, face: number, format: number, alphaForOpaque: number, channel0: number, channel1: number): number | boolean;
  close(): void;
  delete(): void;
}

/** A KTX2 image's WebGPU texture, its bytes on the GPU (every level) and whether level 0 alone was written (the caller makes the mip chain). */
export interface Ktx2Upload {
  texture: GPUTexture;
  bytes: number;
  needsMipmaps: boolean;
}

/** The GPU side the decoder attaches to every Ktx2Texture (src/runtime/ktx2-upload.ts, handed in by ktx2Decoder). */
export interface Ktx2Uploads {
  upload(device: GPUDevice, image: Ktx2Texture, format: GPUTextureFormat, label: string): Ktx2Upload;
  uploadGL(gl: WebGL2RenderingContext, image: Ktx2Texture, format: number): void;
}

/** Block-compressed formats a KTX2 image can be transcoded to, all 4x4 blocks of 16 bytes. */
export type BlockFormat = 'bc7' | 'etc2' | 'astc';

/** The transcoder's target numbers (basisu transcoder_texture_format). */
const TARGET: Record<BlockFormat | 'rgba8', number> = { etc2: 1, bc7: 7, astc: 10, rgba8: 13 };

/** A KHR_texture_basisu image, transcoded (EncodedImage.ktx2). Level i is max(1, width >> i) by max(1, height >> i). */
export interface Ktx2Texture {
  /** Level 0's width in texels. */
  readonly width: number;
  /** Level 0's height in texels. */
  readonly height: number;
  /** RGBA8 texels of every level the file holds (1 when it has no mip chain: the GPU side makes it). */
  readonly rgba: readonly Uint8Array[];
  /** Every level as 4x4 blocks of `format` (rows of ceil(w / 4) blocks), or undefined when the file has no full mip chain or a size not a multiple of 4. Cached per format. */
  blocks(format: BlockFormat): readonly Uint8Array[] | undefined;
  /**
   * @internal A WebGPU texture of it (src/runtime/ktx2-upload.ts, attached by the decoder, so that
   * only pages with the KTX2 decoder ship the code): `format` rgba8unorm or rgba8unorm-srgb, BC7/ETC2/ASTC where the device has the feature.
   */
  upload(device: GPUDevice, format: GPUTextureFormat, label: string): Ktx2Upload;
  /** @internal Uploads it into the bound WebGL 2 TEXTURE_2D with `format` (SRGB8_ALPHA8 or RGBA8), its RGBA8 levels (ktx2-upload.ts). */
  uploadGL(gl: WebGL2RenderingContext, format: number): void;
}

const IDENTIFIER = [0xab, 0x4b, 0x54, 0x58, 0x20, 0x32, 0x30, 0xbb, 0x0d, 0x0a, 0x1a, 0x0a];
/** The largest side accepted (WebGPU's default maxTextureDimension2D): 256 MiB of RGBA8. */
const MAX_SIDE = 8192;

/**
 * Points every texture with KHR_texture_basisu at its KTX2 image (over `source`, WebP and AVIF),
 * transcodes those images (each once) and takes the extension off extensionsRequired.
 */
export async function decodeKtx2(asset: GltfAsset, module: BasisModule, gpu: Ktx2Uploads): Promise<void> {
  let initialized = false;
  for (const [t, texture] of (asset.json.textures ?? []).entries()) {
    const source = (texture as { extensions?: Record<string, { source?: unknown } | undefined> }).extensions?.KHR_texture_basisu?.source;
    if (source === undefined) continue;
    check(Number.isInteger(source) && (source as number) >= 0 && (source as number) < asset.images.length,
      `texture ${t}: KHR_texture_basisu.source must be an image index below ${asset.images.length}, but it is ${describeValue(source)}`);
    texture.source = source as number;
    const image = asset.images[source as number];
    if (!image || image.ktx2) continue; // an image that could not be read is drawn without it (a warning); one transcoded already
    if (!initialized) module.initializeBasis();
    initialized = true;
    image.mimeType = 'image/ktx2';
    image.ktx2 = transcode(image, module, `image ${source}`, gpu);
  }
  dropRequired(asset, ['KHR_texture_basisu']);
}

/** Checks the KTX2 container of `image` against its bytes, then transcodes it; every problem is a ModelError naming `where`. */
function transcode(image: EncodedImage, module: BasisModule, where: string, gpu: Ktx2Uploads): Ktx2Texture {
  const bytes = image.bytes;
  const fail = (what: string): never => { throw new ModelError(`${where}: KHR_texture_basisu: ${what}; the file is damaged or truncated`); };
  if (bytes.byteLength < 80 || IDENTIFIER.some((b, k) => bytes[k] !== b)) fail(`not a KTX2 file (${bytes.byteLength} bytes, no KTX2 identifier)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (at: number) => view.getUint32(at, true);
  const u64 = (at: number) => u32(at) + u32(at + 4) * 2 ** 32;
  const [vkFormat, width, height, depth, layers, faces, levels, scheme] = [12, 20, 24, 28, 32, 36, 40, 44].map(u32);
  check(vkFormat === 0 && scheme <= 2, `${where}: KHR_texture_basisu: the KTX2 image is not Basis Universal data (vkFormat ${vkFormat}, supercompression ${scheme})`);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) fail(`its size ${width} x ${height} is outside 1..${MAX_SIDE}`);
  if (depth > 1 || layers > 1 || faces !== 1) fail(`it is not a 2D texture (depth ${depth}, layers ${layers}, faces ${faces})`);
  const fullChain = Math.floor(Math.log2(Math.max(width, height))) + 1;
  if (levels < 1 || levels > fullChain) fail(`it declares ${levels} mip levels (1..${fullChain} for ${width} x ${height})`);
  if (80 + levels * 24 > bytes.byteLength) fail(`its level index (${levels} levels) runs past its ${bytes.byteLength} bytes`);
  const ranges: [string, number, number][] = [['its data format descriptor', u32(48), u32(52)], ['its key/value data', u32(56), u32(60)], ['its supercompression data', u64(64), u64(72)]];
  for (let l = 0; l < levels; l++) ranges.push([`mip level ${l}`, u64(80 + l * 24), u64(88 + l * 24)]);
  for (const [what, offset, length] of ranges) {
    if (offset + length > bytes.byteLength) fail(`${what} (bytes ${offset} to ${offset + length}) runs past its ${bytes.byteLength} bytes`);
  }
  const rgba = levelsOf(bytes, module, width, height, levels, 'rgba8', where);
  if (!rgba) fail('the transcoder could not read it');
  const cache = new Map<BlockFormat, readonly Uint8Array[] | undefined>();
  const blocksPossible = levels === fullChain && width % 4 === 0 && height % 4 === 0;
  const texture: Ktx2Texture = {
    width, height, rgba: rgba!,
    blocks(format) {
      if (!blocksPossible) return undefined;
      if (!cache.has(format)) cache.set(format, levelsOf(bytes, module, width, height, levels, format, where));
      return cache.get(format);
    },
    upload: (device, format, label) => gpu.upload(device, texture, format, label),
    uploadGL: (gl, format) => gpu.uploadGL(gl, texture, format),
  };
  return texture;
}

/** Every level of the KTX2 `bytes` transcoded to `format`, each checked to be the size it must be; undefined when the transcoder refuses. */
function levelsOf(bytes: Uint8Array, module: BasisModule, width: number, height: number, levels: number, format: BlockFormat | 'rgba8', where: string): Uint8Array[] | undefined {
  let file: BasisKtx2File | undefined;
  try {
    file = new module.KTX2File(bytes);
    if (!file.isValid() || file.getWidth() !== width || file.getHeight() !== height || file.getLevels() !== levels || !file.startTranscoding()) return undefined;
    const out: Uint8Array[] = [];
    for (let l = 0; l < levels; l++) {
      const w = Math.max(1, width >> l);
      const h = Math.max(1, height >> l);
      const size = format === 'rgba8' ? w * h * 4 : Math.ceil(w / 4) * Math.ceil(h / 4) * 16;
      if (file.getImageTranscodedSizeInBytes(l, 0, 0, TARGET[format]) !== size) return undefined;
      const dst = new Uint8Array(size);
      if (!file.transcodeImage(dst, l, 0, 0, TARGET[format], 0, -1, -1)) return undefined;
      out.push(dst);
    }
    return out;
  } catch (e) {
    throw new ModelError(`${where}: KHR_texture_basisu: the transcoder failed (${(e as Error)?.message ?? String(e)}); the file is damaged or truncated`);
  } finally {
    file?.close();
    file?.delete();
  }
}
