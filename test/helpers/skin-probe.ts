import skinWgsl from '../../shaders/skin.wgsl?raw';
import type { SkinnedPrimitive } from '../../src/bake/rig';
import type { SkinningMethod } from '../../src/runtime/layout';
import { MATERIAL } from '../../src/runtime/layout';
import { readBuffer } from './gpu';

/**
 * The skin shader's vertex stage, read back: shaders/skin.wgsl with a compute entry point
 * appended that runs, per vertex, the loop of its vertex4 / vertex8 entry points (accumulate()
 * over the influences, JOINTS_0[i] then JOINTS_1[i]) and place() with an identity world
 * transform, and writes the model-space position and normal, and the tangent place() makes of
 * the rest position taken as a tangent with the position place() makes of the origin: a tangent
 * moves as a direction, so tangent = position - origin. The same WGSL functions as the
 * draw, compiled with the same DUAL_QUATERNION constant.
 */
const PROBE_WGSL = /* wgsl */ `
struct ProbeVertex {
  position: vec4f,
  normal: vec4f,
  joints0: vec4u,
  joints1: vec4u,
  weights0: vec4f,
  weights1: vec4f,
}

struct ProbeParams {
  instance: u32,
  count: u32,
}

@group(3) @binding(0) var<storage, read> probeVertices: array<ProbeVertex>;
@group(3) @binding(1) var<storage, read_write> probeOut: array<vec4f>;
@group(3) @binding(2) var<uniform> probe: ProbeParams;

@compute @workgroup_size(64)
fn probeVertex(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i >= probe.count) {
    return;
  }
  let v = probeVertices[i];
  var m = Skinned();
  for (var k = 0u; k < 4u; k++) {
    accumulate(&m, probe.instance, v.joints0[k], v.weights0[k]);
    accumulate(&m, probe.instance, v.joints1[k], v.weights1[k]);
  }
  let identity = mat4x4f(vec4f(1.0, 0.0, 0.0, 0.0), vec4f(0.0, 1.0, 0.0, 0.0), vec4f(0.0, 0.0, 1.0, 0.0), vec4f(0.0, 0.0, 0.0, 1.0));
  let placed = place(m, identity, v.position.xyz, v.normal.xyz, v.position.xyz);
  probeOut[4u * i] = vec4f(placed.position, 1.0);
  probeOut[4u * i + 1u] = vec4f(placed.normal, 0.0);
  probeOut[4u * i + 2u] = vec4f(placed.tangent, 0.0);
  probeOut[4u * i + 3u] = vec4f(place(m, identity, vec3f(0.0), v.normal.xyz, vec3f(0.0)).position, 1.0);
}
`;

/** Floats per ProbeVertex: 6 vec4. */
const VERTEX_FLOATS = 24;

/**
 * The probe's pipeline for `skinning` on `device`, compiled once a device: an 'auto' layout makes
 * each compile Dawn's own (never a cached one), 70 ms of CPU each on SwiftShader, and
 * dual-quaternion.test.ts probed 71 times (5.0 s of compiles, measured 2026-12-04).
 */
const probePipelines = new WeakMap<GPUDevice, Map<SkinningMethod, GPUComputePipeline>>();
function probePipeline(device: GPUDevice, skinning: SkinningMethod): GPUComputePipeline {
  let pipelines = probePipelines.get(device);
  if (!pipelines) probePipelines.set(device, (pipelines = new Map()));
  let pipeline = pipelines.get(skinning);
  if (!pipeline) {
    const module = device.createShaderModule({ label: 'test.skinProbe', code: skinWgsl + PROBE_WGSL });
    pipeline = device.createComputePipeline({
      label: 'test.skinProbe', layout: 'auto',
      compute: { module, entryPoint: 'probeVertex', constants: { DUAL_QUATERNION: skinning === 'dual-quaternion' ? 1 : 0 } },
    });
    pipelines.set(skinning, pipeline);
  }
  return pipeline;
}

/**
 * Skins `prim`'s vertices on the GPU with instance `instance`'s joints in `joints` (a crowd's
 * joint buffer, COPY_SRC not needed) for a rig of `slotCount` joint slots, the primitive's skin
 * starting at slot `slotOffset`. Returns 3 position and 3 normal floats per vertex (normals 0
 * where the primitive has none), and the probe's tangent (the rest position moved as a tangent)
 * and origin (the rest origin moved as a point), 3 each per vertex.
 */
export async function probeSkinnedVertices(
  device: GPUDevice, joints: GPUBuffer, skinning: SkinningMethod, prim: SkinnedPrimitive,
  options: { instance: number; slotCount: number; slotOffset: number },
): Promise<{ positions: Float32Array; normals: Float32Array; tangents: Float32Array; origins: Float32Array }> {
  const pipeline = probePipeline(device, skinning);
  const n = prim.vertexCount;
  const data = new ArrayBuffer(Math.max(1, n) * VERTEX_FLOATS * 4);
  const f32 = new Float32Array(data), u32 = new Uint32Array(data);
  for (let v = 0; v < n; v++) {
    const o = v * VERTEX_FLOATS;
    f32.set(prim.positions.subarray(v * 3, v * 3 + 3), o);
    if (prim.normals) f32.set(prim.normals.subarray(v * 3, v * 3 + 3), o + 4);
    for (let k = 0; k < prim.influences; k++) {
      const slot = k < 4 ? o + 8 + k : o + 12 + k - 4;
      u32[slot] = options.slotOffset + prim.joints[v * prim.influences + k];
      f32[slot + 8] = prim.weights[v * prim.influences + k];
    }
  }
  const storage = (label: string, size: number, usage: number) => device.createBuffer({ label, size, usage: GPUBufferUsage.STORAGE | usage });
  const vertices = storage('test.skinProbe.vertices', data.byteLength, GPUBufferUsage.COPY_DST);
  device.queue.writeBuffer(vertices, 0, data);
  const out = storage('test.skinProbe.out', Math.max(1, n) * 64, GPUBufferUsage.COPY_SRC);
  const params = device.createBuffer({ label: 'test.skinProbe.params', size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(params, 0, Uint32Array.of(options.instance, n, 0, 0));
  const material = device.createBuffer({ label: 'test.skinProbe.material', size: MATERIAL.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const materialData = new ArrayBuffer(MATERIAL.size);
  new Uint32Array(materialData, MATERIAL.slotCount, 1)[0] = options.slotCount;
  device.queue.writeBuffer(material, 0, materialData);
  const group = (index: number, entries: [number, GPUBuffer][]) => device.createBindGroup({
    layout: pipeline.getBindGroupLayout(index), entries: entries.map(([binding, buffer]) => ({ binding, resource: { buffer } })),
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group(0, [[1, joints]]));
  pass.setBindGroup(1, group(1, [[0, material]]));
  pass.setBindGroup(2, group(2, [])); // the shadow map's group: unused here, empty in the auto layout
  pass.setBindGroup(3, group(3, [[0, vertices], [1, out], [2, params]]));
  pass.dispatchWorkgroups(Math.ceil(n / 64));
  pass.end();
  device.queue.submit([encoder.finish()]);
  const result = new Float32Array(await readBuffer(device, out));
  for (const buffer of [vertices, out, params, material]) buffer.destroy();
  const [positions, normals, tangents, origins] = [0, 1, 2, 3].map((k) => {
    const out = new Float32Array(n * 3);
    for (let v = 0; v < n; v++) out.set(result.subarray(v * 16 + k * 4, v * 16 + k * 4 + 3), v * 3);
    return out;
  });
  return { positions, normals, tangents, origins };
}
