/**
 * The sections of `npm run bench` that time the WebGPU crowd's frame on the device: culling and
 * LOD (tools/bench/culling.ts), a million in the crowd (million.ts), the far crowd as impostors
 * (impostors.ts), picking (picking.ts) and the draw against its floor (draw.ts), each against a
 * baseline measured in the same run.
 */
import { cpus, loadavg } from 'node:os';
import { DRAW_STEPS, DRAW_TRIED, benchDraw, type DrawRow } from '../draw';
import { benchCulling, type CullRow } from '../culling';
import { benchBake as benchImpostorBake, benchImpostorFrame, type ImpostorRow } from '../impostors';
import { benchAdd, benchMillion, type MillionRow } from '../million';
import { benchPicking, type PickRow } from '../picking';
import { characterFromFile } from '../ours';
import { ms } from '../report';
import { benchThreeShading, type ShadingRow } from '../three-shading';
import { CROWD_MODEL, type BenchContext } from './context';
import type { Character } from '../../../src/character/character';
import { IMPOSTOR_CHUNK, IMPOSTOR_VERTICES } from '../../../src/runtime/layout';

/** The sections' headings in BENCHMARKS.md. */
export const CULLING_HEADING = '## Culling, mesh LOD and animation LOD';
export const MILLION_HEADING = '## A million in the crowd: the joint-matrix palette, bulk add';
export const IMPOSTORS_HEADING = '## The far crowd as impostors: a million Foxes in view';
export const PICKING_HEADING = '## Picking: cost per request and frames until the answer, Fox';
export const DRAW_HEADING = '## The draw against its floor, Fox';

/** The culling / LOD section: ratios to all-off in one run, per view. */
export async function cullingSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
  print(CULLING_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  print(`${CROWD_MODEL[0]}, the demo's crowd (crowd mode: random clips, blends and phases on the demo's spiral grid), drawn into a 640 x 360 target with LOD chosen as for a 1080-pixel-high view (1 pixel of simplification error; animation LOD below 24 / 12 pixels). Frame GPU time: timestamp-query from the beginning of the first compute pass (cull, pose) to the end of the render pass, median of the measured frames after 2 warm-up frames. Vertices: indices drawn per frame (vertex shader invocations at most). Posed: instances the pose pass ran for, mean per frame. Ratios are to all-off in the same run. Shadows are off.`);
  print();
  print('On a machine with a GPU, the same table: `VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/<your driver>_icd.json npm run bench -- --section culling` (without VK_ICD_FILENAMES the tools use SwiftShader; the adapter line above says which ran).');
  print();
  const rows: CullRow[] = [];
  const views: ['inside' | 'demo', number][] = quick ? [['inside', 10000], ['demo', 2000]] : [['inside', 100000], ['demo', 10000]];
  for (const [view, count] of views) {
    console.error(`culling: ${view}, ${count} instances…`);
    rows.push(...await benchCulling(device, character, count, view, quick ? 1 : 2));
  }
  const label = (r: CullRow) => (r.view === 'inside' ? 'camera inside the crowd' : "the demo's default view");
  table(['view', 'instances', 'on', 'frame GPU ms', 'ratio', 'vertices / frame', 'ratio', 'visible', 'posed / frame'],
    rows.map((r) => {
      const off = rows.find((o) => o.view === r.view && o.config === 'all off')!;
      return [label(r), r.instances.toLocaleString('en'), r.config, ms(r.gpuMs), (r.gpuMs / off.gpuMs).toFixed(3), r.vertices.toLocaleString('en'),
        (r.vertices / off.vertices).toFixed(3), r.visible.toLocaleString('en'), Math.round(r.posed).toLocaleString('en')];
    }));
}

