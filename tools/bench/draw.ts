/**
 * The draw against its floor (issue 31): GPU time of the render pass alone, for the culling
 * bench's two views (tools/bench/culling.ts benchCamera), culling and every LOD off, of
 * - 'floor': the cheapest draw of the same instances, mesh (its rest pose, as loaded: the file's
 *   positions and indices, 0, 1, 2, ... for a non-indexed primitive) and camera into the same
 *   target: positions only, world x view-projection, a constant colour (tools/bench/floor.wgsl);
 * - 'floor, our vertices': the same over the crowd's own position buffer and level-0 indices
 *   (shared vertices and the vertex-cache order of src/bake/draw-order.ts);
 * - 'ours': the crowd's skin pass (Crowd.draw).
 * The draws are interleaved frame by frame, so a busy machine slows each alike. GPU ms by
 * timestamp-query around the render pass where the adapter has 'timestamp-query', else submit to
 * done of a command buffer holding the render pass alone (the crowd's compute passes are
 * submitted and waited for first). Also the CPU ms this process spent from submit to done (user +
 * system, every thread): on SwiftShader, which draws on this process's threads, the emulated
 * GPU's work, and unlike a clock not stretched when other programs take the cores. Used by
 * tools/bench.ts (--section draw).
 */
import floorWgsl from './floor.wgsl?raw';
import { triangleList } from '../../src/bake/rig';
import type { Character } from '../../src/character/character';
import { INSTANCE } from '../../src/runtime/layout';
import { vertexLayouts } from '../../src/runtime/mesh-buffers';
import { Population } from '../../demo/population';
import { benchCamera, HEIGHT, WIDTH } from './culling';
import { fullCrowd } from './full-crowd';
import { median, TimedFrames } from './timed-frame';

export type DrawKind = 'floor' | 'floor, our vertices' | 'ours';
export interface DrawRow {
  view: 'inside' | 'demo';
  instances: number;
  draw: DrawKind;
  /** Median GPU ms of the render pass. */
  gpuMs: number;
  /** Median CPU ms of this process from submit to done (SwiftShader: the draw's own work). */
  cpuMs: number;
  /** Vertices (indices) drawn per frame. */
  vertices: number;
  /** The timed ms (`timedBy`) / vertices, in nanoseconds. */
  nsPerVertex: number;
  /** The timed ms / the floor's in the same run. */
  ratio: number;
  /** Which time the ratio uses: 'gpu' (GPU adapters) or 'cpu' (`byCpu`: SwiftShader). */
  timedBy: 'gpu' | 'cpu';
  method: string;
}

