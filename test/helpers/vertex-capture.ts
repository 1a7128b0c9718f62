import type { Crowd } from '../../src/runtime/crowd';
import type { CrowdMorph } from '../../src/features/morph/crowd-morph';
import type { MeshBuffers } from '../../src/runtime/mesh-buffers';
import { streamsKey, vertexLayouts } from '../../src/runtime/mesh-buffers';
import { vertexEntryPoint, type SkinPass } from '../../src/runtime/skin-pass';
import { readBuffer } from './gpu';
import { kernelOf } from './kernel';

/**
 * Reads back what the skin shader's vertex stage computes (shaders/skin.wgsl, the crowd's own
 * entry points and bind groups): the world position and normal of every vertex of every
 * primitive for one instance. Each vertex is drawn alone as a point into its own pixel
 * (setViewport) of two rgba32float targets, with a camera that puts every vertex at the centre of
 * the viewport; a capture fragment shader writes the vertex stage's `world` and `normal` outputs.
 * Runs the crowd's compute passes first (encode). Test-only: it reaches into the crowd's passes.
 */
const CAPTURE = `
struct VertexOut {
  @builtin(position) clip: vec4f,
  @location(0) normal: vec3f,
  @location(2) world: vec3f,
}
struct Captured {
  @location(0) position: vec4f,
  @location(1) normal: vec4f,
}
@fragment
fn capture(in: VertexOut) -> Captured {
  return Captured(vec4f(in.world, 1.0), vec4f(in.normal, 1.0));
}`;

const WIDTH = 256;

export interface CapturedVertices {
  /** Per primitive (MeshBuffers order): world positions, 3 per vertex. */
  positions: Float32Array[];
  /** Per primitive: world normals as the vertex stage outputs them (not normalised), 3 per vertex. */
  normals: Float32Array[];
}

export async function captureVertices(crowd: Crowd, id: number): Promise<CapturedVertices> {
  const device = crowd.device;
  const skin = crowd['passes'].skin as SkinPass;
  const mesh = crowd['passes'].mesh as MeshBuffers;
  const store = kernelOf(crowd).store;
  const slot = store.slot(id);
  const morph = kernelOf(crowd).feature<CrowdMorph>('morph');
  skin.bind(store, morph?.store.weightBuffer);
  // Every vertex lands on clip (0, 0, 0.5, 1): the centre of its 1 x 1 viewport.
  const camera = new Float32Array(16);
  camera[14] = 0.5;
  camera[15] = 1;
  skin.update(camera);
  const fragment = device.createShaderModule({ label: 'captureVertices.fragment', code: CAPTURE });
  const pipelines = new Map<string, GPURenderPipeline>();
  const pipeline = (p: MeshBuffers['primitives'][number]) => {
    const entryPoint = vertexEntryPoint(p);
    const key = `${entryPoint}.${streamsKey(p)}`;
    if (!pipelines.has(key)) {
      pipelines.set(key, device.createRenderPipeline({
        label: `captureVertices.${entryPoint}`, layout: skin.pipelineLayout,
        vertex: { module: skin.module, entryPoint, buffers: vertexLayouts(p) },
        fragment: { module: fragment, entryPoint: 'capture', targets: [{ format: 'rgba32float' }, { format: 'rgba32float' }] },
        primitive: { topology: 'point-list' },
      }));
    }
    return pipelines.get(key)!;
  };
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  const results: { position: GPUBuffer; normal: GPUBuffer; count: number }[] = [];
  mesh.primitives.forEach((p, i) => {
    const count = p.primitive.vertexCount;
    const rows = Math.ceil(count / WIDTH);
    const target = () => device.createTexture({ size: [WIDTH, rows], format: 'rgba32float', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
    const [position, normal] = [target(), target()];
    const pass = encoder.beginRenderPass({
      colorAttachments: [position, normal].map((t) => ({ view: t.createView(), loadOp: 'clear' as const, storeOp: 'store' as const, clearValue: [-9999, -9999, -9999, -9999] })),
    });
    pass.setPipeline(pipeline(p));
    pass.setBindGroup(0, skin['direct'] as GPUBindGroup);
    pass.setBindGroup(1, skin.materials[i]);
    mesh.setBuffers(pass, p);
    // A primitive drawn with shared vertices (MeshBuffers vertexOf): vertex v is the GPU vertex drawn for it.
    const gpuVertex = p.vertexOf ?? Uint32Array.from({ length: count }, (_, v) => v);
    for (let v = 0; v < count; v++) {
      pass.setViewport(v % WIDTH, Math.floor(v / WIDTH), 1, 1, 0, 1);
      pass.draw(1, 1, gpuVertex[v], slot);
    }
    pass.end();
    const copy = (t: GPUTexture) => {
      const buffer = device.createBuffer({ size: WIDTH * rows * 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
      encoder.copyTextureToBuffer({ texture: t }, { buffer, bytesPerRow: WIDTH * 16 }, [WIDTH, rows]);
      return buffer;
    };
    results.push({ position: copy(position), normal: copy(normal), count });
  });
  device.queue.submit([encoder.finish()]);
  const unpack = async (buffer: GPUBuffer, count: number) => {
    const rgba = new Float32Array(await readBuffer(device, buffer));
    const out = new Float32Array(count * 3);
    for (let v = 0; v < count; v++) for (let c = 0; c < 3; c++) out[v * 3 + c] = rgba[v * 4 + c];
    buffer.destroy();
    return out;
  };
  const positions: Float32Array[] = [];
  const normals: Float32Array[] = [];
  for (const r of results) {
    positions.push(await unpack(r.position, r.count));
    normals.push(await unpack(r.normal, r.count));
  }
  return { positions, normals };
}