/** The million section (tools/bench/million.ts): bytes, add time, and frames at 100k / 1M with 1% / 10% in view, ratios to 100k at 1%. */
export async function millionSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
  print(MILLION_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: a CPU emulating a GPU, so GPU times are CPU figures; ratios stand in for a GPU\'s)' : ''}.`);
  print();
  const million = quick ? 200_000 : 1_000_000;
  const add = await benchAdd(device, character, million, quick ? 10_000 : 100_000);
  /** The palette for a share in view: twice the instances expected in view, a power of two (at least 4,096). */
  const paletteFor = (count: number, inView: number) => 2 ** Math.ceil(Math.log2(Math.max(4096, 2 * count * inView)));
  print(`${CROWD_MODEL[0]} on a square grid, clips and times varied, seen straight down over a square block holding the given share of the crowd (640 x 360 target, LOD as for a 1080-pixel-high view, culling, mesh and animation LOD on, no shadows), a palette of twice the instances in view (CrowdOptions.paletteSize, rounded up to a power of two; docs/palette.md). CPU ms: update + encode + draw + finish. GPU ms by timestamp-query: the cull pass with the palette pass after it (Crowd.encode's timestampWrites), the pose pass (its poseTimestampWrites), and the render pass. Medians of the measured frames after 2 warm-up frames. Ratios to 100,000 at 1% in the same run. Bytes at rest: Crowd.gpuBytes with nothing in view, less the joint buffer, per instance; per instance in view: one joint set (what a joint set per instance would cost every instance).`);
  print();
  print('Alone, and on a machine with a GPU: `npm run bench -- --section million` (with `VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/<your driver>_icd.json` where the tools would otherwise pick SwiftShader; the adapter line says which ran).');
  print();
  print(`Adding ${million.toLocaleString('en')} instances with addMany (typed arrays): ${add.manyMs.toFixed(0)} ms (${((add.manyMs * 1000) / million).toFixed(2)} µs each); ${add.singles.toLocaleString('en')} with add + setPlacement one by one: ${add.singleMs.toFixed(0)} ms (${((add.singleMs * 1000) / add.singles).toFixed(2)} µs each, ${((add.singleMs / add.singles) / (add.manyMs / million)).toFixed(1)}x addMany's per instance).`);
  print();
  const rows: MillionRow[] = [];
  for (const count of quick ? [100_000, million] : [100_000, 1_000_000]) {
    for (const inView of [0.01, 0.1]) {
      console.error(`million: ${count} instances, ${inView * 100}% in view…`);
      rows.push(await benchMillion(device, character, count, inView, paletteFor(count, inView), quick ? 2 : 3));
    }
  }
  const base = rows[0];
  const ratio = (v: number, b: number) => (Number.isFinite(v) && Number.isFinite(b) && b > 0 ? (v / b).toFixed(2) : 'n/a');
  const msText = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 1 ? 3 : v < 10 ? 2 : 1) : 'n/a');
  table(['instances', 'in view', 'paletteSize', 'drawn', 'posed', 'gpuBytes (MB)', 'bytes / instance at rest', 'bytes / instance in view', 'a joint set each would be (MB)', 'CPU ms', 'ratio', 'cull + palette GPU ms', 'ratio', 'pose GPU ms', 'ratio', 'draw GPU ms', 'ratio'],
    rows.map((r) => [r.instances.toLocaleString('en'), `${r.inView * 100} %`, r.paletteSize.toLocaleString('en'), r.visible.toLocaleString('en'), r.posed.toLocaleString('en'), (r.gpuBytes / 1e6).toFixed(1),
      r.restBytesPerInstance.toFixed(1), r.setBytes, ((r.instances * r.setBytes) / 1e6).toFixed(0), msText(r.cpuMs), ratio(r.cpuMs, base.cpuMs),
      msText(r.cullMs), ratio(r.cullMs, base.cullMs), msText(r.poseMs), ratio(r.poseMs, base.poseMs), msText(r.drawMs), ratio(r.drawMs, base.drawMs)]));
  print(`GPU times by ${base.method}.`);
  print();
}

