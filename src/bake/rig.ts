import type { EncodedImage } from './gltf-json';
import type { HumanoidMap } from './vrm-humanoid';

/**
 * The rig: everything the runtime needs from a glTF character, as plain typed arrays. Built once
 * by `buildRig` (load-rig.ts); after baking, the runtime never looks at glTF again.
 *
 * Conventions used throughout:
 * - Rig nodes are the glTF nodes that move a joint or a drawn mesh: every joint, every node that
 *   carries a rigidly attached mesh, and all their ancestors. They are ordered parent-first
 *   (depth-first from the scene roots), so `parent[i] < i` for every node that has a parent.
 * - Translations are vec3 in the node's parent space (model units), rotations are unit
 *   quaternions [x, y, z, w], scales are vec3.
 * - Matrices are 4x4, column-major, as glTF and WGSL store them.
 */

export type TrsPath = 'translation' | 'rotation' | 'scale';
export type Interpolation = 'STEP' | 'LINEAR' | 'CUBICSPLINE';

export interface RigNodes {
  /** Number of rig nodes. */
  count: number;
  /** Node names (glTF name, or `node<index>` when unnamed). */
  names: string[];
  /** glTF node index of each rig node. */
  gltfIndex: Int32Array;
  /** Rig index of each node's parent, -1 for a scene root. Always smaller than the node's own index. */
  parent: Int32Array;
  /** Rest pose, from the node's TRS or its decomposed matrix: 3 per node. */
  restTranslation: Float64Array;
  /** Rest pose rotations, 4 per node (x, y, z, w), unit length. */
  restRotation: Float64Array;
  /** Rest pose scales, 3 per node. */
  restScale: Float64Array;
  /** 1 where the node is a joint of a glTF skin, 0 for ancestors and rigid mesh nodes. */
  isJoint: Uint8Array;
}

export interface Skin {
  name: string;
  /** glTF skin index, or -1 for a synthetic skin made for a rigidly attached mesh. */
  gltfSkin: number;
  /** Rig node of each skin joint, in the glTF `joints` order (the order JOINTS_0 indexes). */
  joints: Int32Array;
  /** Joint names in skin order. */
  jointNames: string[];
  /** Inverse bind matrices, 16 per joint, column-major (identity where the file has none). */
  inverseBind: Float64Array;
}

/** A glTF metallic-roughness material as drawn (docs/materials.md). Images are on TEXCOORD_0 or TEXCOORD_1 (`texCoords`). */
export interface MaterialInfo {
  /** Linear RGBA base colour factor. */
  baseColorFactor: [number, number, number, number];
  /** Base colour image (encoded PNG/JPEG bytes, sRGB) when the material has a texture on UV0. */
  baseColorImage?: EncodedImage;
  /** Metalness in [0, 1] (glTF default 1). */
  metallicFactor: number;
  /** Perceptual roughness in [0, 1] (glTF default 1). */
  roughnessFactor: number;
  /** Linear image: B = metalness, G = roughness, each times its factor. */
  metallicRoughnessImage?: EncodedImage;
  /** Linear RGB emitted radiance: emissiveFactor x KHR_materials_emissive_strength (default 0). */
  emissiveFactor: [number, number, number];
  /** sRGB image multiplying emissiveFactor. */
  emissiveImage?: EncodedImage;
  /** Linear image whose R is ambient occlusion, applied as 1 + strength (R - 1). */
  occlusionImage?: EncodedImage;
  /** Occlusion strength in [0, 1] (default 1). */
  occlusionStrength: number;
  /** Linear tangent-space normal image (RGB = XYZ in [0, 1] -> [-1, 1]), when the material has one. */
  normalImage?: EncodedImage;
  /** normalTexture.scale: multiplies the map's X and Y (default 1). */
  normalScale: number;
  /** glTF alphaMode: OPAQUE ignores alpha, MASK discards below alphaCutoff, BLEND blends over. */
  alphaMode: 'OPAQUE' | 'MASK' | 'BLEND';
  /** MASK's cutoff (default 0.5). */
  alphaCutoff: number;
  /** Both faces drawn (true) or back faces culled (false, glTF's default). */
  doubleSided: boolean;
  /** KHR_materials_unlit: base colour only, no lighting. */
  unlit: boolean;
  /**
   * KHR_texture_transform of the base colour, metallic-roughness, occlusion, emissive and normal
   * textures, in that order: 6 numbers each, the rows (a, b, c), (d, e, f) of uv' = M (u, v, 1);
   * identity where a texture has none.
   */
  uvTransforms: Float32Array;
  /**
   * The glTF sampler of the base colour, metallic-roughness, occlusion, emissive and normal
   * textures, in that order (textures without one: repeat, trilinear).
   */
  samplers: [TextureSampler, TextureSampler, TextureSampler, TextureSampler, TextureSampler];
  /**
   * The texture coordinate set (0: TEXCOORD_0, 1: TEXCOORD_1) of the same five textures: the
   * texture info's `texCoord`, or its KHR_texture_transform's `texCoord` override.
   */
  texCoords: [number, number, number, number, number];
}

