/**
 * The WebGL 2 sections of `npm run bench`: the GL crowd's CPU culling against a floor
 * (tools/bench/gl-cull.ts) and the GL crowd against the WebGPU one in one headless Chromium
 * (tools/bench/webgl2.ts).
 */
import { median } from '../against';
import { benchGLCull, PALETTE_BENCH_BUDGET, type GLCullRow } from '../gl-cull';
import { ms } from '../report';
import { benchWebGL2, type WebGL2BenchResult } from '../webgl2';
import { CROWD_MODEL, type BenchContext } from './context';

/** The sections' headings in BENCHMARKS.md. */
export const GL_CULL_HEADING = '## WebGL 2: culling, mesh LOD and animation LOD on the CPU, Fox';
export const WEBGL2_HEADING = '## WebGL 2 against WebGPU in one browser, Fox';

/** The WebGL 2 crowd's CPU culling (tools/bench/gl-cull.ts): ms a frame against a floor in the same run. */
export async function glCullSection(ctx: BenchContext): Promise<void> {
  const { quick, print, table } = ctx;
  const character = await ctx.fox();
  print(GL_CULL_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)}, CPU only (no GL context: the store runs over buffers without memory). ${CROWD_MODEL[0]} with its 4 mesh LOD levels, 1 m tall on a square grid 1.5 m apart, random yaws; culling, mesh LOD and animation LOD on (1080-pixel-high view, 70 degrees): GLCull.run, the twin of the cull pass that the WebGL 2 crowd runs each frame (docs/webgl2.md). Floor: one loop reading every instance's translation from the same records. Palette: PaletteTwin.assign (GLPalette's work beside the cull when CrowdOptions.paletteSize is finite and passed) with ${PALETTE_BENCH_BUDGET.toLocaleString('en')} sets, on the cull's last lists (steady: sets kept, shared poses rebucketed each frame). Medians of ${quick ? 3 : 7} rounds of 50 frames, the three alternating. Issue 37's target: at most 1 ms a frame for 10,000.`);
  print();
  const rows: GLCullRow[] = [];
  for (const view of ['inside', 'above'] as const) for (const count of quick ? [10000] : [10000, 100000]) rows.push(benchGLCull(character, count, view, quick ? 3 : 7));
  table(['view', 'instances', 'visible', 'posed a frame', 'GLCull ms a frame', 'floor ms', 'ratio to the floor', 'palette assign ms (held, shared)', 'palette ratio to the floor'], rows.map((r) => [
    r.view === 'inside' ? 'inside the crowd (eye at 1.7 m)' : 'all in view (45 degrees above)', r.instances.toLocaleString('en'), r.visible.toLocaleString('en'), Math.round(r.posed).toLocaleString('en'),
    ms(r.cullMs), ms(r.floorMs), (r.cullMs / r.floorMs).toFixed(1), `${ms(r.paletteMs)} (${r.held.toLocaleString('en')}, ${r.shared.toLocaleString('en')})`, (r.paletteMs / r.floorMs).toFixed(1),
  ]));
}

/** The WebGL 2 crowd against the WebGPU one in one headless Chromium (tools/bench/webgl2.ts): CPU and frame ms, issue 37's 1.5x target. */
export async function webgl2Section(ctx: BenchContext): Promise<void> {
  const { quick, print, table } = ctx;
  const count = quick ? 2000 : 10000, frames = quick ? 3 : 8;
  console.error(`webgl2: ${count} Foxes on each backend in headless Chromium…`);
  const results = await benchWebGL2(count, frames, 2);
  const gpu = results.find((r) => r.backend === 'webgpu')!, gl = results.find((r) => r.backend === 'webgl2')!;
  print(WEBGL2_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} in headless Chromium (/usr/bin/chromium, the e2e tests' flags: WebGPU on SwiftShader's Vulkan, WebGL 2 on ANGLE over SwiftShader: ${gl.renderer}), the page bundled from the sources (tools/bench/webgl2-page.ts). The demo's crowd of ${count.toLocaleString('en')} Foxes (random clips, blends and phases, mesh LOD) from the demo's default camera, createCrowd on each backend into its own 640 x 360 canvas, culling, mesh LOD and animation LOD on; the two drawn frame by frame in alternation, medians of ${frames} frames after 2. CPU ms: the page's own work a frame (update + setCamera + render, main thread; on WebGL 2 that includes the CPU culling, GLCull). Frame ms: the same to the GPU done (WebGPU: onSubmittedWorkDone; WebGL 2: a 1-pixel readPixels, since Chromium's gl.finish() returned long before the timer query's end). GPU ms on WebGL 2: ${gl.gpuMethod}. Issue 37's target: the GL frame at most 1.5x the WebGPU frame in the same browser on SwiftShader. On SwiftShader both GPUs are this machine's two cores, shared with other work, so the frame ratio is the figure to read.`);
  print();
  const row = (r: WebGL2BenchResult) => [r.backend === 'webgpu' ? 'WebGPU' : 'WebGL 2', count.toLocaleString('en'), r.visible.toLocaleString('en'), ms(median(r.cpuMs)), ms(median(r.frameMs)),
    r.gpuMs.some(Number.isFinite) ? ms(median(r.gpuMs.filter(Number.isFinite))) : 'n/a', (median(r.frameMs) / median(gpu.frameMs)).toFixed(2), (median(r.cpuMs) / median(gpu.cpuMs)).toFixed(1)];
  table(['backend', 'instances', 'drawn', 'CPU ms a frame', 'frame ms (to GPU done)', 'GPU ms (timer query)', 'frame ratio to WebGPU', 'CPU ratio to WebGPU'], [row(gpu), row(gl)]);
}
