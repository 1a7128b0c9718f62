// Pose pass: turns one animation record per instance into that instance's joint matrices.
// A record blends clip B over clip A; a record with a layer stack then applies up to 4 override
// layers (each with an optional per-node mask) and 2 additive layers, with the semantics of
// src/anim/layers.ts.
//
// One workgroup per instance (a 2D grid of them, so any instance count fits under the
// workgroups-per-dimension limit, MAX_WORKGROUPS_PER_DIMENSION in src/runtime/limits.ts). Its threads sample and blend the local TRS of every rig node
// in parallel into workgroup memory, compose local -> model one hierarchy level at a time
// (a barrier between levels), then write model * inverseBind for every joint slot (model space:
// shaders/skin.wgsl applies the instance's world transform).
// Layouts: src/runtime/layout.ts (checked against this file by test/runtime/layout.test.ts). Table
// layout and the reading rule: src/bake/bake.ts. The TypeScript twin: src/anim/lut.ts + pose.ts.

override WORKGROUP_SIZE: u32; // threads per instance, no default: PosePass sets it (workgroupSize)
// Capacity of the workgroup matrix array: at least the rig's node count.
override MAX_NODES: u32 = 256;
// False compiles the layer-stack code out: the pipeline for records without stacks (PosePass
// dispatches plain and layered records separately, so plain ones never pay for it).
override LAYERS_ENABLED: bool = true;
// True writes each joint slot as a dual-quaternion record (JOINT_DQ, 4 vec4f: see the block at
// the end of this file) instead of 3 matrix rows: CrowdOptions.skinning 'dual-quaternion'.
override DUAL_QUATERNION: bool = false;

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
const TRS_PATHS: u32 = 3u;
const SLOT_VEC4S: u32 = 5u;
const MATRIX_VEC4S: u32 = 3u;
const DQ_DEGENERATE_DET: f32 = 0x1.0c6f7ap-20f; // 0.000001

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

struct Params {
  instanceCount: u32,
  nodeCount: u32,
  slotCount: u32,
  clipBase: u32,
  restBase: u32,
  maxDepth: u32,
  clockTicks: i32,
  dispatchWidth: u32,
  listBase: u32,
  countIndex: u32,
  nodeBase: u32,
  slotBase: u32,
  clockResidual: f32,
}

struct Node {
  parent: i32,
  depth: u32,
}

