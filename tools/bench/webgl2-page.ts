/**
 * The page of `npm run bench -- --section webgl2` (tools/bench/webgl2.ts bundles it and serves it
 * to headless Chromium): the demo's crowd of Foxes (Population, the demo's default camera) made
 * by createCrowd on WebGPU and on WebGL 2, one canvas each, 640 x 360, drawn frame by frame in
 * alternation. Per frame: CPU ms of the page's own work (update + setCamera + render: what the
 * main thread spends), the frame's wall ms to the GPU done (the same, then WebGPU's
 * onSubmittedWorkDone, or on WebGL 2 a 1-pixel readPixels), and on WebGL 2 the GPU ms of render() by
 * EXT_disjoint_timer_query_webgl2 where it is offered (WebGPU's timestamps need a flag Chromium
 * does not give pages by default).
 */
import { createCrowd, loadCharacter, MeshoptSimplifier, type CanvasCrowd } from '../../src/index';
import { OrbitCamera } from '../../demo/orbit-camera';
import { Population } from '../../demo/population';
import { spiralHalfSide } from '../../demo/spiral';

const WIDTH = 640, HEIGHT = 360;

/** One backend's frames: CPU ms and frame ms to the GPU done, per frame; how the GPU's end was awaited. */
export interface WebGL2BenchResult { backend: string; cpuMs: number[]; frameMs: number[]; gpuMs: number[]; gpuMethod: string; visible: number; renderer: string }

async function bench(count: number, frames: number, warmup: number): Promise<WebGL2BenchResult[]> {
  const character = await loadCharacter('/Fox.glb', { lod: { simplifier: MeshoptSimplifier } });
  const crowds: CanvasCrowd[] = [];
  const camera = new OrbitCamera();
  for (const backend of ['webgpu', 'webgl2'] as const) {
    const canvas = document.createElement('canvas');
    canvas.width = WIDTH;
    canvas.height = HEIGHT;
    document.body.append(canvas);
    const crowd = await createCrowd(canvas, character, { backend, capacity: count });
    const population = new Population(crowd, character);
    population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
    const halfSide = spiralHalfSide(count);
    camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
    camera.update(WIDTH / HEIGHT);
    crowds.push(crowd);
  }
  const results: WebGL2BenchResult[] = crowds.map((c) => ({ backend: c.backend, cpuMs: [], frameMs: [], gpuMs: [], gpuMethod: '', visible: 0, renderer: '' }));
  const gl = (crowds[1] as unknown as { gl: WebGL2RenderingContext }).gl;
  const timer = gl.getExtension('EXT_disjoint_timer_query_webgl2') as { TIME_ELAPSED_EXT: number; GPU_DISJOINT_EXT: number } | null;
  const debug = gl.getExtension('WEBGL_debug_renderer_info');
  results[1].renderer = debug ? String(gl.getParameter(debug.UNMASKED_RENDERER_WEBGL)) : String(gl.getParameter(gl.RENDERER));
  results[0].gpuMethod = 'none (frame ms: to onSubmittedWorkDone)';
  results[1].gpuMethod = timer ? 'EXT_disjoint_timer_query_webgl2 around render()' : 'none: no EXT_disjoint_timer_query_webgl2 here';
  const device = (crowds[0] as unknown as { device: GPUDevice }).device;
  const pixel = new Uint8Array(4);
  for (let f = 0; f < warmup + frames; f++) {
    for (let k = 0; k < 2; k++) {
      const which = (f + k) % 2, crowd = crowds[which];
      const query = which === 1 && timer ? gl.createQuery() : null;
      const start = performance.now();
      crowd.update(1 / 60);
      crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: HEIGHT });
      if (query) gl.beginQuery(timer!.TIME_ELAPSED_EXT, query);
      crowd.render(camera.viewProjection);
      if (query) gl.endQuery(timer!.TIME_ELAPSED_EXT);
      const cpu = performance.now() - start;
      if (which === 0) await device.queue.onSubmittedWorkDone();
      else gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel); // waits for the frame (Chromium's gl.finish() did not: 14 ms against 3.6 s by the timer query)
      const frame = performance.now() - start;
      let gpu = NaN;
      if (query) {
        while (!gl.getQueryParameter(query, gl.QUERY_RESULT_AVAILABLE)) await new Promise((r) => setTimeout(r, 1));
        if (!gl.getParameter(timer!.GPU_DISJOINT_EXT)) gpu = (gl.getQueryParameter(query, gl.QUERY_RESULT) as number) / 1e6;
        gl.deleteQuery(query);
      }
      if (f >= warmup) {
        results[which].cpuMs.push(cpu);
        results[which].frameMs.push(frame);
        results[which].gpuMs.push(gpu);
      }
    }
  }
  for (const [i, crowd] of crowds.entries()) results[i].visible = crowd.cullStats?.visible ?? NaN;
  for (const crowd of crowds) crowd.destroy();
  return results;
}

(window as unknown as { webgl2Bench: typeof bench }).webgl2Bench = bench;
document.body.dataset.ready = '1';
