import type { EncodedImage } from './gltf-json';

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

export interface MaterialInfo {
  /** Linear RGBA base colour factor. */
  baseColorFactor: [number, number, number, number];
  /** Base colour image (encoded PNG/JPEG bytes) when the material has a texture on UV0. */
  baseColorImage?: EncodedImage;
}

export interface SkinnedPrimitive {
  /** glTF node that holds the mesh; glTF mesh index and primitive index in that mesh. */
  gltfNode: number;
  gltfMesh: number;
  primitiveIndex: number;
  /** Index into `Rig.skins` of the skin that moves this primitive. */
  skin: number;
  vertexCount: number;
  /** vec3 per vertex, in the skin's bind space (mesh space for rigid attachments). */
  positions: Float32Array;
  /** vec3 per vertex, or undefined when the file has none (flat normals are derived when drawing). */
  normals?: Float32Array;
  /** vec2 per vertex (TEXCOORD_0), or undefined. */
  uvs?: Float32Array;
  /** Influences per vertex: 4 (JOINTS_0) or 8 (JOINTS_0 + JOINTS_1). */
  influences: 4 | 8;
  /** Skin joint index per influence (`vertexCount * influences`). */
  joints: Uint16Array;
  /** Weight per influence, renormalised so each vertex sums to 1. */
  weights: Float32Array;
  /** Triangle list indices, or undefined for non-indexed geometry. */
  indices?: Uint32Array;
  material: MaterialInfo;
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
  /** Seconds; the largest key time over all channels (0 for a clip of single keys). */
  duration: number;
  channels: Channel[];
}

export interface Rig {
  nodes: RigNodes;
  /** glTF skins in file order, then one synthetic one-joint skin per rigidly attached mesh node. */
  skins: Skin[];
  /** Number of skins that come from the file (the first `gltfSkinCount` of `skins`). */
  gltfSkinCount: number;
  primitives: SkinnedPrimitive[];
  clips: Clip[];
  /** Things the loader ignored or repaired, one sentence each (morph weight channels, ...). */
  warnings: string[];
}

export const PATH_COMPONENTS: Record<TrsPath, number> = { translation: 3, rotation: 4, scale: 3 };
