import { DQ_VEC4S, HANDLE_FREE, MATRIX_VEC4S, PALETTE_INDEX_MASK, PROP_CULLED, PROP_SELECTED } from '../../runtime/layout';
import { INSTANCE_STRUCT, type GeneratedShader, type SharedConstant } from '../../runtime/wgsl-constants';

/** The constants of shaders/props/prop.wgsl (its generated block): its flags, the free-handle sentinel and the joint buffer's strides. Used by tools and tests only. */
export const PROP_CONSTANTS: readonly SharedConstant[] = [
  ['PROP_CULLED', PROP_CULLED],
  ['PROP_SELECTED', PROP_SELECTED],
  ['HANDLE_FREE', HANDLE_FREE],
  ['DQ_VEC4S', DQ_VEC4S],
  ['MATRIX_VEC4S', MATRIX_VEC4S],
  ['PALETTE_INDEX_MASK', PALETTE_INDEX_MASK],
];

export const PROP_SHADER: GeneratedShader = { file: 'shaders/props/prop.wgsl', constants: PROP_CONSTANTS, structs: INSTANCE_STRUCT };
