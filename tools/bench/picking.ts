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
import { median, TimedFrames } from './timed-frame';

const WIDTH = 640;
const HEIGHT = 360;

export type PickRequestKind = 'none' | 'pickPointer' | 'selectRect';
export interface PickRow { instances: number; request: PickRequestKind; frameMs: number; framesLate: number; answer: string; method: string }

/** `frames` measured frames per kind of request (after 2 warm-up frames), a request made before each frame's encode; medians. */
export async function benchPicking(device: GPUDevice, character: Character, count: number, frames: number): Promise<PickRow[]> {
  const crowd = new Crowd(device, character, { ...TimedFrames.formats, capacity: count });
  const picking = new CrowdPicking(crowd);
  const population = new Population(crowd, character);
  population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
  const camera = new OrbitCamera();
  const halfSide = spiralHalfSide(count);
  camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
  camera.update(WIDTH / HEIGHT);
  crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: HEIGHT });
  const view = { viewProjection: camera.viewProjection, width: WIDTH, height: HEIGHT };
  const timed = new TimedFrames(device, WIDTH, HEIGHT);
  const frame = () => timed.frame(crowd, camera.viewProjection);
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
  timed.destroy();
  crowd.destroy();
  return kinds.map((request) => ({
    instances: count, request, frameMs: median(times.get(request)!), framesLate: request === 'none' ? 0 : median(late.get(request)!), answer: answers.get(request) ?? '',
    method: timed.method,
  }));
}
