/**
 * The issue 40 image measure, view by view (docs/impostors-measured.md, "The 8/255 target"): one
 * Fox just past the impostor switch (its framing sphere at switchPixels x 1.02 away) on a 128 x
 * 128 target whose field of view is a 1080-pixel-high view's (so the Fox is as large as in the
 * demo at the switch), clip 1 at a quarter of its cycle and then half (the draw test's two frames),
 * drawn as its impostor and as its mesh; per view the mean colour difference (/255 a channel)
 * over the mesh's pixels (the measure), that over the border and interior pixels, and,
 * with the target cleared to alpha 0 so that the resolved alpha is the samples covered, the mean
 * difference of coverage (alpha /255) and of colour where both cover all samples.
 *
 *   VIEWS='[[22.5,0],[90,37.5]]' node --import ./tools/register.mjs tools/bench/impostors-measure.ts [samples] [frames]
 *
 * VIEWS: [azimuth, elevation] pairs in degrees (default the 16 views half way between the
 * default atlas's cells); samples 1 or 4 (default 4); frames baked a clip (default 4: the view
 * cells, not the frames, are what this measures). IMPOSTOR_OPTIONS (JSON) adds CrowdImpostors
 * options; MODEL (a .glb path, default the Fox's) and CLIP (its clip index, default 1) measure
 * another character. DUMP (a folder) writes each view and frame's two images there as raw RGBA
 * (`<azimuth>_<elevation>_<frame>_{impostor,mesh}_<samples>.rgba`, SIZE x SIZE, top row first), to
 * compare across sample counts or look at. FARTHER (default 1.02) places the Fox that many times
 * the switch distance away (past the switch: the mid-field, where no target applies); MESH_LOD=0
 * draws the mesh at full detail there (the crowd's mesh LOD off) rather than at its distance's
 * level. Prints one line a view and frame, then the means.
 */
import { CrowdImpostors } from '../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../src/features/impostors/impostor-atlas';
import { distanceForPixels, projectionScale } from '../../src/runtime/culling/cull-math';
import { Crowd } from '../../src/runtime/crowd';
import { mat4 } from 'wgpu-matrix';
import { writeFileSync } from 'node:fs';
import { openNodeDevice } from '../gpu-poser';
import { characterFromFile } from './ours';
import { CROWD_MODEL } from './sections/context';

const SIZE = 128;
const FOV = 2 * Math.atan((Math.tan(0.45) * SIZE) / 1080);
const BETWEEN = [22.5, 67.5, 112.5, 157.5].flatMap((az) => [0, 18.75, 37.5, 56.25].map((el) => [az, el]));
const views: [number, number][] = process.env.VIEWS ? JSON.parse(process.env.VIEWS) : BETWEEN;
const samples = Number(process.argv[2] ?? 4);
const frames = Number(process.argv[3] ?? 4);
if (samples !== 1 && samples !== 4) throw new Error(`samples must be 1 or 4, got ${process.argv[2]}`);

const { device } = await openNodeDevice();
const fox = await characterFromFile(process.env.MODEL ?? CROWD_MODEL[1]);
const clip = Number(process.env.CLIP ?? 1);
if (!(Number.isInteger(clip) && clip >= 0 && clip < fox.clipDurations.length)) throw new Error(`CLIP must be a clip index of the model, 0 to ${fox.clipDurations.length - 1}, got ${process.env.CLIP}`);
const crowd = new Crowd(device, fox, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', sampleCount: samples });
if (process.env.MESH_LOD === '0') crowd.lod = false;
const impostors = new CrowdImpostors(crowd, { frames, ...(process.env.IMPOSTOR_OPTIONS ? JSON.parse(process.env.IMPOSTOR_OPTIONS) : {}) });
const duration = fox.clipDurations[clip];
crowd.add({ clipA: clip, timeA: duration / 4, speedA: 1 });
const { centre, radius } = boxSphere(impostors.atlas.box);
const projection = mat4.perspective(FOV, 1, 1, 10);
const farther = Number(process.env.FARTHER ?? 1.02);
if (!(farther > 0)) throw new Error(`FARTHER must be a positive multiple of the switch distance, got ${process.env.FARTHER}`);
const distance = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(projection), SIZE) * farther;

