/**
 * What the materials an atlas bakes (the character's primitives', the baked props' too) ask of
 * its texels (AtlasGrid's BakedMaterials): a roughness and metalness the atlas can leave out, an
 * unlit character, the light they emit, an occlusion map. Found from the materials alone (atlasGrid, impostor-box.ts).
 */
import type { MaterialInfo } from '../../bake/rig';

/** What the baked materials ask of the atlas's texels (atlasGrid finds it from the character and the props baked). */
export interface BakedMaterials {
  /** The character's one (roughness, metalness) where it has one (uniformSurface): the atlas then leaves them out (7 bytes a texel, not 9) and packs that many more texels. */
  surface?: readonly [number, number];
  /** Whether texels hold the share their tint applies to (props baked: a byte a texel more). */
  tintMask?: boolean;
  /** Whether every material baked is unlit (allUnlit). */
  unlit?: boolean;
  /** The most any material baked emits in a channel (emissiveScale): the emissive-occlusion texture holds the emitted colour over it; 0, none. */
  emissiveScale?: number;
  /** Whether a material baked has an occlusion map (hasOcclusion). Either this or an emissiveScale over 0 gives the atlas its emissive-occlusion texture. */
  occlusion?: boolean;
}

/**
 * The one (roughness, metalness) the bake would write in every texel of a character whose
 * materials (`materials`: each primitive's) have no metallic-roughness texture and all the same
 * factors (bake.wgsl: roughness clamped to [0.0525, 1]); undefined where they differ or a texture
 * varies them (the atlas then bakes them per texel).
 */
export function uniformSurface(materials: readonly Pick<MaterialInfo, 'metallicRoughnessImage' | 'roughnessFactor' | 'metallicFactor'>[]): [number, number] | undefined {
  if (materials.length === 0 || materials.some((m) => m.metallicRoughnessImage)) return undefined;
  const [first] = materials;
  if (materials.some((m) => m.roughnessFactor !== first.roughnessFactor || m.metallicFactor !== first.metallicFactor)) return undefined;
  return [Math.min(Math.max(first.roughnessFactor, 0.0525), 1), first.metallicFactor];
}

/**
 * Whether every material of `materials` (each primitive's, the baked props' too) is unlit
 * (KHR_materials_unlit, or VRM's Unlit shaders): the impostors then show the tinted base colour
 * as the meshes do, with no sun, shadow or environment light (impostor.wgsl UNLIT). A character
 * with lit and unlit materials is lit throughout (the atlas holds no per-texel flag).
 */
export function allUnlit(materials: readonly Pick<MaterialInfo, 'unlit'>[]): boolean {
  return materials.length > 0 && materials.every((m) => m.unlit);
}

/**
 * The most any of `materials` (each primitive's, the baked props' too) emits in a channel
 * (emissiveFactor x KHR_materials_emissive_strength, which an emissive texture multiplies by at
 * most 1): the atlas's emissive-occlusion texture holds the emitted colour over it. 0 where none
 * emits.
 */
export function emissiveScale(materials: readonly Pick<MaterialInfo, 'emissiveFactor'>[]): number {
  let most = 0;
  for (const m of materials) most = Math.max(most, ...m.emissiveFactor);
  return most;
}

/**
 * Whether any of `materials` (each primitive's, the baked props' too) has an occlusion map that
 * takes any light (occlusionStrength over 0): the atlas's emissive-occlusion texture then holds
 * the share of the indirect light it takes, as the skin pass's `occlusion` does.
 */
export function hasOcclusion(materials: readonly Pick<MaterialInfo, 'occlusionImage' | 'occlusionStrength'>[]): boolean {
  return materials.some((m) => m.occlusionImage !== undefined && m.occlusionStrength > 0);
}
