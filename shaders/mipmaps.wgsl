// Mip chain generation (src/runtime/mipmaps.ts): draws each level of a texture from the level
// above with one full-screen triangle, a bilinear tap at each texel's centre = the 2 x 2 box
// average (for odd sizes, close to it). Filtering happens in linear space (sRGB views decode).

struct Out {
  @builtin(position) clip: vec4f,
  @location(0) uv: vec2f,
}

@vertex
fn vertex(@builtin(vertex_index) i: u32) -> Out {
  let uv = vec2f(f32((i << 1u) & 2u), f32(i & 2u));
  return Out(vec4f(uv * vec2f(2.0, -2.0) + vec2f(-1.0, 1.0), 0.0, 1.0), uv);
}

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var linearSampler: sampler;

@fragment
fn fragment(in: Out) -> @location(0) vec4f {
  return textureSampleLevel(source, linearSampler, in.uv, 0.0);
}
