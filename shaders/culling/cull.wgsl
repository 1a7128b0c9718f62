// Cull pass: decides, per instance and per frame, whether it is drawn (camera frustum and a
// distance limit), at which mesh LOD level, whether it casts into the shadow map, and whether
// it is posed this frame (animation LOD); appends it to the matching compact lists, then
// `finalize` turns the list lengths into indirect dispatch and draw arguments.
//
// Bounds: a model-space box per instance (the character's reach box, src/bake/bounds.ts, or its
// layered variant for instances with a layer stack) moved by the instance's world matrix; the
// oriented box is tested against each plane exactly. Distances are from the camera to the
// box's bounding sphere, divided by the instance's scale. The TypeScript twin: src/runtime/culling/cull-math.ts.
// Layouts: src/runtime/layout.ts (CULL_PARAMS, CULL_COUNTERS, CULL_ARGS, LOD_RANGE).

override WORKGROUP_SIZE: u32; // no default: the pass sets it (WORKGROUP_SIZE in src/runtime/limits.ts)

// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
const COUNTER_WORDS: u32 = 10u;
const COUNTER_POSE_PLAIN: u32 = 0u;
const COUNTER_POSE_LAYERED: u32 = 1u;
const COUNTER_CAMERA: u32 = 2u;
const COUNTER_SHADOW: u32 = 6u;
const ARGS_POSE_PLAIN: u32 = 0u;
const ARGS_POSE_LAYERED: u32 = 3u;
const ARGS_DRAWS: u32 = 6u;
const ARGS_DRAW_WORDS: u32 = 5u;
const CULL_FRUSTUM: u32 = 1u;
const CULL_LOD: u32 = 2u;
const CULL_ANIMATION_LOD: u32 = 4u;
const CULL_SHADOWS: u32 = 8u;
const LOD_NOT_FORCED: u32 = 0xffffffffu;
const PLANE_REACH_SCALE: f32 = 0x1.00068ep0f; // 1.0001

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
// END generated

struct CullParams {
  planes: array<vec4f, 6>,
  lightPlanes: array<vec4f, 6>,
  cameraPosition: vec3f,
  maxDistance: f32,
  boxCentre: vec3f,
  instanceCount: u32,
  boxHalf: vec3f,
  plainCount: u32,
  layeredCentre: vec3f,
  frame: u32,
  layeredHalf: vec3f,
  listStride: u32,
  lodDistances: vec4f,
  animationDistances: vec4f,
  flags: u32,
  levels: u32,
  primitives: u32,
  shadowLodBias: u32,
  forcedLevel: u32,
  dispatchWidth: u32,
  pad0: u32,
  pad1: u32,
}

struct LodRange {
  indexCount: u32,
  firstIndex: u32,
}

@group(0) @binding(0) var<uniform> params: CullParams;
@group(0) @binding(1) var<storage, read> instances: array<Instance>;
// Per slot: a stamp the CPU changes whenever another instance moves into the slot.
@group(0) @binding(2) var<storage, read> stamps: array<u32>;
// Per slot: (stamp of the instance whose pose the joint buffer holds, frame it was posed).
@group(0) @binding(3) var<storage, read_write> poseState: array<vec2u>;
@group(0) @binding(4) var<storage, read_write> counters: array<atomic<u32>, COUNTER_WORDS>;
// Slots to pose: plain ones from 0, layered ones from params.listStride; finalize writes the two
// lengths at words 2 listStride and 2 listStride + 1 (the pose pass reads them there).
@group(0) @binding(5) var<storage, read_write> poseList: array<u32>;
// Slots to draw: list (camera 0, shadow 1) x level, params.listStride entries each.
@group(0) @binding(6) var<storage, read_write> drawLists: array<u32>;
@group(0) @binding(7) var<storage, read_write> args: array<u32>;
// Index range of each (level, primitive), level after level.
@group(0) @binding(8) var<storage, read> lodRanges: array<LodRange>;

// Whether the box (centre c, axes e0..e2 = world columns times half extents) reaches the inner
// side of every plane. The reach is scaled by PLANE_REACH_SCALE, a 1e-4 relative margin for
// float32 rounding in the vertex shader.
fn insideAll(planes: ptr<uniform, array<vec4f, 6>>, c: vec3f, e0: vec3f, e1: vec3f, e2: vec3f) -> bool {
  for (var i = 0u; i < 6u; i++) {
    let p = (*planes)[i];
    let reach = abs(dot(p.xyz, e0)) + abs(dot(p.xyz, e1)) + abs(dot(p.xyz, e2));
    if (dot(p.xyz, c) + p.w < -reach * PLANE_REACH_SCALE) {
      return false;
    }
  }
  return true;
}

