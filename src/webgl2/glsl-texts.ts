/**
 * The GLSL ES 3.00 texts several WebGL 2 shaders share, and the pose pass's generated blocks:
 * one text each, generated into the block of each shader that needs it (`npm run gen:wgsl`, as the
 * WGSL texts of src/runtime/wgsl-constants.ts are). Record textures: src/webgl2/record-texture.ts.
 */
import { TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP, PATHS } from '../bake/bake';
import {
  INSTANCE, LAYER, LAYER_STACK, LAYERS_NONE, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, SLOT_VEC4S, STACK_LAYERS,
} from '../runtime/layout';
import type { GeneratedShader, SharedConstant } from '../runtime/wgsl-constants';
import { layoutWords } from './glsl-constants';

/** Reading a record texture (GLRecordTexture): texels, u32 words, f32 words. */
export const GLSL_RECORD_FETCH = `// Texel t (u32 words 4t .. 4t + 3) of a record texture \`width\` texels wide (src/webgl2/record-texture.ts).
uvec4 crowdTexel(highp usampler2D records, int width, int t) {
  return texelFetch(records, ivec2(t % width, t / width), 0);
}

// u32 word \`word\` of a record texture.
uint crowdWord(highp usampler2D records, int width, int word) {
  return crowdTexel(records, width, word >> 2)[word & 3];
}

// f32 word \`word\` of a record texture.
float crowdFloat(highp usampler2D records, int width, int word) {
  return uintBitsToFloat(crowdWord(records, width, word));
}

// Texel t of a record texture as the four f32 it holds.
vec4 crowdVec4(highp usampler2D records, int width, int t) {
  return uintBitsToFloat(crowdTexel(records, width, t));
}`;

/**
 * The instance and layer-stack records read from their record textures, field by field at the
 * word offsets generated from INSTANCE, LAYER and LAYER_STACK (layoutWords). crowdInstanceWorld
 * reads the world matrix as 4 texels: INSTANCE's size and world offset are multiples of 16 bytes
 * (test/runtime/wgsl-constants.test.ts checks it).
 */
export const GLSL_POSE_RECORDS = `// INSTANCE's animation fields (src/runtime/layout.ts); the world matrix: crowdInstanceWorld.
struct Instance {
  uint clipA;
  uint clipB;
  uint phaseA;
  uint phaseB;
  float speedA;
  float speedB;
  float blend;
  uint layers;
  uint rateLoA;
  uint rateHiA;
  uint rateLoB;
  uint rateHiB;
};

Instance crowdInstance(highp usampler2D records, int width, int slot) {
  int w = slot * INSTANCE_WORDS;
  Instance r;
  r.clipA = crowdWord(records, width, w + INSTANCE_CLIP_A);
  r.clipB = crowdWord(records, width, w + INSTANCE_CLIP_B);
  r.phaseA = crowdWord(records, width, w + INSTANCE_PHASE_A);
  r.phaseB = crowdWord(records, width, w + INSTANCE_PHASE_B);
  r.speedA = crowdFloat(records, width, w + INSTANCE_SPEED_A);
  r.speedB = crowdFloat(records, width, w + INSTANCE_SPEED_B);
  r.blend = crowdFloat(records, width, w + INSTANCE_BLEND);
  r.layers = crowdWord(records, width, w + INSTANCE_LAYERS);
  r.rateLoA = crowdWord(records, width, w + INSTANCE_RATE_LO_A);
  r.rateHiA = crowdWord(records, width, w + INSTANCE_RATE_HI_A);
  r.rateLoB = crowdWord(records, width, w + INSTANCE_RATE_LO_B);
  r.rateHiB = crowdWord(records, width, w + INSTANCE_RATE_HI_B);
  return r;
}

// The model-to-world matrix of instance record \`slot\` (column-major).
mat4 crowdInstanceWorld(highp usampler2D records, int width, int slot) {
  int t = (slot * INSTANCE_WORDS + INSTANCE_WORLD) >> 2;
  return mat4(crowdVec4(records, width, t), crowdVec4(records, width, t + 1), crowdVec4(records, width, t + 2), crowdVec4(records, width, t + 3));
}

// LAYER: one layer of a LAYER_STACK record.
struct Layer {
  uint clip;
  uint phase;
  float speed;
  float weight;
  uint mask;
  uint refClip;
  uint refPhase;
  float refSpeed;
  uint rateLo;
  uint rateHi;
  uint refRateLo;
  uint refRateHi;
};

// Layer \`layer\` (overrides from 0, additives from MAX_OVERRIDE_LAYERS) of stack record \`stack\`.
Layer crowdLayer(highp usampler2D stacks, int width, int stack, int layer) {
  int w = stack * LAYER_STACK_WORDS + LAYER_STACK_LAYERS + layer * LAYER_WORDS;
  Layer r;
  r.clip = crowdWord(stacks, width, w + LAYER_CLIP);
  r.phase = crowdWord(stacks, width, w + LAYER_PHASE);
  r.speed = crowdFloat(stacks, width, w + LAYER_SPEED);
  r.weight = crowdFloat(stacks, width, w + LAYER_WEIGHT);
  r.mask = crowdWord(stacks, width, w + LAYER_MASK);
  r.refClip = crowdWord(stacks, width, w + LAYER_REF_CLIP);
  r.refPhase = crowdWord(stacks, width, w + LAYER_REF_PHASE);
  r.refSpeed = crowdFloat(stacks, width, w + LAYER_REF_SPEED);
  r.rateLo = crowdWord(stacks, width, w + LAYER_RATE_LO);
  r.rateHi = crowdWord(stacks, width, w + LAYER_RATE_HI);
  r.refRateLo = crowdWord(stacks, width, w + LAYER_REF_RATE_LO);
  r.refRateHi = crowdWord(stacks, width, w + LAYER_REF_RATE_HI);
  return r;
}`;

