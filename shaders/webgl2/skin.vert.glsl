#version 300 es
// Skin pass on WebGL 2, vertex stage (src/webgl2/gl-skin-pass.ts): the port of shaders/skin.wgsl's
// vertex4 / vertex8 (linear blend skinning only). Instance i of a draw is the slot in entry i of
// the bound instance list (the per-level list, an instanced vertex attribute); the vertex blends
// the slot's joint matrices (model space, GLJointTarget: crowdJointMatrix) with its 4 or 8
// weights, applies the instance's world transform (the INSTANCE record texture) and passes on
// what skin.frag.glsl reads.
//
// GLSkinPass puts a block of #defines right after the #version line (GLSL has no pipeline
// constants): the variant, as skin.wgsl's overrides (INFLUENCES 4 or 8; NORMALS, TANGENTS,
// COLORS, UV1, ENCODE_SRGB, ENVIRONMENT 0 or 1), and the record layout from src/runtime/layout.ts
// (INSTANCE_TEXELS: 16-byte texels per INSTANCE record; INSTANCE_WORLD_TEXEL: the texel of its
// world matrix's first column). The joint fetch (GLSL_JOINT_FETCH) follows them. APPEARANCE 1:
// per-instance appearance (skin.wgsl's *Appearance entry points): APPEARANCE_TEXELS texels a
// record, APPEARANCE_PARTS the word of its parts mask; a hidden part's vertices leave the clip volume.

precision highp float;
precision highp int;
precision highp usampler2D;

// CAMERA in src/runtime/layout.ts (std140 gives the same offsets as the WGSL uniform).
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
} camera;

// The INSTANCE records (GLRecordTexture: 16 bytes a texel, crowdInstanceWidth texels a row).
uniform usampler2D crowdInstances;
uniform int crowdInstanceWidth;

#if APPEARANCE
// The appearance records (GLAppearanceSource.records) and this primitive's (index, varied).
uniform usampler2D crowdAppearances;
uniform int crowdAppearanceWidth;
uniform uvec2 appearancePrimitive;
flat out uint vSlot;
#endif

layout(location = 0) in vec3 position;
#if NORMALS
layout(location = 1) in vec3 normal;
#endif
// TEXCOORD_0 in xy, TEXCOORD_1 in zw (a two-component stream reads (0, 1) in zw).
layout(location = 2) in vec4 uv;
layout(location = 3) in uvec4 joints;
layout(location = 4) in vec4 weights;
#if INFLUENCES == 8
layout(location = 5) in uvec4 joints1;
layout(location = 6) in vec4 weights1;
#endif
#if COLORS
layout(location = 7) in vec4 color;
#endif
#if TANGENTS
// TANGENT (xyz, w handedness).
layout(location = 8) in vec4 tangent;
#endif
// The instance slot this instance of the draw shows (divisor 1).
layout(location = 9) in uint slot;

#if NORMALS
out vec3 vNormal;
#endif
out vec2 vUv;
out vec3 vWorld;
#if COLORS
out vec4 vColor;
#endif
#if TANGENTS
out vec3 vTangent;
out vec3 vBitangent;
#endif
#if UV1
out vec2 vUv1;
#endif

// Word block t of the instance records.
uvec4 instanceTexel(int t) {
  return texelFetch(crowdInstances, ivec2(t % crowdInstanceWidth, t / crowdInstanceWidth), 0);
}

// The instance's model-to-world transform (INSTANCE.world, column-major).
mat4 worldOf(int s) {
  int t = s * INSTANCE_TEXELS + INSTANCE_WORLD_TEXEL;
  return mat4(uintBitsToFloat(instanceTexel(t)), uintBitsToFloat(instanceTexel(t + 1)),
    uintBitsToFloat(instanceTexel(t + 2)), uintBitsToFloat(instanceTexel(t + 3)));
}

void main() {
  int s = int(slot);
#if APPEARANCE
  vSlot = slot;
  int word = s * APPEARANCE_TEXELS * 4 + APPEARANCE_PARTS;
  uint parts = texelFetch(crowdAppearances, ivec2((word / 4) % crowdAppearanceWidth, (word / 4) / crowdAppearanceWidth), 0)[word % 4];
  if ((parts & (1u << appearancePrimitive.x)) == 0u) {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
#endif
  // The weighted sum of the joint matrices, in skin.wgsl's order (skin8 interleaves the two sets).
  mat4 m = mat4(0.0);
  for (int i = 0; i < 4; i++) {
    m += crowdJointMatrix(s, int(joints[i])) * weights[i];
#if INFLUENCES == 8
    m += crowdJointMatrix(s, int(joints1[i])) * weights1[i];
#endif
  }
  mat4 world = worldOf(s);
  // w stays 1 whatever the weights sum to (skin.wgsl place()).
  vec3 placed = (world * vec4((m * vec4(position, 1.0)).xyz, 1.0)).xyz;
  gl_Position = camera.viewProjection * vec4(placed, 1.0);
  // The view-projection maps depth to [0, 1] as WebGPU's does; GL's clip volume is [-w, w].
  gl_Position.z = 2.0 * gl_Position.z - gl_Position.w;
  vUv = uv.xy;
  vWorld = placed;
  // Normals use the same matrices: exact for rotation and uniform scale, the usual skinning
  // approximation otherwise. Zero without NORMALS (skin.wgsl's stand-in).
  vec3 worldNormal = vec3(0.0);
#if NORMALS
  worldNormal = (world * vec4((m * vec4(normal, 0.0)).xyz, 0.0)).xyz;
  vNormal = worldNormal;
#endif
#if COLORS
  vColor = color;
#endif
#if UV1
  vUv1 = uv.zw;
#endif
#if TANGENTS
  // three.js (normal_vertex.glsl): vTangent = normalize(t), vBitangent = normalize(cross(vNormal, vTangent) * w).
  vTangent = vec3(0.0);
  vBitangent = vec3(0.0);
  if (tangent.w != 0.0) {
    vTangent = normalize((world * vec4((m * vec4(tangent.xyz, 0.0)).xyz, 0.0)).xyz);
    vBitangent = normalize(cross(normalize(worldNormal), vTangent) * tangent.w);
  }
#endif
}