// Levels whose threshold the scaled distance has reached (0 .. levels - 1).
fn lodLevel(scaled: f32) -> u32 {
  if (params.forcedLevel != LOD_NOT_FORCED) {
    return min(params.forcedLevel, params.levels - 1u);
  }
  if ((params.flags & CULL_LOD) == 0u) {
    return 0u;
  }
  var level = 0u;
  for (var i = 0u; i + 1u < params.levels; i++) {
    if (scaled >= params.lodDistances[i]) {
      level = i + 1u;
    }
  }
  return level;
}

// Pose every `step` frames: 1, 2 or 4.
fn animationStep(scaled: f32) -> u32 {
  if ((params.flags & CULL_ANIMATION_LOD) == 0u) {
    return 1u;
  }
  return select(select(1u, 2u, scaled >= params.animationDistances.x), 4u, scaled >= params.animationDistances.y);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn cull(@builtin(global_invocation_id) id: vec3u) {
  let slot = id.x + id.y * params.dispatchWidth * WORKGROUP_SIZE;
  if (slot >= params.instanceCount) {
    return;
  }
  let layered = slot >= params.plainCount;
  let w = instances[slot].world;
  let centre = select(params.boxCentre, params.layeredCentre, layered);
  let half = select(params.boxHalf, params.layeredHalf, layered);
  let c = (w * vec4f(centre, 1.0)).xyz;
  let e0 = w[0].xyz * half.x;
  let e1 = w[1].xyz * half.y;
  let e2 = w[2].xyz * half.z;
  let radius = sqrt(dot(e0, e0) + dot(e1, e1) + dot(e2, e2));
  let distance = max(length(c - params.cameraPosition) - radius, 0.0);
  let scale = max(max(length(w[0].xyz), length(w[1].xyz)), length(w[2].xyz));
  let scaled = distance / max(scale, 1e-30);

  var visible = true;
  if ((params.flags & CULL_FRUSTUM) != 0u) {
    visible = distance <= params.maxDistance && insideAll(&params.planes, c, e0, e1, e2);
  }
  let caster = (params.flags & CULL_SHADOWS) != 0u && insideAll(&params.lightPlanes, c, e0, e1, e2);
  if (!visible && !caster) {
    return;
  }
  let level = lodLevel(scaled);
  if (visible) {
    let i = atomicAdd(&counters[COUNTER_CAMERA + level], 1u);
    drawLists[level * params.listStride + i] = slot;
  }
  if (caster) {
    let shadowLevel = min(level + params.shadowLodBias, params.levels - 1u);
    let i = atomicAdd(&counters[COUNTER_SHADOW + shadowLevel], 1u);
    drawLists[(params.levels + shadowLevel) * params.listStride + i] = slot;
  }

  // Pose when another instance moved into the slot, when the pose is older than the step
  // (newly visible), or on the slot's phase of the step (staggered: slot + frame).
  let step = animationStep(scaled);
  let state = poseState[slot];
  let stamp = stamps[slot];
  let due = state.x != stamp || params.frame - state.y >= step || (params.frame + slot) % step == 0u;
  if (due) {
    poseState[slot] = vec2u(stamp, params.frame);
    if (layered) {
      poseList[params.listStride + atomicAdd(&counters[COUNTER_POSE_LAYERED], 1u)] = slot;
    } else {
      poseList[atomicAdd(&counters[COUNTER_POSE_PLAIN], 1u)] = slot;
    }
  }
}

// Writes a dispatchWorkgroupsIndirect triple for a list of n instances (one workgroup each, a
// 2D grid params.dispatchWidth wide).
fn writeDispatch(word: u32, n: u32) {
  args[word] = min(n, params.dispatchWidth);
  args[word + 1u] = (n + params.dispatchWidth - 1u) / params.dispatchWidth;
  args[word + 2u] = 1u;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn finalize(@builtin(global_invocation_id) id: vec3u) {
  let draws = 2u * params.levels * params.primitives;
  for (var d = id.x; d < draws; d += WORKGROUP_SIZE) {
    let list = d / (params.levels * params.primitives);
    let level = (d / params.primitives) % params.levels;
    let range = lodRanges[d % (params.levels * params.primitives)];
    let counter = select(COUNTER_CAMERA, COUNTER_SHADOW, list == 1u) + level;
    let o = ARGS_DRAWS + d * ARGS_DRAW_WORDS;
    args[o] = range.indexCount;
    args[o + 1u] = atomicLoad(&counters[counter]);
    args[o + 2u] = range.firstIndex;
    args[o + 3u] = 0u;
    args[o + 4u] = 0u;
  }
  if (id.x == 0u) {
    let plain = atomicLoad(&counters[COUNTER_POSE_PLAIN]);
    let layered = atomicLoad(&counters[COUNTER_POSE_LAYERED]);
    writeDispatch(ARGS_POSE_PLAIN, plain);
    writeDispatch(ARGS_POSE_LAYERED, layered);
    poseList[2u * params.listStride] = plain;
    poseList[2u * params.listStride + 1u] = layered;
  }
}