/** One frame of the crowd as it stands into a SIZE x SIZE target cleared to transparent black, resolved; its RGBA bytes. */
async function render(viewProjection: Float32Array): Promise<Uint8Array> {
  const usage = GPUTextureUsage.RENDER_ATTACHMENT;
  const color = device.createTexture({ size: [SIZE, SIZE], format: 'rgba8unorm', usage: usage | GPUTextureUsage.COPY_SRC });
  const multi = samples > 1 ? device.createTexture({ size: [SIZE, SIZE], format: 'rgba8unorm', sampleCount: samples, usage }) : undefined;
  const depth = device.createTexture({ size: [SIZE, SIZE], format: 'depth24plus', sampleCount: samples, usage });
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  const clearValue = [0, 0, 0, 0];
  const pass = encoder.beginRenderPass({
    colorAttachments: [multi ? { view: multi.createView(), resolveTarget: color.createView(), loadOp: 'clear', storeOp: 'discard', clearValue } : { view: color.createView(), loadOp: 'clear', storeOp: 'store', clearValue }],
    depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
  });
  crowd.draw(pass, viewProjection);
  pass.end();
  const read = device.createBuffer({ size: SIZE * SIZE * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  encoder.copyTextureToBuffer({ texture: color }, { buffer: read, bytesPerRow: SIZE * 4 }, [SIZE, SIZE]);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const pixels = new Uint8Array(read.getMappedRange().slice(0));
  for (const resource of [read, color, depth, multi]) resource?.destroy();
  return pixels;
}

/** The measures of `impostor` against `mesh` over the mesh's pixels (alpha > 0). */
function measure(impostor: Uint8Array, mesh: Uint8Array) {
  const covered = (x: number, y: number) => x >= 0 && y >= 0 && x < SIZE && y < SIZE && mesh[4 * (y * SIZE + x) + 3] > 0;
  let sum = 0, pixels = 0, border = 0, borderPixels = 0, alpha = 0, full = 0, fullPixels = 0;
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
    if (!covered(x, y)) continue;
    const i = 4 * (y * SIZE + x);
    const d = (Math.abs(impostor[i] - mesh[i]) + Math.abs(impostor[i + 1] - mesh[i + 1]) + Math.abs(impostor[i + 2] - mesh[i + 2])) / 3;
    sum += d;
    pixels++;
    alpha += Math.abs(impostor[i + 3] - mesh[i + 3]);
    if (impostor[i + 3] === 255 && mesh[i + 3] === 255) { full += d; fullPixels++; }
    if (!(covered(x - 1, y) && covered(x + 1, y) && covered(x, y - 1) && covered(x, y + 1))) { border += d; borderPixels++; }
  }
  const n = Math.max(pixels, 1);
  return { mean: sum / n, pixels, border: border / Math.max(borderPixels, 1), interior: (sum - border) / Math.max(pixels - borderPixels, 1), alpha: alpha / n, full: full / Math.max(fullPixels, 1) };
}

const results: ReturnType<typeof measure>[] = [];
for (let frame = 0; frame < 2; frame++) {
  if (frame > 0) crowd.update(duration / 4);
  for (const [az, el] of views) {
    const [a, e] = [(az * Math.PI) / 180, (el * Math.PI) / 180];
    const eye = [centre[0] + Math.sin(a) * Math.cos(e) * distance, centre[1] + Math.sin(e) * distance, centre[2] + Math.cos(a) * Math.cos(e) * distance];
    const viewProjection = Float32Array.from(mat4.multiply(mat4.perspective(FOV, 1, distance / 4, 4 * distance), mat4.lookAt(eye, centre, [0, 1, 0])));
    const images: Uint8Array[] = [];
    for (const on of [true, false]) {
      impostors.enabled = on;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      images.push(await render(viewProjection));
    }
    if (process.env.DUMP) for (const [k, image] of images.entries()) writeFileSync(`${process.env.DUMP}/${az}_${el}_${frame}_${k ? 'mesh' : 'impostor'}_${samples}.rgba`, image);
    const m = measure(images[0], images[1]);
    results.push(m);
    console.log(`azimuth ${az} elevation ${el} frame ${frame}: ${m.mean.toFixed(2)} over ${m.pixels} pixels (border ${m.border.toFixed(2)}, interior ${m.interior.toFixed(2)}); coverage ${m.alpha.toFixed(2)}, colour where all covered ${m.full.toFixed(2)}`);
  }
}
const mean = (key: 'mean' | 'alpha' | 'full') => results.reduce((s, r) => s + r[key], 0) / results.length;
const over = results.filter((r) => r.mean > 8).length;
console.log(`${samples} sample(s), ${results.length} figures: mean ${mean('mean').toFixed(2)}, ${over} over 8, worst ${Math.max(...results.map((r) => r.mean)).toFixed(2)}; coverage ${mean('alpha').toFixed(2)}, colour where all covered ${mean('full').toFixed(2)}`);
crowd.destroy();
process.exit(0);