/**
 * A glTF texture sampler as a GPUSamplerDescriptor's fields (plain strings: the bake stage has no
 * GPU). `lodMaxClamp` 0 reads the top mip only (glTF's NEAREST / LINEAR minFilter, no mipmaps).
 */
export interface TextureSampler {
  addressModeU: 'repeat' | 'clamp-to-edge' | 'mirror-repeat';
  addressModeV: 'repeat' | 'clamp-to-edge' | 'mirror-repeat';
  magFilter: 'nearest' | 'linear';
  minFilter: 'nearest' | 'linear';
  mipmapFilter: 'nearest' | 'linear';
  lodMaxClamp: number;
}

/** A texture without a glTF sampler: repeat, trilinear (glTF leaves filtering to the renderer). */
export function defaultTextureSampler(): TextureSampler {
  return { addressModeU: 'repeat', addressModeV: 'repeat', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear', lodMaxClamp: 32 };
}

/** The material of a primitive without one (glTF's default material). */
export function defaultMaterial(): MaterialInfo {
  return {
    baseColorFactor: [1, 1, 1, 1], metallicFactor: 1, roughnessFactor: 1, emissiveFactor: [0, 0, 0],
    occlusionStrength: 1, normalScale: 1, alphaMode: 'OPAQUE', alphaCutoff: 0.5, doubleSided: false, unlit: false,
    uvTransforms: Float32Array.from({ length: 30 }, (_, i) => (i % 6 === 0 || i % 6 === 4 ? 1 : 0)),
    texCoords: [0, 0, 0, 0, 0],
    samplers: [defaultTextureSampler(), defaultTextureSampler(), defaultTextureSampler(), defaultTextureSampler(), defaultTextureSampler()],
  };
}

/**
 * A primitive's own triangles (level 0): its indices, or 0, 1, ..., vertexCount - 1 when it is
 * non-indexed (each three vertices a triangle). The indices themselves where it has them, not a
 * copy: read, do not write.
 */
export function triangleList(prim: Pick<SkinnedPrimitive, 'indices' | 'vertexCount'>): Uint32Array {
  return prim.indices ?? Uint32Array.from({ length: prim.vertexCount }, (_, i) => i);
}

export interface SkinnedPrimitive {
  /** glTF node that holds the mesh; glTF mesh index and primitive index in that mesh. */
  gltfNode: number;
  gltfMesh: number;
  primitiveIndex: number;
  /** That node's name (glTF name, or `node<index>` when unnamed); absent in rigs made by hand. */
  nodeName?: string;
  /** Index into `Rig.skins` of the skin that moves this primitive. */
  skin: number;
  vertexCount: number;
  /** vec3 per vertex, in the skin's bind space (mesh space for rigid attachments). */
  positions: Float32Array;
  /** vec3 per vertex, or undefined when the file has none (flat normals are derived when drawing). */
  normals?: Float32Array;
  /** vec2 per vertex (TEXCOORD_0), or undefined. */
  uvs?: Float32Array;
  /** vec2 per vertex (TEXCOORD_1) when the primitive's material reads a texture from it; else undefined. */
  uvs1?: Float32Array;
  /**
   * TANGENT (xyz unit tangent, w = +1 or -1 the bitangent's handedness), 4 per vertex, when the
   * primitive has it and its material has a normal texture; else undefined (the fragment stage
   * then builds the tangent frame from screen-space derivatives, as three.js does).
   */
  tangents?: Float32Array;
  /** COLOR_0 as linear RGBA, 4 per vertex (alpha 1 where the file has RGB), when present. */
  colors?: Float32Array;
  /** Influences per vertex: 4 (JOINTS_0) or 8 (JOINTS_0 + JOINTS_1). */
  influences: 4 | 8;
  /** Skin joint index per influence (`vertexCount * influences`). */
  joints: Uint16Array;
  /** Weight per influence, renormalised so each vertex sums to 1. */
  weights: Float32Array;
  /** Triangle list indices, or undefined for non-indexed geometry. */
  indices?: Uint32Array;
  material: MaterialInfo;
  /** The mesh's morph targets, when it has any (see MorphTargets). */
  morph?: MorphTargets;
}

/**
 * The morph targets of one primitive (glTF `targets`): displacements added to the vertex before
 * skinning, each times its weight: p = p0 + sum_t w_t * positions[t][v], likewise normals.
 */
export interface MorphTargets {
  /** Index into `Rig.morphs` of the morph set (mesh node) whose weights drive these targets. */
  set: number;
  /** Per target: a vec3 displacement per vertex (model units, the space of `positions`); zeros where the target has no POSITION. */
  positions: Float32Array[];
  /**
   * Per target: a vec3 normal displacement per vertex, or undefined when no target has NORMAL or
   * the primitive itself has no normals (its normals are derived from the unmorphed triangles).
   */
  normals?: Float32Array[];
}

/**
 * One mesh node with morph targets: the weights an animation's `weights` channel (or a Crowd's
 * per-instance override) sets, shared by every primitive of the mesh.
 */
export interface MorphSet {
  /** Name for the API: the node's name (glTF name, or `node<index>` when unnamed). */
  name: string;
  /** glTF node that holds the mesh (and its `weights`); glTF mesh index. */
  gltfNode: number;
  gltfMesh: number;
  /** Target names: the mesh's `extras.targetNames` (the exporters' convention), else `target<i>`. */
  targetNames: string[];
  /** Weights while no clip animates them: the node's `weights`, else the mesh's, else zeros. */
  defaultWeights: Float32Array;
  /**
   * Rig node whose blend-mask weight scales a masked layer's effect on these weights: the mesh's
   * own node for a rigidly attached mesh, the topmost joint of its skin for a skinned one.
   */
  maskNode: number;
}

/**
 * An animation channel of morph weights (glTF path `weights`): every target of one morph set
 * per key.
 */
export interface WeightsChannel {
  /** Index into `Rig.morphs`. */
  morph: number;
  interpolation: Interpolation;
  /** Key times in seconds, strictly increasing, at least one. */
  times: Float32Array;
  /**
   * targetCount weights per key; CUBICSPLINE stores targetCount in-tangents, targetCount values,
   * targetCount out-tangents per key, as glTF does.
   */
  values: Float32Array;
}

export interface Channel {
  /** Rig node animated by this channel. */
  node: number;
  path: TrsPath;
  interpolation: Interpolation;
  /** Key times in seconds, strictly increasing, at least one. */
  times: Float32Array;
  /**
   * Key values, 3 (translation, scale) or 4 (rotation) per key; CUBICSPLINE stores
   * in-tangent, value, out-tangent per key (3 times as many), as glTF does.
   */
  values: Float32Array;
}

export interface Clip {
  name: string;
  /** Seconds; the largest key time over all channels, weights channels included (0 for a clip of single keys). */
  duration: number;
  channels: Channel[];
  /** Morph weights channels, at most one per morph set (none when absent). */
  weights?: WeightsChannel[];
}

export interface Rig {
  nodes: RigNodes;
  /** glTF skins in file order, then one synthetic one-joint skin per rigidly attached mesh node. */
  skins: Skin[];
  /** Number of skins that come from the file (the first `gltfSkinCount` of `skins`). */
  gltfSkinCount: number;
  primitives: SkinnedPrimitive[];
  clips: Clip[];
  /** Mesh nodes with morph targets (empty when none): their primitives' `morph.set` index this list. */
  morphs: MorphSet[];
  /** Things the loader ignored or repaired, one sentence each (channels on nodes nothing draws, ...). */
  warnings: string[];
  /**
   * The humanoid map the file declares (VRM 1.0 `VRMC_vrm` or VRM 0.x `VRM`), over rig nodes (-1
   * where a bone's node moves nothing); absent when it declares none. Clip libraries bind through
   * it, or through a map recognized by name (src/bake/humanoid.ts).
   */
  humanoid?: HumanoidMap;
  /**
   * The morph half of the bake (bake-morph.ts), which bake() needs for a rig with morph sets:
   * build-rig.ts hands it on from the morph target reader, fetched only for a file with targets
   * (parse.ts), so a page loading other files ships none of it. Absent when `morphs` is empty.
   * Not owned: shared by every rig.
   */
  morphBake?: typeof import('./bake-morph');
}

export const PATH_COMPONENTS: Record<TrsPath, number> = { translation: 3, rotation: 4, scale: 3 };
