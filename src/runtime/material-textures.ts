import type { EncodedImage } from '../bake/gltf-json';
import { MipmapGenerator, mipLevelCount } from './mipmaps';

/** RGBA8 texel of the 1x1 texture that stands in for a texture a material does not have. */
export type Fallback = readonly [number, number, number, number];
/** White: multiplies by 1 (base colour, metal-rough, occlusion, emissive). */
export const WHITE: Fallback = [255, 255, 255, 255];
/** A flat tangent-space normal (0, 0, 1) encoded as (0.5, 0.5, 1): an unmapped surface keeps its normal. */
export const FLAT_NORMAL: Fallback = [128, 128, 255, 255];

/**
 * The skin pass's material textures: one texture per (image, format) (colour images sRGB, data
 * images linear), mip-mapped at upload as three.js does; one 1x1 stand-in per (format, fallback).
 * A KTX2 image uploads itself (EncodedImage.ktx2, ktx2-upload.ts: BC7, ETC2 or ASTC where the
 * device has the feature). The textures are handed to `track`, which owns them; `bytes` counts
 * them at their size on the GPU, every mip level (Crowd.gpuBytes).
 */
export class MaterialTextures {
  private readonly views = new Map<string | EncodedImage, Map<GPUTextureFormat, GPUTextureView>>();
  /** Made when the first image texture is uploaded. */
  private mipmaps: MipmapGenerator | undefined;
  /** Bytes of the textures made here. */
  bytes = 0;

  constructor(private readonly device: GPUDevice, private readonly bitmaps: ReadonlyMap<EncodedImage, ImageBitmap>,
    private readonly track: (texture: GPUTexture) => GPUTexture) {}

  /** The view of `image` in `format`, or of the 1x1 `fallback` when there is no image (or it was not decoded). */
  view(image: EncodedImage | undefined, format: GPUTextureFormat, label: string, fallback: Fallback = WHITE): GPUTextureView {
    const bitmap = image && this.bitmaps.get(image);
    const drawn = bitmap || image?.ktx2 ? image : undefined;
    const key = drawn ?? fallback.join(',');
    let byFormat = this.views.get(key);
    if (!byFormat) this.views.set(key, (byFormat = new Map()));
    let view = byFormat.get(format);
    if (!view) byFormat.set(format, (view = this.create(drawn ? label : `SkinPass.fallback.${fallback.join('.')}.${format}`, drawn, bitmap, format, fallback)));
    return view;
  }

  /** A texture of `bitmap` (or `image`'s KTX2 levels) with its full mip chain (three.js mipmaps glTF textures too), or 1x1 `fallback`. */
  private create(label: string, image: EncodedImage | undefined, bitmap: ImageBitmap | undefined, format: GPUTextureFormat, fallback: Fallback): GPUTextureView {
    let texture: GPUTexture;
    let mipmaps = !!bitmap;
    if (image?.ktx2) {
      const upload = image.ktx2.upload(this.device, format, label);
      [texture, mipmaps] = [this.track(upload.texture), upload.needsMipmaps];
      this.bytes += upload.bytes;
    } else {
      const size = bitmap ? [bitmap.width, bitmap.height] : [1, 1];
      texture = this.track(this.device.createTexture({
        label, size, format, mipLevelCount: mipLevelCount(size[0], size[1]),
        usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT,
      }));
      for (let level = 0; level < texture.mipLevelCount; level++) this.bytes += Math.max(1, size[0] >> level) * Math.max(1, size[1] >> level) * 4;
      if (bitmap) this.device.queue.copyExternalImageToTexture({ source: bitmap }, { texture }, size);
      else this.device.queue.writeTexture({ texture }, new Uint8Array(fallback), { bytesPerRow: 4 }, [1, 1]);
    }
    if (mipmaps) (this.mipmaps ??= new MipmapGenerator(this.device)).generate(texture);
    return texture.createView({ label: `${label}.view` });
  }
}
