/**
 * Per-instance appearance on WebGL 2 (the twin of src/runtime/appearance-groups.ts): what a
 * per-instance appearance feature hands GLSkinPass, and the pass's side of it (the variant
 * images as one TEXTURE_2D_ARRAY, its sampler, the shader's #defines). The records' byte layout
 * comes with the source (the feature's APPEARANCE), so this layer names no feature.
 */
import type { RgbaImage } from '../runtime/appearance-groups';
import type { GLRecordTexture } from './record-texture';

/** What a per-instance appearance feature hands GLSkinPass (GLSkinPassOptions.appearance). Read, never owned. */
export interface GLAppearanceSource {
  /** One appearance record per instance slot, `layout.size` bytes each. */
  readonly records: GLRecordTexture;
  /**
   * Byte offsets in a record: its size (a multiple of 16), `tint` (linear RGB, 3 f32 at a 16-byte
   * boundary), `variant` (u32: 0 the material's own base colour, k >= 1 variant image k - 1) and
   * `parts` (u32: bit p set, primitive p is drawn).
   */
  readonly layout: { readonly size: number; readonly tint: number; readonly variant: number; readonly parts: number };
  /** The variant base-colour images (RGBA8, sRGB-encoded, one size); empty: none. Uploaded once at GLSkinPass's creation. */
  readonly variantImages: readonly RgbaImage[];
  /** Bit p set: primitive p takes its base colour from the variant images for variants >= 1. */
  readonly variedPrimitives: number;
}

/** GLSkinPass's side of an appearance source: the variant texture array (owned), its sampler, the #defines. */
export class GLAppearance {
  /** The variant images (SRGB8_ALPHA8, one level; a 1x1 white layer when there are none). */
  readonly variants: WebGLTexture;
  /** Linear, repeat, no mips (the WebGPU appearance sampler). */
  readonly sampler: WebGLSampler;
  /** skin.*.glsl's APPEARANCE defines: the record's texels and words. */
  readonly defines: Record<string, number>;

  /** Checks the source's layout (naming what is wrong) and uploads its variant images. */
  constructor(private readonly gl: WebGL2RenderingContext, readonly source: GLAppearanceSource) {
    const { size, tint, variant, parts } = source.layout;
    if (!(size > 0 && size % 16 === 0) || tint % 16 !== 0 || [tint, variant, parts].some((o) => !(o >= 0 && o % 4 === 0 && o < size))) {
      throw new RangeError(`GLSkinPass: appearance.layout must have a size that is a multiple of 16, tint at a 16-byte boundary and every offset inside the record, got ${JSON.stringify(source.layout)}`);
    }
    const images = source.variantImages;
    const [width, height] = images.length > 0 ? [images[0].width, images[0].height] : [1, 1];
    images.forEach((image, i) => {
      if (image.width !== width || image.height !== height || image.data.length !== width * height * 4) {
        throw new RangeError(`GLSkinPass: appearance.variantImages[${i}] must be RGBA8 of variantImages[0]'s size (${width} x ${height})`);
      }
    });
    this.defines = { APPEARANCE: 1, APPEARANCE_TEXELS: size / 16, APPEARANCE_TINT: tint / 4, APPEARANCE_VARIANT: variant / 4, APPEARANCE_PARTS: parts / 4 };
    this.variants = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, this.variants);
    const layers = Math.max(1, images.length);
    // A mip chain, filtered trilinearly, as the WebGPU variants (VariantTextures) and glTF's default sampler on the materials' own textures.
    gl.texStorage3D(gl.TEXTURE_2D_ARRAY, Math.floor(Math.log2(Math.max(width, height))) + 1, gl.SRGB8_ALPHA8, width, height, layers);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    for (let layer = 0; layer < layers; layer++) {
      const data = images[layer]?.data ?? new Uint8Array([255, 255, 255, 255]);
      gl.texSubImage3D(gl.TEXTURE_2D_ARRAY, 0, 0, 0, layer, width, height, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(data.buffer, data.byteOffset, data.length));
    }
    gl.generateMipmap(gl.TEXTURE_2D_ARRAY);
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, null);
    this.sampler = gl.createSampler();
    for (const [name, value] of [[gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR], [gl.TEXTURE_MAG_FILTER, gl.LINEAR], [gl.TEXTURE_WRAP_S, gl.REPEAT], [gl.TEXTURE_WRAP_T, gl.REPEAT]]) {
      gl.samplerParameteri(this.sampler, name, value);
    }
  }

  /** Whether primitive `index` takes variant images (GLAppearanceSource.variedPrimitives). */
  varied(index: number): number {
    return (this.source.variedPrimitives >>> index) & 1;
  }

  destroy(): void {
    this.gl.deleteTexture(this.variants);
    this.gl.deleteSampler(this.sampler);
  }
}