/** `frames` measured frames of each draw (after 2 warm-up rounds) of `count` instances of the demo's crowd seen from `view`. */
export async function benchDraw(device: GPUDevice, character: Character, count: number, view: 'inside' | 'demo', frames: number, byCpu: boolean): Promise<DrawRow[]> {
  const crowd = fullCrowd(device, character, { ...TimedFrames.formats, capacity: count });
  const population = new Population(crowd, character);
  population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
  const camera = benchCamera(population, count, view);
  crowd.culling = false;
  crowd.lod = false;
  crowd.animationLod = false;
  const kernel = crowd.install({ featureName: 'draw-bench' });
  const { mesh } = kernel.draws;

  const module = device.createShaderModule({ label: 'benchDraw.floor', code: floorWgsl });
  const groupLayout = device.createBindGroupLayout({
    label: 'benchDraw.floor',
    entries: [
      { binding: 0, visibility: GPUShaderStage.VERTEX, buffer: { type: 'uniform' } },
      { binding: 1, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } },
    ],
  });
  const layout = device.createPipelineLayout({ label: 'benchDraw.floor', bindGroupLayouts: [groupLayout] });
  // Positions at the start of each vertex, `stride` bytes apart: 12 as loaded, the skin stream's stride over our vertices.
  const floorPipeline = (stride: number) => device.createRenderPipeline({
    label: `benchDraw.floor${stride}`, layout,
    vertex: { module, entryPoint: 'floorVertex', buffers: [{ arrayStride: stride, attributes: [{ shaderLocation: 0, format: 'float32x3', offset: 0 }] }], constants: { INSTANCE_VEC4S: INSTANCE.size / 16 } },
    fragment: { module, entryPoint: 'floorFragment', targets: [{ format: TimedFrames.formats.colorFormat }] },
    primitive: { topology: 'triangle-list', cullMode: 'back' },
    depthStencil: { format: TimedFrames.formats.depthFormat, depthWriteEnabled: true, depthCompare: 'less' },
  });
  const floor = floorPipeline(12);
  const ourFloors = mesh.primitives.map((p) => floorPipeline(vertexLayouts(p)[0].arrayStride));
  const viewProjection = device.createBuffer({ label: 'benchDraw.viewProjection', size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(viewProjection, 0, camera.viewProjection);
  const target = new TimedFrames(device, WIDTH, HEIGHT);
  const vertices = count * mesh.indicesPerInstance()[0];
  // The file's mesh: positions and indices as loaded.
  const asLoaded = character.rig.primitives.map((prim) => {
    const upload = (data: Float32Array | Uint32Array, usage: number) => {
      const buffer = device.createBuffer({ size: data.byteLength, usage: usage | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
      return buffer;
    };
    const indices = triangleList(prim);
    return { positions: upload(prim.positions, GPUBufferUsage.VERTEX), indices: upload(indices, GPUBufferUsage.INDEX), count: indices.length };
  });

  const times: Record<DrawKind, [number, number][]> = { floor: [], 'floor, our vertices': [], ours: [] };
  for (let round = 0; round < frames + 2; round++) {
    crowd.update(1 / 60);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder);
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    // Made each round: the instance buffer is the store's current one.
    const group = device.createBindGroup({
      label: 'benchDraw.floor', layout: groupLayout,
      entries: [{ binding: 0, resource: { buffer: viewProjection } }, { binding: 1, resource: { buffer: kernel.store.instanceBuffer } }],
    });
    const floorMs = await target.renderPass((pass) => {
      pass.setPipeline(floor);
      pass.setBindGroup(0, group);
      for (const p of asLoaded) {
        pass.setVertexBuffer(0, p.positions);
        pass.setIndexBuffer(p.indices, 'uint32');
        pass.drawIndexed(p.count, count);
      }
    });
    const sharedMs = await target.renderPass((pass) => {
      pass.setBindGroup(0, group);
      for (const [i, p] of mesh.primitives.entries()) {
        pass.setPipeline(ourFloors[i]);
        pass.setVertexBuffer(0, p.vertexBuffers[0]);
        pass.setIndexBuffer(p.indexBuffer, p.indexFormat);
        pass.drawIndexed(p.ranges[0][0], count, p.ranges[0][1]);
      }
    });
    const oursMs = await target.renderPass((pass) => crowd.draw(pass, camera.viewProjection));
    if (round >= 2) {
      times.floor.push(floorMs);
      times['floor, our vertices'].push(sharedMs);
      times.ours.push(oursMs);
    }
  }
  for (const r of [viewProjection, ...asLoaded.flatMap((p) => [p.positions, p.indices])]) r.destroy();
  target.destroy();
  crowd.destroy();
  const timed = (draw: DrawKind) => median(times[draw].map(([gpu, cpu]) => (byCpu ? cpu : gpu)));
  return (['floor', 'floor, our vertices', 'ours'] as const).map((draw) => ({
    view, instances: count, draw, vertices, method: target.method,
    gpuMs: median(times[draw].map(([gpu]) => gpu)),
    cpuMs: median(times[draw].map(([, cpu]) => cpu)),
    nsPerVertex: (timed(draw) * 1e6) / vertices,
    ratio: timed(draw) / timed('floor'),
    timedBy: byCpu ? 'cpu' as const : 'gpu' as const,
  }));
}

/**
 * The steps of issue 31 as each was measured when taken (SwiftShader on the 2-core development
 * machine, ratios to the floor in the same run, `npm run bench -- --section draw`): a run measures
 * only its own tree, so the history is kept here and printed under the live table. `paired`: the
 * render pass's CPU ms over before's (inside, demo), the four trees' crowds drawn in one process,
 * interleaved, the median of 10 per-round ratios (a one-off script, docs/draw.md).
 */
export const DRAW_STEPS: { step: string; inside: string; demo: string; floors: string; three: string; paired: string }[] = [
  { step: 'before (bfe6218): 7 streams, 72 bytes a Fox vertex, 21 floats out, 1,728 vertex runs a Fox', inside: '3.07', demo: '2.52', floors: '1.45, 1.51 (the same draw twice: the noise)', three: '1.01', paired: '1, 1' },
  { step: '1. only what the fragment reads is passed (NORMALS/TANGENTS/COLORS/UV1 constants), no COLOR_0 stream, uint8 joints (420fa74)', inside: '2.53', demo: '1.83', floors: '1.25, 1.07 (still the same draw)', three: '0.98', paired: '0.91, 0.94' },
  { step: '2. shared vertices with face normals from the fragment stage, every level ordered for the vertex cache (c880f07)', inside: '2.56', demo: '0.93', floors: '0.78, 0.64', three: '1.06', paired: '0.70, 0.70' },
  { step: '3. two interleaved streams (skin, shading) and one stand-in: 3 vertex buffers, 40 bytes a Fox vertex (6947a52)', inside: '1.75', demo: '1.25', floors: '0.64, 0.58', three: '0.78', paired: '0.73, 0.80' },
  { step: '4. the fragment stage samples only the textures a material has (material constants) and reads the DFG table from a texture (d50d010; paired against 102dc51, not bfe6218)', inside: '2.28', demo: '1.84', floors: '0.80, 1.04', three: '1.18', paired: '0.87, 0.93' },
];

/**
 * Steps of issue 31 tried after those above and not kept (docs/draw.md), each measured with
 * tools/bench/draw-ab.ts: the crowd of the tree with the step against the tree without, in one
 * process, interleaved, the median of the per-round ratios of the render pass's CPU ms
 * (SwiftShader). `full`: a 640 x 360 target (demo's view 1,000, inside 2,000); `vertexBound`:
 * 64 x 36, the same triangles and a hundredth of the pixels, where the vertex stage is most of
 * SwiftShader's frame. `commit`: where the code is, to measure again on a GPU.
 */
export const DRAW_TRIED: { step: string; full: string; vertexBound: string; pictures: string; commit: string }[] = [
  {
    step: 'UVs as unorm16 relative to the primitive\'s range (at most 1 wide), decoded by the texture transforms; no UV stream without TEXCOORD (Fox 40 -> 36 bytes a vertex; RobotExpressive\'s shading stream 20 -> 12)',
    full: 'Fox 0.98, 1.00; again 1.02, 1.04', vertexBound: 'Fox 1.00, 0.97; RobotExpressive (demo) 1.01',
    pictures: 'unchanged (materials comparisons: Fox 0.01, CesiumMan 0.05)', commit: '83c695c, reverted by 7e2bede',
  },
  {
    step: 'weights as unorm16, each vertex summing to exactly 65,535 (largest remainder), over the unorm16 UVs (Fox 36 -> 28 bytes)',
    full: 'Fox 0.79, 0.99; again 1.02, 1.12', vertexBound: 'Fox 1.01, 0.97',
    pictures: 'RobotExpressive\'s skinned normals 1.40e-5 of their length from the reference (1e-5 allowed; 1.43e-5 in the first try)', commit: 'not committed (docs/draw.md)',
  },
  {
    step: 'the bitangent formed in the fragment stage (a primitive with TANGENT: 14 values out -> 11, 5 locations -> 4)',
    full: 'not run', vertexBound: 'the materials test\'s TANGENT sphere 0.97, 1.00',
    pictures: 'the TANGENT comparison with three.js 0.07 -> 0.12 mean (limit 6)', commit: '22fc3e7, reverted by aa208c2',
  },
];
