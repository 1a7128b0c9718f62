/**
 * Picking's cost and latency (src/features/picking/): the frame GPU time (cull + pose + draw, and
 * the pick or selection recorded between them; timestamp-query) with no request, with one
 * pickPointer at the centre of the view, and with one selectRect over the whole view, on the
 * demo's crowd seen from the demo's default camera; and how many frames after the request its
 * promise settled. Used by tools/bench.ts (--section picking).
 */
import type { Character } from '../../src/character/character';
import { CrowdPicking } from '../../src/features/picking/crowd-picking';
import { Crowd } from '../../src/runtime/crowd';
import { OrbitCamera } from '../../demo/orbit-camera';
import { Population } from '../../demo/population';
import { spiralHalfSide } from '../../demo/spiral';

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const WIDTH = 640;
const HEIGHT = 360;

export type PickRequestKind = 'none' | 'pickPointer' | 'selectRect';
export interface PickRow { instances: number; request: PickRequestKind; frameMs: number; framesLate: number; answer: string; method: string }

/** `frames` measured frames per kind of request (after 2 warm-up frames), a request made before each frame's encode; medians. */
export async function benchPicking(device: GPUDevice, character: Character, count: number, frames: number): Promise<PickRow[]> {
  const crowd = new Crowd(device, character, { ...FORMATS, capacity: count });
  const picking = new CrowdPicking(crowd);
  const population = new Population(crowd, character);
  population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
  const camera = new OrbitCamera();
  const halfSide = spiralHalfSide(count);
  camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
  camera.update(WIDTH / HEIGHT);
  crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: HEIGHT });
  const view = { viewProjection: camera.viewProjection, width: WIDTH, height: HEIGHT };
  const color = device.createTexture({ size: [WIDTH, HEIGHT], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [WIDTH, HEIGHT], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const timestamps = device.features.has('timestamp-query');
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
  const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  /** One frame: update, encode (the requests after the pose pass), draw, submit, wait; its GPU ms (timestamp-query from the first compute pass to the render pass's end, else submit to done). */
  const frame = async (): Promise<number> => {
    crowd.update(1 / 60);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder, querySet && { querySet, beginningOfPassWriteIndex: 0 });
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      timestampWrites: querySet && { querySet, endOfPassWriteIndex: 1 },
    });
    crowd.draw(pass, camera.viewProjection);
    pass.end();
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
      encoder.copyBufferToBuffer(resolve, 0, read, 0, 16);
    }
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (!querySet) return performance.now() - start;
    await read.mapAsync(GPUMapMode.READ);
    const [begin, end] = new BigUint64Array(read.getMappedRange());
    read.unmap();
    return Number(end - begin) / 1e6;
  };
  const kinds = ['none', 'pickPointer', 'selectRect'] as const;
  const times = new Map<PickRequestKind, number[]>(kinds.map((k) => [k, []]));
  const late = new Map<PickRequestKind, number[]>(kinds.map((k) => [k, []]));
  const answers = new Map<PickRequestKind, string>();
  // Kinds interleaved frame by frame, so that a busy machine slows each alike.
  for (let f = 0; f < frames + 2; f++) {
    for (const request of kinds) {
      let settled = -1;
      let n = 0;
      const ask = request === 'pickPointer' ? picking.pickPointer(WIDTH / 2, HEIGHT / 2, view)
        : request === 'selectRect' ? picking.selectRect({ x0: 0, y0: 0, x1: WIDTH, y1: HEIGHT }, view) : undefined;
      void ask?.then((a) => {
        settled = n;
        answers.set(request, a === null ? 'miss' : Array.isArray(a) ? `${a.length} ids` : `#${a.id}`);
      });
      // The request's frame (timed), then frames until it settles.
      const ms = await frame();
      if (f >= 2) times.get(request)!.push(ms);
      for (n = 1; ask && settled < 0 && n < 10; n++) {
        await frame();
        await Promise.resolve();
      }
      await ask;
      if (f >= 2 && ask) late.get(request)!.push(settled);
    }
  }
  for (const r of [color, depth, resolve, read]) r.destroy();
  querySet?.destroy();
  crowd.destroy();
  return kinds.map((request) => ({
    instances: count, request, frameMs: median(times.get(request)!), framesLate: request === 'none' ? 0 : median(late.get(request)!), answer: answers.get(request) ?? '',
    method: timestamps ? 'timestamp-query' : 'submit to done',
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
