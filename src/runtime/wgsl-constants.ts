import { TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP } from '../bake/bake';
import {
  COUNT_FROM_PARAMS, CULL_ANIMATION_LOD, CULL_ARGS, CULL_COUNTERS, CULL_FRUSTUM, CULL_LOD, CULL_SHADOWS, DQ_POLAR_ITERATIONS, DQ_VEC4S,
  LAYERS_NONE, LOD_NOT_FORCED, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, STACK_LAYERS,
} from './layout';

/** A shared constant: its WGSL name, value, and type (u32 unless said). */
export type SharedConstant = readonly [name: string, value: number, type?: 'u32' | 'f32'];

/**
 * The constants that shaders/pose.wgsl (and, below, shaders/culling/cull.wgsl) shares with TypeScript, with their one source: the
 * baked-table flags of src/bake/bake.ts and the record sentinels and layer counts of
 * src/runtime/layout.ts. The shader holds them in a block between the two marker lines below,
 * written by `npm run gen:wgsl` (tools/gen-wgsl.ts) so that the .wgsl file stays valid on its
 * own; test/runtime/wgsl-constants.test.ts fails when the block in the file differs from this list.
 */
export const POSE_CONSTANTS: readonly SharedConstant[] = [
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
  ['DQ_VEC4S', DQ_VEC4S],
  ['DQ_POLAR_ITERATIONS', DQ_POLAR_ITERATIONS],
];

