import { EDGE_EPSILON } from '../../anim/blend-space-2d';
import { CONTROL, CONTROL_HOLD_SECONDS, CONTROL_SPEED_TIE, MASK_NONE, REFERENCE_REST, STACK_LAYERS } from '../../runtime/layout';
import { CLIP_CLOCK, POSE_RECORD_STRUCTS, PRECISE_SIN_COS, type GeneratedShader, type SharedConstant } from '../../runtime/wgsl-constants';

/**
 * The constants of shaders/controllers/control.wgsl (its generated block, `npm run gen:wgsl`): the
 * control records' enumerations and the pose records it writes. Used by tools and tests only.
 */
export const CONTROL_CONSTANTS: readonly SharedConstant[] = [
  ...Object.entries(CONTROL).map(([name, value]) => [name, value] as const),
  ['HOLD_SECONDS', CONTROL_HOLD_SECONDS, 'f32'],
  ['SPEED_TIE', CONTROL_SPEED_TIE, 'f32'],
  ['EDGE_EPSILON', EDGE_EPSILON, 'f32'],
  ['MASK_NONE', MASK_NONE],
  ['REFERENCE_REST', REFERENCE_REST],
  ['STACK_LAYERS', STACK_LAYERS],
];

export const CONTROL_SHADER: GeneratedShader = {
  file: 'shaders/controllers/control.wgsl', constants: CONTROL_CONSTANTS, structs: `${POSE_RECORD_STRUCTS}\n\n${PRECISE_SIN_COS}\n\n${CLIP_CLOCK}`,
};
