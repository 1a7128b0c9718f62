/**
 * The skin pass of several source trees against each other in one process (docs/draw.md): the
 * same Fox crowd and camera (the draw section's two views, culling and LOD off) drawn by each
 * tree's own Crowd, interleaved frame by frame (the order reversed every other round), and the
 * median of the per-round ratios of each tree's render-pass CPU ms to the first tree's: on a
 * shared machine, where two runs of one draw differ by half, paired ratios are what stays put.
 * Each tree is a checkout of this repository (`git archive <commit> | tar -x -C <dir>`, with
 * tools/ from a commit that has tools/bench/culling.ts benchCamera, and node_modules linked).
 *
 *   node --import ./tools/register.mjs tools/bench/draw-ab.ts <frames> <tree> <tree> ...
 *
 * DRAW_AB_TARGET=64x36 draws into a target of that size instead of 640 x 360 (the same camera
 * and triangles, a hundredth of the pixels): on SwiftShader, whose fragment stage is most of a
 * full-size frame, what is left is mostly the vertex stage, where vertex-stream changes show.
 * DRAW_AB_MODEL=public/models/CesiumMan/CesiumMan.glb draws that character instead of the Fox.
 */
import { openNodeDevice } from '../gpu-poser';

const frames = Number(process.argv[2]);
const trees = process.argv.slice(3);
if (!(frames >= 1) || trees.length < 2) throw new Error('usage: draw-ab.ts <frames> <tree> <tree> ...');
const names = trees.map((t) => t.split('/').pop()!);
const model = process.env.DRAW_AB_MODEL ?? 'public/models/Fox/Fox.glb';
const [width, height] = (process.env.DRAW_AB_TARGET ?? '640x360').split('x').map(Number);
if (!(width >= 1 && height >= 1)) throw new Error(`DRAW_AB_TARGET must be <width>x<height>, got ${process.env.DRAW_AB_TARGET}`);
const { device } = await openNodeDevice({ maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 30 });
for (const [view, count] of [['demo', 1000], ['inside', 2000]] as const) {
  const setups: { crowd: { update(dt: number): void; encode(e: GPUCommandEncoder): void; draw(p: GPURenderPassEncoder, vp: Float32Array): void; destroy(): void; culling: boolean; lod: boolean; animationLod: boolean }; camera: { viewProjection: Float32Array }; cpu: number[] }[] = [];
  for (const tree of trees) {
    const { characterFromFile } = await import(`${tree}/tools/bench/ours.ts`);
    const { fullCrowd } = await import(`${tree}/tools/bench/full-crowd.ts`);
    const { Population } = await import(`${tree}/demo/population.ts`);
    const { benchCamera } = await import(`${tree}/tools/bench/culling.ts`);
    const character = await characterFromFile(model);
    const crowd = fullCrowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: count });
    const population = new Population(crowd, character);
    population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: false, variety: 0, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
    const camera = benchCamera(population, count, view);
    crowd.culling = false; crowd.lod = false; crowd.animationLod = false;
    setups.push({ crowd, camera, cpu: [] as number[] });
  }
  const color = device.createTexture({ size: [width, height], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [width, height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const ratios: number[][] = names.map(() => []);
  for (let round = 0; round < frames + 2; round++) {
    const times: number[] = [];
    const order = round % 2 ? [...setups.keys()].reverse() : [...setups.keys()];
    for (const i of order) {
      const { crowd, camera } = setups[i];
      crowd.update(1 / 60);
      const e = device.createCommandEncoder();
      crowd.encode(e);
      device.queue.submit([e.finish()]);
      await device.queue.onSubmittedWorkDone();
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginRenderPass({
        colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
        depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      });
      crowd.draw(pass, camera.viewProjection);
      pass.end();
      const cpu = process.cpuUsage();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const used = process.cpuUsage(cpu);
      times[i] = (used.user + used.system) / 1000;
    }
    if (round >= 2) times.forEach((t, i) => { setups[i].cpu.push(t); ratios[i].push(t / times[0]); });
  }
  const med = (v: number[]) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
  console.log(`${model.split('/').pop()} ${view} ${count}, ${width} x ${height}: ` + names.map((n, i) => `${n} ${med(setups[i].cpu).toFixed(0)} ms (paired ratio ${med(ratios[i]).toFixed(2)}, range ${Math.min(...ratios[i]).toFixed(2)}-${Math.max(...ratios[i]).toFixed(2)})`).join('; '));
  for (const s of setups) s.crowd.destroy();
  color.destroy(); depth.destroy();
}
process.exit(0);
