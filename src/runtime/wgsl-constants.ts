import { PATHS, TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP } from '../bake/bake';
import { PLANE_REACH_SCALE } from './culling/cull-math';
import {
  COUNT_FROM_PARAMS, CULL_ANIMATION_LOD, CULL_ARGS, CULL_COUNTERS, DOT_WORKGROUP, CULL_FRUSTUM, IMPOSTOR_CHUNK, IMPOSTOR_CLIPS, IMPOSTOR_VERTICES, CULL_LOD, CULL_SHADOWS, DQ_DEGENERATE_DET, DQ_POLAR_ITERATIONS, DQ_VEC4S, RECORD_WORDS,
  LAYERS_IDLE, LAYERS_INDEX, LAYERS_NONE, LAYERS_SHOWN, LOD_NOT_FORCED, PALETTE_BUCKET_BITS, PALETTE_BUCKETS, PALETTE_FREE, PALETTE_INDEX_MASK, PALETTE_NONE, PALETTE_SHARED, PALETTE_STALE_FRAMES, MASK_NONE, SLOT_MESH_ONLY, MATRIX_VEC4S, SLOT_VEC4S, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, STACK_LAYERS,
} from './layout';

/** A shared constant: its WGSL name, value, and type (u32 unless said). */
export type SharedConstant = readonly [name: string, value: number, type?: WgslScalar];

/** The scalar types a shared constant may have. */
export type WgslScalar = 'u32' | 'i32' | 'f32';

/**
 * The constants that shaders/pose.wgsl and shaders/morph/morph.wgsl share with TypeScript, with
 * their one source: the baked-table flags of src/bake/bake.ts and the record sentinels and layer
 * counts of src/runtime/layout.ts. A shader holds its constants in a block between the two marker
 * lines below, written by `npm run gen:wgsl` (tools/gen-wgsl.ts) so that the .wgsl file stays
 * valid on its own; test/runtime/wgsl-constants.test.ts fails when the block in the file differs
 * from its list, or when the shader writes one of them by hand.
 */
