import { show } from '../../math/show';
import { MipmapGenerator, mipLevelCount } from '../../runtime/mipmaps';

/** An RGBA8 image (4 bytes a texel, rows top to bottom, sRGB-encoded): an ImageData fits. */
export interface AppearanceImage {
  /** Texels per row, >= 1. */
  readonly width: number;
  /** Rows, >= 1. */
  readonly height: number;
  /** width x height x 4 bytes: R, G, B, A per texel. */
  readonly data: Uint8Array | Uint8ClampedArray;
}

/**
 * The base-colour variants of CrowdAppearance as one rgba8unorm-srgb texture_2d_array (layer k:
 * variant k + 1), or a 1 x 1 white layer when there are none (the binding must exist). Each layer
 * has its full mip chain (made on the GPU, as the materials' textures have), so a variant far away
 * is filtered as the material's own texture is, not aliased (and matches its impostor, baked
 * filtered). Owns the texture; re-made on restore.
 */
export class VariantTextures {
  private texture: GPUTexture | undefined;
  private textureView: GPUTextureView | undefined;

  /** Throws a RangeError naming the first image that is not RGBA8 of the first's size. */
  static check(images: readonly AppearanceImage[]): void {
    if (!Array.isArray(images)) throw new TypeError(`variants must be an array of images, got ${show(images)}`);
    const first = images[0];
    images.forEach((image, i) => {
      const ok = image && Number.isInteger(image.width) && image.width > 0 && Number.isInteger(image.height) && image.height > 0 && image.data?.length === image.width * image.height * 4;
      if (!ok) throw new RangeError(`variants[${i}] must be { width, height, data } with width x height x 4 bytes (RGBA8), got ${image ? `${show(image.width)} x ${show(image.height)}, ${show(image.data?.length)} bytes` : show(image)}`);
      if (image.width !== first.width || image.height !== first.height) {
        throw new RangeError(`variants[${i}] is ${image.width} x ${image.height}, variants[0] is ${first.width} x ${first.height}: every variant needs the same size (one texture array)`);
      }
    });
  }

  /**
   * `images`: the variants as given, kept (not copied) for restore and for renderers that make
   * their own texture of them. `device` undefined (a WebGL 2 crowd, whose draw makes its own
   * texture array of the images): no GPU texture is made.
   */
  constructor(private device: GPUDevice | undefined, readonly images: readonly AppearanceImage[]) {
    if (device) this.create();
  }

  /** Variant images held (layers, 0 when the stand-in is). */
  get count(): number {
    return this.images.length;
  }

  /** The 2d-array view skin.wgsl's `appearanceVariants` binds. Owned; replaced on restore. */
  get view(): GPUTextureView {
    if (!this.textureView) throw new Error('CrowdAppearance: a WebGL 2 crowd has no WebGPU variant texture (its draw makes its own of the images)');
    return this.textureView;
  }

  restore(device: GPUDevice): void {
    this.device = device;
    this.create();
  }

  destroy(): void {
    this.texture?.destroy();
  }

  private create(): void {
    if (!this.device) return;
    const [width, height] = this.images.length > 0 ? [this.images[0].width, this.images[0].height] : [1, 1];
    const layers = Math.max(1, this.images.length);
    this.texture = this.device.createTexture({
      label: 'CrowdAppearance.variants', size: [width, height, layers], format: 'rgba8unorm-srgb', mipLevelCount: mipLevelCount(width, height),
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT,
    });
    const white = new Uint8Array([255, 255, 255, 255]);
    const mipmaps = this.texture.mipLevelCount > 1 ? new MipmapGenerator(this.device) : undefined;
    for (let layer = 0; layer < layers; layer++) {
      const data = (this.images[layer]?.data ?? white) as Uint8Array<ArrayBuffer>;
      this.device.queue.writeTexture({ texture: this.texture, origin: [0, 0, layer] }, data, { bytesPerRow: width * 4 }, [width, height, 1]);
      mipmaps?.generate(this.texture, layer);
    }
    this.textureView = this.texture.createView({ label: 'CrowdAppearance.variants.view', dimension: '2d-array' });
  }
}
