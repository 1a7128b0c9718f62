import { TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP } from '../bake/bake';
import {
  COUNT_FROM_PARAMS, CULL_ANIMATION_LOD, CULL_ARGS, CULL_COUNTERS, CULL_FRUSTUM, CULL_LOD, CULL_SHADOWS, LAYERS_NONE, LOD_NOT_FORCED, MASK_NONE,
  MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, STACK_LAYERS,
} from './layout';

/**
 * The constants that shaders/pose.wgsl (and, below, shaders/cull.wgsl) shares with TypeScript, with their one source: the
 * baked-table flags of src/bake/bake.ts and the record sentinels and layer counts of
 * src/gpu/layout.ts. The shader holds them in a block between the two marker lines below,
 * written by `npm run gen:wgsl` (tools/gen-wgsl.ts) so that the .wgsl file stays valid on its
 * own; test/gpu/wgsl-constants.test.ts fails when the block in the file differs from this list.
 */
export const POSE_CONSTANTS: readonly (readonly [name: string, value: number])[] = [
  ['TRACK_NONE', TRACK_NONE],
  ['TRACK_STEP', TRACK_STEP],
  ['TRACK_INDEX_MASK', TRACK_INDEX_MASK],
  ['LAYERS_NONE', LAYERS_NONE],
  ['MASK_NONE', MASK_NONE],
  ['REFERENCE_REST', REFERENCE_REST],
  ['REFERENCE_IDENTITY', REFERENCE_IDENTITY],
  ['MAX_OVERRIDE_LAYERS', MAX_OVERRIDE_LAYERS],
  ['MAX_ADDITIVE_LAYERS', MAX_ADDITIVE_LAYERS],
  ['STACK_LAYERS', STACK_LAYERS],
  ['COUNT_FROM_PARAMS', COUNT_FROM_PARAMS],
];

/** The constants shaders/cull.wgsl shares with TypeScript: counter and argument words, flags. */
export const CULL_CONSTANTS: readonly (readonly [name: string, value: number])[] = [
  ['COUNTER_WORDS', CULL_COUNTERS.words],
  ['COUNTER_POSE_PLAIN', CULL_COUNTERS.posePlain],
  ['COUNTER_POSE_LAYERED', CULL_COUNTERS.poseLayered],
  ['COUNTER_CAMERA', CULL_COUNTERS.camera],
  ['COUNTER_SHADOW', CULL_COUNTERS.shadow],
  ['ARGS_POSE_PLAIN', CULL_ARGS.posePlain],
  ['ARGS_POSE_LAYERED', CULL_ARGS.poseLayered],
  ['ARGS_DRAWS', CULL_ARGS.draws],
  ['ARGS_DRAW_WORDS', CULL_ARGS.drawWords],
  ['CULL_FRUSTUM', CULL_FRUSTUM],
  ['CULL_LOD', CULL_LOD],
  ['CULL_ANIMATION_LOD', CULL_ANIMATION_LOD],
  ['CULL_SHADOWS', CULL_SHADOWS],
  ['LOD_NOT_FORCED', LOD_NOT_FORCED],
];

/** Every shader with a generated block (path from the repository root) and its constants. */
export const GENERATED_SHADERS: readonly (readonly [file: string, constants: typeof POSE_CONSTANTS])[] = [
  ['shaders/pose.wgsl', POSE_CONSTANTS],
  ['shaders/cull.wgsl', CULL_CONSTANTS],
];

export const GENERATED_BEGIN = '// BEGIN generated from src/gpu/wgsl-constants.ts by `npm run gen:wgsl`: do not edit';
export const GENERATED_END = '// END generated';

/** The WGSL declarations of `constants` as u32 consts (flags in hex), between the marker lines. */
export function wgslConstantBlock(constants: readonly (readonly [string, number])[] = POSE_CONSTANTS): string {
  const lines = constants.map(([name, value]) => {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${name} = ${value} is not a u32`);
    const literal = value >= 0x10000 ? `0x${value.toString(16)}u` : `${value}u`;
    return `const ${name}: u32 = ${literal};`;
  });
  return [GENERATED_BEGIN, ...lines, GENERATED_END].join('\n');
}

/** `source` with its generated block replaced by `block`; throws when the markers are missing. */
export function replaceConstantBlock(source: string, block: string): string {
  const begin = source.indexOf(GENERATED_BEGIN);
  const end = source.indexOf(GENERATED_END, begin);
  if (begin < 0 || end < 0) throw new Error(`the shader has no generated constant block (expected the lines "${GENERATED_BEGIN}" ... "${GENERATED_END}")`);
  return source.slice(0, begin) + block + source.slice(end + GENERATED_END.length);
}

/** The generated block as it stands in `source`, or undefined when the markers are missing. */
export function currentConstantBlock(source: string): string | undefined {
  const begin = source.indexOf(GENERATED_BEGIN);
  const end = source.indexOf(GENERATED_END, begin);
  return begin < 0 || end < 0 ? undefined : source.slice(begin, end + GENERATED_END.length);
}
