import type { Character } from '../../character/character';
import { checkF32, type F32Range } from '../../math/float32';
import { show } from '../../math/show';
import type { AppearanceSource } from '../../runtime/appearance-groups';
import type { Crowd } from '../../runtime/crowd';
import type { InstanceId } from '../../runtime/crowd-types';
import type { CrowdFeature, CrowdKernel } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import { APPEARANCE, APPEARANCE_MAX_PARTS } from './appearance-layout';
import { AppearanceStore } from './appearance-store';
import { VariantTextures, type AppearanceImage } from './variant-textures';

export type { AppearanceImage } from './variant-textures';

/** Options of CrowdAppearance. */
export interface AppearanceOptions {
  /**
   * Base-colour variants 1 to n: RGBA8 images of one size, sRGB-encoded like glTF base-colour
   * textures (an ImageData fits), laid out on the character's UVs. Variant 0 is always each
   * material's own base colour. Default: none (variants then only ever 0).
   */
  variants?: readonly AppearanceImage[];
  /**
   * The parts (primitive indices or names, CrowdAppearance.parts) whose base-colour texture the
   * variants replace. Default: every primitive whose material has a base-colour texture.
   */
  variantParts?: readonly (number | string)[];
}

/** One instance's appearance, for CrowdAppearance.set (fields left out keep their value). */
export interface InstanceAppearance {
  /** Linear RGB multiplier of the base colour, each >= 0 (default [1, 1, 1]). */
  tint?: readonly [number, number, number] | Float32Array;
  /** 0: the materials' own base colour; k in [1, variantCount): variant image k - 1. */
  variant?: number;
  /** Bit p set: part (primitive) p is drawn; a mask from CrowdAppearance.partMask. */
  parts?: number;
}

/**
 * Per-instance appearance, a crowd feature: `const looks = new CrowdAppearance(crowd, options)`.
 * Each instance gets a tint (multiplies its base colour, linear RGB), a base-colour variant (a
 * layer of a texture array made from `options.variants`) and a mask of the mesh primitives
 * ("parts": heads, hats, props modelled into the character) it draws, set by id like any other
 * record field and allocation-free. Its per-instance scale is Crowd.setPlacement's `scale`. The
 * records live beside the instance records (AppearanceStore); the skin pass draws through
 * skin.wgsl's *Appearance entry points and group 3 (src/runtime/appearance-groups.ts) only
 * while this feature exists, so a crowd without it pays nothing. The shadow map uses the same
 * mask (a hidden part casts no shadow), every LOD level too (a level simplifies each primitive
 * on its own, so part p is part p at every level), and the cull pass culls whole instances as
 * before. Props (CrowdProps) are meshes of their own and are not masked or tinted. On a WebGL 2
 * crowd (GLCrowd) the records are a record texture on the crowd's record device, which the GL
 * draw fetches (GLSkinPass's appearance), and the variant images become its texture array.
 */
export class CrowdAppearance implements CrowdFeature {
  readonly featureName = 'appearance';
  /** Runs on WebGL 2 too: its records become a record texture there, which the GL draw fetches (GLSkinPass's appearance). */
  readonly onWebGL2 = true;
  /** @internal The records, slot by slot beside the instance records. */
  readonly store: AppearanceStore;
  /** The character's parts (mesh primitives) in draw order: the node's name, with `#k` for its mesh's k-th primitive when it has several. */
  readonly parts: readonly string[];
  /** Mask with every part set. */
  readonly allParts: number;
  private readonly kernel: CrowdKernel;
  private readonly instances: InstanceStore;
  private readonly textures: VariantTextures;
  private readonly varied: number;
  private source: AppearanceSource | undefined;

  /** Installs per-instance appearance on `crowd`; a RangeError naming what is wrong with `options` (nothing is installed then). */
  constructor(crowd: Pick<Crowd, 'character' | 'install'>, options: AppearanceOptions = {}) {
    const character = crowd.character;
    this.parts = partNames(character);
    if (this.parts.length > APPEARANCE_MAX_PARTS) {
      throw new RangeError(`${character.name} has ${this.parts.length} mesh primitives; CrowdAppearance masks at most ${APPEARANCE_MAX_PARTS} (one bit each)`);
    }
    this.allParts = this.parts.length === 32 ? 0xffffffff : (2 ** this.parts.length) - 1;
    const variants = options.variants ?? [];
    VariantTextures.check(variants);
    const textured = character.rig.primitives.flatMap((p, i) => (p.material.baseColorImage ? [i] : []));
    this.varied = options.variantParts ? this.partMask(options.variantParts) : textured.reduce((mask, p) => (mask | (1 << p)) >>> 0, 0);
    this.kernel = crowd.install(this);
    this.instances = this.kernel.store;
    const gl = this.kernel.backend === 'webgl2';
    this.textures = new VariantTextures(gl ? undefined : this.kernel.device, variants);
    this.store = new AppearanceStore(this.kernel.recordDevice, this.instances.capacity, this.allParts);
    this.instances.attach(this.store);
    // The kernel's skin and shadow passes switch to the appearance entry points.
    this.kernel.rebuildPasses();
  }

  /** Variants an instance may choose: 1 (its own base colour) + the images given. */
  get variantCount(): number {
    return this.textures.count + 1;
  }

  /** CrowdFeature: what the skin and shadow passes bind (skin.wgsl group 3). */
  get appearance(): AppearanceSource {
    const self = this;
    return this.source ??= {
      get buffer() { return self.store.buffer; },
      get variants() { return self.textures.view; },
      variedPrimitives: this.varied,
      variantImages: this.textures.images,
      layout: APPEARANCE,
      looks: {
        get version() { return self.store.looksVersion; },
        count: (count, out) => this.store.countLooks(count, this.varied, out),
        keyOf: (slot) => this.store.lookKey(slot, this.varied),
      },
    };
  }

