// Skin pass: draws the instances of one instance list for one mesh primitive in one instanced
// draw (direct, or indirect with the cull pass's arguments). Instance i of the draw is the
// slot in entry i of the bound list. The vertex shader blends the slot's joint matrices
// (written by pose.wgsl, in model space) with the vertex's 4 or 8 weights, applies the
// instance's world transform, then shades with the base colour (texture x factor) under one
// directional light (shadowed through the ShadowPass's depth map when there is one) and a flat
// ambient term. The shadow pass runs the same vertex entry points with the light's camera.
// Layouts: src/runtime/layout.ts.

// True when the colour target is not an -srgb format, so the shader encodes to sRGB itself.
override ENCODE_SRGB: bool = false;

// The instance record (only `world` is read here), generated like the other passes' copies.
// BEGIN generated from src/runtime/wgsl-constants.ts by `npm run gen:wgsl`: do not edit
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

struct Camera {
  viewProjection: mat4x4f,
  lightDirection: vec3f,
  shadowStrength: f32,
  lightViewProjection: mat4x4f,
  shadowTexel: f32,
  shadowBias: f32,
  pad0: f32,
  pad1: f32,
}

struct Material {
  baseColorFactor: vec4f,
  slotCount: u32,
}

@group(0) @binding(0) var<uniform> camera: Camera;
// 3 vec4f (top rows of the affine matrix) per joint slot, instance after instance.
@group(0) @binding(1) var<storage, read> jointMatrices: array<vec4f>;
@group(0) @binding(2) var<storage, read> instances: array<Instance>;
// The slots this draw shows: the identity list, or one of the cull pass's lists (bound at its offset).
@group(0) @binding(3) var<storage, read> drawList: array<u32>;
@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var baseColorTexture: texture_2d<f32>;
@group(1) @binding(2) var baseColorSampler: sampler;
// The directional light's depth map (ShadowPass), or a 1x1 stand-in when shadowStrength is 0.
@group(2) @binding(0) var shadowMap: texture_depth_2d;
@group(2) @binding(1) var shadowSampler: sampler_comparison;

struct VertexOut {
  @builtin(position) clip: vec4f,
  @location(0) normal: vec3f,
  @location(1) uv: vec2f,
  @location(2) world: vec3f,
}

// The weighted sum over a vertex's influences. Linear: the blended matrix rows. Dual
// quaternion: the rows blend the joints' [S | t] (only S is used), real and dual the sign-aligned
// dual quaternions, pivot the real part of the first influence of non-zero weight (zero before it).
struct Skinned {
  row0: vec4f,
  row1: vec4f,
  row2: vec4f,
  real: vec4f,
  dual: vec4f,
  pivot: vec4f,
}

// Adds w * (joint matrix `joint` of slot `instance`) to `m`. `joint` is a slot index (skin offset
// already added at upload).
fn accumulate(m: ptr<function, Skinned>, instance: u32, joint: u32, w: f32) {
  if (DUAL_QUATERNION) {
    accumulateDualQuaternion(m, instance, joint, w);
    return;
  }
  let o = (instance * material.slotCount + joint) * MATRIX_VEC4S;
  (*m).row0 += jointMatrices[o] * w;
  (*m).row1 += jointMatrices[o + 1u] * w;
  (*m).row2 += jointMatrices[o + 2u] * w;
}

// World position and normal of a vertex skinned by `m` (model space), placed by `world`.
struct Placed {
  position: vec3f,
  normal: vec3f,
}

fn place(m: Skinned, world: mat4x4f, position: vec3f, normal: vec3f) -> Placed {
  if (DUAL_QUATERNION) {
    return placeDualQuaternion(m, world, position, normal);
  }
  let p = vec4f(position, 1.0);
  let model = vec4f(dot(m.row0, p), dot(m.row1, p), dot(m.row2, p), 1.0);
  // Normals use the same matrices: exact for rotation and uniform scale, the usual skinning
  // approximation otherwise.
  let n = vec3f(dot(m.row0.xyz, normal), dot(m.row1.xyz, normal), dot(m.row2.xyz, normal));
  return Placed((world * model).xyz, (world * vec4f(n, 0.0)).xyz);
}

fn finish(m: Skinned, slot: u32, position: vec3f, normal: vec3f, uv: vec2f) -> VertexOut {
  let placed = place(m, instances[slot].world, position, normal);
  var out: VertexOut;
  out.clip = camera.viewProjection * vec4f(placed.position, 1.0);
  out.normal = placed.normal;
  out.uv = uv;
  out.world = placed.position;
  return out;
}

