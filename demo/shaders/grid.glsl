#version 300 es
// Ground grid on WebGL 2: shaders/grid.wgsl's quad and lines in GLSL ES 3.00, both stages in
// this file (demo/gl-grid-pass.ts compiles it twice, with VERTEX defined or not). One quad on
// the plane y = 0 centred under the camera target, drawn after the crowd with depth test and
// depth write; minor lines every cellSize (one cell per character), major lines every
// majorEvery cells, antialiased with screen-space derivatives and faded before they alias; the
// ground fades into the sky with distance. No crowd shadows on the ground here (the WebGPU grid
// samples the crowds' shadow maps). Colours are display (sRGB-encoded) values.
precision highp float;

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
  vec3 ground = mix(groundColor.rgb, lineColor.rgb, max(minor * 0.45, major * 0.8));
  float fog = smoothstep(fogStart, fogEnd, distance(world, eye));
  color = vec4(mix(ground, skyColor.rgb, fog), 1.0);
}
#endif
