/**
 * Every shader with a generated constant block: the kernel's (src/runtime/wgsl-constants.ts) and
 * each feature's (src/features/<name>/*-wgsl.ts). Gathered here, outside src/, so that the kernel
 * names no feature; `npm run gen:wgsl` (tools/gen-wgsl.ts) writes the blocks and
 * test/runtime/wgsl-constants.test.ts checks them.
 */
import { CONTROL_SHADER } from '../src/features/controllers/control-wgsl';
import { MORPH_SHADER } from '../src/features/morph/morph-wgsl';
import { PICK_SHADER, SELECT_SHADER } from '../src/features/picking/picking-wgsl';
import { PROP_SHADER } from '../src/features/props/prop-wgsl';
import { ROOT_MOTION_SHADER } from '../src/features/root-motion/root-motion-wgsl';
import { STEERING_SHADER } from '../src/features/steering/steering-wgsl';
import { ENVIRONMENT_SHADER } from '../src/runtime/environment-map';
import { KERNEL_SHADERS, type GeneratedShader } from '../src/runtime/wgsl-constants';

const [pose, cull, skin, palette] = KERNEL_SHADERS;

export const GENERATED_SHADERS: readonly GeneratedShader[] = [pose, CONTROL_SHADER, cull, palette, skin, PROP_SHADER, ROOT_MOTION_SHADER, MORPH_SHADER, PICK_SHADER, SELECT_SHADER,
  // The mip chain pass shares no number with TypeScript: an empty block, so a shared one added later has its place.
  { file: 'shaders/mipmaps.wgsl', constants: [], structs: '' }, ENVIRONMENT_SHADER, STEERING_SHADER];
