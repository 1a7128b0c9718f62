// The draw's floor (tools/bench/draw.ts, `npm run bench -- --section draw`): the cheapest draw of
// the same instances, mesh, camera and target as the crowd's skin pass. The rest-pose position
// (vertex buffer 0 of the crowd's own MeshBuffers, float32x3), times the instance's world matrix
// (the crowd's instance buffer), times the view-projection; a constant colour. No skinning, no
// other attribute, no value passed to the fragment stage.

// INSTANCE.size / 16 in src/runtime/layout.ts: the instance record's stride in vec4f; `world`
// (mat4x4f, column-major) is its first 4.
override INSTANCE_VEC4S: u32 = 7u;

@group(0) @binding(0) var<uniform> viewProjection: mat4x4f;
@group(0) @binding(1) var<storage, read> instances: array<vec4f>;

@vertex
fn floorVertex(@builtin(instance_index) instance: u32, @location(0) position: vec3f) -> @builtin(position) vec4f {
  let o = instance * INSTANCE_VEC4S;
  let world = mat4x4f(instances[o], instances[o + 1u], instances[o + 2u], instances[o + 3u]);
  return viewProjection * (world * vec4f(position, 1.0));
}

@fragment
fn floorFragment() -> @location(0) vec4f {
  return vec4f(0.6, 0.5, 0.4, 1.0);
}
