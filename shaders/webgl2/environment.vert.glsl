#version 300 es
// Environment prefilter on WebGL 2, vertex stage (src/webgl2/gl-environment-map.ts): one
// full-screen triangle, as shaders/environment.wgsl's `vertex`. uv's y runs down the picture
// (0 = the layer's row 0, up); GL's clip y runs up its rows, so it is mirrored here to keep row 0 up.

out vec2 uv;

void main() {
  uv = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
