import { HANDLE_FREE } from '../../runtime/layout';
import { INSTANCE_STRUCT, PRECISE_SIN_COS, type GeneratedShader, type SharedConstant } from '../../runtime/wgsl-constants';
import { ROOT_CLIP_VEC4S } from './root-motion-pass';

/**
 * The constants of shaders/root-motion/root-motion.wgsl (its generated block): a free handle's slot
 * (InstanceStore's -1, read as u32: HANDLE_FREE, the name prop.wgsl uses too) and the stride of
 * the clip facts in its tables. Used by tools and tests only.
 */
export const ROOT_MOTION_CONSTANTS: readonly SharedConstant[] = [
  ['HANDLE_FREE', HANDLE_FREE],
  ['ROOT_CLIP_VEC4S', ROOT_CLIP_VEC4S],
];

export const ROOT_MOTION_SHADER: GeneratedShader = {
  file: 'shaders/root-motion/root-motion.wgsl', constants: ROOT_MOTION_CONSTANTS, structs: `${INSTANCE_STRUCT}\n\n${PRECISE_SIN_COS}`,
};