// The weighted sum of a vertex's four influences (skin4) or eight (skin8) in `slot`'s joints.
fn skin4(slot: u32, joints: vec4u, weights: vec4f) -> Skinned {
  var m = Skinned();
  for (var i = 0u; i < 4u; i++) {
    accumulate(&m, slot, joints[i], weights[i]);
  }
  return m;
}

fn skin8(slot: u32, joints: vec4u, weights: vec4f, joints1: vec4u, weights1: vec4f) -> Skinned {
  var m = Skinned();
  for (var i = 0u; i < 4u; i++) {
    accumulate(&m, slot, joints[i], weights[i]);
    accumulate(&m, slot, joints1[i], weights1[i]);
  }
  return m;
}

@vertex
fn vertex4(
  @builtin(instance_index) instance: u32,
  @location(0) position: vec3f,
  @location(1) normal: vec3f,
  @location(2) uv: vec2f,
  @location(3) joints: vec4u,
  @location(4) weights: vec4f,
) -> VertexOut {
  let slot = drawList[instance];
  return finish(skin4(slot, joints, weights), slot, position, normal, uv);
}

@vertex
fn vertex8(
  @builtin(instance_index) instance: u32,
  @location(0) position: vec3f,
  @location(1) normal: vec3f,
  @location(2) uv: vec2f,
  @location(3) joints: vec4u,
  @location(4) weights: vec4f,
  @location(5) joints1: vec4u,
  @location(6) weights1: vec4f,
) -> VertexOut {
  let slot = drawList[instance];
  return finish(skin8(slot, joints, weights, joints1, weights1), slot, position, normal, uv);
}

// ---- Dual-quaternion skinning (CrowdOptions.skinning 'dual-quaternion') --------------------
// Two-phase skinning (Kavan et al. 2008): a vertex is moved by the linear blend of its joints'
// scale / shear S, then by the normalised blend of their rigid parts as dual quaternions, every
// one flipped into the hemisphere of the first influence. Each joint slot holds a JOINT_DQ
// record written by pose.wgsl: q (the real part), then the rows of [S | t]; the dual part
// 0.5 (t, 0) q is formed here. The float64 twin: src/anim/dual-quaternion.ts.

// Selects this block in accumulate() and place() (a pipeline constant: SkinPass sets it).
override DUAL_QUATERNION: bool = false;

fn accumulateDualQuaternion(m: ptr<function, Skinned>, instance: u32, joint: u32, w: f32) {
  if (w == 0.0) {
    return;
  }
  let o = (instance * material.slotCount + joint) * DQ_VEC4S;
  let q = jointMatrices[o];
  let r0 = jointMatrices[o + 1u];
  let r1 = jointMatrices[o + 2u];
  let r2 = jointMatrices[o + 3u];
  if (all((*m).pivot == vec4f(0.0))) {
    (*m).pivot = q;
  }
  let t = vec3f(r0.w, r1.w, r2.w);
  let ws = select(w, -w, dot((*m).pivot, q) < 0.0);
  (*m).real += q * ws;
  (*m).dual += vec4f(q.w * t + cross(t, q.xyz), -dot(t, q.xyz)) * (0.5 * ws);
  (*m).row0 += r0 * w;
  (*m).row1 += r1 * w;
  (*m).row2 += r2 * w;
}

// v rotated by the unit quaternion q.
fn rotateByQuat(q: vec4f, v: vec3f) -> vec3f {
  return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}

fn placeDualQuaternion(m: Skinned, world: mat4x4f, position: vec3f, normal: vec3f) -> Placed {
  let inverseLength = 1.0 / length(m.real);
  let real = m.real * inverseLength;
  let dual = m.dual * inverseLength;
  let s0 = m.row0.xyz;
  let s1 = m.row1.xyz;
  let s2 = m.row2.xyz;
  let scaled = vec3f(dot(s0, position), dot(s1, position), dot(s2, position));
  // Translation 2 dual conj(real).
  let translation = 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
  let model = rotateByQuat(real, scaled) + translation;
  // Normals: the cofactor of the blended S (det S times its inverse transpose; sign kept), then
  // the rotation: exact under non-uniform scale. Not normalised (the fragment stage does).
  let c0 = cross(s1, s2);
  let n = vec3f(dot(c0, normal), dot(cross(s2, s0), normal), dot(cross(s0, s1), normal)) * select(1.0, -1.0, dot(s0, c0) < 0.0);
  return Placed((world * vec4f(model, 1.0)).xyz, (world * vec4f(rotateByQuat(real, n), 0.0)).xyz);
}

