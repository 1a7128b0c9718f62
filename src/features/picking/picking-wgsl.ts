import { INSTANCE_STRUCT, type GeneratedShader } from '../../runtime/wgsl-constants';

/** Byte layout of select.wgsl's `Params` (uniform), checked against the WGSL by test/features/picking/select-pass.test.ts. */
export const SELECT_PARAMS = {
  size: 112,
  viewProjection: 0, // mat4x4f: world -> clip space, column-major
  centre: 64, //        vec4f: the model-space point tested (xyz, w = 1)
  rect: 80, //          vec4f: xMin, yMin, xMax, yMax in normalised device coordinates
  count: 96, //         u32: live instances, slots [0, count)
  dispatchWidth: 100, // u32: workgroups per row of the dispatch grid
} as const;

/** shaders/picking/pick.wgsl: a fragment stage that shares no constant (its block is empty). */
export const PICK_SHADER: GeneratedShader = { file: 'shaders/picking/pick.wgsl', constants: [], structs: '' };

/** shaders/picking/select.wgsl: the instance record (its world matrix is read). */
export const SELECT_SHADER: GeneratedShader = { file: 'shaders/picking/select.wgsl', constants: [], structs: INSTANCE_STRUCT };
