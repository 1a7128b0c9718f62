#version 300 es
// Skin pass on WebGL 2, fragment stage (src/webgl2/gl-skin-pass.ts): the port of shaders/skin.wgsl's
// `fragment` (docs/materials.md): the glTF metallic-roughness material with three.js's
// MeshStandardMaterial model (GGX, Smith-correlated visibility, Lambert diffuse, three's DFG
// table) under one directional sun (shadowed through GLShadowPass's map when there is one), an
// ambient and a hemisphere term, and the prefiltered environment where ENVIRONMENT. Every
// formula is skin.wgsl's; where GL differs: derivatives (GL's dFdy runs up the framebuffer as
// three's does, so none is negated here) and the shadow map's rows (GL's run up: v is not
// flipped). DEPTH_ONLY: GLShadowPass's variant, whose main() only discards MASK's cut-out texels
// (skin.wgsl shadowMask). The #defines before this text: see skin.vert.glsl.

precision highp float;
precision highp int;
precision highp sampler2DArray;
precision highp sampler2DShadow;

// CAMERA in src/runtime/layout.ts: as in skin.vert.glsl.
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

// MATERIAL in src/runtime/layout.ts (material-data.ts materialRecord; std140 gives its offsets).
// flags: MATERIAL_FLAGS (1 unlit, 2 alphaMode MASK, 4 TANGENT). uvTransform: KHR_texture_transform
// rows of textures 0 base, 1 metal-rough, 2 occlusion, 3 emissive, 4 normal (first row's w: the UV set).
layout(std140) uniform Material {
  vec4 baseColorFactor;
  uint slotCount;
  float metallic;
  float roughness;
  float alphaCutoff;
  vec3 emissive;
  float occlusionStrength;
  uint flags;
  float normalScale;
  vec4 uvTransform[10];
} material;

// sRGB: base colour, emissive. Linear: metal-rough (B metal, G rough), occlusion (R), normal.
// 1x1 white stand-ins (the normal map's: (0.5, 0.5, 1)) where the material has none.
uniform sampler2D baseColorTexture;
uniform sampler2D metallicRoughnessTexture;
uniform sampler2D occlusionTexture;
uniform sampler2D emissiveTexture;
uniform sampler2D normalTexture;
#if APPEARANCE
// Per-instance appearance (skin.wgsl appearanceBase): the records, the variant images (a
// TEXTURE_2D_ARRAY, sRGB; layer k - 1 is variant k) and this primitive's (index, varied).
uniform highp usampler2D crowdAppearances;
uniform int crowdAppearanceWidth;
uniform highp sampler2DArray appearanceVariants;
uniform uvec2 appearancePrimitive;
flat in uint vSlot;
#endif
#if !DEPTH_ONLY
// The directional light's depth map (GLShadowPass, less-equal comparison), or a 1x1 stand-in when shadowStrength is 0.
uniform sampler2DShadow shadowMap;
#endif
#if ENVIRONMENT
// The prefiltered environment (GLEnvironmentMap: radiance x intensity, layer k = roughness k / 5, equirectangular, row 0 up).
uniform sampler2DArray environmentMap;
#endif

#if NORMALS
in vec3 vNormal;
#endif
in vec2 vUv;
in vec3 vWorld;
#if COLORS
in vec4 vColor;
#endif
#if TANGENTS
in vec3 vTangent;
in vec3 vBitangent;
#endif
#if UV1
in vec2 vUv1;
#endif

out vec4 fragColor;

// Texture t's coordinates: its UV set, moved by its KHR_texture_transform (identity without one).
vec2 uvOf(int t) {
  vec2 uv = vUv;
#if UV1
  if (material.uvTransform[2 * t].w == 1.0) {
    uv = vUv1;
  }
#endif
  vec3 p = vec3(uv, 1.0);
  return vec2(dot(material.uvTransform[2 * t].xyz, p), dot(material.uvTransform[2 * t + 1].xyz, p));
}