// Morph targets (characters that have them; src/features/morph/morph-pass.ts writes the weights). Only the
// vertex4Morph / vertex8Morph entry points read these bindings, so pipelines of the plain entry
// points (and the bind group layouts of characters without morph targets) leave them out.
// Layout: MORPH_HEADER in src/runtime/layout.ts.
struct MorphHeader {
  weightBase: u32,
  targetCount: u32,
  weightStride: u32,
  normals: u32,
}

struct MorphTargets {
  header: MorphHeader,
  // Per vertex, per target: POSITION displacement (x, y, z, 0), then NORMAL's when header.normals is 1.
  deltas: array<vec4f>,
}

// weightStride f32 per instance slot: that instance's morph weights.
@group(0) @binding(4) var<storage, read> morphWeights: array<f32>;
// This primitive's targets (a header with targetCount 0 for a primitive without any).
@group(1) @binding(3) var<storage, read> morphTargets: MorphTargets;

struct Morphed {
  position: vec3f,
  normal: vec3f,
}

// The vertex displaced by its targets, each times the slot's weight (not renormalised; targets
// whose weight is 0 are skipped, so an unexpressive face costs targetCount weight reads).
fn morph(vertex: u32, slot: u32, position: vec3f, normal: vec3f) -> Morphed {
  let header = morphTargets.header;
  let weights = slot * header.weightStride + header.weightBase;
  let stride = 1u + header.normals;
  var p = position;
  var n = normal;
  for (var t = 0u; t < header.targetCount; t++) {
    let w = morphWeights[weights + t];
    if (w != 0.0) {
      let d = (vertex * header.targetCount + t) * stride;
      p += w * morphTargets.deltas[d].xyz;
      if (header.normals != 0u) {
        n += w * morphTargets.deltas[d + 1u].xyz;
      }
    }
  }
  return Morphed(p, n);
}

@vertex
fn vertex4Morph(
  @builtin(vertex_index) vertex: u32,
  @builtin(instance_index) instance: u32,
  @location(0) position: vec3f,
  @location(1) normal: vec3f,
  @location(2) uv: vec2f,
  @location(3) joints: vec4u,
  @location(4) weights: vec4f,
) -> VertexOut {
  let slot = drawList[instance];
  let morphed = morph(vertex, slot, position, normal);
  return finish(skin4(slot, joints, weights), slot, morphed.position, morphed.normal, uv);
}

@vertex
fn vertex8Morph(
  @builtin(vertex_index) vertex: u32,
  @builtin(instance_index) instance: u32,
  @location(0) position: vec3f,
  @location(1) normal: vec3f,
  @location(2) uv: vec2f,
  @location(3) joints: vec4u,
  @location(4) weights: vec4f,
  @location(5) joints1: vec4u,
  @location(6) weights1: vec4f,
) -> VertexOut {
  let slot = drawList[instance];
  let morphed = morph(vertex, slot, position, normal);
  return finish(skin8(slot, joints, weights, joints1, weights1), slot, morphed.position, morphed.normal, uv);
}

// How much of the light reaches `world`: 1 lit, 0 in shadow; 3 x 3 percentage-closer filtering
// (each tap a hardware 2 x 2 comparison), 1 outside the map.
fn lit(world: vec3f) -> f32 {
  if (camera.shadowStrength == 0.0) {
    return 1.0;
  }
  let p = camera.lightViewProjection * vec4f(world, 1.0);
  let uv = p.xy * vec2f(0.5, -0.5) + vec2f(0.5);
  if (any(uv < vec2f(0.0)) || any(uv > vec2f(1.0)) || p.z > 1.0) {
    return 1.0;
  }
  var sum = 0.0;
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx++) {
      sum += textureSampleCompareLevel(shadowMap, shadowSampler, uv + vec2f(f32(dx), f32(dy)) * camera.shadowTexel, p.z - camera.shadowBias);
    }
  }
  return 1.0 - camera.shadowStrength * (1.0 - sum / 9.0);
}

@fragment
fn fragment(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4f {
  let base = textureSample(baseColorTexture, baseColorSampler, in.uv) * material.baseColorFactor;
  let n = normalize(select(-in.normal, in.normal, front));
  let light = 0.35 + 0.65 * max(dot(n, -camera.lightDirection), 0.0) * lit(in.world);
  var color = base.rgb * light;
  if (ENCODE_SRGB) {
    color = pow(color, vec3f(1.0 / 2.2));
  }
  return vec4f(color, 1.0);
}
