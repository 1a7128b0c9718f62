// Pose pass: turns one animation record per instance into that instance's joint matrices.
//
// One workgroup per instance (a 2D grid of them, so any instance count fits under the 65535
// workgroups-per-dimension limit). Its threads sample and blend the local TRS of every rig node
// in parallel into workgroup memory, compose local -> model one hierarchy level at a time
// (a barrier between levels), then write world * model * inverseBind for every joint slot.
// Layouts: src/gpu/layout.ts (checked against this file by test/gpu/layout.test.ts). Table
// layout and the reading rule: src/bake/bake.ts. The TypeScript twin: src/anim/lut.ts + pose.ts.

override WORKGROUP_SIZE: u32 = 64;
// Capacity of the workgroup matrix array: at least the rig's node count.
override MAX_NODES: u32 = 256;

const TRACK_NONE: u32 = 0xffffffffu;
const TRACK_STEP: u32 = 0x80000000u;
const TRACK_INDEX_MASK: u32 = 0x7fffffffu;

struct Params {
  instanceCount: u32,
  nodeCount: u32,
  slotCount: u32,
  entriesPerTrack: u32,
  restBase: u32,
  maxDepth: u32,
  clock: f32,
  dispatchWidth: u32,
}

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

struct Node {
  parent: i32,
  depth: u32,
}

struct JointSlot {
  inverseBind: mat4x4f,
  node: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// Baked tracks, then 3 rest-pose vec4f per node from index params.restBase.
@group(0) @binding(1) var<storage, read> tracks: array<vec4f>;
// (clip * nodeCount + node) * 3 + path -> track index | TRACK_STEP, or TRACK_NONE.
@group(0) @binding(2) var<storage, read> trackRefs: array<u32>;
// Seconds per clip.
@group(0) @binding(3) var<storage, read> clipDurations: array<f32>;
@group(0) @binding(4) var<storage, read> nodes: array<Node>;
@group(0) @binding(5) var<storage, read> slots: array<JointSlot>;
@group(0) @binding(6) var<storage, read> instances: array<Instance>;
// 3 vec4f (the top rows of the affine joint matrix) per instance per slot.
@group(0) @binding(7) var<storage, read_write> jointMatrices: array<vec4f>;

// Local matrices, then (after the level loop) model matrices of this workgroup's instance.
var<workgroup> model: array<mat4x4f, MAX_NODES>;

struct Trs {
  t: vec3f,
  r: vec4f,
  s: vec3f,
}

// Position of time `t` (seconds) in clip `clip`'s tracks, in entries: wrap t into [0, d) as
// t - floor(t / d) * d, then scale to [0, entriesPerTrack - 1].
fn tableCoordinate(clip: u32, t: f32) -> f32 {
  let d = clipDurations[clip];
  if (d <= 0.0) {
    return 0.0;
  }
  var wrapped = t - floor(t / d) * d;
  if (wrapped >= d) {
    wrapped = 0.0;
  }
  let last = f32(params.entriesPerTrack - 1u);
  return min(wrapped / d * last, last);
}

// One track's value at table coordinate u: the two neighbouring entries mixed (STEP: the entry
// at or before u), or the rest value when the clip does not animate this path.
fn sampleTrack(trackRef: u32, restIndex: u32, u: f32) -> vec4f {
  if (trackRef == TRACK_NONE) {
    return tracks[restIndex];
  }
  let base = (trackRef & TRACK_INDEX_MASK) * params.entriesPerTrack;
  if ((trackRef & TRACK_STEP) != 0u) {
    return tracks[base + u32(floor(u))];
  }
  let i = min(u32(floor(u)), params.entriesPerTrack - 2u);
  return mix(tracks[base + i], tracks[base + i + 1u], u - f32(i));
}

fn sampleNode(clip: u32, u: f32, node: u32) -> Trs {
  let refs = (clip * params.nodeCount + node) * 3u;
  let rest = params.restBase + node * 3u;
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) thread: u32) {
  let instance = group.x + group.y * params.dispatchWidth;
  if (instance >= params.instanceCount) {
    return; // uniform across the workgroup, so the barriers below stay in uniform control flow
  }
  let record = instances[instance];
  let uA = tableCoordinate(record.clipA, record.phaseA + record.speedA * params.clock);
  let uB = tableCoordinate(record.clipB, record.phaseB + record.speedB * params.clock);

  for (var n = thread; n < params.nodeCount; n += WORKGROUP_SIZE) {
    var trs = sampleNode(record.clipA, uA, n);
    if (record.blend > 0.0) {
      trs = blendTrs(trs, sampleNode(record.clipB, uB, n), record.blend);
    }
    model[n] = composeTrs(trs);
  }
  workgroupBarrier();

  // Nodes are parent-first; every node of depth `level` has its parent final by now.
  for (var level = 1u; level <= params.maxDepth; level++) {
    for (var n = thread; n < params.nodeCount; n += WORKGROUP_SIZE) {
      let node = nodes[n];
      if (node.depth == level) {
        model[n] = model[u32(node.parent)] * model[n];
      }
    }
    workgroupBarrier();
  }

  for (var s = thread; s < params.slotCount; s += WORKGROUP_SIZE) {
    let slot = slots[s];
    let m = record.world * model[slot.node] * slot.inverseBind;
    let o = (instance * params.slotCount + s) * 3u;
    jointMatrices[o] = vec4f(m[0].x, m[1].x, m[2].x, m[3].x);
    jointMatrices[o + 1u] = vec4f(m[0].y, m[1].y, m[2].y, m[3].y);
    jointMatrices[o + 2u] = vec4f(m[0].z, m[1].z, m[2].z, m[3].z);
  }
}