// COLOR_0 where the primitive has it, else white.
vec4 vertexColor() {
#if COLORS
  return vColor;
#else
  return vec4(1.0);
#endif
}

// The surface's base colour (linear RGBA): texture x factor x COLOR_0.
vec4 baseColor() {
  return texture(baseColorTexture, uvOf(0)) * material.baseColorFactor * vertexColor();
}

#if !DEPTH_ONLY
// How much of the light reaches `world`: 1 lit, 0 in shadow; 3 x 3 percentage-closer filtering
// (each tap a hardware 2 x 2 comparison), 1 outside the map.
float lit(vec3 world) {
  if (camera.shadowStrength == 0.0) {
    return 1.0;
  }
  vec4 p = camera.lightViewProjection * vec4(world, 1.0);
  vec2 uv = p.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || p.z > 1.0) {
    return 1.0;
  }
  float sum = 0.0;
  for (int dy = -1; dy <= 1; dy++) {
    for (int dx = -1; dx <= 1; dx++) {
      sum += texture(shadowMap, vec3(uv + vec2(float(dx), float(dy)) * camera.shadowTexel, p.z - camera.shadowBias));
    }
  }
  return 1.0 - camera.shadowStrength * (1.0 - sum / 9.0);
}
#endif

#if APPEARANCE
// Word `w` of the appearance record of the fragment's instance.
uint appearanceWord(int w) {
  int word = int(vSlot) * APPEARANCE_TEXELS * 4 + w;
  return texelFetch(crowdAppearances, ivec2((word / 4) % crowdAppearanceWidth, (word / 4) / crowdAppearanceWidth), 0)[word % 4];
}

// The base colour of the fragment's instance: its variant's texture (or the material's own) times
// the material's factor times its tint. Both textures are sampled (uniform control flow), one kept.
vec4 appearanceBase() {
  vec2 uv = uvOf(0);
  vec4 own = texture(baseColorTexture, uv);
  uint variant = appearanceWord(APPEARANCE_VARIANT);
  vec4 texel = texture(appearanceVariants, vec3(uv, float(int(max(variant, 1u)) - 1)));
  texel = variant != 0u && appearancePrimitive.y != 0u ? texel : own;
  vec3 tint = uintBitsToFloat(uvec3(appearanceWord(APPEARANCE_TINT), appearanceWord(APPEARANCE_TINT + 1), appearanceWord(APPEARANCE_TINT + 2)));
  return texel * material.baseColorFactor * vertexColor() * vec4(tint, 1.0);
}
#endif

// ---- three.js MeshStandardMaterial terms (node_modules/three/src/nodes/functions/BSDF) ------

vec3 fSchlick(vec3 f0, float f90, float dotVH) {
  float fresnel = exp2((-5.55473 * dotVH - 6.98316) * dotVH);
  return f0 * (1.0 - fresnel) + f90 * fresnel;
}

// Smith-correlated GGX visibility, already divided by 4 NL NV.
float vGgxSmithCorrelated(float alpha, float dotNL, float dotNV) {
  float a2 = alpha * alpha;
  float gv = dotNL * sqrt(a2 + (1.0 - a2) * dotNV * dotNV);
  float gl = dotNV * sqrt(a2 + (1.0 - a2) * dotNL * dotNL);
  return 0.5 / max(gv + gl, 1e-6);
}

float dGgx(float alpha, float dotNH) {
  float a2 = alpha * alpha;
  float denom = 1.0 - dotNH * dotNH * (1.0 - a2);
  return a2 / (denom * denom) * (1.0 / 3.141592653589793);
}

