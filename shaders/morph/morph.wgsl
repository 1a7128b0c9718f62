// Morph pass: turns each instance's animation record (and layer stack) into its morph weights,
// blended with the same weights as its clips (src/anim/morph.ts has the rules, and is the CPU
// twin): W = W(A) mixed toward W(B) by blend; override layers mix, additive layers add
// weight * mask * (W(layer) - W(reference)); then the CPU's per-instance overrides replace
// whatever they set. The vertex shader (shaders/skin.wgsl, vertex4Morph / vertex8Morph) reads
// the result. One thread per (instance, group of 4 weights), every instance every frame.
// Layouts: src/runtime/layout.ts (MORPH_PARAMS). Tables: BakedMorph in src/bake/bake.ts.

override WORKGROUP_SIZE: u32; // no default: the pass sets it (WORKGROUP_SIZE in src/runtime/limits.ts)

// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
const TRACK_NONE: u32 = 0xffffffffu;
const TRACK_STEP: u32 = 0x80000000u;
const TRACK_INDEX_MASK: u32 = 0x7fffffffu;
const LAYERS_NONE: u32 = 0xffffffffu;
const MASK_NONE: u32 = 0xffffffffu;
const REFERENCE_REST: u32 = 0xffffffffu;
const REFERENCE_IDENTITY: u32 = 0xfffffffeu;
const MAX_OVERRIDE_LAYERS: u32 = 4u;
const MAX_ADDITIVE_LAYERS: u32 = 2u;
const STACK_LAYERS: u32 = 6u;
const COUNT_FROM_PARAMS: u32 = 0xffffffffu;
const DQ_VEC4S: u32 = 4u;
const DQ_POLAR_ITERATIONS: u32 = 16u;

struct Instance {
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
}

struct Layer {
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
}

// a * b as a 64-bit (low word, high word) pair, from 16-bit halves (WGSL has no 64-bit integers).
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

// Position at `ticks` (the crowd clock in CLOCK_TICKS_PER_SECOND) of a clip recorded as (phase,
// rate): phase * 2^32 + rate * ticks mod 2^64, in 2^-64 turns, as (low word, high word). Exact.
fn clipTurns(phase: u32, rateLo: u32, rateHi: u32, ticks: i32) -> vec2u {
  let c = bitcast<u32>(ticks);
  let low = mulWide(rateLo, c);
  // A negative tick count reads as ticks + 2^32 in a u32: take rateLo * 2^32 back off.
  return vec2u(low.x, phase + low.y + rateHi * c - select(0u, rateLo, ticks < 0));
}

// Entry index in [0, last) and fraction in [0, 1] of position `turns` plus `extra` turns (a small
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
}
// END generated

struct MorphParams {
  count: u32,
  groups: u32,
  clockTicks: i32,
  dispatchWidth: u32,
  nodeCount: u32,
  restBase: u32,
  clipBase: u32,
  maskBase: u32,
  clockResidual: f32,
}

@group(0) @binding(0) var<uniform> params: MorphParams;
// Morph track entries (vec4f, 4 weights each); the default weights (groups vec4f) from
// params.restBase; one (duration in seconds, entries per track, 1 for a difference clip else 0, 0)
// per clip from params.clipBase.
@group(0) @binding(1) var<storage, read> tables: array<vec4f>;
// clip * groups + group -> index in `tables` of the track's entry 0 | TRACK_STEP, or TRACK_NONE;
// then from params.maskBase the rig node whose mask weight applies to each group.
@group(0) @binding(2) var<storage, read> refs: array<u32>;
@group(0) @binding(3) var<storage, read> instances: array<Instance>;
@group(0) @binding(4) var<storage, read> stacks: array<LayerStack>;
// Blend masks: nodeCount weights in [0, 1] per mask.
@group(0) @binding(5) var<storage, read> masks: array<f32>;
// Per instance, groups vec4f of overrides: a weight in [0, 1], or MORPH_ANIMATED (< 0).
@group(0) @binding(6) var<storage, read> overrides: array<vec4f>;
// Per instance, groups vec4f: the weights the vertex shader reads.
@group(0) @binding(7) var<storage, read_write> weights: array<vec4f>;