/**
 * The clip clock in GLSL: CLIP_CLOCK of src/runtime/wgsl-constants.ts (which says why) line for
 * line, with two GLSL differences: the tick count arrives as its two's-complement u32 bits (GLSL
 * ES leaves converting a negative int to uint to the implementation), and the entry index wraps
 * without %, which GLSL leaves undefined for negative operands.
 */
export const GLSL_CLIP_CLOCK = `// a * b as a 64-bit (low word, high word) pair, from 16-bit halves.
uvec2 mulWide(uint a, uint b) {
  uint a0 = a & 0xffffu;
  uint a1 = a >> 16u;
  uint b0 = b & 0xffffu;
  uint b1 = b >> 16u;
  uint p00 = a0 * b0;
  uint p01 = a0 * b1;
  uint p10 = a1 * b0;
  uint mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return uvec2((mid << 16u) | (p00 & 0xffffu), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// Position at \`ticks\` (the crowd clock in CLOCK_TICKS_PER_SECOND, an i32 as its u32 bits) of a clip
// recorded as (phase, rate): phase * 2^32 + rate * ticks mod 2^64, in 2^-64 turns, as (low word, high word). Exact.
uvec2 clipTurns(uint phase, uint rateLo, uint rateHi, uint ticks) {
  uvec2 low = mulWide(rateLo, ticks);
  // A negative tick count reads as ticks + 2^32 in a u32: take rateLo * 2^32 back off.
  return uvec2(low.x, phase + low.y + rateHi * ticks - ((ticks >> 31u) != 0u ? rateLo : 0u));
}

// Entry index in [0, last) and fraction in [0, 1] of position \`turns\` plus \`extra\` turns (a small
// float32 rest of either sign) in a table of last + 1 entries (last >= 1) spanning one turn.
struct ClipEntry {
  uint index;
  float fraction;
};

ClipEntry clipEntry(uvec2 turns, float extra, uint last) {
  uvec2 u = mulWide(turns.y, last); // u.y whole entries, u.x the fraction in 2^-32
  float f = float(u.x) * 2.3283064365386963e-10 + (float(turns.x) * 5.421010862427522e-20 + extra) * float(last);
  float whole = floor(f);
  f -= whole;
  int n = int(last);
  int i = int(u.y) + int(whole);
  if (i < 0) {
    i += n * ((n - 1 - i) / n);
  }
  i -= n * (i / n);
  return ClipEntry(uint(i), f);
}`;

/** The constants shaders/webgl2/pose-local.frag.glsl shares with TypeScript: pose.wgsl's, then the record layouts as word offsets. */
export const GL_POSE_CONSTANTS: readonly SharedConstant[] = [
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
  ['TRS_PATHS', PATHS.length],
  ['SLOT_VEC4S', SLOT_VEC4S],
  ...layoutWords('INSTANCE', INSTANCE),
  ...layoutWords('LAYER', LAYER),
  ...layoutWords('LAYER_STACK', LAYER_STACK),
];

/** The WebGL 2 pose pass's shaders with their generated blocks (tools/wgsl-shaders.ts lists them with the WGSL ones). */
export const GL_POSE_SHADERS: readonly GeneratedShader[] = [
  { file: 'shaders/webgl2/pose.vert.glsl', constants: [], structs: '' },
  { file: 'shaders/webgl2/pose-local.frag.glsl', constants: GL_POSE_CONSTANTS, structs: `${GLSL_RECORD_FETCH}\n\n${GLSL_POSE_RECORDS}\n\n${GLSL_CLIP_CLOCK}` },
  { file: 'shaders/webgl2/pose.frag.glsl', constants: [['SLOT_VEC4S', SLOT_VEC4S]], structs: GLSL_RECORD_FETCH },
];

/**
 * CAMERA (src/runtime/layout.ts) as the skin pass's std140 uniform block, one text for its two
 * stages; std140 gives it the WGSL uniform's offsets (test/webgl2/gl-shaders.test.ts checks them).
 */
export const GLSL_CAMERA_BLOCK = `// CAMERA in src/runtime/layout.ts (std140 gives the same offsets as the WGSL uniform).
layout(std140) uniform Camera {
  mat4 viewProjection;
  vec3 lightDirection;
  float shadowStrength;
  mat4 lightViewProjection;
  float shadowTexel;
  float shadowBias;
  float pad0;
  float pad1;
  vec4 eye;
  vec3 sunColor;
  vec3 skyColor;
  vec3 groundColor;
} camera;`;

/**
 * The draw's shaders (src/webgl2/gl-skin-pass.ts, gl-environment-map.ts): the skin stages share
 * the Camera block; their other shared values reach them as `#define`s that GLSkinPass and
 * GLEnvironmentMap build from src/runtime/layout.ts when they compile (withDefines, src/webgl2/gl-program.ts), and
 * test/webgl2/gl-shaders.test.ts checks their uniform blocks and locations against layout.ts.
 */
export const GL_DRAW_SHADERS: readonly GeneratedShader[] = [
  { file: 'shaders/webgl2/skin.vert.glsl', constants: [], structs: GLSL_CAMERA_BLOCK },
  { file: 'shaders/webgl2/skin.frag.glsl', constants: [], structs: GLSL_CAMERA_BLOCK },
  { file: 'shaders/webgl2/environment.vert.glsl', constants: [], structs: '' },
  { file: 'shaders/webgl2/environment.frag.glsl', constants: [], structs: '' },
];
