#version 300 es
// Ring on the ground on WebGL 2: shaders/marker.wgsl in GLSL ES 3.00, both stages in this file
// (demo/gl-program.ts compiles it twice, with VERTEX defined or not). A quad of side 2 x radius
// around center, drawn after the ground with depth test and without depth write, alpha-blended:
// characters hide it. Colours are display (sRGB-encoded) values, as the canvas stores them.
precision highp float;

uniform mat4 viewProjection;
uniform vec3 center; // world position of the ring's centre (y just above the ground)
uniform float radius; // outer radius of the ring, world units
uniform vec4 color;   // rgb, alpha of the ring at full coverage

#ifdef VERTEX
out vec2 local; // position in the quad, in units of the radius: [-1, 1]^2

const vec2 corners[6] = vec2[6](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0));

void main() {
  vec2 c = corners[gl_VertexID];
  vec4 clip = viewProjection * vec4(center + vec3(c.x, 0.0, c.y) * radius, 1.0);
  // The crowd's matrices give z in [0, 1] (WebGPU's clip space); GL clips z in [-w, w].
  gl_Position = vec4(clip.xy, 2.0 * clip.z - clip.w, clip.w);
  local = c;
}
#else
in vec2 local;
out vec4 fragColor;

void main() {
  float r = length(local);
  float aa = fwidth(r);
  // A band from 0.72 to 1.0 of the radius, antialiased, over a faint disc (as marker.wgsl).
  float band = smoothstep(0.72 - aa, 0.72, r) * (1.0 - smoothstep(1.0 - aa, 1.0, r));
  float disc = (1.0 - smoothstep(0.72 - aa, 0.72, r)) * 0.25;
  fragColor = vec4(color.rgb, color.a * max(band, disc));
}
#endif