// Where a clip is in its tracks (the rule of pose.wgsl's tableCoordinate): entry `index` in
// [0, last) and `fraction` towards the next.
struct Coordinate {
  index: u32,
  fraction: f32,
  last: u32,
  difference: bool,
}

// Clip `clip` recorded as (phase, speed, rate) at the crowd clock (src/runtime/clip-clock.ts).
fn coordinate(clip: u32, phase: u32, speed: f32, rateLo: u32, rateHi: u32) -> Coordinate {
  let info = tables[params.clipBase + clip];
  let d = info.x;
  let last = u32(info.y) - 1u;
  let difference = info.z != 0.0;
  if (!(d > 0.0) || last == 0u) {
    return Coordinate(0u, 0.0, last, difference);
  }
  let e = clipEntry(clipTurns(phase, rateLo, rateHi, params.clockTicks), speed * params.clockResidual / d, last);
  return Coordinate(e.index, e.fraction, last, difference);
}

// Group `group`'s 4 weights in clip `clip` at coordinate c: two entries mixed (STEP: the entry at
// or before), or the defaults (0 in a difference clip) when the clip does not animate them.
fn groupWeights(clip: u32, c: Coordinate, group: u32) -> vec4f {
  let track = refs[clip * params.groups + group];
  if (track == TRACK_NONE) {
    return select(tables[params.restBase + group], vec4f(0.0), c.difference);
  }
  let base = track & TRACK_INDEX_MASK;
  if ((track & TRACK_STEP) != 0u) {
    return tables[base + c.index];
  }
  return mix(tables[base + c.index], tables[base + c.index + 1u], c.fraction);
}

fn maskWeight(mask: u32, group: u32) -> f32 {
  if (mask == MASK_NONE) {
    return 1.0;
  }
  return masks[mask * params.nodeCount + refs[params.maskBase + group]];
}

// Stack `index`'s override layers, then its additive layers, applied to one group's weights.
fn applyStack(index: u32, base: vec4f, group: u32) -> vec4f {
  var w = base;
  let overrideCount = min(stacks[index].overrideCount, MAX_OVERRIDE_LAYERS);
  for (var i = 0u; i < overrideCount; i++) {
    let layer = stacks[index].layers[i];
    let k = layer.weight * maskWeight(layer.mask, group);
    if (k > 0.0) {
      w = mix(w, groupWeights(layer.clip, coordinate(layer.clip, layer.phase, layer.speed, layer.rateLo, layer.rateHi), group), k);
    }
  }
  let additives = min(stacks[index].additiveCount, MAX_ADDITIVE_LAYERS);
  for (var a = 0u; a < additives; a++) {
    let layer = stacks[index].layers[MAX_OVERRIDE_LAYERS + a];
    let k = layer.weight * maskWeight(layer.mask, group);
    if (k > 0.0) {
      var r = tables[params.restBase + group];
      if (layer.refClip == REFERENCE_IDENTITY) {
        r = vec4f(0.0);
      } else if (layer.refClip != REFERENCE_REST) {
        r = groupWeights(layer.refClip, coordinate(layer.refClip, layer.refPhase, layer.refSpeed, layer.refRateLo, layer.refRateHi), group);
      }
      w += k * (groupWeights(layer.clip, coordinate(layer.clip, layer.phase, layer.speed, layer.rateLo, layer.rateHi), group) - r);
    }
  }
  return w;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let index = id.x + id.y * params.dispatchWidth;
  if (index >= params.count * params.groups) {
    return;
  }
  let slot = index / params.groups;
  let group = index % params.groups;
  let record = instances[slot];
  var w = groupWeights(record.clipA, coordinate(record.clipA, record.phaseA, record.speedA, record.rateLoA, record.rateHiA), group);
  if (record.blend > 0.0) {
    w = mix(w, groupWeights(record.clipB, coordinate(record.clipB, record.phaseB, record.speedB, record.rateLoB, record.rateHiB), group), record.blend);
  }
  if (record.layers != LAYERS_NONE) {
    w = applyStack(record.layers, w, group);
  }
  let o = overrides[index];
  weights[index] = select(w, o, o >= vec4f(0.0));
}
