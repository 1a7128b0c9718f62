/**
 * A million in the crowd (issue 23): what a crowd costs per instance at rest and per instance in
 * view with the joint-matrix palette, the time to add a million, and the frame at 100,000 and
 * 1,000,000 Foxes with 1% and 10% in view (CPU ms; GPU ms of the cull and palette passes, of the pose pass and of the draw), as ratios to 100,000 at 1% in one run. Used by tools/bench.ts
 * (`npm run bench -- --section million`).
 */
import { mat4 } from 'wgpu-matrix';
import type { Character } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const WIDTH = 640;
const HEIGHT = 360;
/** Grid spacing, model units (Fox is about 140 long). */
const SPACING = 220;
/** Frames run before the measured ones (the palette and animation LOD settle). */
const WARM_UP = 2;

export interface MillionRow {
  instances: number;
  /** Fraction of the crowd the camera frames. */
  inView: number;
  visible: number;
  posed: number;
  paletteSize: number;
  gpuBytes: number;
  /** Bytes per instance of the crowd without its joint sets: records, lists, palette entries. */
  restBytesPerInstance: number;
  /** Bytes of one joint set: what each instance in view holds. */
  setBytes: number;
  cpuMs: number;
  /** GPU ms of the cull and palette passes (timestamp-query; NaN without it). */
  cullMs: number;
  /** GPU ms of the pose pass (without timestamp-query: submit to done of the whole frame). */
  poseMs: number;
  drawMs: number;
  method: string;
}

/** Instances on a square grid `side` wide from (0, 0), clips and times varied. */
export function gridArrays(count: number): { positions: Float32Array; clipsA: Uint32Array; timesA: Float32Array; side: number } {
  const side = Math.ceil(Math.sqrt(count));
  const positions = new Float32Array(3 * count);
  const clipsA = new Uint32Array(count);
  const timesA = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    positions[3 * i] = (i % side) * SPACING;
    positions[3 * i + 2] = Math.floor(i / side) * SPACING;
    clipsA[i] = i % 3;
    timesA[i] = (i % 97) * 0.031;
  }
  return { positions, clipsA, timesA, side };
}

/** Milliseconds to add `count` instances with addMany, and (for the ratio) with `count` calls of add. */
export async function benchAdd(device: GPUDevice, character: Character, count: number, singles: number): Promise<{ manyMs: number; singleMs: number; singles: number }> {
  const { positions, clipsA, timesA } = gridArrays(count);
  const bulk = new Crowd(device, character, { ...FORMATS, capacity: 1024, paletteSize: 65536 });
  let start = performance.now();
  bulk.addMany({ count, positions, clipsA, timesA });
  const manyMs = performance.now() - start;
  bulk.destroy();
  const single = new Crowd(device, character, { ...FORMATS, capacity: 1024, paletteSize: 65536 });
  start = performance.now();
  for (let i = 0; i < singles; i++) {
    const id = single.add({ clipA: clipsA[i], clipB: clipsA[i], timeA: timesA[i], timeB: timesA[i] });
    single.setPlacement(id, positions[3 * i], 0, positions[3 * i + 2], 0);
  }
  const singleMs = performance.now() - start;
  single.destroy();
  return { manyMs, singleMs, singles };
}

/**
 * `frames` measured frames (after WARM_UP frames) of `count` Foxes seen straight down over a
 * square block of `inView` of the grid, with a palette of `paletteSize` joint sets. Medians.
 */
export async function benchMillion(device: GPUDevice, character: Character, count: number, inView: number, paletteSize: number, frames: number): Promise<MillionRow> {
  const crowd = new Crowd(device, character, { ...FORMATS, capacity: 1024, paletteSize });
  const { positions, clipsA, timesA, side } = gridArrays(count);
  crowd.addMany({ count, positions, clipsA, timesA });
  // Nothing in view: the bytes at rest.
  const away = mat4.multiply(mat4.perspective(0.9, WIDTH / HEIGHT, 10, 1000), mat4.lookAt([-1e6, 100, -1e6], [-2e6, 100, -2e6], [0, 1, 0]));
  const block = Math.sqrt(inView) * side * SPACING; // world units framed
  const centre = [(side * SPACING) / 2, 0, (side * SPACING) / 2];
  const fovY = 0.9;
  const height = block / 2 / Math.tan(fovY / 2);
  const eye = [centre[0], height, centre[2] + 1];
  const viewProjection = mat4.multiply(mat4.perspective(fovY, 1, height / 4, height * 2), mat4.lookAt(eye, centre, [0, 1, 0]));
  const color = device.createTexture({ size: [WIDTH, HEIGHT], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [WIDTH, HEIGHT], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const timestamps = device.features.has('timestamp-query');
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 6 }) : undefined;
  const resolve = device.createBuffer({ size: 48, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 48, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const cpu: number[] = [], cull: number[] = [], pose: number[] = [], draw: number[] = [], visible: number[] = [], posed: number[] = [];
  crowd.setCamera(away, [-1e6, 100, -1e6]);
  crowd.update(1 / 60);
  const restBytes = crowd.gpuBytes;
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  crowd.setCamera(viewProjection, eye, { viewportHeight: 1080 });
  for (let f = 0; f < frames + WARM_UP; f++) {
    const start = performance.now();
    crowd.update(1 / 60);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder, querySet && { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 }, querySet && { querySet, beginningOfPassWriteIndex: 2, endOfPassWriteIndex: 3 });
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      timestampWrites: querySet && { querySet, beginningOfPassWriteIndex: 4, endOfPassWriteIndex: 5 },
    });
    crowd.draw(pass, viewProjection);
    pass.end();
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 6, resolve, 0);
      encoder.copyBufferToBuffer(resolve, 0, read, 0, 48);
    }
    const commands = encoder.finish();
    const cpuMs = performance.now() - start;
    const submitted = performance.now();
    device.queue.submit([commands]);
    await device.queue.onSubmittedWorkDone();
    let cullMs = NaN, poseMs = performance.now() - submitted, drawMs = NaN;
    if (querySet) {
      await read.mapAsync(GPUMapMode.READ);
      const t = new BigUint64Array(read.getMappedRange());
      cullMs = Number(t[1] - t[0]) / 1e6;
      poseMs = Number(t[3] - t[2]) / 1e6;
      drawMs = Number(t[5] - t[4]) / 1e6;
      read.unmap();
    }
    const stats = await crowd.readCullStats();
    if (f >= WARM_UP) {
      cpu.push(cpuMs); cull.push(cullMs); pose.push(poseMs); draw.push(drawMs); visible.push(stats.visible); posed.push(stats.posed);
    }
  }
  const oom = await device.popErrorScope();
  const validation = await device.popErrorScope();
  if (oom || validation) throw new Error(`million: ${count} at ${inView}: ${(oom ?? validation)!.message}`);
  const setBytes = crowd.jointsPerInstance * crowd.bytesPerJoint;
  const row: MillionRow = {
    instances: count, inView, visible: median(visible), posed: median(posed), paletteSize: crowd.palette.size, gpuBytes: restBytes,
    restBytesPerInstance: (restBytes - crowd.jointMatrices.size) / count, setBytes,
    cpuMs: median(cpu), cullMs: median(cull), poseMs: median(pose), drawMs: median(draw), method: timestamps ? 'timestamp-query' : 'submit to done (compute and draw together)',
  };
  for (const r of [color, depth, resolve, read]) r.destroy();
  querySet?.destroy();
  crowd.destroy();
  return row;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
