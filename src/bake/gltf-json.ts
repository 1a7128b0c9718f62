import type { Ktx2Texture } from './decode-ktx2';
/**
 * The subset of the glTF 2.0 JSON schema that the loader reads. Everything is optional here
 * because the loader validates presence itself and names what is missing.
 */

export interface GltfAccessorSparse {
  count: number;
  indices: { bufferView: number; byteOffset?: number; componentType: number };
  values: { bufferView: number; byteOffset?: number };
}

export interface GltfAccessor {
  bufferView?: number;
  byteOffset?: number;
  componentType: number;
  normalized?: boolean;
  count: number;
  type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT2' | 'MAT3' | 'MAT4';
  sparse?: GltfAccessorSparse;
}

export interface GltfBufferView {
  buffer: number;
  byteOffset?: number;
  byteLength: number;
  byteStride?: number;
  /** EXT_meshopt_compression / KHR_meshopt_compression (decode-meshopt.ts reads and removes them). */
  extensions?: Record<string, unknown>;
}

export interface GltfNode {
  name?: string;
  children?: number[];
  mesh?: number;
  skin?: number;
  matrix?: number[];
  translation?: number[];
  rotation?: number[];
  scale?: number[];
  /** Morph weights of the node's mesh (they take precedence over the mesh's own). */
  weights?: number[];
}

export interface GltfPrimitive {
  attributes: Record<string, number>;
  indices?: number;
  material?: number;
  mode?: number;
  /** Morph targets: attribute name (POSITION, NORMAL, TANGENT) -> accessor of displacements. */
  targets?: Record<string, number>[];
}

export interface GltfMesh {
  name?: string;
  primitives: GltfPrimitive[];
  /** Default morph weights, one per target. */
  weights?: number[];
  /** Application data; exporters put morph target names in `extras.targetNames`. */
  extras?: unknown;
}

export interface GltfSkin {
  name?: string;
  joints: number[];
  inverseBindMatrices?: number;
  skeleton?: number;
}

export interface GltfAnimationChannel {
  sampler: number;
  target: { node?: number; path: string };
}

export interface GltfAnimationSampler {
  input: number;
  output: number;
  interpolation?: string;
}

export interface GltfAnimation {
  name?: string;
  channels: GltfAnimationChannel[];
  samplers: GltfAnimationSampler[];
}

export interface GltfTextureInfo {
  index: number;
  texCoord?: number;
}

export interface GltfMaterial {
  name?: string;
  pbrMetallicRoughness?: {
    baseColorFactor?: number[]; baseColorTexture?: GltfTextureInfo;
    metallicFactor?: number; roughnessFactor?: number; metallicRoughnessTexture?: GltfTextureInfo;
  };
  emissiveFactor?: number[];
  emissiveTexture?: GltfTextureInfo;
  occlusionTexture?: GltfTextureInfo & { strength?: number };
  normalTexture?: GltfTextureInfo & { scale?: number };
  alphaMode?: 'OPAQUE' | 'MASK' | 'BLEND';
  alphaCutoff?: number;
  doubleSided?: boolean;
  extensions?: {
    KHR_materials_emissive_strength?: { emissiveStrength?: number };
    KHR_materials_unlit?: object;
    /** VRM 1.0's toon material (its fields are not read: vrm-humanoid.ts vrmMaterialLook). */
    VRMC_materials_mtoon?: object;
  };
}

export interface GltfJson {
  asset?: { version?: string; minVersion?: string };
  scene?: number;
  scenes?: { nodes?: number[] }[];
  nodes?: GltfNode[];
  meshes?: GltfMesh[];
  skins?: GltfSkin[];
  animations?: GltfAnimation[];
  accessors?: GltfAccessor[];
  bufferViews?: GltfBufferView[];
  buffers?: { byteLength: number; uri?: string; extensions?: Record<string, unknown> }[];
  materials?: GltfMaterial[];
  textures?: { source?: number; sampler?: number }[];
  samplers?: { magFilter?: number; minFilter?: number; wrapS?: number; wrapT?: number }[];
  images?: { bufferView?: number; mimeType?: string; uri?: string }[];
  extensionsUsed?: string[];
  extensionsRequired?: string[];
  /** File-level extensions: the loader reads VRM's humanoid (`VRMC_vrm`, `VRM`; src/bake/vrm-humanoid.ts). */
  extensions?: Record<string, unknown>;
}

/** An encoded image (PNG, JPEG, WebP, AVIF or KTX2 bytes) and its MIME type. */
export interface EncodedImage {
  /** 'image/png', 'image/jpeg', 'image/webp', 'image/avif' or 'image/ktx2'. */
  mimeType: string;
  /** The encoded file's bytes. */
  bytes: Uint8Array;
  /** A KHR_texture_basisu image's texels, transcoded at load by decoders.ktx2 (decode-ktx2.ts). */
  ktx2?: Ktx2Texture;
}

/**
 * A parsed glTF: its JSON, every buffer's bytes in `json.buffers` order, and every image's
 * encoded bytes in `json.images` order (undefined where an image could not be read).
 */
export interface GltfAsset {
  json: GltfJson;
  buffers: Uint8Array[];
  images: (EncodedImage | undefined)[];
  /**
   * The VRM reader (vrm-humanoid.ts: the humanoid map, MToon looks), which parseGltf fetches and
   * attaches only for a file with VRM's extensions (`VRMC_vrm`, `VRM`, `VRMC_materials_mtoon`);
   * undefined for any other file, which has neither. Not owned: shared by every asset.
   */
  vrm?: typeof import('./vrm-humanoid');
  /**
   * The morph target reader (load-morph.ts), which parseGltf fetches and attaches only for a file
   * with morph targets; undefined for any other file. Not owned: shared by every asset.
   */
  morph?: typeof import('./load-morph');
  /**
   * KHR_mesh_quantization's attribute types and the renormalising of quantized directions
   * (quantization.ts), which parseGltf fetches and attaches only for a file that lists the
   * extension in extensionsUsed; undefined for any other file, whose attributes are glTF 2.0's
   * own (attribute-types.ts). Not owned: shared by every asset.
   */
  quantization?: typeof import('./quantization');
}