export const POSE_CONSTANTS: readonly SharedConstant[] = [
  ['TRACK_NONE', TRACK_NONE],
  ['TRACK_STEP', TRACK_STEP],
  ['TRACK_INDEX_MASK', TRACK_INDEX_MASK],
  ['LAYERS_NONE', LAYERS_NONE],
  ['LAYERS_IDLE', LAYERS_IDLE],
  ['LAYERS_INDEX', LAYERS_INDEX],
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

/**
 * The constants shaders/pose.wgsl alone needs, after POSE_CONSTANTS in its block: the strides of
 * its tables (TRS paths per node in trackRefs and the rest pose, vec4f per joint slot and per
 * written joint record), its dual-quaternion split's threshold, and the palette's entry tags and
 * time buckets (a shared entry is brought to its clip's bucket now: docs/palette.md).
 */
export const POSE_ONLY_CONSTANTS: readonly SharedConstant[] = [
  ['TRS_PATHS', PATHS.length],
  ['SLOT_VEC4S', SLOT_VEC4S],
  ['MATRIX_VEC4S', MATRIX_VEC4S],
  ['DQ_DEGENERATE_DET', DQ_DEGENERATE_DET, 'f32'],
  ['PALETTE_SHARED', PALETTE_SHARED],
  ['PALETTE_NONE', PALETTE_NONE],
  ['PALETTE_BUCKETS', PALETTE_BUCKETS],
  ['PALETTE_BUCKET_BITS', PALETTE_BUCKET_BITS],
  ['RECORD_WORDS', RECORD_WORDS],
];

/** The constants shaders/culling/cull.wgsl shares with TypeScript: counter and argument words, flags. */
export const CULL_CONSTANTS: readonly SharedConstant[] = [
  ['COUNTER_WORDS', CULL_COUNTERS.words],
  ['COUNTER_POSE_PLAIN', CULL_COUNTERS.posePlain],
  ['COUNTER_POSE_LAYERED', CULL_COUNTERS.poseLayered],
  ['COUNTER_CAMERA', CULL_COUNTERS.camera],
  ['COUNTER_SHADOW', CULL_COUNTERS.shadow],
  ['COUNTER_IMPOSTOR', CULL_COUNTERS.impostor],
  ['COUNTER_BAND', CULL_COUNTERS.band],
  ['COUNTER_DOT', CULL_COUNTERS.dot],
  ['ARGS_POSE_PLAIN', CULL_ARGS.posePlain],
  ['ARGS_POSE_LAYERED', CULL_ARGS.poseLayered],
  ['ARGS_DRAWS', CULL_ARGS.draws],
  ['ARGS_DRAW_WORDS', CULL_ARGS.drawWords],
  ['ARGS_IMPOSTOR_WORDS', CULL_ARGS.impostorWords],
  ['ARGS_DOT_WORDS', CULL_ARGS.dotWords],
  ['DOT_WORKGROUP', DOT_WORKGROUP],
  ['IMPOSTOR_VERTICES', IMPOSTOR_VERTICES],
  ['IMPOSTOR_CHUNK', IMPOSTOR_CHUNK],
  ['IMPOSTOR_CLIPS', IMPOSTOR_CLIPS],
  ['SLOT_MESH_ONLY', SLOT_MESH_ONLY],
  ['LAYERS_IDLE', LAYERS_IDLE],
  ['LAYERS_SHOWN', LAYERS_SHOWN],
  ['CULL_FRUSTUM', CULL_FRUSTUM],
  ['CULL_LOD', CULL_LOD],
  ['CULL_ANIMATION_LOD', CULL_ANIMATION_LOD],
  ['CULL_SHADOWS', CULL_SHADOWS],
  ['LOD_NOT_FORCED', LOD_NOT_FORCED],
  ['PLANE_REACH_SCALE', PLANE_REACH_SCALE, 'f32'],
];

/**
 * The locomotion channel's record as WGSL (layout: LOCOMOTION_DRIVE in src/runtime/layout.ts, checked
 * field by field by test/runtime/layout.test.ts): the writer's and the reader's generated blocks.
 */
export const LOCOMOTION_DRIVE_STRUCT = `struct LocomotionDrive {
  x: f32,
  z: f32,
  heading: f32,
  forward: f32,
  right: f32,
  driven: u32,
  pad0: u32,
  pad1: u32,
}`;

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
export const PRECISE_SIN_COS = `const HALF_PI_HI: f32 = ${wgslLiteral('HALF_PI_HI', Math.PI / 2, 'f32')}; // f32(pi / 2)
const HALF_PI_LO: f32 = ${wgslLiteral('HALF_PI_LO', Math.PI / 2 - Math.fround(Math.PI / 2), 'f32')}; // pi / 2 - HALF_PI_HI

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

/** The constants shaders/culling/palette.wgsl shares with TypeScript: the cull counters it reads, the entry tags, the free stack's words. */
export const PALETTE_CONSTANTS: readonly SharedConstant[] = [
  ['COUNTER_CAMERA', CULL_COUNTERS.camera],
  ['COUNTER_SHADOW', CULL_COUNTERS.shadow],
  ['COUNTER_BAND', CULL_COUNTERS.band],
  ['PALETTE_NONE', PALETTE_NONE],
  ['PALETTE_SHARED', PALETTE_SHARED],
  ['PALETTE_BUCKETS', PALETTE_BUCKETS],
  ['PALETTE_BUCKET_BITS', PALETTE_BUCKET_BITS],
  ['PALETTE_STALE_FRAMES', PALETTE_STALE_FRAMES],
  ['PALETTE_FREE_COUNT', PALETTE_FREE.count],
  ['PALETTE_FREE_STACK', PALETTE_FREE.stack],
];

/**
 * The kernel's shaders with a generated block. Each feature lists its own next to its code
 * (src/features/<name>/*-wgsl.ts); tools/wgsl-shaders.ts gathers all of them for
 * `npm run gen:wgsl` and the drift test.
 */
export const KERNEL_SHADERS: readonly GeneratedShader[] = [
  { file: 'shaders/pose.wgsl', constants: [...POSE_CONSTANTS, ...POSE_ONLY_CONSTANTS], structs: `${POSE_RECORD_STRUCTS}\n\n${CLIP_CLOCK}` },
  { file: 'shaders/culling/cull.wgsl', constants: CULL_CONSTANTS, structs: INSTANCE_STRUCT },
  { file: 'shaders/skin.wgsl', constants: [['DQ_VEC4S', DQ_VEC4S], ['MATRIX_VEC4S', MATRIX_VEC4S], ['PALETTE_INDEX_MASK', PALETTE_INDEX_MASK]], structs: INSTANCE_STRUCT },
  { file: 'shaders/culling/palette.wgsl', constants: PALETTE_CONSTANTS, structs: `${INSTANCE_STRUCT}\n\n${CLIP_CLOCK}` },
];

export const GENERATED_BEGIN = '// BEGIN generated by `npm run gen:wgsl` from the lists in tools/wgsl-shaders.ts: do not edit';
export const GENERATED_END = '// END generated';

/**
 * The WGSL declarations of `constants` (see wgslLiteral), then `structs`, between the marker lines.
 * An f32 whose literal is not its decimal value carries that value as a comment.
 */
export function wgslConstantBlock(constants: readonly SharedConstant[] = POSE_CONSTANTS, structs = ''): string {
  const lines = constants.map(([name, value, type = 'u32']) => {
    const literal = wgslLiteral(name, value, type);
    const exact = type !== 'f32' || !literal.startsWith('0x') && !literal.startsWith('-0x');
    return `const ${name}: ${type} = ${literal};${exact ? '' : ` // ${value}`}`;
  });
  return [GENERATED_BEGIN, ...lines, ...(structs ? ['', structs] : []), GENERATED_END].join('\n');
}

/**
 * `value` as a WGSL literal of `type` that means exactly the number the GPU should hold; a
 * RangeError naming `name` when the type cannot hold it. u32: hex from 0x10000 (flags and
 * sentinels), decimal below. i32: decimal. f32: the float32 the TypeScript number rounds to
 * (Math.fround), written so that no compiler rounds it again: as a decimal when one of at most 9
 * significant digits is exactly that float (0.5, 3.0), else as a hexadecimal float literal
 * (1e-6 is 0x1.0c6f7ap-20f), exact by construction.
 */
export function wgslLiteral(name: string, value: number, type: WgslScalar = 'u32'): string {
  if (type === 'u32') {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`${name} = ${value} is not a u32`);
    return value >= 0x10000 ? `0x${value.toString(16)}u` : `${value}u`;
  }
  if (type === 'i32') {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new RangeError(`${name} = ${value} is not an i32`);
    return value === -0x80000000 ? 'i32(-2147483648)' : `${value}i`;
  }
  const f = Math.fround(value);
  if (!Number.isFinite(f)) throw new RangeError(`${name} = ${value} is not a finite f32`);
  return exactDecimal(f) ?? hexFloat(f);
}

/** The decimal of float32 `f` when it has at most 9 significant digits and is exactly `f`, else undefined. */
function exactDecimal(f: number): string | undefined {
  const { sign, mantissa, exponent } = float32Parts(f);
  let digits: string;
  let point: number; // digits after the decimal point
  if (exponent >= 0) {
    digits = (BigInt(mantissa) << BigInt(exponent)).toString();
    point = 0;
  } else {
    digits = (BigInt(mantissa) * 5n ** BigInt(-exponent)).toString(); // mantissa * 2^exponent = this * 10^exponent
    point = -exponent;
  }
  digits = digits.padStart(point + 1, '0');
  let whole = digits.slice(0, digits.length - point);
  let fraction = digits.slice(digits.length - point).replace(/0+$/, '');
  if (`${whole}${fraction}`.replace(/^0+/, '').replace(/0+$/, '').length > 9) return undefined;
  whole = whole.replace(/^0+(?=\d)/, '');
  fraction ||= '0';
  return `${sign}${whole}.${fraction}`;
}

/** Float32 `f` (finite) as a hexadecimal float literal with an f suffix: exactly `f`. */
function hexFloat(f: number): string {
  const bits = new Uint32Array(new Float32Array([f]).buffer)[0];
  const sign = bits >>> 31 ? '-' : '';
  const biased = (bits >>> 23) & 0xff;
  const fraction = ((bits & 0x7fffff) << 1).toString(16).padStart(6, '0').replace(/0+$/, '');
  const lead = biased === 0 ? '0' : '1'; // subnormal: 0.fraction x 2^-126
  return `${sign}0x${lead}${fraction ? `.${fraction}` : ''}p${biased === 0 ? -126 : biased - 127}f`;
}

/** Float32 `f` (finite) as sign x mantissa x 2^exponent, the mantissa an integer below 2^24. */
function float32Parts(f: number): { sign: string; mantissa: number; exponent: number } {
  const bits = new Uint32Array(new Float32Array([f]).buffer)[0];
  const biased = (bits >>> 23) & 0xff;
  const fraction = bits & 0x7fffff;
  return {
    sign: bits >>> 31 ? '-' : '',
    mantissa: biased === 0 ? fraction : fraction | 0x800000,
    exponent: biased === 0 ? -149 : biased - 150,
  };
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