// Rows: dotNV from 1/32 to 31/32; columns: roughness likewise. Generated by `npx tsx tools/dfg-lut.ts --glsl`: do not edit
// (the same numbers as skin.wgsl's, test/webgl2/gl-shaders.test.ts).
const vec2 DFG_LUT[256] = vec2[256](
  vec2(0.14709, 0.85205), vec2(0.16553, 0.78760), vec2(0.24438, 0.63867), vec2(0.37085, 0.51953), vec2(0.49683, 0.41553), vec2(0.60205, 0.32642), vec2(0.68408, 0.25391), vec2(0.74609, 0.19751), vec2(0.79053, 0.15430), vec2(0.82227, 0.12164), vec2(0.84326, 0.09698), vec2(0.85645, 0.07843), vec2(0.86328, 0.06439), vec2(0.86572, 0.05371), vec2(0.86426, 0.04544), vec2(0.85986, 0.03903),
  vec2(0.38867, 0.61133), vec2(0.39307, 0.60059), vec2(0.41235, 0.54590), vec2(0.45654, 0.44824), vec2(0.52783, 0.35254), vec2(0.60742, 0.27393), vec2(0.67871, 0.21143), vec2(0.73340, 0.16260), vec2(0.77100, 0.12537), vec2(0.79346, 0.09729), vec2(0.80322, 0.07623), vec2(0.80371, 0.06036), vec2(0.79639, 0.04843), vec2(0.78564, 0.03937), vec2(0.77197, 0.03241), vec2(0.75488, 0.02698),
  vec2(0.57227, 0.42749), vec2(0.57373, 0.42407), vec2(0.57959, 0.40356), vec2(0.59180, 0.35449), vec2(0.61621, 0.28809), vec2(0.65527, 0.22485), vec2(0.69873, 0.17261), vec2(0.73535, 0.13184), vec2(0.75928, 0.10089), vec2(0.77002, 0.07745), vec2(0.77197, 0.05994), vec2(0.76611, 0.04684), vec2(0.75195, 0.03699), vec2(0.73242, 0.02954), vec2(0.70947, 0.02383), vec2(0.68359, 0.01944),
  vec2(0.70898, 0.29102), vec2(0.70898, 0.28979), vec2(0.70996, 0.28125), vec2(0.70996, 0.25854), vec2(0.71143, 0.22046), vec2(0.71973, 0.17688), vec2(0.73438, 0.13708), vec2(0.74805, 0.10480), vec2(0.75586, 0.07990), vec2(0.75977, 0.06100), vec2(0.75342, 0.04684), vec2(0.73877, 0.03622), vec2(0.71777, 0.02826), vec2(0.69189, 0.02226), vec2(0.66113, 0.01770), vec2(0.62842, 0.01420),
  vec2(0.80811, 0.19177), vec2(0.80762, 0.19128), vec2(0.80615, 0.18799), vec2(0.80176, 0.17810), vec2(0.79297, 0.15869), vec2(0.78369, 0.13220), vec2(0.77539, 0.10486), vec2(0.76855, 0.08112), vec2(0.76465, 0.06198), vec2(0.75537, 0.04727), vec2(0.74023, 0.03616), vec2(0.71875, 0.02776), vec2(0.69092, 0.02148), vec2(0.65820, 0.01674), vec2(0.62207, 0.01316), vec2(0.58398, 0.01041),
  vec2(0.87842, 0.12170), vec2(0.87793, 0.12170), vec2(0.87500, 0.12061), vec2(0.86914, 0.11694), vec2(0.85693, 0.10803), vec2(0.83789, 0.09375), vec2(0.81494, 0.07690), vec2(0.79590, 0.06070), vec2(0.77637, 0.04688), vec2(0.75635, 0.03592), vec2(0.73242, 0.02745), vec2(0.70313, 0.02103), vec2(0.66895, 0.01617), vec2(0.63037, 0.01251), vec2(0.58936, 0.00974), vec2(0.54639, 0.00763),
  vec2(0.92627, 0.07379), vec2(0.92578, 0.07391), vec2(0.92285, 0.07391), vec2(0.91699, 0.07312), vec2(0.90381, 0.06982), vec2(0.88135, 0.06311), vec2(0.85107, 0.05380), vec2(0.82129, 0.04370), vec2(0.79102, 0.03439), vec2(0.76123, 0.02661), vec2(0.72803, 0.02045), vec2(0.69189, 0.01566), vec2(0.65088, 0.01201), vec2(0.60742, 0.00925), vec2(0.56104, 0.00716), vec2(0.51416, 0.00557),
  vec2(0.95752, 0.04233), vec2(0.95703, 0.04245), vec2(0.95459, 0.04282), vec2(0.94922, 0.04318), vec2(0.93701, 0.04266), vec2(0.91309, 0.04025), vec2(0.88184, 0.03580), vec2(0.84473, 0.03014), vec2(0.80615, 0.02434), vec2(0.76709, 0.01915), vec2(0.72656, 0.01485), vec2(0.68262, 0.01142), vec2(0.63623, 0.00877), vec2(0.58691, 0.00674), vec2(0.53662, 0.00520), vec2(0.48608, 0.00402),
  vec2(0.97754, 0.02263), vec2(0.97705, 0.02275), vec2(0.97510, 0.02319), vec2(0.96973, 0.02391), vec2(0.95947, 0.02449), vec2(0.93604, 0.02412), vec2(0.90527, 0.02252), vec2(0.86523, 0.01976), vec2(0.82178, 0.01651), vec2(0.77441, 0.01329), vec2(0.72656, 0.01046), vec2(0.67627, 0.00813), vec2(0.62402, 0.00628), vec2(0.56982, 0.00483), vec2(0.51514, 0.00371), vec2(0.46143, 0.00286),
  vec2(0.98877, 0.01107), vec2(0.98877, 0.01116), vec2(0.98682, 0.01151), vec2(0.98291, 0.01221), vec2(0.97314, 0.01299), vec2(0.95313, 0.01352), vec2(0.92285, 0.01328), vec2(0.88232, 0.01226), vec2(0.83496, 0.01066), vec2(0.78320, 0.00885), vec2(0.72852, 0.00711), vec2(0.67188, 0.00561), vec2(0.61377, 0.00436), vec2(0.55469, 0.00337), vec2(0.49634, 0.00260), vec2(0.43945, 0.00200),
  vec2(0.99512, 0.00480), vec2(0.99512, 0.00486), vec2(0.99365, 0.00510), vec2(0.99023, 0.00560), vec2(0.98145, 0.00633), vec2(0.96436, 0.00698), vec2(0.93604, 0.00730), vec2(0.89648, 0.00713), vec2(0.84668, 0.00649), vec2(0.79150, 0.00560), vec2(0.73145, 0.00463), vec2(0.66895, 0.00372), vec2(0.60547, 0.00293), vec2(0.54150, 0.00228), vec2(0.47925, 0.00177), vec2(0.41968, 0.00137),
  vec2(0.99805, 0.00176), vec2(0.99805, 0.00179), vec2(0.99658, 0.00193), vec2(0.99414, 0.00224), vec2(0.98633, 0.00273), vec2(0.97168, 0.00325), vec2(0.94580, 0.00367), vec2(0.90771, 0.00382), vec2(0.85840, 0.00368), vec2(0.79932, 0.00332), vec2(0.73535, 0.00284), vec2(0.66748, 0.00234), vec2(0.59863, 0.00188), vec2(0.53027, 0.00148), vec2(0.46411, 0.00116), vec2(0.40210, 0.00090),
  vec2(0.99951, 0.00050), vec2(0.99951, 0.00052), vec2(0.99805, 0.00058), vec2(0.99658, 0.00075), vec2(0.98926, 0.00101), vec2(0.97607, 0.00135), vec2(0.95264, 0.00165), vec2(0.91602, 0.00186), vec2(0.86719, 0.00191), vec2(0.80762, 0.00182), vec2(0.73926, 0.00162), vec2(0.66699, 0.00138), vec2(0.59326, 0.00114), vec2(0.52002, 0.00091), vec2(0.45044, 0.00072), vec2(0.38599, 0.00057),
  vec2(1.00000, 0.00009), vec2(1.00000, 0.00010), vec2(0.99902, 0.00013), vec2(0.99707, 0.00019), vec2(0.99072, 0.00031), vec2(0.97900, 0.00047), vec2(0.95752, 0.00065), vec2(0.92334, 0.00079), vec2(0.87549, 0.00088), vec2(0.81494, 0.00089), vec2(0.74414, 0.00083), vec2(0.66748, 0.00074), vec2(0.58838, 0.00063), vec2(0.51123, 0.00052), vec2(0.43823, 0.00042), vec2(0.37109, 0.00033),
  vec2(1.00000, 0.00001), vec2(1.00000, 0.00001), vec2(0.99902, 0.00002), vec2(0.99756, 0.00004), vec2(0.99219, 0.00008), vec2(0.98145, 0.00014), vec2(0.96143, 0.00021), vec2(0.92920, 0.00028), vec2(0.88281, 0.00033), vec2(0.82178, 0.00036), vec2(0.74902, 0.00036), vec2(0.66846, 0.00034), vec2(0.58545, 0.00030), vec2(0.50391, 0.00026), vec2(0.42700, 0.00021), vec2(0.35767, 0.00017),
  vec2(1.00000, 0.00000), vec2(1.00000, 0.00000), vec2(0.99951, 0.00000), vec2(0.99756, 0.00001), vec2(0.99316, 0.00002), vec2(0.98291, 0.00003), vec2(0.96436, 0.00005), vec2(0.93408, 0.00007), vec2(0.88916, 0.00009), vec2(0.82813, 0.00010), vec2(0.75391, 0.00011), vec2(0.67041, 0.00011), vec2(0.58301, 0.00011), vec2(0.49707, 0.00010), vec2(0.41699, 0.00008), vec2(0.34521, 0.00007)
);