struct JointSlot {
  inverseBind: mat4x4f,
  node: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Baked track entries; 3 rest-pose vec4f per node from index params.restBase; the identity
// difference (3 vec4f) at params.clipBase - 3; then one (duration in seconds, entries per
// track, 1 for a difference clip else 0, 0) per clip from index params.clipBase; then one
// (parent, depth, 0, 0) per node from params.nodeBase and 5 vec4f per joint slot (the inverse
// bind matrix's columns, then (node, 0, 0, 0)) from params.slotBase, integers as exact floats.
// (One buffer rather than three keeps the pass within 8 storage buffers, WebGPU's default.)
@group(0) @binding(1) var<storage, read> tracks: array<vec4f>;
// (clip * nodeCount + node) * 3 + path -> index of the track's entry 0 | TRACK_STEP, or TRACK_NONE.
@group(0) @binding(2) var<storage, read> trackRefs: array<u32>;
@group(0) @binding(3) var<storage, read> instances: array<Instance>;
// Layer stacks, indexed by Instance.layers.
@group(0) @binding(4) var<storage, read> stacks: array<LayerStack>;
// Blend masks: nodeCount weights in [0, 1] per mask.
@group(0) @binding(5) var<storage, read> masks: array<f32>;
// 3 vec4f (the top rows of the affine joint matrix) per instance per slot.
@group(0) @binding(6) var<storage, read_write> jointMatrices: array<vec4f>;
// The instances to pose: entry params.listBase + workgroup index holds the slot. Without a cull
// pass the identity list (entry i holds i); after one, the cull pass's pose list, whose
// length is word params.countIndex of the same buffer (see COUNT_FROM_PARAMS).
@group(0) @binding(7) var<storage, read> instanceList: array<u32>;

// Local matrices, then (after the level loop) model matrices of this workgroup's instance.
var<workgroup> model: array<mat4x4f, MAX_NODES>;
// This dispatch's instance count, shared so that every thread sees one uniform value.
var<workgroup> listLength: u32;

struct Trs {
  t: vec3f,
  r: vec4f,
  s: vec3f,
}

// Where a clip is in its tracks: entry `index` in [0, last) and `fraction` in [0, 1] towards the
// next; whether the clip is a difference clip (its untouched nodes read the identity difference,
// not the rest pose).
struct TableCoordinate {
  index: u32,
  fraction: f32,
  last: u32,
  difference: bool,
}

// Where clip `clip`, recorded as (phase, speed, rate) (Instance, Layer), is at the crowd clock:
// exact integer position in the clip (clipTurns), scaled to its entries (clipEntry), so no
// float32 product of the clock or of a long clip's time is rounded (src/runtime/clip-clock.ts).
fn tableCoordinate(clip: u32, phase: u32, speed: f32, rateLo: u32, rateHi: u32) -> TableCoordinate {
  let info = tracks[params.clipBase + clip];
  let d = info.x;
  let last = u32(info.y) - 1u;
  let difference = info.z != 0.0;
  if (!(d > 0.0) || last == 0u) {
    return TableCoordinate(0u, 0.0, last, difference);
  }
  let e = clipEntry(clipTurns(phase, rateLo, rateHi, params.clockTicks), speed * params.clockResidual / d, last);
  return TableCoordinate(e.index, e.fraction, last, difference);
}

// One track's value at coordinate c: the two neighbouring entries mixed (STEP: the entry at or
// before c), or the rest value when the clip does not animate this path.
fn sampleTrack(trackRef: u32, restIndex: u32, c: TableCoordinate) -> vec4f {
  if (trackRef == TRACK_NONE) {
    return tracks[restIndex];
  }
  let base = trackRef & TRACK_INDEX_MASK;
  if ((trackRef & TRACK_STEP) != 0u) {
    return tracks[base + c.index];
  }
  return mix(tracks[base + c.index], tracks[base + c.index + 1u], c.fraction);
}

fn sampleNode(clip: u32, u: TableCoordinate, node: u32) -> Trs {
  let refs = (clip * params.nodeCount + node) * TRS_PATHS;
  let rest = select(params.restBase + node * TRS_PATHS, params.clipBase - TRS_PATHS, u.difference);
  return Trs(
    sampleTrack(trackRefs[refs], rest, u).xyz,
    normalize(sampleTrack(trackRefs[refs + 1u], rest + 1u, u)),
    sampleTrack(trackRefs[refs + 2u], rest + 2u, u).xyz,
  );
}

// Shortest-path nlerp of rotations, lerp of translation and scale (w = 0 gives a).
fn blendTrs(a: Trs, b: Trs, w: f32) -> Trs {
  let wb = select(w, -w, dot(a.r, b.r) < 0.0);
  return Trs(mix(a.t, b.t, w), normalize(a.r * (1.0 - w) + b.r * wb), mix(a.s, b.s, w));
}

fn restTrs(node: u32) -> Trs {
  let rest = params.restBase + node * TRS_PATHS;
  return Trs(tracks[rest].xyz, tracks[rest + 1u], tracks[rest + 2u].xyz);
}

// Hamilton product a * b of quaternions (x, y, z, w).
fn quatMul(a: vec4f, b: vec4f) -> vec4f {
  return vec4f(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

// Adds w times the difference a - r onto p (src/anim/layers.ts, rule 3).
fn addTrs(p: Trs, a: Trs, r: Trs, w: f32) -> Trs {
  let delta = quatMul(vec4f(-r.r.xyz, r.r.w), a.r);
  // nlerp(identity, delta, w) along the shortest path: dot(identity, delta) = delta.w
  let weighted = normalize(vec4f(0.0, 0.0, 0.0, 1.0 - w) + delta * select(w, -w, delta.w < 0.0));
  let ratio = select(a.s / r.s, vec3f(1.0), r.s == vec3f(0.0));
  return Trs(p.t + w * (a.t - r.t), normalize(quatMul(p.r, weighted)), p.s * (1.0 + w * (ratio - 1.0)));
}

fn maskWeight(mask: u32, node: u32) -> f32 {
  if (mask == MASK_NONE) {
    return 1.0;
  }
  return masks[mask * params.nodeCount + node];
}

// Applies stack `index`'s override layers, then its additive layers, to one node's pose.
fn applyStack(index: u32, base: Trs, node: u32) -> Trs {
  var p = base;
  let overrides = min(stacks[index].overrideCount, MAX_OVERRIDE_LAYERS);
  for (var i = 0u; i < overrides; i++) {
    let layer = stacks[index].layers[i];
    let w = layer.weight * maskWeight(layer.mask, node);
    if (w > 0.0) {
      let u = tableCoordinate(layer.clip, layer.phase, layer.speed, layer.rateLo, layer.rateHi);
      p = blendTrs(p, sampleNode(layer.clip, u, node), w);
    }
  }
  let additives = min(stacks[index].additiveCount, MAX_ADDITIVE_LAYERS);
  for (var k = 0u; k < additives; k++) {
    let layer = stacks[index].layers[MAX_OVERRIDE_LAYERS + k];
    let w = layer.weight * maskWeight(layer.mask, node);
    if (w > 0.0) {
      let a = sampleNode(layer.clip, tableCoordinate(layer.clip, layer.phase, layer.speed, layer.rateLo, layer.rateHi), node);
      var r = restTrs(node);
      if (layer.refClip == REFERENCE_IDENTITY) {
        r = Trs(vec3f(0.0), vec4f(0.0, 0.0, 0.0, 1.0), vec3f(1.0));
      } else if (layer.refClip != REFERENCE_REST) {
        r = sampleNode(layer.refClip, tableCoordinate(layer.refClip, layer.refPhase, layer.refSpeed, layer.refRateLo, layer.refRateHi), node);
      }
      p = addTrs(p, a, r, w);
    }
  }
  return p;
}

// T * R * S as a column-major matrix.
fn composeTrs(p: Trs) -> mat4x4f {
  let x = p.r.x; let y = p.r.y; let z = p.r.z; let w = p.r.w;
  return mat4x4f(
    vec4f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y), 0.0) * p.s.x,
    vec4f(2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x), 0.0) * p.s.y,
    vec4f(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y), 0.0) * p.s.z,
    vec4f(p.t, 1.0),
  );
}

