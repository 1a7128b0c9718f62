/**
 * Per-instance appearance under shading 'three' (CrowdFeature.appearance, docs/appearance.md):
 * the tint multiplies the base colour, a variant >= 1 replaces the base-colour texture of the
 * varied primitives by a layer of the variant images, and the parts mask hides the primitives an
 * instance does not draw, in three's colour and shadow passes alike, as skin.wgsl's *Appearance
 * entry points do under the default shading. Made by ThreeShading only while a feature provides
 * an AppearanceSource (CrowdKernel.draws.appearance), so a crowd without one pays nothing; of the
 * appearance feature this file imports the record's layout (APPEARANCE) only, no code.
 *
 * How: on WebGPU the source's records (APPEARANCE, 32 bytes a slot) are copied into a three-owned
 * storage buffer in the crowd's command encoder, as the joints are (ThreeAppearance); on three's
 * WebGL 2 backend they are read where the GL crowd keeps them, its record texture wrapped as a
 * three ExternalTexture (ThreeGLAppearance, three-gl-appearance.ts). Both share the nodes below
 * (AppearanceNodes: one copy of the look for both backends); the variant images become a three
 * DataArrayTexture. The material's `colorNode` is wrapped: the base colour three would use (your
 * colorNode, else the material's colour x map) is replaced by colour x variant texel where the
 * instance's variant applies, then multiplied by the tint (passed from the vertex stage). A
 * hidden part's vertices all go to one point (zero-area triangles, nothing rasterised), in the
 * position node, which three's shadow pass draws too, so a hidden part casts no shadow. Owns its
 * storage attribute and texture; wraps, never copies, the materials.
 */
import { float, materialColor, max, reference, round, select, storage, texture, uint, uintBitsToFloat, uv, varying, vec3, vec4 } from 'three/tsl';
import { DataArrayTexture, LinearFilter, RepeatWrapping, SRGBColorSpace, StorageBufferAttribute, type NodeMaterial } from 'three/webgpu';
import { APPEARANCE } from '../features/appearance/appearance-layout';
import type { AppearanceSource } from '../runtime/appearance-groups';
import type { WebGpuBackend } from './backend';
import { CopiedBuffer } from './copied-buffer';
import type { TslNode } from './three-skinning';

const PREFIX = 'crowd-skin/three';
/** uvec4 per appearance record (APPEARANCE, the layout's constants only: no feature code): the tint's bits, then (variant, parts, 0, 0). */
const RECORD_UVEC4S = APPEARANCE.size / 16;
const RECORD_BYTES = APPEARANCE.size;
const COMPONENTS = ['x', 'y', 'z', 'w'] as const;
/** The uvec4 of a record holding the u32 at byte `offset`, and its component. */
const word = (offset: number) => ({ vec: offset >> 4, component: COMPONENTS[(offset & 15) >> 2] });
const TINT = word(APPEARANCE.tint);
const VARIANT = word(APPEARANCE.variant);
const PARTS = word(APPEARANCE.parts);
/** What a NodeMaterial's colorNode holds. */
type ColorNode = NonNullable<NodeMaterial['colorNode']>;

/**
 * three's side of a crowd's per-instance appearance, on either backend: the variant texture and the
 * nodes (the parts mask, the wrapped colour). Where the records are read is the subclass's `record`.
 */
export abstract class AppearanceNodes {
  private readonly variants: DataArrayTexture;
  /** Per wrapped material: the colorNode it had (null: three's own base colour) and the one set here. */
  private readonly wrapped = new Map<NodeMaterial, { inner: ColorNode | null; outer: ColorNode }>();

  /** `source`: the feature's records and variants (not owned); a RangeError when it gives no variantImages. */
  constructor(protected readonly source: AppearanceSource) {
    const images = source.variantImages;
    if (!images) {
      throw new RangeError(`${PREFIX}: shading 'three' makes its own texture of the appearance variants, and this appearance source gives no variantImages (AppearanceSource)`);
    }
    const [width, height] = images.length > 0 ? [images[0].width, images[0].height] : [1, 1];
    const layers = Math.max(1, images.length);
    const data = new Uint8Array(width * height * 4 * layers).fill(255); // no images: one white layer (never sampled)
    images.forEach((image, k) => data.set(image.data, k * width * height * 4));
    this.variants = new DataArrayTexture(data, width, height, layers);
    // As the default shading's VariantTextures: rgba8unorm-srgb, linear filtering, repeat, no mipmaps.
    this.variants.colorSpace = SRGBColorSpace;
    this.variants.magFilter = this.variants.minFilter = LinearFilter;
    this.variants.wrapS = this.variants.wrapT = RepeatWrapping;
    this.variants.generateMipmaps = false;
    this.variants.needsUpdate = true;
  }

  /** Whether instance `slot` draws primitive `primitive` (its bit in the parts mask). */
  shown(slot: TslNode<'uint'>, primitive: TslNode<'uint'>): TslNode<'bool'> {
    const record = this.record(slot.mul(uint(RECORD_UVEC4S)).add(uint(PARTS.vec)));
    return record[PARTS.component].shiftRight(primitive).bitAnd(uint(1)).notEqual(uint(0));
  }