// The split-sum DFG terms (scale, bias) at (roughness, dotNV), bilinear over the table, clamped to its edge texels.
vec2 dfgLookup(float roughness, float dotNV) {
  vec2 p = clamp(vec2(roughness, dotNV) * 16.0 - 0.5, vec2(0.0), vec2(15.0));
  ivec2 i = ivec2(floor(p));
  ivec2 j = min(i + 1, ivec2(15));
  vec2 f = p - floor(p);
  vec2 top = mix(DFG_LUT[i.y * 16 + i.x], DFG_LUT[i.y * 16 + j.x], f.x);
  vec2 bottom = mix(DFG_LUT[j.y * 16 + i.x], DFG_LUT[j.y * 16 + j.x], f.x);
  return mix(top, bottom, f.y);
}

// The shading normal (skin.wgsl perturbedNormal): the normal map's tangent-space normal
// (xy x normalScale) in the tangent frame; without TANGENT, three's getTangentFrame from the
// derivatives of the world position and the map's UV (GL's dFdy, as three's), normalScale.y
// negated as GLTFLoader does. normalScale 0 (no normal map): n as it is.
vec3 perturbedNormal(vec3 n, float face) {
  if (material.normalScale == 0.0) {
    return n;
  }
  vec2 uv = uvOf(4);
  vec3 mapN = texture(normalTexture, uv).xyz * 2.0 - 1.0;
  vec3 t;
  vec3 b;
#if TANGENTS
  t = normalize(vTangent);
  b = normalize(vBitangent);
  mapN = vec3(mapN.xy * material.normalScale, mapN.z);
#else
  vec3 q0 = dFdx(vWorld);
  vec3 q1 = dFdy(vWorld);
  vec2 st0 = dFdx(uv);
  vec2 st1 = dFdy(uv);
  vec3 q1perp = cross(q1, n);
  vec3 q0perp = cross(n, q0);
  vec3 tangent = q1perp * st0.x + q0perp * st1.x;
  vec3 bitangent = q1perp * st0.y + q0perp * st1.y;
  float det = max(dot(tangent, tangent), dot(bitangent, bitangent));
  float scale = det == 0.0 ? 0.0 : inversesqrt(det);
  t = tangent * scale;
  b = bitangent * scale;
  mapN = vec3(mapN.xy * vec2(material.normalScale, -material.normalScale), mapN.z);
#endif
  return normalize(mat3(t * face, b * face, n) * mapN);
}

