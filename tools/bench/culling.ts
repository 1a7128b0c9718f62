/**
 * Culling, mesh LOD and animation LOD against drawing everything: frame GPU time (cull + pose +
 * draw, timestamp-query from the first compute pass's beginning to the render pass's end) and
 * vertices drawn, for the demo's crowd seen from inside and from the demo's default camera.
 * Used by tools/bench.ts.
 */
import { fullCrowd } from './full-crowd';
import type { Character } from '../../src/character/character';
import { OrbitCamera } from '../../demo/orbit-camera';
import { Population } from '../../demo/population';
import { spiralHalfSide } from '../../demo/spiral';
import { median, TimedFrames } from './timed-frame';

/** The render target: 640 x 360 (benchCamera's aspect: draw.ts, which uses the camera, draws into the same), while LOD is chosen as for a 1080-pixel-high view. */
export const WIDTH = 640;
export const HEIGHT = 360;
const VIEWPORT_HEIGHT = 1080;

export type CullConfig = 'all off' | 'culling' | 'mesh LOD' | 'animation LOD' | 'all on';
export const CULL_CONFIGS: CullConfig[] = ['all off', 'culling', 'mesh LOD', 'animation LOD', 'all on'];

export interface CullRow { view: string; instances: number; config: CullConfig; gpuMs: number; vertices: number; visible: number; posed: number; method: string }

/**
 * Runs `frames` measured frames (after 2 warm-up frames, which animation LOD needs to settle
 * into its stagger) per configuration, on the demo's crowd (Population, crowd mode) of `count`
 * instances, seen from `view`: 'inside' (the eye among the characters at their head height,
 * looking level) or 'demo' (the demo's default framing, OrbitCamera.frame). Medians.
 */
export async function benchCulling(device: GPUDevice, character: Character, count: number, view: 'inside' | 'demo', frames: number): Promise<CullRow[]> {
  const crowd = fullCrowd(device, character, { ...TimedFrames.formats, capacity: count });
  const population = new Population(crowd, character);
  population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
  const camera = benchCamera(population, count, view);

  const timed = new TimedFrames(device, WIDTH, HEIGHT);
  const indicesPerInstance = character.rig.primitives.reduce((n, p) => n + (p.indices?.length ?? p.vertexCount), 0);

  const rows: CullRow[] = [];
  for (const config of CULL_CONFIGS) {
    crowd.culling = config === 'culling' || config === 'all on';
    crowd.lod = config === 'mesh LOD' || config === 'all on';
    crowd.animationLod = config === 'animation LOD' || config === 'all on';
    crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: VIEWPORT_HEIGHT });
    const times: number[] = [];
    const vertices: number[] = [];
    const visible: number[] = [];
    const posed: number[] = [];
    for (let f = 0; f < frames + 2; f++) {
      const ms = await timed.frame(crowd, camera.viewProjection);
      const stats = config === 'all off' ? { visible: count, posed: count, vertices: count * indicesPerInstance } : await crowd.readCullStats();
      if (f >= 2) {
        times.push(ms);
        vertices.push(stats.vertices);
        visible.push(stats.visible);
        posed.push(stats.posed);
      }
    }
    rows.push({ view, instances: count, config, gpuMs: median(times), vertices: median(vertices), visible: median(visible), posed: mean(posed), method: timed.method });
  }
  timed.destroy();
  crowd.destroy();
  return rows;
}

/**
 * The camera of view `view` over `population` (`count` instances on the demo's spiral): 'inside'
 * (the eye among the characters at their head height, looking level) or 'demo' (the demo's
 * default framing, OrbitCamera.frame), for a WIDTH x HEIGHT target. The draw section uses it too.
 */
export function benchCamera(population: Population, count: number, view: 'inside' | 'demo'): OrbitCamera {
  const camera = new OrbitCamera();
  const halfSide = spiralHalfSide(count);
  camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
  if (view === 'inside') {
    // Standing among the crowd: target a little ahead, pitch almost level, eye at head height.
    camera.target.set([population.spacing[0] * 0.5, population.height * 0.5, population.spacing[1] * 0.5]);
    camera.distance = population.spacing[1] * 0.5;
    camera.pitch = 0.03;
  }
  camera.update(WIDTH / HEIGHT);
  return camera;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
