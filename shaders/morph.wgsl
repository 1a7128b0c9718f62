// Morph pass: turns each instance's animation record (and layer stack) into its morph weights,
// blended with the same weights as its clips (src/anim/morph.ts has the rules, and is the CPU
// twin): W = W(A) mixed toward W(B) by blend; override layers mix, additive layers add
// weight * mask * (W(layer) - W(reference)); then the CPU's per-instance overrides replace
// whatever they set. The vertex shader (shaders/skin.wgsl, vertex4Morph / vertex8Morph) reads
// the result. One thread per (instance, group of 4 weights), every instance every frame.
// Layouts: src/gpu/layout.ts (MORPH_PARAMS). Tables: BakedMorph in src/bake/bake.ts.

override WORKGROUP_SIZE: u32 = 64;

// BEGIN generated from src/gpu/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
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
  phaseA: f32,
  phaseB: f32,
  speedA: f32,
  speedB: f32,
  blend: f32,
  layers: u32,
}

struct Layer {
  clip: u32,
  phase: f32,
  speed: f32,
  weight: f32,
  mask: u32,
  refClip: u32,
  refPhase: f32,
  refSpeed: f32,
}

struct LayerStack {
  overrideCount: u32,
  additiveCount: u32,
  layers: array<Layer, STACK_LAYERS>,
}
// END generated

struct MorphParams {
  count: u32,
  groups: u32,
  clock: f32,
  dispatchWidth: u32,
  nodeCount: u32,
  restBase: u32,
  clipBase: u32,
  maskBase: u32,
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

// Where a time falls in a clip's tracks (the rule of pose.wgsl's tableCoordinate).
struct Coordinate {
  u: f32,
  last: u32,
  difference: bool,
}

fn coordinate(clip: u32, t: f32) -> Coordinate {
  let info = tables[params.clipBase + clip];
  let d = info.x;
  let last = u32(info.y) - 1u;
  let difference = info.z != 0.0;
  if (d <= 0.0) {
    return Coordinate(0.0, last, difference);
  }
  var wrapped = t - floor(t / d) * d;
  if (wrapped >= d) {
    wrapped = 0.0;
  }
  return Coordinate(min(wrapped / d * f32(last), f32(last)), last, difference);
}

// Group `group`'s 4 weights in clip `clip` at time t: two entries mixed (STEP: the entry at or
// before), or the defaults (0 in a difference clip) when the clip does not animate them.
fn groupWeights(clip: u32, t: f32, group: u32) -> vec4f {
  let c = coordinate(clip, t);
  let track = refs[clip * params.groups + group];
  if (track == TRACK_NONE) {
    return select(tables[params.restBase + group], vec4f(0.0), c.difference);
  }
  let base = track & TRACK_INDEX_MASK;
  if ((track & TRACK_STEP) != 0u) {
    return tables[base + u32(floor(c.u))];
  }
  let i = min(u32(floor(c.u)), c.last - 1u);
  return mix(tables[base + i], tables[base + i + 1u], c.u - f32(i));
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
      w = mix(w, groupWeights(layer.clip, layer.phase + layer.speed * params.clock, group), k);
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
        r = groupWeights(layer.refClip, layer.refPhase + layer.refSpeed * params.clock, group);
      }
      w += k * (groupWeights(layer.clip, layer.phase + layer.speed * params.clock, group) - r);
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
  var w = groupWeights(record.clipA, record.phaseA + record.speedA * params.clock, group);
  if (record.blend > 0.0) {
    w = mix(w, groupWeights(record.clipB, record.phaseB + record.speedB * params.clock, group), record.blend);
  }
  if (record.layers != LAYERS_NONE) {
    w = applyStack(record.layers, w, group);
  }
  let o = overrides[index];
  weights[index] = select(w, o, o >= vec4f(0.0));
}