// The view direction at `world` (unit, towards the camera).
vec3 viewDirection(vec3 world) {
  return normalize(camera.eye.w != 0.0 ? camera.eye.xyz - world : camera.eye.xyz);
}

// The unit geometric normal on the side the fragment is seen from (skin.wgsl geometricNormal).
vec3 geometricNormal(bool front) {
#if NORMALS
  return normalize(front ? vNormal : -vNormal);
#else
  vec3 face = normalize(cross(dFdx(vWorld), dFdy(vWorld)));
  return dot(face, viewDirection(vWorld)) >= 0.0 ? face : -face;
#endif
}

#if ENVIRONMENT
// The environment's radiance along unit `dir` for a GGX lobe of `roughness` (linear between the
// two prefiltered layers around it), at three.js's equirectUv(dir) (texture y = 1 - v).
vec3 environmentRadiance(vec3 dir, float roughness) {
  vec2 uv = vec2(atan(dir.z, dir.x) * 0.15915494309189535 + 0.5, 0.5 - asin(clamp(dir.y, -1.0, 1.0)) * 0.3183098861837907);
  float k = clamp(roughness, 0.0, 1.0) * 5.0;
  int below = min(int(floor(k)), 4);
  vec3 a = textureLod(environmentMap, vec3(uv, float(below)), 0.0).rgb;
  vec3 b = textureLod(environmentMap, vec3(uv, float(below + 1)), 0.0).rgb;
  return mix(a, b, k - float(below));
}