fn nodeAt(n: u32) -> Node {
  let v = tracks[params.nodeBase + n];
  return Node(i32(v.x), u32(v.y));
}

fn slotAt(s: u32) -> JointSlot {
  let b = params.slotBase + s * SLOT_VEC4S;
  return JointSlot(mat4x4f(tracks[b], tracks[b + 1u], tracks[b + 2u], tracks[b + 3u]), u32(tracks[b + 4u].x));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) thread: u32) {
  let index = group.x + group.y * params.dispatchWidth;
  if (thread == 0u) {
    listLength = params.instanceCount;
    if (params.countIndex != COUNT_FROM_PARAMS) {
      listLength = instanceList[params.countIndex];
    }
  }
  if (index >= workgroupUniformLoad(&listLength)) {
    return; // uniform across the workgroup, so the barriers below stay in uniform control flow
  }
  let instance = instanceList[params.listBase + index];
  let record = instances[instance];
  let uA = tableCoordinate(record.clipA, record.phaseA, record.speedA, record.rateLoA, record.rateHiA);
  let uB = tableCoordinate(record.clipB, record.phaseB, record.speedB, record.rateLoB, record.rateHiB);

  for (var n = thread; n < params.nodeCount; n += WORKGROUP_SIZE) {
    var trs = sampleNode(record.clipA, uA, n);
    if (record.blend > 0.0) {
      trs = blendTrs(trs, sampleNode(record.clipB, uB, n), record.blend);
    }
    if (LAYERS_ENABLED && record.layers != LAYERS_NONE) {
      trs = applyStack(record.layers, trs, n);
    }
    model[n] = composeTrs(trs);
  }
  workgroupBarrier();

  // Nodes are parent-first; every node of depth `level` has its parent final by now.
  for (var level = 1u; level <= params.maxDepth; level++) {
    for (var n = thread; n < params.nodeCount; n += WORKGROUP_SIZE) {
      let node = nodeAt(n);
      if (node.depth == level) {
        model[n] = model[u32(node.parent)] * model[n];
      }
    }
    workgroupBarrier();
  }

  for (var s = thread; s < params.slotCount; s += WORKGROUP_SIZE) {
    let slot = slotAt(s);
    // Model space: the skin shader applies the instance's world transform, so a pose kept over
    // skipped frames (animation LOD) still follows its instance.
    let m = model[slot.node] * slot.inverseBind;
    if (DUAL_QUATERNION) {
      writeDualQuaternion(instance * params.slotCount + s, m);
      continue;
    }
    let o = (instance * params.slotCount + s) * MATRIX_VEC4S;
    jointMatrices[o] = vec4f(m[0].x, m[1].x, m[2].x, m[3].x);
    jointMatrices[o + 1u] = vec4f(m[0].y, m[1].y, m[2].y, m[3].y);
    jointMatrices[o + 2u] = vec4f(m[0].z, m[1].z, m[2].z, m[3].z);
  }
}