  /**
   * Wraps each material's colorNode (again when it was replaced since: your later edits apply,
   * under the tint). Call after the records were (re)allocated, with the same `slot` and
   * `primitive` nodes as the position node's.
   */
  wrap(materials: readonly NodeMaterial[], slot: TslNode<'uint'>, primitive: TslNode<'uint'>, rebuild = false): void {
    for (let i = 0; i < materials.length; i++) {
      const material = materials[i];
      const held = this.wrapped.get(material);
      if (held && !rebuild && material.colorNode === held.outer) continue;
      const inner = held && material.colorNode === held.outer ? held.inner : material.colorNode;
      const outer = this.colorNode(material, inner, slot, primitive);
      this.wrapped.set(material, { inner, outer });
      material.colorNode = outer;
      material.needsUpdate = true;
    }
  }

  /** Gives each wrapped material its own colorNode back (the crowd is destroyed). */
  unwrap(): void {
    for (const [material, { inner, outer }] of this.wrapped) {
      if (material.colorNode === outer) material.colorNode = inner;
    }
    this.wrapped.clear();
  }

  /** Bytes of the variant texture. */
  get variantBytes(): number {
    const image = this.variants.image as { width: number; height: number; depth: number };
    return image.width * image.height * image.depth * 4;
  }

  /** Gives the materials their colorNodes back and frees the variant texture. */
  destroy(): void {
    this.unwrap();
    this.variants.dispose();
  }

  /** The records' uvec4 number `index` (slot x RECORD_UVEC4S + k), read in the vertex stage. */
  protected abstract record(index: TslNode<'uint'>): TslNode<'uvec4'>;

  /** The base colour of instance `slot`: `inner` (or the material's colour x map), or colour x its variant's texel, times its tint. */
  private colorNode(material: NodeMaterial, inner: ColorNode | null, slot: TslNode<'uint'>, primitive: TslNode<'uint'>): ColorNode {
    const first = slot.mul(uint(RECORD_UVEC4S));
    const tintBits = this.record(first.add(uint(TINT.vec))); // x, y, z: r, g, b (TINT.component is x)
    // Read in the vertex stage (where the slot is), passed on: constant over each instance.
    const bits = (word: TslNode<'uint'>) => uintBitsToFloat(word) as unknown as TslNode<'float'>;
    const tint = varying(vec3(bits(tintBits.x), bits(tintBits.y), bits(tintBits.z)));
    const variant = varying(float(this.record(first.add(uint(VARIANT.vec)))[VARIANT.component]));
    const varied = uint(this.source.variedPrimitives >>> 0).shiftRight(primitive).bitAnd(uint(1)).notEqual(uint(0));
    const own = vec4((inner ?? materialColor) as TslNode<'vec4'>);
    const layer = max(round(variant), 1).sub(1).toInt();
    const texel = texture(this.variants, uv()).depth(layer);
    // The wrapped material's own colour, not the drawing one's: three's shadow pass draws this node
    // with its depth material (for the alpha), which has no colour.
    const factor = reference('color', 'color', material) as unknown as TslNode<'vec3'>;
    const fromVariant = vec4(factor.mul(texel.rgb), texel.a);
    const base = select(variant.greaterThan(0.5).and(varied), fromVariant, own);
    return vec4(base.rgb.mul(tint), base.a);
  }
}

/** Per-instance appearance under shading 'three' on WebGPU: the source's records copied into a three-owned storage buffer. */
export class ThreeAppearance extends AppearanceNodes {
  /** Three's copy of the source's records. */
  private readonly records: CopiedBuffer;

  /** `source`: the feature's records and variants (not owned); a RangeError when it gives no variantImages. */
  constructor(source: AppearanceSource, backend: WebGpuBackend, capacity: number) {
    super(source);
    this.records = new CopiedBuffer(backend, 'crowd appearance records');
    this.allocate(capacity);
  }

  /** Three's record buffer for `capacity` slots (the old one freed): call when the crowd grows, then rebuild the nodes. */
  allocate(capacity: number): void {
    this.records.replace(new StorageBufferAttribute(new Uint32Array(Math.max(1, capacity) * RECORD_UVEC4S * 4), 4));
  }

  /** Copies the records of slots [0, count) from the source (uploaded by the crowd's update). */
  encode(encoder: GPUCommandEncoder, count: number): void {
    this.records.copy(encoder, this.source.buffer, count * RECORD_BYTES);
  }

  /** Bytes of three's record buffer and variant texture. */
  get gpuBytes(): number {
    return this.records.size + this.variantBytes;
  }

  override destroy(): void {
    super.destroy();
    this.records.destroy();
  }

  protected record(index: TslNode<'uint'>): TslNode<'uvec4'> {
    const records = this.records.attribute;
    return storage(records, 'uvec4', records.count).toReadOnly().element(index) as unknown as TslNode<'uvec4'>;
  }
}
