/**
 * Picking's cost and latency (src/features/picking/): the frame GPU time (cull + pose + draw, and
 * the pick or selection recorded in the same encoder; submit to done) with no request, with one
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
export interface PickRow { instances: number; request: PickRequestKind; frameMs: number; framesLate: number; answer: string }

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
  const rows: PickRow[] = [];
  for (const request of ['none', 'pickPointer', 'selectRect'] as const) {
    const times: number[] = [];
    const late: number[] = [];
    let answer = '';
    for (let f = 0; f < frames + 2; f++) {
      let settled = -1;
      let frame = 0;
      const ask = request === 'pickPointer' ? picking.pickPointer(WIDTH / 2, HEIGHT / 2, view)
        : request === 'selectRect' ? picking.selectRect({ x0: 0, y0: 0, x1: WIDTH, y1: HEIGHT }, view) : undefined;
      void ask?.then((a) => {
        settled = frame;
        answer = a === null ? 'miss' : Array.isArray(a) ? `${a.length} ids` : `#${a.id}`;
      });
      // The request's frame (timed), then frames until it settles: update, encode, draw, submit, wait.
      for (frame = 0; frame < 10 && (frame === 0 || (ask && settled < 0)); frame++) {
        crowd.update(1 / 60);
        const encoder = device.createCommandEncoder();
        crowd.encode(encoder);
        const pass = encoder.beginRenderPass({
          colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
          depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
        });
        crowd.draw(pass, camera.viewProjection);
        pass.end();
        const start = performance.now();
        device.queue.submit([encoder.finish()]);
        await device.queue.onSubmittedWorkDone();
        if (frame === 0 && f >= 2) times.push(performance.now() - start);
      }
      await ask;
      if (f >= 2 && ask) late.push(settled);
    }
    rows.push({ instances: count, request, frameMs: median(times), framesLate: late.length ? median(late) : 0, answer });
  }
  color.destroy();
  depth.destroy();
  crowd.destroy();
  return rows;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