// ---- Dual-quaternion joint records (CrowdOptions.skinning 'dual-quaternion') ----------------
// Two-phase skinning (Kavan et al. 2008): the joint matrix [A | t] is split as A = R S, R the
// rotation of A's polar decomposition, S = R^T A its scale and shear in bind space (the identity
// for a rigid joint); skin.wgsl blends the S linearly, then (R, t) as dual quaternions. The
// float64 twin, with the reasons: src/anim/dual-quaternion.ts. Layout: JOINT_DQ in src/runtime/layout.ts.

fn frobenius3(m: mat3x3f) -> f32 {
  return sqrt(dot(m[0], m[0]) + dot(m[1], m[1]) + dot(m[2], m[2]));
}

// The rotation of A's polar decomposition by Higham's scaled Newton iteration
// X <- (g X + X^-T / g) / 2, a reflection taken out first (det R = +1); identity when degenerate
// (a scale near 0: |det A| below DQ_DEGENERATE_DET times (|A|_F / sqrt 3)^3).
fn polarRotation(a: mat3x3f) -> mat3x3f {
  let d = determinant(a);
  let norm = frobenius3(a) / sqrt(3.0);
  if (!(abs(d) > DQ_DEGENERATE_DET * norm * norm * norm)) {
    return mat3x3f(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0));
  }
  var x = a * select(1.0, -1.0, d < 0.0);
  for (var k = 0u; k < DQ_POLAR_ITERATIONS; k++) {
    // X^-T = C / det X with C's columns the cross products of X's columns.
    let c = mat3x3f(cross(x[1], x[2]), cross(x[2], x[0]), cross(x[0], x[1]));
    let dx = dot(x[0], c[0]);
    let g = sqrt(frobenius3(c) / (abs(dx) * frobenius3(x)));
    let next = x * (0.5 * g) + c * (0.5 / (g * dx));
    let change = max(max(abs(next[0] - x[0]), abs(next[1] - x[1])), abs(next[2] - x[2]));
    x = next;
    if (max(change.x, max(change.y, change.z)) < 4e-7) {
      break;
    }
  }
  return x;
}

// Unit quaternion (x, y, z, w) of a rotation matrix (Shepperd's method; r[col][row]).
fn quatFromRotation(r: mat3x3f) -> vec4f {
  let trace = r[0].x + r[1].y + r[2].z;
  var q: vec4f;
  if (trace > 0.0) {
    let s = sqrt(trace + 1.0) * 2.0;
    q = vec4f(r[1].z - r[2].y, r[2].x - r[0].z, r[0].y - r[1].x, 0.0) / s + vec4f(0.0, 0.0, 0.0, s / 4.0);
  } else if (r[0].x > r[1].y && r[0].x > r[2].z) {
    let s = sqrt(1.0 + r[0].x - r[1].y - r[2].z) * 2.0;
    q = vec4f(0.0, r[1].x + r[0].y, r[2].x + r[0].z, r[1].z - r[2].y) / s + vec4f(s / 4.0, 0.0, 0.0, 0.0);
  } else if (r[1].y > r[2].z) {
    let s = sqrt(1.0 + r[1].y - r[0].x - r[2].z) * 2.0;
    q = vec4f(r[1].x + r[0].y, 0.0, r[2].y + r[1].z, r[2].x - r[0].z) / s + vec4f(0.0, s / 4.0, 0.0, 0.0);
  } else {
    let s = sqrt(1.0 + r[2].z - r[0].x - r[1].y) * 2.0;
    q = vec4f(r[2].x + r[0].z, r[2].y + r[1].z, 0.0, r[0].y - r[1].x) / s + vec4f(0.0, 0.0, s / 4.0, 0.0);
  }
  return normalize(q);
}

// Writes joint slot `index` (instance * slotCount + slot) of joint matrix `m` as a JOINT_DQ
// record: q, then the rows of [S | t] with S = R(q)^T A (from the rounded q, so R(q) S = A).
fn writeDualQuaternion(index: u32, m: mat4x4f) {
  let a = mat3x3f(m[0].xyz, m[1].xyz, m[2].xyz);
  let q = quatFromRotation(polarRotation(a));
  let r = composeTrs(Trs(vec3f(0.0), q, vec3f(1.0)));
  let s = transpose(mat3x3f(r[0].xyz, r[1].xyz, r[2].xyz)) * a;
  let o = index * DQ_VEC4S;
  jointMatrices[o] = q;
  jointMatrices[o + 1u] = vec4f(s[0].x, s[1].x, s[2].x, m[3].x);
  jointMatrices[o + 2u] = vec4f(s[0].y, s[1].y, s[2].y, m[3].y);
  jointMatrices[o + 3u] = vec4f(s[0].z, s[1].z, s[2].z, m[3].z);
}