// Single- (fssEss) and multiple-scattering (multi) of the split-sum lobe with F0 `fr`, f90 = 1.
void multiscattering(vec3 fr, vec2 dfg, out vec3 fssEss, out vec3 multi) {
  fssEss = fr * dfg.x + dfg.y;
  float ems = 1.0 - (dfg.x + dfg.y);
  vec3 favg = fr + (1.0 - fr) * 0.047619;
  multi = fssEss * favg / (1.0 - ems * favg) * ems;
}

// The environment's indirect light as three.js's MeshStandardMaterial gives it (skin.wgsl environmentLight).
vec3 environmentLight(vec3 n, vec3 v, float roughness, vec3 base, float metal, vec2 dfg, float ao) {
  vec3 reflected = normalize(mix(reflect(-v, n), n, roughness * roughness));
  vec3 radiance = environmentRadiance(reflected, roughness);
  vec3 cosineWeighted = environmentRadiance(n, 1.0);
  vec3 dielectric0;
  vec3 dielectric1;
  vec3 metallic0;
  vec3 metallic1;
  multiscattering(vec3(0.04), dfg, dielectric0, dielectric1);
  multiscattering(base, dfg, metallic0, metallic1);
  vec3 single = mix(dielectric0, metallic0, metal);
  vec3 multi = mix(dielectric1, metallic1, metal);
  vec3 diffuse = base * (1.0 - metal) * (1.0 - dielectric0 - dielectric1);
  float dotNV = clamp(dot(n, v), 0.0, 1.0);
  float specularOcclusion = clamp(pow(dotNV + ao, exp2(-16.0 * roughness - 1.0)) - 1.0 + ao, 0.0, 1.0);
  return (radiance * single + multi * cosineWeighted) * specularOcclusion + diffuse * cosineWeighted * ao;
}
#endif

