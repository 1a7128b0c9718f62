import { ComponentType as C, type AccessorExpectation } from './accessor';

/** Accessor expectations of each vertex attribute the loader reads, for one file. */
export interface AttributeExpectations {
  /** POSITION (VEC3). */
  position: AccessorExpectation;
  /** NORMAL (VEC3). */
  normal: AccessorExpectation;
  /** TANGENT (VEC4). */
  tangent: AccessorExpectation;
  /** TEXCOORD_0 and TEXCOORD_1 (VEC2). */
  uv: AccessorExpectation;
  /** A morph target's POSITION displacement (VEC3). */
  targetPosition: AccessorExpectation;
  /** A morph target's NORMAL displacement (VEC3). */
  targetNormal: AccessorExpectation;
}

/** Allowed componentType codes (AccessorExpectation.components). */
export type Components = NonNullable<AccessorExpectation['components']>;

/** FLOAT: every attribute's type in glTF 2.0 itself. */
export const FLOAT_COMPONENTS: Components = [{ type: C.FLOAT }];
/** UVs in glTF 2.0 itself: FLOAT, or normalized UNSIGNED_BYTE and UNSIGNED_SHORT. */
export const UV_COMPONENTS: Components = [{ type: C.FLOAT }, { type: C.UNSIGNED_BYTE, normalized: true }, { type: C.UNSIGNED_SHORT, normalized: true }];

const core = (type: string, components = FLOAT_COMPONENTS): AccessorExpectation => ({ types: [type], components, float: true, hint: '(without KHR_mesh_quantization)' });

/**
 * The vertex attributes' types in a file without KHR_mesh_quantization: glTF 2.0's own. A
 * refused integer type says what would allow it. A quantized file's are quantization.ts's,
 * which parseGltf fetches only for a file that lists the extension (GltfAsset.quantization).
 */
export const CORE_ATTRIBUTES: AttributeExpectations = {
  position: core('VEC3'), normal: core('VEC3'), tangent: core('VEC4'), uv: core('VEC2', UV_COMPONENTS),
  targetPosition: core('VEC3'), targetNormal: core('VEC3'),
};
