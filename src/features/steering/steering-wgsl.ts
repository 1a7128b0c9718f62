import { HANDLE_FREE } from '../../runtime/layout';
import { INSTANCE_STRUCT, LOCOMOTION_DRIVE_STRUCT, type GeneratedShader, type SharedConstant } from '../../runtime/wgsl-constants';
import { AGENT_ACTIVE, AGENT_HAS_GOAL, FIELD_NONE, MAX_NEIGHBOURS, MAX_OBSTACLE_LINES, KEEP_RIGHT, NUDGE, SCAN_BLOCK, SCAN_ITEMS, SCAN_THREADS, SEPARATION_MARGIN, MAX_CONTACTS, CONTACT_RANGE, CONTACT_WORDS, NO_CONTACT, OBSTACLE_CONTACT_RANGE } from './layout';
import { MIN_STEP_DT } from './bounds';
import { MAX_LINES, ORCA_EPSILON } from './orca';

/**
 * The constants of shaders/steering/steering.wgsl (its generated block), each defined once here
 * or in layout.ts / orca.ts: agent flags, the program's sizes, RVO2's epsilon, the nudge, the projection's margin, the shortest step. Used by
 * tools and tests only (`npm run gen:wgsl`, the drift test).
 */
export const STEERING_CONSTANTS: readonly SharedConstant[] = [
  ['HANDLE_FREE', HANDLE_FREE],
  ['AGENT_ACTIVE', AGENT_ACTIVE],
  ['AGENT_HAS_GOAL', AGENT_HAS_GOAL],
  ['FIELD_NONE', FIELD_NONE],
  ['MAX_NEIGHBOURS', MAX_NEIGHBOURS],
  ['MAX_OBSTACLE_LINES', MAX_OBSTACLE_LINES],
  ['MAX_LINES', MAX_LINES],
  ['SCAN_THREADS', SCAN_THREADS],
  ['SCAN_ITEMS', SCAN_ITEMS],
  ['SCAN_BLOCK', SCAN_BLOCK],
  ['NUDGE', NUDGE, 'f32'],
  ['KEEP_RIGHT', KEEP_RIGHT, 'f32'],
  ['ORCA_EPSILON', ORCA_EPSILON, 'f32'],
  ['SEPARATION_MARGIN', SEPARATION_MARGIN, 'f32'],
  ['MAX_CONTACTS', MAX_CONTACTS],
  ['CONTACT_WORDS', CONTACT_WORDS],
  ['CONTACT_RANGE', CONTACT_RANGE, 'f32'],
  ['NO_CONTACT', NO_CONTACT],
  ['OBSTACLE_CONTACT_RANGE', OBSTACLE_CONTACT_RANGE, 'f32'],
  ['PI', Math.PI, 'f32'],
  ['MIN_STEP_DT', MIN_STEP_DT, 'f32'],
];

export const STEERING_SHADER: GeneratedShader = { file: 'shaders/steering/steering.wgsl', constants: STEERING_CONSTANTS, structs: `${INSTANCE_STRUCT}\n\n${LOCOMOTION_DRIVE_STRUCT}` };