// The sRGB transfer function, per channel, clamped to [0, 1].
vec3 linearToSrgb(vec3 c) {
  vec3 x = clamp(c, vec3(0.0), vec3(1.0));
  return mix(1.055 * pow(x, vec3(1.0 / 2.4)) - 0.055, x * 12.92, lessThanEqual(x, vec3(0.0031308)));
}

#if DEPTH_ONLY
void main() {
  if ((material.flags & 2u) != 0u && baseColor().a < material.alphaCutoff) {
    discard;
  }
}
#else
void main() {
#if APPEARANCE
  vec4 base = appearanceBase();
#else
  vec4 base = baseColor();
#endif
  bool front = gl_FrontFacing;
  if ((material.flags & 2u) != 0u && base.a < material.alphaCutoff) {
    discard;
  }
  // Roughness as three.js widens it for the normal's screen-space change (geometryRoughness).
  float geometryRoughness = 0.0;
#if NORMALS
  vec3 dxy = max(abs(dFdx(vNormal)), abs(dFdy(vNormal)));
  geometryRoughness = max(max(dxy.x, dxy.y), dxy.z);
#endif
  vec3 color = base.rgb;
  if ((material.flags & 1u) == 0u) {
    vec3 n = perturbedNormal(geometricNormal(front), front ? 1.0 : -1.0);
    vec3 v = viewDirection(vWorld);
    vec4 mr = texture(metallicRoughnessTexture, uvOf(1));
    float metal = material.metallic * mr.b;
    float roughness = min(max(material.roughness * mr.g, 0.0525) + geometryRoughness, 1.0);
    vec3 diffuse = base.rgb * (1.0 - metal);
    vec3 dielectricF0 = vec3(0.04);
    vec3 f0 = mix(dielectricF0, base.rgb, metal);
    float dotNV = clamp(dot(n, v), 0.0, 1.0);
    vec2 dfg = dfgLookup(roughness, dotNV);
    float ess = dfg.x + dfg.y;
    vec3 multiScatteringCompensation = f0 * (1.0 / ess - 1.0) + 1.0;
    // Direct: the sun.
    vec3 l = -camera.lightDirection;
    vec3 h = normalize(l + v);
    float dotNL = clamp(dot(n, l), 0.0, 1.0);
    float dotVH = clamp(dot(v, h), 0.0, 1.0);
    vec3 irradiance = dotNL * camera.sunColor * lit(vWorld);
    float alpha = max(roughness, 0.045) * max(roughness, 0.045);
    vec3 specular = fSchlick(f0, 1.0, dotVH) * vGgxSmithCorrelated(alpha, dotNL, dotNV) * dGgx(alpha, clamp(dot(n, h), 0.0, 1.0));
    vec3 light = irradiance * diffuse * (1.0 / 3.141592653589793) * (1.0 - fSchlick(dielectricF0, 1.0, dotVH));
    light += irradiance * specular * multiScatteringCompensation;
    // Indirect: ambient + hemisphere irradiance, less what the dielectric specular lobe reflects.
    vec3 ambient = mix(camera.groundColor, camera.skyColor, 0.5 * n.y + 0.5);
    vec3 fssEss = dielectricF0 * dfg.x + dfg.y;
    vec3 favg = dielectricF0 + (1.0 - dielectricF0) * 0.047619;
    vec3 fms = fssEss * favg / (1.0 - (1.0 - ess) * favg);
    vec3 scattered = fssEss + fms * (1.0 - ess);
    float occlusion = 1.0 + material.occlusionStrength * (texture(occlusionTexture, uvOf(2)).r - 1.0);
    light += ambient * diffuse * (1.0 / 3.141592653589793) * (1.0 - scattered) * occlusion;
#if ENVIRONMENT
    light += environmentLight(n, v, roughness, base.rgb, metal, dfg, occlusion);
#endif
    color = light;
  }
  color += material.emissive * texture(emissiveTexture, uvOf(3)).rgb;
#if ENCODE_SRGB
  color = linearToSrgb(color);
#endif
  fragColor = vec4(color, base.a);
}
#endif
