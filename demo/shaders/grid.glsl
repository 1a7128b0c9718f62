#version 300 es
// Ground grid on WebGL 2: shaders/grid.wgsl's quad and lines in GLSL ES 3.00, both stages in
// this file (demo/gl-grid-pass.ts compiles it twice, with VERTEX defined or not). One quad on
// the plane y = 0 centred under the camera target, drawn after the crowd with depth test and
// depth write; minor lines every cellSize (one cell per character), major lines every
// majorEvery cells, antialiased with screen-space derivatives and faded before they alias; the
// ground fades into the sky with distance, darkened in the shadow maps of up to three crowds
// (GLCrowd.shadowMap, as grid.wgsl samples Crowd.shadowMap). Colours are display (sRGB-encoded)
// values.
precision highp float;
precision highp sampler2DShadow;

uniform mat4 viewProjection;
uniform vec3 center;      // xz centre of the quad (y is the ground height)
uniform float extent;     // half the quad's side, world units
uniform vec3 eye;
uniform float majorEvery; // minor cells per major cell
uniform vec4 groundColor;
uniform vec4 lineColor;
uniform vec4 skyColor;
uniform vec2 cellSize;    // world units per minor cell along x and z
uniform float fogStart;   // distance from the eye where the ground starts fading to the sky
uniform float fogEnd;     // distance where it is all sky
// One crowd's shadow map per slot (demo/gl-grid-pass.ts GL_GROUND_SHADOWS): world -> the map's
// clip space (depth in [0, 1]), and (1 / map size, strength: 0 without a map). The maps are
// DEPTH_COMPONENT32F, sampled with a less-equal comparison (a 1x1 stand-in on an empty slot).
uniform mat4 shadowViewProjection[3];
uniform vec2 shadowTexelStrength[3];

#ifdef VERTEX
out vec3 world;

const vec2 corners[6] = vec2[6](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));

void main() {
  vec2 c = corners[gl_VertexID];
  world = vec3(center.x + c.x * extent, center.y, center.z + c.y * extent);
  vec4 clip = viewProjection * vec4(world, 1.0);
  // The crowd's matrices give z in [0, 1] (WebGPU's clip space); GL clips z in [-w, w].
  gl_Position = vec4(clip.xy, 2.0 * clip.z - clip.w, clip.w);
}
#else
in vec3 world;
out vec4 color;

uniform sampler2DShadow shadowMap0;
uniform sampler2DShadow shadowMap1;
uniform sampler2DShadow shadowMap2;

// 1 where the ground sees the light, down to 1 - strength in crowd `i`'s shadow (3 x 3 PCF, each
// tap a hardware 2 x 2 comparison; rows as GL's, v not flipped), 1 outside its map.
float litBy(int i, sampler2DShadow shadowMap) {
  float strength = shadowTexelStrength[i].y;
  if (strength == 0.0) {
    return 1.0;
  }
  vec4 p = shadowViewProjection[i] * vec4(world, 1.0);
  vec2 uv = p.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || p.z > 1.0) {
    return 1.0;
  }
  float sum = 0.0;
  for (int dy = -1; dy <= 1; dy++) {
    for (int dx = -1; dx <= 1; dx++) {
      sum += texture(shadowMap, vec3(uv + vec2(float(dx), float(dy)) * shadowTexelStrength[i].x, p.z - 0.002));
    }
  }
  return 1.0 - strength * (1.0 - sum / 9.0);
}

// Coverage in [0, 1] of lines at integer values of `coord`, `width` pixels wide; fades out as
// cells shrink under ~4 pixels, where lines would alias into moire.
float lines(vec2 coord, float width) {
  vec2 perPixel = fwidth(coord);
  vec2 distance = abs(fract(coord - 0.5) - 0.5) / max(perPixel, vec2(1e-6));
  float line = 1.0 - clamp(min(distance.x, distance.y) - (width - 1.0) * 0.5, 0.0, 1.0);
  float density = max(perPixel.x, perPixel.y);
  return line * (1.0 - smoothstep(0.12, 0.3, density));
}

void main() {
  vec2 coord = world.xz / cellSize + 0.5; // character cells are centred on integers
  float minor = lines(coord, 1.0);
  float major = lines(coord / majorEvery, 1.6);
  float lit = min(min(litBy(0, shadowMap0), litBy(1, shadowMap1)), litBy(2, shadowMap2));
  vec3 ground = mix(groundColor.rgb, lineColor.rgb, max(minor * 0.45, major * 0.8)) * lit;
  float fog = smoothstep(fogStart, fogEnd, distance(world, eye));
  color = vec4(mix(ground, skyColor.rgb, fog), 1.0);
}
#endif