/** The constants shaders/culling/cull.wgsl shares with TypeScript: counter and argument words, flags. */
export const CULL_CONSTANTS: readonly SharedConstant[] = [
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

/**
 * The instance record as WGSL (layout: INSTANCE in src/runtime/layout.ts, checked field by field by
 * test/runtime/layout.test.ts). Every pass that reads or writes it (pose, control, cull, skin) gets
 * this one text in its generated block.
 */
export const INSTANCE_STRUCT = `struct Instance {
  world: mat4x4f,
  clipA: u32,
  clipB: u32,
  phaseA: u32,
  phaseB: u32,
  speedA: f32,
  speedB: f32,
  blend: f32,
  layers: u32,
  rateLoA: u32,
  rateHiA: u32,
  rateLoB: u32,
  rateHiB: u32,
}`;

/** The layer-stack records as WGSL (LAYER, LAYER_STACK): the pose pass reads them, the control pass writes them. */
export const STACK_STRUCTS = `struct Layer {
  clip: u32,
  phase: u32,
  speed: f32,
  weight: f32,
  mask: u32,
  refClip: u32,
  refPhase: u32,
  refSpeed: f32,
  rateLo: u32,
  rateHi: u32,
  refRateLo: u32,
  refRateHi: u32,
}

struct LayerStack {
  overrideCount: u32,
  additiveCount: u32,
  layers: array<Layer, STACK_LAYERS>,
}`;

/** The pose records as both the pose and the control pass declare them. */
export const POSE_RECORD_STRUCTS = `${INSTANCE_STRUCT}\n\n${STACK_STRUCTS}`;

/**
 * (sin x, cos x) in f32 to a few ULP (WGSL lets sin and cos be off by 2^-11): Cody-Waite
 * reduction to |r| <= pi/4, then Taylor series to r^9 and r^10. The control and root-motion
 * passes turn headings with it, so both follow the float64 CPU twins.
 */
export const PRECISE_SIN_COS = `const HALF_PI_HI: f32 = 1.5707963705062866; // f32(pi / 2)
const HALF_PI_LO: f32 = -4.371139000186241e-8; // pi / 2 - HALF_PI_HI

// (sin x, cos x): Cody-Waite reduction to |r| <= pi/4, then Taylor series to r^9 and r^10.
fn sinCos(x: f32) -> vec2f {
  let k = floor(x / HALF_PI_HI + 0.5);
  let r = (x - k * HALF_PI_HI) - k * HALF_PI_LO;
  let r2 = r * r;
  let s = r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0)))));
  let c = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0 + r2 * (-1.0 / 3628800.0)))));
  let q = i32(k) & 3;
  if (q == 0) { return vec2f(s, c); }
  if (q == 1) { return vec2f(c, -s); }
  if (q == 2) { return vec2f(-s, -c); }
  return vec2f(-c, s);
}`;

/**
 * The clip clock in WGSL (src/runtime/clip-clock.ts is the TypeScript side and says why): a clip's
 * position as a 64-bit fraction of a turn (one turn = the clip's duration) in exact u32
 * arithmetic, and the table entry it falls in. The pose and morph passes read records with it,
 * the control pass writes them against it.
 */
export const CLIP_CLOCK = `// a * b as a 64-bit (low word, high word) pair, from 16-bit halves (WGSL has no 64-bit integers).
fn mulWide(a: u32, b: u32) -> vec2u {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2u((mid << 16u) | (p00 & 0xffffu), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// Position at \`ticks\` (the crowd clock in CLOCK_TICKS_PER_SECOND) of a clip recorded as (phase,
// rate): phase * 2^32 + rate * ticks mod 2^64, in 2^-64 turns, as (low word, high word). Exact.
fn clipTurns(phase: u32, rateLo: u32, rateHi: u32, ticks: i32) -> vec2u {
  let c = bitcast<u32>(ticks);
  let low = mulWide(rateLo, c);
  // A negative tick count reads as ticks + 2^32 in a u32: take rateLo * 2^32 back off.
  return vec2u(low.x, phase + low.y + rateHi * c - select(0u, rateLo, ticks < 0));
}

// Entry index in [0, last) and fraction in [0, 1] of position \`turns\` plus \`extra\` turns (a small
// float32 rest of either sign) in a table of last + 1 entries (last >= 1) spanning one turn.
struct ClipEntry {
  index: u32,
  fraction: f32,
}

fn clipEntry(turns: vec2u, extra: f32, last: u32) -> ClipEntry {
  let u = mulWide(turns.y, last); // u.y whole entries, u.x the fraction in 2^-32
  var f = f32(u.x) * 2.3283064365386963e-10 + (f32(turns.x) * 5.421010862427522e-20 + extra) * f32(last);
  let whole = floor(f);
  f -= whole;
  var i = (i32(u.y) + i32(whole)) % i32(last);
  if (i < 0) {
    i += i32(last);
  }
  return ClipEntry(u32(i), f);
}`;

/** A shader with a generated block: its file (from the repository root) and what the block holds: constants, then shared WGSL text. */
export interface GeneratedShader {
  readonly file: string;
  readonly constants: readonly SharedConstant[];
  readonly structs: string;
}

/**
 * The kernel's shaders with a generated block. Each feature lists its own next to its code
 * (src/features/<name>/*-wgsl.ts); tools/wgsl-shaders.ts gathers all of them for
 * `npm run gen:wgsl` and the drift test.
 */
export const KERNEL_SHADERS: readonly GeneratedShader[] = [
  { file: 'shaders/pose.wgsl', constants: POSE_CONSTANTS, structs: `${POSE_RECORD_STRUCTS}\n\n${CLIP_CLOCK}` },
  { file: 'shaders/culling/cull.wgsl', constants: CULL_CONSTANTS, structs: INSTANCE_STRUCT },
  { file: 'shaders/skin.wgsl', constants: [['DQ_VEC4S', DQ_VEC4S]], structs: INSTANCE_STRUCT },
];

export const GENERATED_BEGIN = '// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit';
export const GENERATED_END = '// END generated';

/** The WGSL declarations of `constants` (u32 flags in hex, f32 as written), then `structs`, between the marker lines. */
export function wgslConstantBlock(constants: readonly SharedConstant[] = POSE_CONSTANTS, structs = ''): string {
  const lines = constants.map(([name, value, type = 'u32']) => {
    if (type === 'f32') {
      if (!Number.isFinite(value)) throw new RangeError(`${name} = ${value} is not a finite f32`);
      return `const ${name}: f32 = ${Number.isInteger(value) ? `${value}.0` : String(value)};`;
    }
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${name} = ${value} is not a u32`);
    const literal = value >= 0x10000 ? `0x${value.toString(16)}u` : `${value}u`;
    return `const ${name}: u32 = ${literal};`;
  });
  return [GENERATED_BEGIN, ...lines, ...(structs ? ['', structs] : []), GENERATED_END].join('\n');
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