/** The impostors section (tools/bench/impostors.ts): a million in view with impostors, against meshes only and 10,000 in view; the bake. */
export async function impostorsSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
  print(IMPOSTORS_HEADING);
  print();
  const swiftShader = /swiftshader/i.test(adapterName);
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${swiftShader ? ' (SwiftShader: a CPU emulating a GPU, so GPU times are CPU figures; the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  const bake = await benchImpostorBake(device, character);
  print(`${CROWD_MODEL[0]}: the atlas with the defaults (CrowdImpostors, docs/impostors.md): 3 clips x ${bake.frames} frames x ${bake.azimuths} azimuths x ${bake.elevations} elevations, each view's rectangle packed at one density in the bytes of ${bake.cellSize} x ${bake.cellSize} cells at 9 bytes a texel, ${bake.width} x ${bake.height} texels, ${(bake.bytes / 2 ** 20).toFixed(1)} MiB (the budget: 64 MiB); baked in ${bake.ms.toFixed(0)} ms (made, recorded and done on the GPU).`);
  print();
  // A mesh-only million is 216 M skinned vertices a frame: minutes a frame on SwiftShader, so there the meshes-only row is 100,000 (its vertices scale with the count).
  const many = quick ? 100_000 : 1_000_000;
  const meshMany = swiftShader || quick ? 100_000 : many;
  print(`${CROWD_MODEL[0]}es on a square grid (spacing 220), clips and times varied, every one in view (a camera straight down over the grid, 640 x 360 target, LOD as for a 1080-pixel-high view; culling, mesh and animation LOD on, the default palette), after 2 warm-up frames, medians of ${quick ? 2 : 3}. Vertices: the cull stats' (indices drawn; an impostor ${IMPOSTOR_VERTICES}: two indexed triangles, ${IMPOSTOR_CHUNK.toLocaleString('en')} quads a draw instance). GPU ms: the whole frame (cull, palette, pose, draw).${meshMany !== many ? ` On SwiftShader the meshes-only row is ${meshMany.toLocaleString('en')} (a million would be 216 M skinned vertices a frame, minutes on a CPU): its vertices grow with the count.` : ''}`);
  print();
  const rows: ImpostorRow[] = [];
  // The impostors twice: with the default dots (a point for each impostor of at most 2 pixels) and as quads alone (dotPixels 0).
  for (const [count, how, dotPixels] of [[10_000, 'meshes', undefined], [meshMany, 'meshes', undefined], [many, 'impostors', undefined], [many, 'impostors', 0]] as const) {
    console.error(`impostors: ${count} ${how}${dotPixels === 0 ? ', no dots' : ''}…`);
    rows.push(await benchImpostorFrame(device, character, count, how, quick ? 2 : 3, undefined, { dotPixels }));
  }
  const base = rows[0];
  const split = Number.isFinite(base.cullMs);
  table(['instances in view', 'drawn as', 'visible', 'as impostors', 'of them dots', 'posed', 'vertices a frame', 'vertices / instance', 'CPU ms', 'GPU ms', 'GPU x 10,000 meshes', ...(split ? ['cull + palette GPU ms', 'render pass GPU ms'] : [])], rows.map((r) => [
    r.instances.toLocaleString('en'), r.how === 'meshes' ? 'meshes' : r.dots > 0 ? 'impostors (dots on, the default)' : 'impostors, dots off (dotPixels 0)', r.visible.toLocaleString('en'), r.impostors.toLocaleString('en'), r.dots.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'),
    (r.vertices / Math.max(r.visible, 1)).toFixed(1), ms(r.cpuMs), ms(r.gpuMs), (r.gpuMs / base.gpuMs).toFixed(2), ...(split ? [ms(r.cullMs), ms(r.drawMs)] : []),
  ]));
  print(`GPU times by ${base.method}${split ? '; the cull and palette passes, and the render pass, each by its own timestamps' : ''}. Dots: impostors whose framing sphere spans at most ImpostorOptions.dotPixels (default 2) pixels on the crowd's viewport, drawn as a point each, one vertex (docs/impostors.md, Dots).`);
  print();
  // The band's cost: the same crowd, every Fox inside the band, drawn with no band (a cut at the switch: they are meshes) against the default band (each drawn as mesh and impostor, screen-door faded).
  const inBand = quick ? 400 : 2_500;
  print(`The band's per-frame cost: ${inBand.toLocaleString('en')} ${CROWD_MODEL[0]}es as above, every one inside the band (mesh LOD at the crowd's defaults: the band's meshes draw the switch's level; the viewport height set so the switch lies 1.2 x the camera's height away), drawn with band 0 (a cut at the switch: these Foxes, nearer than it, are meshes) against the default band 0.25 (each Fox drawn as its mesh and as its impostor, each screen-door faded); alternated: the mean of two runs' medians of ${quick ? 2 : 3} frames. Process CPU ms: the process's CPU time (all threads) from submit to done, on SwiftShader the frame's work, less moved than GPU ms by other processes' load (${cpus()[0].model.trim()}, ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} when these rows began).`);
  print();
  const bandRows: ImpostorRow[] = [];
  for (const band of [0, 0.25, 0, 0.25]) {
    console.error(`impostors: band ${band}…`);
    bandRows.push(await benchImpostorFrame(device, character, inBand, 'impostors', quick ? 2 : 3, band));
  }
  const cut = (bandRows[0].gpuMs + bandRows[2].gpuMs) / 2, cutWork = (bandRows[0].workMs + bandRows[2].workMs) / 2;
  table(['band', 'in the band', 'posed', 'vertices a frame', 'GPU ms', 'x band 0', 'process CPU ms', 'CPU x band 0'], [0, 1].map((k) => {
    const r = bandRows[k], gpu = (bandRows[k].gpuMs + bandRows[k + 2].gpuMs) / 2, work = (bandRows[k].workMs + bandRows[k + 2].workMs) / 2;
    return [k ? '0.25 (default)' : '0 (a cut: meshes)', r.band.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'), ms(gpu), (gpu / cut).toFixed(2), ms(work), (work / cutWork).toFixed(2)];
  }));
  await propsTable(ctx, character);
  await layersTable(ctx, character);
  await samplesTable(ctx, character);
}

/**
 * What the shown pass buys (docs/impostors.md, Layer stacks): Foxes each a blend of three clips in
 * a layer stack, all in view as the first table, as meshes (each posed from its stack: every
 * layered instance before) against impostors (the shown pass, then the two heaviest clips'
 * impostors), and the same Foxes plain (no stack) as impostors: the shown pass's share.
 */
async function layersTable(ctx: BenchContext, character: Character): Promise<void> {
  const { device, quick, print, table } = ctx;
  const count = quick ? 10_000 : 100_000;
  const rows: (ImpostorRow & { what: string })[] = [];
  const cases = [
    ['layered, as meshes', 'meshes', true, undefined], ['layered, as impostors', 'impostors', true, undefined], ['plain, as impostors', 'impostors', false, undefined],
    ['the third layer masked, partialLayers \'mesh\'', 'impostors', 'masked', 'mesh'], ['the third layer masked, partialLayers \'leave-out\'', 'impostors', 'masked', 'leave-out'],
  ] as const;
  for (const [what, how, layered, partialLayers] of cases) {
    console.error(`impostors: ${count} ${what}…`);
    rows.push({ what, ...(await benchImpostorFrame(device, character, count, how, quick ? 2 : 3, undefined, { layered, partialLayers })) });
  }
  print(`Layer stacks: ${count.toLocaleString('en')} ${CROWD_MODEL[0]}es as above, each a blend of three clips in a layer stack (its clip, the next at 0.4 over it, the third at 0.3 over both), as meshes (each posed from its stack: every layered instance before the shown pass) and as impostors (the shown pass over the layered instances before the cull pass, then the impostors of each one's two heaviest clips); and the same ${CROWD_MODEL[0]}es plain (no stack) as impostors. Then the third layer masked over the upper body (a partial layer: the atlas cannot show it), with impostors on: under partialLayers 'mesh' (the default) every one a mesh, under 'leave-out' the impostor of its stack without that layer. GPU ms from the frame's start (the shown pass included); process CPU ms from submit to done.`);
  print();
  table([`${CROWD_MODEL[0]}es`, 'visible', 'as impostors', 'posed', 'vertices a frame', 'GPU ms', 'x layered meshes', 'x plain impostors', 'process CPU ms'], rows.map((r) => [
    r.what, r.visible.toLocaleString('en'), r.impostors.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'), ms(r.gpuMs), (r.gpuMs / rows[0].gpuMs).toFixed(2), (r.gpuMs / rows[2].gpuMs).toFixed(2), ms(r.workMs),
  ]));
  print();
}

/**
 * What baking the props every instance holds buys (docs/impostors.md, Props): Foxes each holding
 * a sword, all in view as the first table, as meshes (each Fox posed and drawn, its sword placed
 * and drawn: what every holder was before) against impostors (the sword in the atlas).
 */
async function propsTable(ctx: BenchContext, character: Character): Promise<void> {
  const { device, quick, print, table } = ctx;
  const count = quick ? 10_000 : 100_000;
  const sword = await characterFromFile('public/models/Props/Sword.glb');
  // 100 model units long on the head (the Fox is about 185 long), as impostor-props.test.ts holds it.
  const prop = { character: sword, joint: 'b_Head_05', offset: [100, 0, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0, 0, 10, 0, 1] };
  const rows: (ImpostorRow & { what: string })[] = [];
  for (const how of ['meshes', 'impostors'] as const) {
    console.error(`impostors: ${count} holding a sword, ${how}…`);
    rows.push({ what: `every one, ${how}`, ...(await benchImpostorFrame(device, character, count, how, quick ? 2 : 3, undefined, { prop })) });
  }
  // A sword for one in five (props of chosen instances): at one layer (the default) the holders' set has none and they are meshes; at looks 2 it has one.
  for (const looks of [1, 2]) {
    console.error(`impostors: ${count}, one in five holding a sword, looks ${looks}…`);
    rows.push({ what: `one in five, impostors, looks ${looks}`, ...(await benchImpostorFrame(device, character, count, 'impostors', quick ? 2 : 3, undefined, { prop: { ...prop, every: 5 }, looks })) });
  }
  print(`Props: ${count.toLocaleString('en')} ${CROWD_MODEL[0]}es as above, each holding a sword (CrowdProps, attached to every instance: ${sword.rig.primitives.length} primitives, ${sword.rig.primitives.reduce((n, p) => n + p.vertexCount, 0)} vertices), as meshes (each posed, its sword placed and drawn: every holder before the props were baked) and as impostors (the sword in the atlas; vertices: the cull stats', the swords' not counted); then one in five holding it (CrowdProps.attach with instances) as impostors, the atlas sized for one look (the default: the holders' prop set has no layer, so they are meshes, as every holder of a prop of chosen instances was before) and for two (ImpostorOptions.looks 2: a layer for the holders' set, smaller cells).`);
  print();
  table(['holding a sword', 'visible', 'as impostors', 'posed', 'vertices a frame', 'GPU ms', 'x meshes', 'process CPU ms'], rows.map((r) => [
    r.what, r.visible.toLocaleString('en'), r.impostors.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'), ms(r.gpuMs), (r.gpuMs / rows[0].gpuMs).toFixed(2), ms(r.workMs),
  ]));
  print();
}

/**
 * The impostor's cost at the demo's 4 samples (its covered samples from every weighing cell's
 * taps) against 1, each against the same Foxes drawn as meshes: a few Foxes just past the switch,
 * at about the switch's size on the target, so that their fragments (every march step) weigh.
 */
async function samplesTable(ctx: BenchContext, character: Character): Promise<void> {
  const { device, quick, print, table } = ctx;
  const count = 100, rounds = quick ? 1 : 2, frames = quick ? 2 : 3;
  const kinds = [1, 4].flatMap((samples) => (['meshes', 'impostors'] as const).map((how) => ({ samples, how })));
  const runs = kinds.map(() => [] as ImpostorRow[]);
  for (let round = 0; round < rounds; round++) {
    for (const [k, { samples, how }] of kinds.entries()) {
      console.error(`impostors: ${count} at ${samples} samples, ${how}…`);
      runs[k].push(await benchImpostorFrame(device, character, count, how, frames, undefined, { samples, switchAt: 0.95 }));
    }
  }
  print(`At 1 and 4 samples a pixel (the demo draws 4): ${count} ${CROWD_MODEL[0]}es as above just past the switch (the viewport height set so the switch lies 0.95 x the camera's height away: every one an impostor, every march step; the framing sphere ${runs[0][0].spherePixels.toFixed(0)} pixels across on the 640 x 360 target at the nearest; on the crowd's viewport they are just past the switch's size), as impostors and as meshes (the impostors turned off: the same LOD); each kind ${rounds} times in turn, the mean of the runs' medians of ${frames} frames (GPU ms and process CPU ms as above).`);
  print();
  const mean = (rows: ImpostorRow[], key: 'gpuMs' | 'workMs') => rows.reduce((s, r) => s + r[key], 0) / rows.length;
  table(['samples', 'drawn as', 'as impostors', 'posed', 'vertices a frame', 'GPU ms', 'x meshes', 'process CPU ms', 'CPU x meshes'], kinds.map(({ samples, how }, k) => {
    const meshes = runs[kinds.findIndex((o) => o.samples === samples && o.how === 'meshes')], r = runs[k][0];
    return [samples, how, r.impostors.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'), ms(mean(runs[k], 'gpuMs')), (mean(runs[k], 'gpuMs') / mean(meshes, 'gpuMs')).toFixed(2), ms(mean(runs[k], 'workMs')), (mean(runs[k], 'workMs') / mean(meshes, 'workMs')).toFixed(2)];
  }));
  print();
  // The far crowd at 4 samples: every impostor at the fewest steps, its samples from one cell's coverage (impostor.wgsl farMask).
  const many = quick ? 100_000 : 1_000_000;
  const far = [1, 4].map(() => [] as ImpostorRow[]);
  for (let round = 0; round < rounds; round++) {
    for (const [k, samples] of [1, 4].entries()) {
      console.error(`impostors: ${many} in view at ${samples} samples…`);
      far[k].push(await benchImpostorFrame(device, character, many, 'impostors', 1, undefined, { samples }));
    }
  }
  const [one, four] = far.map((rows) => mean(rows, 'gpuMs'));
  print(`${many.toLocaleString('en')} in view as the first table (every one an impostor at the fewest steps), medians of 1 frame, each ${rounds} times in turn: ${ms(one)} GPU ms at 1 sample, ${ms(four)} at 4 (${(four / one).toFixed(2)}x; process CPU ${(mean(far[1], 'workMs') / mean(far[0], 'workMs')).toFixed(2)}x).`);
  print();
}

/** The picking section: frame time with one request against none, in one run; frames until the answer. */
export async function pickingSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
  print(PICKING_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  print(`${CROWD_MODEL[0]}, the demo's crowd from the demo's default camera, culling and mesh LOD on, drawn into a 640 x 360 target (tools/bench/picking.ts). Frame GPU ms: timestamp-query from the first compute pass's beginning to the render pass's end (cull, pose, the request recorded after the pose pass, draw; submit to done where the adapter has no timestamps), median over the measured frames after 2 warm-up rounds, the three kinds interleaved frame by frame so that a busy machine slows each alike; ratio to no request in the same run. pickPointer: one 1 x 1 render pass over the drawn instances (their vertex stage again, one fragment). selectRect: one compute pass over every live instance. Frames late: in a loop that waits for each frame's GPU work, the frame (0 = the request's own) during whose update() the answer's readback is requested and after which the promise has settled.`);
  print();
  const rows: PickRow[] = [];
  for (const count of quick ? [1000] : [1000, 10000]) {
    console.error(`picking: ${count} instances…`);
    rows.push(...await benchPicking(device, character, count, quick ? 3 : 8));
  }
  table(['instances', 'request', 'frame GPU ms', 'ratio', 'frames late', 'answer (last)'], rows.map((r) => {
    const none = rows.find((o) => o.instances === r.instances && o.request === 'none')!;
    return [r.instances.toLocaleString('en'), r.request, ms(r.frameMs), (r.frameMs / none.frameMs).toFixed(3), r.request === 'none' ? '' : r.framesLate, r.answer];
  }));
}

/**
 * The draw section (tools/bench/draw.ts, issue 31): the skin pass against the floor in the culling
 * bench's two views, and against three.js's draw of the same crowd; then the steps recorded as
 * they were taken (DRAW_STEPS) and those tried and not kept (DRAW_TRIED), which one run cannot redo.
 */
export async function drawSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
  const swiftShader = /swiftshader/i.test(adapterName);
  print(DRAW_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${swiftShader ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  // SwiftShader draws some 10 M vertices a second on this machine: smaller crowds there, so the section finishes in minutes.
  const views: ['inside' | 'demo', number][] = swiftShader || quick ? [['inside', 2000], ['demo', 1000]] : [['inside', 100000], ['demo', 10000]];
  print(`${CROWD_MODEL[0]}, the demo's crowd in the culling section's two views (${views.map(([v, n]) => `${v === 'inside' ? 'camera inside' : "the demo's view of"} ${n.toLocaleString('en')}`).join(', ')}${swiftShader ? '; on a GPU 100,000 and 10,000, here fewer so that SwiftShader finishes in minutes' : ''}), culling and every LOD off, 640 x 360 target (tools/bench/draw.ts). GPU ms of the render pass alone (timestamp-query around it where the adapter has timestamps, else submit to done of the render pass alone), and the CPU ms this process spent from submit to done (user + system, all threads), medians of ${quick ? 2 : 8} measured frames after 2 warm-up rounds, the draws interleaved frame by frame. Ratios and ns / vertex use the GPU ms on a GPU, ${swiftShader ? 'and here the CPU ms: SwiftShader draws on this process\'s threads, so its CPU time is the emulated GPU\'s work, which other programs on the shared cores do not stretch as they stretch the clock' : 'the CPU ms on SwiftShader (which draws on this process\'s threads)'}. floor: the rest-pose mesh as loaded (the file's positions and indices; 0, 1, 2, ... for a non-indexed primitive), positions only, world x view-projection, a constant colour (tools/bench/floor.wgsl). floor, our vertices: the same over the crowd's own position buffer and level-0 indices (shared vertices, vertex-cache order: docs/draw.md). ours: Crowd.draw (the skin pass). Ratios are to floor. ns / vertex: GPU ms over the indices drawn.`);
  print();
  const rows: DrawRow[] = [];
  for (const [view, count] of views) {
    console.error(`draw: ${view}, ${count} instances…`);
    rows.push(...await benchDraw(device, character, count, view, quick ? 2 : 8, swiftShader));
  }
  const label = (r: DrawRow) => (r.view === 'inside' ? 'camera inside the crowd' : "the demo's view");
  table(['view', 'instances', 'draw', 'GPU ms', 'CPU ms', 'vertices', 'ns / vertex', 'ratio to floor', 'GPU ms by'],
    rows.map((r) => [label(r), r.instances.toLocaleString('en'), r.draw, ms(r.gpuMs), ms(r.cpuMs), r.vertices.toLocaleString('en'), r.nsPerVertex.toFixed(2), r.ratio.toFixed(2), r.method]));
  const shadingCount = quick ? 100 : 1000;
  console.error(`draw: three.js's draw, ${shadingCount} instances…`);
  const shading = await benchThreeShading(device, character, shadingCount, quick ? 2 : 6);
  const ours = shading.find((r) => r.variant === 'crowd')!;
  const three = shading.find((r) => r.variant === 'three')!;
  print(`Against three.js (tools/bench/three-shading.ts, ${shadingCount.toLocaleString('en')} Foxes in view, three's WebGPURenderer, frame wall ms from update to the GPU done: pose pass and three's passes in both, then our skin pass or three's MeshStandardNodeMaterial draw of shading 'three' without shadows; medians of ${quick ? 2 : 6} frames each after 2 warm-up rounds, interleaved; wall ms, and the CPU ms of this process (all threads) over the same span; the ratio by ${swiftShader ? 'CPU ms (SwiftShader)' : 'wall ms'}):`);
  print();
  const timed = (r: ShadingRow) => (swiftShader ? r.cpuMs : r.frameMs);
  table(['instances', 'shading', 'frame wall ms', 'frame CPU ms', 'ratio to three'], [ours, three].map((r) => [r.instances.toLocaleString('en'), r.variant === 'crowd' ? "'crowd' (our skin pass)" : "'three' (three's draw)", ms(r.frameMs), ms(r.cpuMs), (timed(r) / timed(three)).toFixed(2)]));
  print("The steps, as measured when each was taken (SwiftShader on this 2-core machine, shared with other work; CPU ms ratios, each in one run of this section at that commit, 2,000 inside and 1,000 in the demo's view; docs/draw.md says what each step is). Before step 2 'floor, our vertices' drew exactly what 'floor' drew, so its ratio shows how far two runs of one draw stray here: differences under about 1.5x are noise. The last column is steadier: the four trees' crowds drawn in one process, interleaved frame by frame, the median of 10 per-round ratios of the render pass's CPU ms to before's (docs/draw.md).");
  print();
  table(['step', 'inside: ours / floor', "demo's view: ours / floor", 'floor, our vertices / floor (inside, demo)', "ours / three's draw", 'ours / before, paired in one process (inside, demo)'],
    DRAW_STEPS.map((s) => [s.step, s.inside, s.demo, s.floors, s.three, s.paired]));
  print("Tried next and not kept: no gain shows on SwiftShader, even with the fragment stage taken out (64 x 36). Ours with the step / ours without, paired in one process (tools/bench/draw-ab.ts, medians of 10-16 per-round ratios, which themselves spread from 0.4 to 3); (demo's view, inside); docs/draw.md:");
  print();
  table(['step', 'paired, 640 x 360 (demo, inside)', 'paired, 64 x 36 (demo, inside)', 'pictures and oracle', 'code'],
    DRAW_TRIED.map((s) => [s.step, s.full, s.vertexBound, s.pictures, s.commit]));
}
