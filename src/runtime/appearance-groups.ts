import { vertexEntryPoint } from './skin-pass';
import type { PrimitiveBuffers } from './mesh-buffers';

/**
 * What a per-instance appearance feature hands the kernel's draws (CrowdFeature.appearance):
 * skin.wgsl's group 3. The kernel reads it, never owns it.
 */
export interface AppearanceSource {
  /** One Appearance record per instance slot (skin.wgsl `appearances`); replaced on growth and restore. */
  readonly buffer: GPUBuffer;
  /** The variant base-colour textures, a texture_2d_array view (skin.wgsl `appearanceVariants`); replaced on restore. */
  readonly variants: GPUTextureView;
  /** Bit p set: primitive p takes its base colour from the variant array for variants >= 1. */
  readonly variedPrimitives: number;
  /**
   * The images behind `variants` (layer k: variants[k]; RGBA8, sRGB-encoded, one size), for a
   * renderer that makes its own texture of them (crowd-skin/three's shading 'three'). Not copied:
   * the source keeps them unchanged. Without it, that renderer refuses the source.
   */
  readonly variantImages?: readonly RgbaImage[];
  /**
   * Byte offsets in a record, for a draw that reads the records itself (WebGL 2's, which fetches
   * them from a texture): its size (a multiple of 16), `tint` (3 f32, 16-byte aligned), `variant`
   * and `parts` (u32). Without it, that draw refuses the source.
   */
  readonly layout?: AppearanceLayout;
  /** The looks the live instances have, for a draw that bakes one image set per look (CrowdImpostors). Without it, that draw treats every instance as the plain look. */
  readonly looks?: AppearanceLooks;
}

/**
 * What makes an instance's image apart from its tint: its (variant, parts), counted over the live
 * instances (AppearanceSource.looks). A look's key is variant x 2^32 + parts, the variant written
 * 0 where none of the parts shown is varied (it changes nothing there).
 */
export interface AppearanceLooks {
  /** Changes whenever a slot's variant or parts may have changed (a set, an add, a remove, a move, growth): count again then. */
  readonly version: number;
  /** Adds to `out` the instances of each look among slots [0, `count`) (the live ones). O(count); allocation-free for keys `out` holds. */
  count(count: number, out: Map<number, number>): void;
  /** The look key of `slot`'s instance (variant x 2^32 + parts, the variant 0 where none of its parts is varied). */
  keyOf(slot: number): number;
}

/** Byte offsets in an appearance record (AppearanceSource.layout). */
export interface AppearanceLayout {
  /** Bytes of one record, a multiple of 16. */
  readonly size: number;
  /** Linear RGB tint, 3 f32 at a 16-byte boundary. */
  readonly tint: number;
  /** u32: 0 the material's own base colour, k >= 1 variant image k - 1. */
  readonly variant: number;
  /** u32: bit p set, primitive p is drawn. */
  readonly parts: number;
}

/** An RGBA8 image (4 bytes a texel, rows top to bottom): an ImageData fits. */
export interface RgbaImage {
  /** Texels per row, >= 1. */
  readonly width: number;
  /** Rows, >= 1. */
  readonly height: number;
  /** width x height x 4 bytes: R, G, B, A per texel. */
  readonly data: Uint8Array | Uint8ClampedArray;
}

/** The primitive uniform (skin.wgsl AppearancePrimitive): index u32, varied u32, padded to 16 bytes. */
const PRIMITIVE_UNIFORM_BYTES = 16;

/**
 * skin.wgsl's group 3 for a crowd with per-instance appearance: its layout, a depth-only pipeline
 * layout for the shadow map (groups 0, 1, an empty 2, and 3), and one bind group per primitive
 * (its index and whether it is varied, plus the source's records and variants). The groups are
 * re-made when the source replaces its buffer or view (growth, restore), checked once per pass
 * by refresh(). Made by SkinPass only when a feature provides an AppearanceSource, so a plain
 * crowd has none of it. Owns its uniforms.
 */
export class AppearanceGroups {
  readonly layout: GPUBindGroupLayout;
  /** Groups 0 to 3 without the shadow group (an empty group 2): the shadow map's depth-only draws. */
  readonly depthLayout: GPUPipelineLayout;
  /** The empty group 2 the depth-only draws bind (a pipeline layout's every group must be bound). */
  readonly emptyGroup: GPUBindGroup;
  /** Per primitive, in MeshBuffers order (valid after refresh()). */
  readonly groups: GPUBindGroup[] = [];
  private readonly uniforms: GPUBuffer[];
  private readonly sampler: GPUSampler;
  private boundBuffer: GPUBuffer | undefined;
  private boundVariants: GPUTextureView | undefined;

  constructor(private readonly device: GPUDevice, private readonly source: AppearanceSource, primitiveCount: number,
    frameLayout: GPUBindGroupLayout, materialLayout: GPUBindGroupLayout) {
    const both = GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT;
    this.layout = device.createBindGroupLayout({
      label: 'AppearanceGroups.layout',
      entries: [
        { binding: 0, visibility: both, buffer: { type: 'uniform' } },
        { binding: 1, visibility: both, buffer: { type: 'read-only-storage' } },
        { binding: 2, visibility: GPUShaderStage.FRAGMENT, texture: { viewDimension: '2d-array' } },
        { binding: 3, visibility: GPUShaderStage.FRAGMENT, sampler: {} },
      ],
    });
    const empty = device.createBindGroupLayout({ label: 'AppearanceGroups.emptyLayout', entries: [] });
    this.emptyGroup = device.createBindGroup({ label: 'AppearanceGroups.empty', layout: empty, entries: [] });
    this.depthLayout = device.createPipelineLayout({ label: 'AppearanceGroups.depthLayout', bindGroupLayouts: [frameLayout, materialLayout, empty, this.layout] });
    // Trilinear: the variants have their mip chains (VariantTextures), as glTF's default sampler filters the materials' own.
    this.sampler = device.createSampler({ label: 'AppearanceGroups.sampler', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear', addressModeU: 'repeat', addressModeV: 'repeat' });
    this.uniforms = Array.from({ length: primitiveCount }, (_, p) => {
      const buffer = device.createBuffer({ label: `AppearanceGroups.primitive${p}`, size: PRIMITIVE_UNIFORM_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(buffer, 0, new Uint32Array([p, (source.variedPrimitives >>> p) & 1, 0, 0]));
      return buffer;
    });
  }

  /** The skin.wgsl vertex entry point that draws `buffers` with appearance (the plain one's name + 'Appearance'). */
  entryPoint(buffers: PrimitiveBuffers): string {
    return `${vertexEntryPoint(buffers)}Appearance`;
  }

  /** Re-makes the per-primitive groups when the source's buffer or view changed since the last call. Allocation-free otherwise. */
  refresh(): readonly GPUBindGroup[] {
    const { buffer, variants } = this.source;
    if (buffer === this.boundBuffer && variants === this.boundVariants) return this.groups;
    this.boundBuffer = buffer;
    this.boundVariants = variants;
    this.groups.length = 0;
    this.uniforms.forEach((uniform, p) => this.groups.push(this.device.createBindGroup({
      label: `AppearanceGroups.group${p}`, layout: this.layout,
      entries: [
        { binding: 0, resource: { buffer: uniform } },
        { binding: 1, resource: { buffer } },
        { binding: 2, resource: variants },
        { binding: 3, resource: this.sampler },
      ],
    })));
    return this.groups;
  }

  destroy(): void {
    for (const uniform of this.uniforms) uniform.destroy();
  }
}
