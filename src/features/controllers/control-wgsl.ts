import { EDGE_EPSILON } from '../../anim/blend-space-2d';
import { BLEND_ENTRIES } from '../../anim/control/locomotion';
import { MIN_BLEND_WEIGHT } from '../../anim/control/output';
import { CLOCK_TICKS_PER_SECOND, CONTROL, CONTROL_HOLD_SECONDS, CONTROL_SPEED_TIE, LAYERS_IDLE, LAYERS_INDEX, MASK_NONE, REFERENCE_REST, STACK_LAYERS } from '../../runtime/layout';
import { CLIP_CLOCK, LOCOMOTION_DRIVE_STRUCT, POSE_RECORD_STRUCTS, PRECISE_SIN_COS, type GeneratedShader, type SharedConstant } from '../../runtime/wgsl-constants';
import { CONTROL_MODEL } from './control-records';

/**
 * The constants of shaders/controllers/control.wgsl (its generated block, `npm run gen:wgsl`): the
 * control records' enumerations, the model table's layout (CONTROL_MODEL), the CPU controllers'
 * thresholds and sizes it follows, and the pose records it writes. Used by tools and tests only.
 */
export const CONTROL_CONSTANTS: readonly SharedConstant[] = [
  ...Object.entries(CONTROL).map(([name, value]) => [name, value] as const),
  ['HOLD_SECONDS', CONTROL_HOLD_SECONDS, 'f32'],
  ['SPEED_TIE', CONTROL_SPEED_TIE, 'f32'],
  ['EDGE_EPSILON', EDGE_EPSILON, 'f32'],
  ['MASK_NONE', MASK_NONE],
  ['LAYERS_IDLE', LAYERS_IDLE],
  ['LAYERS_INDEX', LAYERS_INDEX],
  ['REFERENCE_REST', REFERENCE_REST],
  ['STACK_LAYERS', STACK_LAYERS],
  ...Object.entries(CONTROL_MODEL).map(([name, value]) => [name, value] as const),
  ['BLEND_ENTRIES', BLEND_ENTRIES],
  ['MIN_BLEND_WEIGHT', MIN_BLEND_WEIGHT, 'f32'],
  // A clip's rate in 2^-32 turns per clock tick is speed / duration x this (src/runtime/clip-clock.ts).
  ['TICK_RATE_SCALE', 2 ** 32 / CLOCK_TICKS_PER_SECOND, 'f32'],
  ['PI', Math.PI, 'f32'],
];

export const CONTROL_SHADER: GeneratedShader = {
  file: 'shaders/controllers/control.wgsl', constants: CONTROL_CONSTANTS, structs: `${POSE_RECORD_STRUCTS}\n\n${LOCOMOTION_DRIVE_STRUCT}\n\n${PRECISE_SIN_COS}\n\n${CLIP_CLOCK}`,
};
