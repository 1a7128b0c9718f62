import type { Character } from '../character/character';
import type { CrowdFeature } from './feature';
import type { MeshBuffers } from './mesh-buffers';
import type { SkinInputs, SkinPass } from './skin-pass';

// What the props feature (CrowdProps, feature name 'props') shows the impostor feature, so that
// neither imports the other (a page ships the features it uses): the props every instance holds,
// which the impostor atlas bakes into its images (docs/impostors.md, "Props").

/** A prop every instance of a crowd holds (CrowdProps.attach without `instances`), as attached. */
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
  /** Changes whenever `heldByAll` does: an attach or detach of such a prop, a selection set or cleared. */
  readonly heldVersion: number;
  /** CrowdProps.attach, for every instance (the bake's hidden crowd attaches the same props). */
  attach(prop: Character, options: { joint: string; offset?: ArrayLike<number> }): number;
  /** The GPU objects of attachment `id` (after the crowd's first encode: its records). */
  propDraw(id: number): PropDraw;
  /**
   * Records the impostor band's props into `pass`: each prop every instance holds, over the band
   * list (`list` from byte `offset`, `bytes` long: the slots, then their fades by slot), faded as
   * the band's meshes (skin.wgsl BAND), with `camera` (the crowd skin pass's camera uniform).
   */
  drawBand(pass: GPURenderPassEncoder, camera: GPUBuffer, list: GPUBuffer, offset: number, bytes: number): void;
}
