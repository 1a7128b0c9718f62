// Prop pass: places the props attached to one joint (Crowd.attach) for the instances drawn this
// frame. Per attachment, `mark` first stamps the slots of the chosen instances (when the
// attachment has a selection), then `place` visits every entry of the frame's instance lists
// (the cull pass's camera lists, one per LOD level, or every slot when nothing was culled),
// writes the prop's world matrix world * jointMatrix * local into the slot's record and appends
// the slot to the prop's draw list. SkinPass then draws the prop's primitives over that list,
// reading the record's `world` (and the prop's rest-pose joint matrices, the same for all).
// `local` is inverse(inverseBind) * offset, made on the CPU in float64: jointMatrix * local is
// the joint's model matrix times the offset. Layouts: src/runtime/layout.ts (PROP_PARAMS, INSTANCE).

override WORKGROUP_SIZE: u32; // no default: the pass sets it (WORKGROUP_SIZE in src/runtime/limits.ts)
// True when the crowd skins with dual quaternions: its joint buffer holds JOINT_DQ records (q,
// then the rows of [S | t]; src/runtime/layout.ts) and jointMatrix() rebuilds [R(q) S | t] from them.
override DUAL_QUATERNION: bool = false;

// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
const PROP_CULLED: u32 = 1u;
const PROP_SELECTED: u32 = 2u;
const HANDLE_FREE: u32 = 0xffffffffu;
const DQ_VEC4S: u32 = 4u;
const MATRIX_VEC4S: u32 = 3u;

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

struct PropParams {
  local: mat4x4f,
  lengths: vec4u,
  listStride: u32,
  slotCount: u32,
  joint: u32,
  levels: u32,
  flags: u32,
  frame: u32,
  selectedCount: u32,
  dispatchWidth: u32,
}

@group(0) @binding(0) var<uniform> params: PropParams;
// The crowd's joint matrices: 3 vec4f (top rows of the affine matrix) per joint slot per instance,
// or 4 vec4f (a JOINT_DQ record) with DUAL_QUATERNION.
@group(0) @binding(1) var<storage, read> jointMatrices: array<vec4f>;
// The crowd's instance records (only `world` is read).
@group(0) @binding(2) var<storage, read> instances: array<Instance>;
// The cull pass's lists: camera level l at l * listStride (read only with PROP_CULLED).
@group(0) @binding(3) var<storage, read> drawLists: array<u32>;
// The slot of every handle, HANDLE_FREE for a free one.
@group(0) @binding(4) var<storage, read> handleSlots: array<u32>;
// listStride per-slot marks (a chosen slot holds params.frame), then selectedCount handles.
@group(0) @binding(5) var<storage, read_write> selection: array<u32>;
// The prop's records, one per slot: world is the prop's model-to-world matrix.
@group(0) @binding(6) var<storage, read_write> records: array<Instance>;
// The prop's draw list: slots from word 0, its length at word listStride.
@group(0) @binding(7) var<storage, read_write> propList: array<atomic<u32>>;

fn entryIndex(id: vec3u) -> u32 {
  return id.x + id.y * params.dispatchWidth * WORKGROUP_SIZE;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn mark(@builtin(global_invocation_id) id: vec3u) {
  let k = entryIndex(id);
  if (k >= params.selectedCount) {
    return;
  }
  let slot = handleSlots[selection[params.listStride + k]];
  if (slot != HANDLE_FREE && slot < params.listStride) {
    selection[slot] = params.frame;
  }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn place(@builtin(global_invocation_id) id: vec3u) {
  let i = entryIndex(id);
  let level = id.z;
  if (level >= params.levels || i >= params.lengths[level]) {
    return;
  }
  var slot = i;
  if ((params.flags & PROP_CULLED) != 0u) {
    slot = drawLists[level * params.listStride + i];
  }
  if ((params.flags & PROP_SELECTED) != 0u && selection[slot] != params.frame) {
    return;
  }
  let joint = jointMatrix(slot * params.slotCount + params.joint);
  records[slot].world = instances[slot].world * (joint * params.local);
  let k = atomicAdd(&propList[params.listStride], 1u);
  atomicStore(&propList[k], slot);
}

// Joint slot `index` (slot * slotCount + joint) of the crowd's joint buffer as a 4x4 matrix.
fn jointMatrix(index: u32) -> mat4x4f {
  if (DUAL_QUATERNION) {
    return dualQuaternionJoint(index);
  }
  let o = index * MATRIX_VEC4S;
  let r0 = jointMatrices[o];
  let r1 = jointMatrices[o + 1u];
  let r2 = jointMatrices[o + 2u];
  return mat4x4f(
    vec4f(r0.x, r1.x, r2.x, 0.0),
    vec4f(r0.y, r1.y, r2.y, 0.0),
    vec4f(r0.z, r1.z, r2.z, 0.0),
    vec4f(r0.w, r1.w, r2.w, 1.0),
  );
}

// ---- Dual-quaternion joint records (CrowdOptions.skinning 'dual-quaternion') ----------------

// [R(q) S | t] of a JOINT_DQ record: the joint matrix the pose pass split (exact to rounding).
fn dualQuaternionJoint(index: u32) -> mat4x4f {
  let o = index * DQ_VEC4S;
  let q = jointMatrices[o];
  let r0 = jointMatrices[o + 1u];
  let r1 = jointMatrices[o + 2u];
  let r2 = jointMatrices[o + 3u];
  let x = q.x; let y = q.y; let z = q.z; let w = q.w;
  let rotation = mat3x3f(
    vec3f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)),
    vec3f(2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)),
    vec3f(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)),
  );
  // mat3x3f(rows) is S^T: its transpose is S.
  let a = rotation * transpose(mat3x3f(r0.xyz, r1.xyz, r2.xyz));
  return mat4x4f(vec4f(a[0], 0.0), vec4f(a[1], 0.0), vec4f(a[2], 0.0), vec4f(r0.w, r1.w, r2.w, 1.0));
}
