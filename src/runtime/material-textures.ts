import type { BlockFormat, Ktx2Texture } from '../bake/decode-ktx2';
import type { EncodedImage } from '../bake/gltf-json';
import { MipmapGenerator, mipLevelCount } from './mipmaps';

/** RGBA8 texel of the 1x1 texture that stands in for a texture a material does not have. */
export type Fallback = readonly [number, number, number, number];
/** White: multiplies by 1 (base colour, metal-rough, occlusion, emissive). */
export const WHITE: Fallback = [255, 255, 255, 255];
/** A flat tangent-space normal (0, 0, 1) encoded as (0.5, 0.5, 1): an unmapped surface keeps its normal. */
export const FLAT_NORMAL: Fallback = [128, 128, 255, 255];

/** KTX2 targets in order of preference, with the device feature each needs and its linear WebGPU format (sRGB: + '-srgb'). */
const BLOCK_FORMATS: [BlockFormat, GPUFeatureName, GPUTextureFormat][] = [
  ['bc7', 'texture-compression-bc', 'bc7-rgba-unorm'], ['etc2', 'texture-compression-etc2', 'etc2-rgba8unorm'], ['astc', 'texture-compression-astc', 'astc-4x4-unorm'],
];

/**
 * The skin pass's material textures: one texture per (image, format) (colour images sRGB, data
 * images linear), mip-mapped at upload as three.js does; one 1x1 stand-in per (format, fallback).
 * A KTX2 image (KHR_texture_basisu) is uploaded as BC7, ETC2 or ASTC 4x4 blocks, the first whose
 * feature the device was created with, with its own mip chain; otherwise as its RGBA8 levels.
 * The textures are handed to `track`, which owns them; `bytes` counts them (Crowd.gpuBytes).
 */
export class MaterialTextures {
  private readonly views = new Map<string | EncodedImage, Map<GPUTextureFormat, GPUTextureView>>();
  /** Made when the first image texture is uploaded. */
  private mipmaps: MipmapGenerator | undefined;
  /** Bytes of every texture made here, every mip level, at their size on the GPU. */
  bytes = 0;

  constructor(private readonly device: GPUDevice, private readonly bitmaps: ReadonlyMap<EncodedImage, ImageBitmap>,
    private readonly track: (texture: GPUTexture) => GPUTexture) {}

  /** The view of `image` in `format`, or of the 1x1 `fallback` when there is no image (or it was not decoded). */
  view(image: EncodedImage | undefined, format: GPUTextureFormat, label: string, fallback: Fallback = WHITE): GPUTextureView {
    const source = image && (image.ktx2 ?? this.bitmaps.get(image));
    const key = source ? image : fallback.join(',');
    let byFormat = this.views.get(key);
    if (!byFormat) this.views.set(key, (byFormat = new Map()));
    let view = byFormat.get(format);
    if (!view) {
      const texture = source && 'rgba' in source ? this.createKtx2(label, source, format) : this.create(source ? label : `SkinPass.fallback.${fallback.join('.')}.${format}`, source, format, fallback);
      byFormat.set(format, (view = texture.createView({ label: `${texture.label}.view` })));
    }
    return view;
  }

  /** A texture of `bitmap` with its full mip chain (three.js mipmaps glTF textures too), or 1x1 `fallback`. */
  private create(label: string, bitmap: ImageBitmap | undefined, format: GPUTextureFormat, fallback: Fallback): GPUTexture {
    const size = bitmap ? [bitmap.width, bitmap.height] : [1, 1];
    const texture = this.make(label, size[0], size[1], format, mipLevelCount(size[0], size[1]));
    if (bitmap) this.device.queue.copyExternalImageToTexture({ source: bitmap }, { texture }, size);
    else this.device.queue.writeTexture({ texture }, new Uint8Array(fallback), { bytesPerRow: 4 }, [1, 1]);
    if (bitmap) (this.mipmaps ??= new MipmapGenerator(this.device)).generate(texture);
    return texture;
  }

  /** A KTX2 image's texture: the device's first block format with every level the file holds, else its RGBA8 levels (mip chain completed on the GPU when the file has none). */
  private createKtx2(label: string, image: Ktx2Texture, format: GPUTextureFormat): GPUTexture {
    const srgb = format.endsWith('-srgb') ? '-srgb' : '';
    for (const [target, feature, blockFormat] of BLOCK_FORMATS) {
      const levels = this.device.features.has(feature) ? image.blocks(target) : undefined;
      if (levels) return this.upload(`${label}.${target}`, image, `${blockFormat}${srgb}` as GPUTextureFormat, levels, 4, 16);
    }
    const texture = this.upload(label, image, format, image.rgba, 1, 4);
    if (image.rgba.length === 1) (this.mipmaps ??= new MipmapGenerator(this.device)).generate(texture);
    return texture;
  }

  /** A texture of `levels` (rows of `block`-texel blocks of `blockBytes` bytes); a single level gets a full chain for the mipmap generator. */
  private upload(label: string, image: Ktx2Texture, format: GPUTextureFormat, levels: readonly Uint8Array[], block: number, blockBytes: number): GPUTexture {
    const texture = this.make(label, image.width, image.height, format, levels.length > 1 ? levels.length : mipLevelCount(image.width, image.height), block === 1);
    levels.forEach((data, level) => {
      const columns = Math.ceil(Math.max(1, image.width >> level) / block);
      const rows = Math.ceil(Math.max(1, image.height >> level) / block);
      this.device.queue.writeTexture({ texture, mipLevel: level }, data as Uint8Array<ArrayBuffer>, { bytesPerRow: columns * blockBytes, rowsPerImage: rows }, [columns * block, rows * block]);
    });
    return texture;
  }

  /** A tracked texture, its bytes counted (`renderable`: the mipmap generator may draw into it; block-compressed textures are not). */
  private make(label: string, width: number, height: number, format: GPUTextureFormat, mipLevelCount: number, renderable = true): GPUTexture {
    const block = renderable ? 1 : 4;
    for (let level = 0; level < mipLevelCount; level++) {
      const blocks = Math.ceil(Math.max(1, width >> level) / block) * Math.ceil(Math.max(1, height >> level) / block);
      this.bytes += blocks * (renderable ? 4 : 16);
    }
    return this.track(this.device.createTexture({
      label, size: [width, height], format, mipLevelCount,
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | (renderable ? GPUTextureUsage.RENDER_ATTACHMENT : 0),
    }));
  }
}
