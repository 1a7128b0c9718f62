import { CLIP_CLOCK, POSE_CONSTANTS, POSE_RECORD_STRUCTS, type GeneratedShader } from '../../runtime/wgsl-constants';

/** shaders/morph/morph.wgsl's generated block: the pose pass's record constants and structs and the clip clock (it reads the same records). Used by tools and tests only. */
export const MORPH_SHADER: GeneratedShader = {
  file: 'shaders/morph/morph.wgsl', constants: POSE_CONSTANTS, structs: `${POSE_RECORD_STRUCTS}\n\n${CLIP_CLOCK}`,
};
