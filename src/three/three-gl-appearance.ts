/**
 * Per-instance appearance (tint, base-colour variant, parts mask) under shading 'three' on three's
 * WebGL 2 backend: the same nodes as on WebGPU (AppearanceNodes, three-appearance.ts), reading the
 * records where the GL crowd keeps them, the appearance feature's record texture (RGBA32UI, on the
 * crowd's record device: uploaded by the crowd's update where they changed, as the GL draw reads
 * them), wrapped as a three ExternalTexture as the joint rows are (three-gl-shading.ts): nothing
 * is copied. Owns the ExternalTexture and the variant texture, not the record texture.
 */
import { ExternalTexture, NearestFilter, RGBAIntegerFormat, UnsignedIntType } from 'three/webgpu';
import { ivec2, textureLoad, uniform } from 'three/tsl';
import type { AppearanceSource } from '../runtime/appearance-groups';
import { GLRecordTexture } from '../webgl2/record-texture';
import { AppearanceNodes } from './three-appearance';
import type { TslNode } from './three-skinning';

const PREFIX = 'crowd-skin/three';

/** three's side of a GL crowd's per-instance appearance. */
export class ThreeGLAppearance extends AppearanceNodes {
  private readonly texture = new ExternalTexture(null);
  /** Texels per row of the record texture. */
  private readonly width = uniform(1, 'uint');

  /** `source`: the feature's records (a record texture on the crowd's context) and variants (not owned). */
  constructor(source: AppearanceSource) {
    super(source);
    const texture = this.texture;
    texture.name = 'crowd appearance records';
    texture.type = UnsignedIntType;
    texture.format = RGBAIntegerFormat;
    texture.minFilter = texture.magFilter = NearestFilter;
    texture.generateMipmaps = false;
    texture.flipY = false;
    this.refresh();
  }

  /** Points the ExternalTexture at the records' texture as it is now (a grown or restored one is a new WebGLTexture). Allocation-free. */
  refresh(): void {
    const records = this.source.buffer as unknown;
    if (!(records instanceof GLRecordTexture)) throw new Error(`${PREFIX}: the appearance source's records are not a record texture on the crowd's WebGL 2 context`);
    if (this.texture.sourceTexture !== records.texture) {
      this.texture.sourceTexture = records.texture;
      this.texture.needsUpdate = true;
    }
    this.width.value = records.width;
  }

  /** Bytes three holds for it: the variant texture (the records are the crowd's). */
  get gpuBytes(): number {
    return this.variantBytes;
  }

  override destroy(): void {
    super.destroy();
    this.texture.dispose();
  }

  protected record(index: TslNode<'uint'>): TslNode<'uvec4'> {
    const width = this.width as unknown as TslNode<'uint'>;
    return textureLoad(this.texture, ivec2(index.mod(width).toInt(), index.div(width).toInt())) as unknown as TslNode<'uvec4'>;
  }
}
