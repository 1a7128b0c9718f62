// Selection marker: a ring on the ground under one character, drawn in the crowd's render pass
// after the ground, depth-tested (characters hide it) without writing depth, alpha-blended.
// Colours are display (sRGB-encoded) values. Layout: demo/marker-pass.ts (MARKER_UNIFORM).

override DECODE_SRGB: bool = false;

struct Marker {
  viewProjection: mat4x4f,
  center: vec3f,  // world position of the ring's centre (y just above the ground)
  radius: f32,    // outer radius of the ring, world units
  color: vec4f,   // rgb, alpha of the ring at full coverage
}

@group(0) @binding(0) var<uniform> marker: Marker;

struct VertexOut {
  @builtin(position) clip: vec4f,
  @location(0) local: vec2f, // position in the quad, in units of the radius: [-1, 1]^2
}

@vertex
fn vertexMain(@builtin(vertex_index) index: u32) -> VertexOut {
  var corners = array<vec2f, 6>(
    vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0),
    vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0),
  );
  let c = corners[index];
  let world = marker.center + vec3f(c.x, 0.0, c.y) * marker.radius;
  var out: VertexOut;
  out.clip = marker.viewProjection * vec4f(world, 1.0);
  out.local = c;
  return out;
}

@fragment
fn fragmentMain(in: VertexOut) -> @location(0) vec4f {
  let r = length(in.local);
  let aa = fwidth(r);
  // A band from 0.72 to 1.0 of the radius, antialiased, over a faint disc.
  let band = smoothstep(0.72 - aa, 0.72, r) * (1.0 - smoothstep(1.0 - aa, 1.0, r));
  let disc = (1.0 - smoothstep(0.72 - aa, 0.72, r)) * 0.25;
  let alpha = marker.color.a * max(band, disc);
  var color = marker.color.rgb;
  if (DECODE_SRGB) {
    color = pow(color, vec3f(2.2));
  }
  return vec4f(color, alpha);
}