  /** CrowdFeature: the variant textures on the new device (the store's records are restored by the instance store). */
  restore(device: GPUDevice): void {
    if (this.kernel.backend === 'webgpu') this.textures.restore(device);
  }

  /** CrowdFeature: frees the variant textures (the records go with the instance store). */
  destroy(): void {
    this.textures.destroy();
  }

  /** Multiplies instance `id`'s base colour by (r, g, b), linear, each in [0, 1e6] (1, 1, 1: none). Allocation-free. */
  setTint(id: InstanceId, r: number, g: number, b: number): void {
    const slot = this.instances.slotOfId(id);
    checkChannel(r, 'tint red');
    checkChannel(g, 'tint green');
    checkChannel(b, 'tint blue');
    this.store.setTint(slot, r, g, b);
  }

  /** Instance `id` draws with base-colour variant `variant` (0: its materials' own; [1, variantCount): an image). Allocation-free. */
  setVariant(id: InstanceId, variant: number): void {
    const slot = this.instances.slotOfId(id);
    this.checkVariant(variant);
    this.store.setVariant(slot, variant);
  }

  /** Instance `id` draws the parts whose bits `parts` sets (partMask; 0 draws nothing, allParts everything). Allocation-free. */
  setParts(id: InstanceId, parts: number): void {
    const slot = this.instances.slotOfId(id);
    this.checkParts(parts);
    this.store.setParts(slot, parts);
  }

  /** Sets the fields of `look` given for instance `id`; every field is checked before anything changes. */
  set(id: InstanceId, look: InstanceAppearance): void {
    const slot = this.instances.slotOfId(id);
    if (typeof look !== 'object' || look === null) throw new TypeError(`appearance must be an object { tint?, variant?, parts? }, got ${show(look)}`);
    const { tint, variant, parts } = look;
    if (tint !== undefined) {
      if (tint?.length !== 3) throw new RangeError(`tint must have 3 numbers (linear r, g, b), got ${show(tint)}`);
      tint.forEach((c, i) => checkChannel(c, `tint element ${i}`));
    }
    if (variant !== undefined) this.checkVariant(variant);
    if (parts !== undefined) this.checkParts(parts);
    if (tint !== undefined) this.store.setTint(slot, tint[0], tint[1], tint[2]);
    if (variant !== undefined) this.store.setVariant(slot, variant);
    if (parts !== undefined) this.store.setParts(slot, parts);
  }

  /** Instance `id`'s tint into `out`. */
  getTint(id: InstanceId, out: Float32Array | number[] = new Float32Array(3)): Float32Array | number[] {
    this.store.tintOf(this.instances.slotOfId(id), out);
    return out;
  }

  /** Instance `id`'s base-colour variant. */
  getVariant(id: InstanceId): number {
    return this.store.variantOf(this.instances.slotOfId(id));
  }

  /** Instance `id`'s parts mask. */
  getParts(id: InstanceId): number {
    return this.store.partsOf(this.instances.slotOfId(id));
  }

  /** The mask of `parts` (indices into CrowdAppearance.parts, or their names); a RangeError naming an unknown one. */
  partMask(parts: readonly (number | string)[]): number {
    let mask = 0;
    for (const part of parts) {
      const index = typeof part === 'number' ? part : this.parts.indexOf(part);
      if (!Number.isInteger(index) || index < 0 || index >= this.parts.length) {
        throw new RangeError(`no part ${show(part)} (parts: ${this.parts.map((p, i) => `${i} ${p}`).join(', ')})`);
      }
      mask = (mask | (1 << index)) >>> 0;
    }
    return mask;
  }

  private checkVariant(variant: number): void {
    if (!Number.isInteger(variant) || variant < 0 || variant >= this.variantCount) {
      throw new RangeError(`variant must be an integer in [0, ${this.variantCount}) (0: the materials' own base colour; ${this.textures.count} variant images), got ${show(variant)}`);
    }
  }

  private checkParts(parts: number): void {
    if (!Number.isInteger(parts) || parts < 0 || parts > this.allParts) {
      throw new RangeError(`parts must be an integer mask in [0, ${this.allParts}] (bit p: part p of ${this.parts.length}: ${this.parts.join(', ')}), got ${show(parts)}`);
    }
  }
}

function checkChannel(value: number, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a finite number >= 0 (linear), got ${show(value)}`);
  checkF32(value, what, TINT, 'float32 on the GPU: skin.wgsl multiplies it by the colour and the lights');
}

/**
 * A tint channel's bound: the skin shader multiplies it by the texel, the material's factor (both
 * at most 1) and the lights, so a pixel stays finite in float32 for any light under 1e30 (a tint
 * of 1e39 was Infinity there).
 */
const TINT: F32Range = { min: 0, max: 1e6 };

/** Each primitive's part name: its node's name, `#k` added when its mesh has several primitives. */
function partNames(character: Character): string[] {
  const { primitives } = character.rig;
  const perNode = new Map<number, number>();
  for (const p of primitives) perNode.set(p.gltfNode, (perNode.get(p.gltfNode) ?? 0) + 1);
  return primitives.map((p) => (p.nodeName ?? `node${p.gltfNode}`) + ((perNode.get(p.gltfNode) ?? 0) > 1 ? `#${p.primitiveIndex}` : ''));
}
