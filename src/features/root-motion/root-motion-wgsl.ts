import { INSTANCE_STRUCT, PRECISE_SIN_COS, type GeneratedShader, type SharedConstant } from '../../runtime/wgsl-constants';

/** The constants of shaders/root-motion/root-motion.wgsl (its generated block): a free handle's slot (InstanceStore keeps -1, read as u32). Used by tools and tests only. */
export const ROOT_MOTION_CONSTANTS: readonly SharedConstant[] = [
  ['FREE_HANDLE', 0xffffffff],
];

export const ROOT_MOTION_SHADER: GeneratedShader = {
  file: 'shaders/root-motion/root-motion.wgsl', constants: ROOT_MOTION_CONSTANTS, structs: `${INSTANCE_STRUCT}\n\n${PRECISE_SIN_COS}`,
};
