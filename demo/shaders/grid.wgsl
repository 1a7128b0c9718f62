// Ground grid: one quad on the plane y = 0 centred under the camera target, drawn in the
// crowd's render pass with depth test and depth write. The fragment shader draws minor lines
// every `cellSize` (one cell per character) and major lines every `majorEvery` cells,
// antialiased with screen-space derivatives and faded out before they alias, then fades the
// ground into the sky colour with distance, darkened in the shadow maps of up to three crowds.
// Colours are display (sRGB-encoded) values.
// Layout: demo/grid-pass.ts (GRID_UNIFORM).

// True when the colour target is an -srgb format: decode so the hardware re-encodes.
override DECODE_SRGB: bool = false;

struct Grid {
  viewProjection: mat4x4f,
  center: vec3f,     // xz centre of the quad (y is the ground height)
  extent: f32,       // half the quad's side, world units
  eye: vec3f,
  majorEvery: f32,   // minor cells per major cell
  groundColor: vec4f,
  lineColor: vec4f,
  skyColor: vec4f,
  cellSize: vec2f,   // world units per minor cell along x and z
  fogStart: f32,     // distance from the eye where the ground starts fading to the sky
  fogEnd: f32,       // distance where it is all sky
  shadows: array<Shadow, 3>, // one per crowd casting on the ground (demo/grid-pass.ts GROUND_SHADOWS)
}

// One crowd's shadow map as the ground reads it.
struct Shadow {
  lightViewProjection: mat4x4f, // world -> the crowd's shadow map
  texel: f32,    // 1 / map size
  strength: f32, // 0 without a map
}

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var shadowMap0: texture_depth_2d;
@group(0) @binding(2) var shadowSampler: sampler_comparison;
@group(0) @binding(3) var shadowMap1: texture_depth_2d;
@group(0) @binding(4) var shadowMap2: texture_depth_2d;

// 1 where the ground sees the light, darker where any crowd's shadow falls.
fn lit(world: vec3f) -> f32 {
  return min(min(litBy(grid.shadows[0], shadowMap0, world), litBy(grid.shadows[1], shadowMap1, world)), litBy(grid.shadows[2], shadowMap2, world));
}

// 1 where the ground sees the light, down to 1 - strength in one crowd's shadow (3 x 3 PCF).
fn litBy(shadow: Shadow, shadowMap: texture_depth_2d, world: vec3f) -> f32 {
  if (shadow.strength == 0.0) {
    return 1.0;
  }
  let p = shadow.lightViewProjection * vec4f(world, 1.0);
  let uv = p.xy * vec2f(0.5, -0.5) + vec2f(0.5);
  if (any(uv < vec2f(0.0)) || any(uv > vec2f(1.0)) || p.z > 1.0) {
    return 1.0;
  }
  var sum = 0.0;
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx++) {
      sum += textureSampleCompareLevel(shadowMap, shadowSampler, uv + vec2f(f32(dx), f32(dy)) * shadow.texel, p.z - 0.002);
    }
  }
  return 1.0 - shadow.strength * (1.0 - sum / 9.0);
}

struct VertexOut {
  @builtin(position) clip: vec4f,
  @location(0) world: vec3f,
}

@vertex
fn vertexMain(@builtin(vertex_index) index: u32) -> VertexOut {
  var corners = array<vec2f, 6>(
    vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0),
    vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(-1.0, 1.0),
  );
  let c = corners[index];
  let world = vec3f(grid.center.x + c.x * grid.extent, grid.center.y, grid.center.z + c.y * grid.extent);
  var out: VertexOut;
  out.clip = grid.viewProjection * vec4f(world, 1.0);
  out.world = world;
  return out;
}

// Coverage in [0, 1] of lines at integer values of `coord`, `width` pixels wide; fades out as
// cells shrink under ~4 pixels, where lines would alias into moire.
fn lines(coord: vec2f, width: f32) -> f32 {
  let perPixel = fwidth(coord);
  let distance = abs(fract(coord - 0.5) - 0.5) / max(perPixel, vec2f(1e-6));
  let line = 1.0 - clamp(min(distance.x, distance.y) - (width - 1.0) * 0.5, 0.0, 1.0);
  let density = max(perPixel.x, perPixel.y);
  return line * (1.0 - smoothstep(0.12, 0.3, density));
}

@fragment
fn fragmentMain(in: VertexOut) -> @location(0) vec4f {
  let coord = in.world.xz / grid.cellSize + 0.5; // character cells are centred on integers
  let minor = lines(coord, 1.0);
  let major = lines(coord / grid.majorEvery, 1.6);
  var color = mix(grid.groundColor.rgb, grid.lineColor.rgb, max(minor * 0.45, major * 0.8)) * lit(in.world);
  let fog = smoothstep(grid.fogStart, grid.fogEnd, distance(in.world, grid.eye));
  color = mix(color, grid.skyColor.rgb, fog);
  if (DECODE_SRGB) {
    color = pow(color, vec3f(2.2));
  }
  return vec4f(color, 1.0);
}
