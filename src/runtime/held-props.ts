import type { Character } from '../character/character';
import type { CrowdFeature } from './feature';
import type { MeshBuffers } from './mesh-buffers';
import type { SkinInputs, SkinPass } from './skin-pass';

// What the props feature (CrowdProps, feature name 'props') shows the impostor feature, so that
// neither imports the other (a page ships the features it uses): the props every instance holds,
// which the impostor atlas bakes into every image, and those of chosen instances with each
// instance's set of them, which it bakes into a layer a set (docs/impostors.md, "Props").

/** A prop as attached (CrowdProps.attach): held by every instance, or by chosen ones. */
export interface HeldProp {
  /** The prop (a Character from loadCharacter), drawn in its rest pose. */
  readonly prop: Character;
  /** The joint's name it was attached to. */
  readonly joint: string;
  /** The offset it was attached with (column-major, float64; identity when none was given). */
  readonly offset: Float64Array;
  /** The joint's slot in the crowd's joint matrices (Character.jointNames order). */
  readonly slot: number;
  /** inverse(inverseBind(joint)) x offset: joint matrix x local places the prop in the character's model space. */
  readonly local: Float64Array;
}

/** Bit PROP_SET_OTHERS of a prop set: its instance holds a prop of chosen instances past the first 31 (no look can show which). */
export const PROP_SET_OTHERS = 31;

/** Each slot's prop set (CrowdProps' PropSets): the CPU word and its GPU copy. */
export interface PropSetSource {
  /** `slot`'s prop set: bit i set when its instance holds heldByChosen[i]. */
  setOf(slot: number): number;
  /** A u32 per slot, made at the first upload after a slot first held a set (undefined until then); replaced on growth and restore. */
  readonly buffer: GPUBuffer | undefined;
}

/** The GPU objects that draw one attachment's prop (the impostor bake draws them into its cells). */
export interface PropDraw {
  readonly mesh: MeshBuffers;
  /** The prop's skin pass (linear skinning over its rest joints): module, layouts, materials. */
  readonly skin: SkinPass;
  /**
   * What the prop's skin pass reads (after the crowd's first encode): its rest joints, and one
   * INSTANCE record per crowd slot whose world is the prop's model-to-world (PropPass.records).
   */
  readonly inputs: SkinInputs;
}

/** The props feature as another feature sees it (CrowdKernel.feature('props')). */
export interface HeldProps extends CrowdFeature {
  /** The props every instance holds, in attach order (a new array after each change). */
  readonly heldByAll: readonly HeldProp[];
  /** The props of chosen instances (attached with `instances`), in attach order: bit i of a prop set is the i-th (a new array after each change). */
  readonly heldByChosen: readonly HeldProp[];
  /** Changes whenever `heldByAll` or `heldByChosen` does: an attach or detach, a selection set or cleared. */
  readonly heldVersion: number;
  /** Changes whenever an instance's prop set may have changed (a selection set, an attach or detach, a removal, a clear). */
  readonly holdersVersion: number;
  /** Per slot, the props of chosen instances its instance holds: bit i, heldByChosen[i] (bit 31: one past the 31st). */
  readonly propSets: PropSetSource;
  /** CrowdProps.attach, for every instance (the bake's hidden crowd attaches the same props). */
  attach(prop: Character, options: { joint: string; offset?: ArrayLike<number> }): number;
  /** The GPU objects of attachment `id` (after the crowd's first encode: its records). */
  propDraw(id: number): PropDraw;
  /**
   * Records the impostor band's props into `pass`: each prop (one of chosen instances on its holders alone), over the band
   * list (`list` from byte `offset`, `bytes` long: the slots, then their fades by slot), faded as
   * the band's meshes (skin.wgsl BAND), with `camera` (the crowd skin pass's camera uniform).
   */
  drawBand(pass: GPURenderPassEncoder, camera: GPUBuffer, list: GPUBuffer, offset: number, bytes: number): void;
}
