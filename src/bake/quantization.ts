import { ComponentType as C, type AccessorExpectation } from './accessor';
import { CORE_ATTRIBUTES, FLOAT_COMPONENTS, UV_COMPONENTS, type AttributeExpectations, type Components } from './attribute-types';
import type { GltfAsset } from './gltf-json';

/**
 * KHR_mesh_quantization: vertex attributes stored as 8- or 16-bit integers, read here as floats
 * with no decoder. A normalized integer is mapped to [-1, 1] or [0, 1] (accessor.ts); an integer
 * that is not normalized keeps its value. Either way the positions are in the file's quantized
 * space, and the file carries the dequantization where glTF already has a matrix: the transform
 * of the node that draws a rigid mesh, or the inverse bind matrices of a skinned one (as
 * gltf-transform `quantize` and gltfpack write them). The loader's rig applies both to every
 * vertex, so poses, bounds, culling spheres and LOD errors (all computed through the joint
 * matrices) come out in model units without a special case.
 *
 * The types each attribute may have (the extension's table), with `float: true` so signed
 * integers keep their sign. Without the extension in `extensionsUsed`, only glTF 2.0's own
 * types are allowed (attribute-types.ts), and a refused type says why (`hint`). parseGltf fetches
 * this module (a dynamic import) only for a file that lists the extension (GltfAsset.quantization).
 */

type Types = Components;

/** BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, normalized or not. */
const INTEGERS: Types = [C.BYTE, C.UNSIGNED_BYTE, C.SHORT, C.UNSIGNED_SHORT].map((type) => ({ type }));
const SIGNED_NORMALIZED: Types = [{ type: C.BYTE, normalized: true }, { type: C.SHORT, normalized: true }];

/** True when the file lists KHR_mesh_quantization in extensionsUsed. */
export function isQuantized(asset: GltfAsset): boolean {
  return (asset.json.extensionsUsed ?? []).includes('KHR_mesh_quantization');
}

/** The accessor expectations of `asset`'s vertex attributes: glTF 2.0's, widened by KHR_mesh_quantization when the file uses it. */
export function attributeExpectations(asset: GltfAsset): AttributeExpectations {
  if (!isQuantized(asset)) return CORE_ATTRIBUTES;
  const make = (type: string, quantized: Types, core = FLOAT_COMPONENTS): AccessorExpectation =>
    ({ types: [type], components: [...core, ...quantized], float: true, hint: '' });
  return {
    position: make('VEC3', INTEGERS),
    normal: make('VEC3', SIGNED_NORMALIZED),
    tangent: make('VEC4', SIGNED_NORMALIZED),
    // glTF 2.0 itself allows normalized UNSIGNED_BYTE and UNSIGNED_SHORT UVs; the extension any integer.
    uv: make('VEC2', INTEGERS, UV_COMPONENTS),
    // Morph displacements: signed integers only (BYTE, SHORT; normalized or not).
    targetPosition: make('VEC3', INTEGERS.filter((t) => t.type % 2 === 0)),
    targetNormal: make('VEC3', SIGNED_NORMALIZED),
  };
}

/**
 * Scales the first three of every `stride` values to unit length, in place: quantized normals
 * and tangents are unit vectors only to within their precision (a 10-bit normal is off by up to
 * about 1e-2). A zero vector stays zero.
 */
export function renormalizeDirections(values: Float32Array, stride: 3 | 4): void {
  for (let i = 0; i < values.length; i += stride) {
    const length = Math.hypot(values[i], values[i + 1], values[i + 2]);
    if (length > 0) for (let k = 0; k < 3; k++) values[i + k] /= length;
  }
}
