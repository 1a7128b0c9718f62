/**
 * `npm run bench`: measurements printed as Markdown tables and written to BENCHMARKS.md.
 * Nothing here is asserted: the machines are shared and noisy, so timings are also given as
 * ratios against a baseline measured in the same run.
 *
 * Options: --quick (fewer counts and frames, no three.js 100k), --no-peer (skip three.js),
 * --size-only (the package size alone: its section of BENCHMARKS.md is replaced, the rest kept).
 * --section culling|controllers|million|clip-library|picking|three-shading|appearance|steering|draw|load-formats|gl-cull|webgl2|impostors (only that section, replacing it in the existing BENCHMARKS.md).
 * --against REF[,REF...] (with --section controllers, gl-cull, million, appearance or steering: the sections
 * with a CPU-per-frame figure): the section's CPU-per-frame scenes also measured for a worktree of each REF in
 * this process, frame by frame in alternation, with both and their ratio (tools/bench/against.ts,
 * tools/bench/paired-scenes.ts; docs/testing.md: run it before resolving an issue that touches a per-frame path).
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { parseControllerConfig } from '../src/anim/control/config';
import { cpus, loadavg, totalmem } from 'node:os';
import { formatBytes } from '../src/runtime/limits';
import { benchBake, benchControllers, benchFrames, benchLayerCodeCost, benchPosePass, characterFromFile, type ControllerRow } from './bench/ours';
import { minimalPage, minimalPageSources, packageSizes } from './bench/size';
import { benchThreePeer, type PeerRow } from './bench/three-peer';
import { benchCulling, type CullRow } from './bench/culling';
import { benchAdd, benchMillion, type MillionRow } from './bench/million';
import { benchClipLibrary } from './bench/clip-library';
import { benchPicking, type PickRow } from './bench/picking';
import { benchThreeCulling, benchThreeShading, type ShadingRow } from './bench/three-shading';
import { benchAppearance, type AppearanceRow } from './bench/appearance';
import { benchFieldSlices, benchSteering, benchSteeringTwin, steeringScenes, type SteeringRow } from './bench/steering';
import { benchDraw, DRAW_STEPS, DRAW_TRIED, type DrawRow } from './bench/draw';
import { benchPaired, median, p95, runPaired, treeLibrary, worktreeOf, type PairedRow, type Scene } from './bench/against';
import { PAIRED_SECTIONS, pairedSpecs, type PairedSection } from './bench/paired-scenes';
import { LOAD_FORMATS_HEADING, loadFormatsSection } from './bench/load-formats';
import { benchGLCull, PALETTE_BENCH_BUDGET, type GLCullRow } from './bench/gl-cull';
import { benchWebGL2, type WebGL2BenchResult } from './bench/webgl2';
import { benchBake as benchImpostorBake, benchImpostorFrame, type ImpostorRow } from './bench/impostors';
import { openNodeDevice } from './gpu-poser';
import { INSTANCE, LAYER_STACK } from '../src/runtime/layout';

const quick = process.argv.includes('--quick');
const sectionArg = process.argv.indexOf('--section');
const only = sectionArg >= 0 ? process.argv[sectionArg + 1] : undefined;
if (only !== undefined && !['culling', 'controllers', 'million', 'clip-library', 'picking', 'three-shading', 'appearance', 'steering', 'draw', 'load-formats', 'gl-cull', 'webgl2', 'impostors'].includes(only)) throw new Error(`--section must be culling, controllers, million, clip-library, picking, three-shading, appearance, steering, draw, load-formats, gl-cull, webgl2 or impostors, got ${only}`);
const againstArg = process.argv.indexOf('--against');
const against = againstArg >= 0 ? process.argv[againstArg + 1] : undefined;
if (againstArg >= 0 && (against === undefined || against.startsWith('--'))) throw new Error('--against needs a commit, branch or tag: --against REF');
// Paired scenes exist for the sections with a CPU-per-frame figure (controllers: against.ts; the others: paired-scenes.ts).
const PAIRABLE = ['controllers', ...PAIRED_SECTIONS];
if (against !== undefined && !PAIRABLE.includes(only ?? '')) throw new Error(`--against works with --section ${PAIRABLE.join(', ')} (the sections with a CPU-per-frame figure), got ${only === undefined ? 'no --section' : `--section ${only}`}`);
const CULLING_HEADING = '## Culling, mesh LOD and animation LOD';
const MILLION_HEADING = '## A million in the crowd: the joint-matrix palette, bulk add';
const CLIP_LIBRARY_HEADING = '## Two bodies, one clip library (Walker)';
const PICKING_HEADING = '## Picking: cost per request and frames until the answer, Fox';
const THREE_SHADING_HEADING = "## In a three.js scene: shading 'crowd' against shading 'three', Fox";
const APPEARANCE_HEADING = '## Per-instance appearance: cost per frame against a plain crowd, Mannequin';
const STEERING_HEADING = '## Steering: the bottleneck scaled up, Fox (ORCA, grid, flow field on the GPU)';
const DRAW_HEADING = '## The draw against its floor, Fox';
const IMPOSTORS_HEADING = '## The far crowd as impostors: a million Foxes in view';
const GL_CULL_HEADING = '## WebGL 2: culling, mesh LOD and animation LOD on the CPU, Fox';
const WEBGL2_HEADING = '## WebGL 2 against WebGPU in one browser, Fox';
const CONTROLLERS_HEADING = '## Animation controllers, RobotExpressive (crossfades, locomotion, action state machines)';
const peer = !process.argv.includes('--no-peer');
const sizeOnly = process.argv.includes('--size-only');
const MODELS: [string, string][] = [
  ['Fox', 'public/models/Fox/Fox.glb'],
  ['CesiumMan', 'public/models/CesiumMan/CesiumMan.glb'],
  ['RobotExpressive', 'public/models/RobotExpressive/RobotExpressive.glb'],
];
const CROWD_MODEL = MODELS[0];
const COUNTS = quick ? [1000, 10000] : [1000, 10000, 100000];

const out: string[] = [];
function print(line = ''): void {
  console.log(line);
  out.push(line);
}
function table(header: string[], rows: (string | number)[][]): void {
  print(`| ${header.join(' | ')} |`);
  print(`|${header.map(() => '---').join('|')}|`);
  for (const row of rows) print(`| ${row.join(' | ')} |`);
  print();
}
const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 1 ? 3 : 1) : 'n/a');

const sizeHeading = '## Package size';
const sizeStart = out.length;
// A --section run measures that section alone (the package size needs npm and the build, which a GPU machine may lack).
if (only === undefined) {
  print(sizeHeading);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)}. What the library adds to a page (tools/bench/size.ts): built with npm run build:lib; the two minified rows by the same minifier (esbuild), gzip at level 9. Dependencies: @loaders.gl/gltf (the .glb container; @loaders.gl/core is its peer dependency), meshoptimizer (its simplifier, for mesh LOD, shipped only by pages that hand it in: LoadOptions.lod), wgpu-matrix.`);
  print();
  table(['what', 'bytes', 'gzipped bytes'], (await packageSizes(process.cwd())).map((r) => [r.what, r.bytes.toLocaleString('en'), r.gzipBytes.toLocaleString('en')]));
  await bundleSizeSection();
}
if (sizeOnly) {
  // Replace the section in place (or put it before the first section), keeping the other measurements.
  const lines = (await readFile('BENCHMARKS.md', 'utf8')).split('\n');
  const section = out.slice(sizeStart);
  let start = lines.indexOf(sizeHeading);
  let end = start;
  if (start < 0) start = end = lines.findIndex((l) => l.startsWith('## '));
  else do end++; while (end < lines.length && !lines[end].startsWith('## '));
  lines.splice(start < 0 ? lines.length : start, end - start, ...section);
  await writeFile('BENCHMARKS.md', lines.join('\n'));
  console.error('replaced the package size in BENCHMARKS.md');
  process.exit(0);
}

const { device, adapterName } = await openNodeDevice({ maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32768 });
out.unshift(
  '# Benchmarks',
  '',
  `Date: ${new Date().toISOString().slice(0, 10)}. Machine: ${cpus()[0].model}, ${cpus().length} cores, ${formatBytes(totalmem())} RAM, Node ${process.version}. WebGPU adapter: ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: a CPU emulating a GPU, so GPU times below are CPU figures)' : ''}.`,
  '',
);

if (only !== undefined) {
  const heading = only === 'culling' ? CULLING_HEADING : only === 'million' ? MILLION_HEADING : only === 'clip-library' ? CLIP_LIBRARY_HEADING : only === 'picking' ? PICKING_HEADING : only === 'three-shading' ? THREE_SHADING_HEADING : only === 'appearance' ? APPEARANCE_HEADING : only === 'steering' ? STEERING_HEADING : only === 'draw' ? DRAW_HEADING : only === 'gl-cull' ? GL_CULL_HEADING : only === 'webgl2' ? WEBGL2_HEADING : only === 'impostors' ? IMPOSTORS_HEADING : only === 'load-formats' ? LOAD_FORMATS_HEADING : CONTROLLERS_HEADING;
  if (only === 'culling') await cullingSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'million') await millionSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'clip-library') await clipLibrarySection();
  else if (only === 'picking') await pickingSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'three-shading') await threeShadingSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'appearance') await appearanceSection();
  else if (only === 'steering') await steeringSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'draw') await drawSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'load-formats') await loadFormatsSection(print, table, quick);
  else if (only === 'gl-cull') await glCullSection(await characterFromFile(CROWD_MODEL[1]));
  else if (only === 'webgl2') await webgl2Section();
  else if (only === 'impostors') await impostorsSection(await characterFromFile(CROWD_MODEL[1]));
  else await controllerSection();
  // --against A,B: a paired table per REF, in the order given (the controllers section prints its own).
  if (only !== 'controllers') for (const ref of against?.split(',') ?? []) await pairedSection(only as PairedSection, ref);
  const previous = await readFile('BENCHMARKS.md', 'utf8').catch(() => '');
  const start = previous.indexOf(heading);
  const next = start < 0 ? -1 : previous.indexOf('\n## ', start + heading.length);
  const section = out.slice(out.indexOf(heading)).join('\n');
  const merged = start < 0 ? `${previous.trimEnd()}\n\n${section}` : previous.slice(0, start) + section + (next < 0 ? '' : previous.slice(next));
  if (!quick) await writeFile('BENCHMARKS.md', merged);
  console.error(quick ? '(--quick: BENCHMARKS.md not written)' : `wrote the ${only} section of BENCHMARKS.md`);
  device.destroy();
  process.exit(0);
}

/**
 * What a page that only draws a crowd ships (issue 19): examples/minimal bundled against the
 * package just built (tools/bench/size.ts, minimalPage). A run measures only its own tree, so
 * the earlier steps are kept here as measured by this same code at their commits.
 */
async function bundleSizeSection(): Promise<void> {
  const kb = (bytes: number) => bytes.toLocaleString('en');
  const steps: [string, number, number][] = [
    ['before issue 19 (23712da)', 538_001, 177_232],
    ['+ meshoptimizer\'s simplifier alone (meshoptimizer/simplifier)', 470_798, 151_687],
    ['+ WGSL inlined without comments and needless blank space (tools/strip-wgsl.ts)', 444_736, 142_289],
    ['+ a .glb read by @loaders.gl/gltf\'s GLBLoader, not GLTFLoader through @loaders.gl/core', 307_336, 100_039],
    ['+ features are objects made from the crowd (the kernel names none: props, morph, root motion, clip events stay out)', 265_164, 87_040],
    ['+ instance ids carry a generation (issue 24, a081c4e)', 267_016, 87_607],
    ['+ the joint-matrix palette and Crowd.addMany (issue 23, merged at 6523eb2)', 282_775, 91_682],
    ['+ clip libraries: loadCharacter binds clips from other files, retargeting (issue 20, merged at e700fe4)', 290_683, 94_384],
    ['+ picking merged (caada04) and the fixes up to 944bb65', 291_264, 94_517],
    ['+ shader names shortened (tools/rename-wgsl.ts), then glTF materials as authored and per-instance appearance (issue 21, at da38f5e)', 306_386, 100_754],
    ['+ the environment light, normal maps, TEXCOORD_1 and samplers (at bfe6218)', 319_760, 104_940],
    ['+ issue 33: imports run downhill, the default paletteSize a fixed 65,536 (DEFAULT_PALETTE_SIZE exported)', 319_864, 104_993],
    ['+ Character.bounds without CpuPoser (no blend, layer-stack or morph evaluator at load)', 314_750, 103_549],
    ['+ LoadOptions.clips takes loadClips libraries only, which carry their binding code (attachClips, bakeShared, retargeting)', 308_592, 101_500],
    ['+ mesh LOD opt-in: loadCharacter makes levels only with the simplifier handed in (lod: { simplifier: MeshoptSimplifier })', 255_576, 82_576],
    ['+ issue 31: output only what the fragment reads, shared vertices in vertex-cache order by meshoptimizer\'s encoder (20,427 bytes of it), two vertex streams (merged at 465d9a6)', 280_193, 92_406],
    ['+ the vertex-cache order by our own optimiser (src/bake/vertex-cache.ts, 2,075 bytes), not meshoptimizer\'s encoder', 261_761, 84_960],
    ['+ issue 38: compressed files (KHR_mesh_quantization, the meshopt and Draco readers; the meshopt decoder itself leaked into the shared dist/ chunk: 26,239 bytes more; at a21b8ff)', 292_548, 94_017],
    ['+ issue 37: the WebGL 2 backend, createCrowd, the README\'s example on createCrowd, bundled in (at 03db0f5)', 394_485, 125_720],
    ['+ the WebGL 2 backend loaded on demand, issue 38\'s KTX2, issue 39\'s VRM bodies, issue 40\'s impostors merged (at ea0c13b)', 283_581, 93_730],
    ['+ the package one file per source module (tsdown unbundle): a bundler drops unused modules whole, not keeping a shared chunk\'s impure top-level statements', 272_566, 89_085],
    ['+ root-motion extraction and the making of mesh LOD levels imported by loadCharacter only when asked for (LoadOptions.rootMotion, LoadOptions.lod)', 265_333, 87_694],
    ['+ the VRM reader (humanoid map, MToon looks) imported by parseGltf only for a file with VRM\'s extensions', 263_915, 87_172],
    ['+ the morph target reader (load-morph.ts) imported by parseGltf only for a file with morph targets (gzip grows: esbuild splits the page into more shared chunks, gzipped apart)', 263_000, 87_451],
    ['+ Character.clipBindings merged from main (at 05a43ed)', 263_015, 87_455],
    ['+ issue 40\'s impostor band merged from main (the band list in the cull and palette passes, skin-frame.ts; at b142451)', 266_412, 88_460],
    ['+ main merged up to 1c829f8 (gl-share: pose sharing and the palette on WebGL 2, issue 37; gl-scenes; stadium)', 266_475, 88_643],
    ['+ baking morph targets (bake-morph.ts) handed on with the morph target reader as Rig.morphBake: only a file with targets fetches it', 264_862, 88_134],
    ['+ impostor routing from the impostor feature (CrowdKernel.routeFar takes its CullRoute: switch distances, band level, stats, list offsets) and the band\'s mesh draws in the feature (band-meshes.ts), not in the kernel\'s cull settings, visibility, cull stats and SkinPass', 262_469, 87_548],
    ['+ KHR_mesh_quantization\'s attribute types (quantization.ts) imported by parseGltf only for a file that lists the extension', 262_278, 87_436],
    ['+ the uri policy and reader (uri.ts) imported by parseGltf only for a file whose buffers or images name a uri', 260_828, 86_843],
  ];
  const page = await minimalPage(process.cwd());
  print('### Bundle size: examples/minimal');
  print();
  print('examples/minimal/main.js (a crowd of 100 and nothing else) bundled by esbuild --bundle --minify --format=esm --splitting, as an app\'s bundler splits it (Vite, webpack), `crowd-skin` resolved to the built package (dist/), gzip at level 9: the bytes a page on WebGPU loads (its entry chunk and what that imports statically; gzip per file). Target (issue 19): at most half of before, 269,000 bytes. The WebGL 2 backend is a chunk createCrowd imports only when it picks WebGL 2 (issue 37), in the last row.');
  print();
  table(['build', 'bytes', 'gzipped bytes'], [...steps.map(([what, bytes, gz]) => [what, kb(bytes), kb(gz)]),
    [`this run${page.bytes <= 269_000 ? '' : ' (over the target)'}`, kb(page.bytes), kb(page.gzipBytes)],
    ['this run: what a page on WebGL 2 loads on demand besides (dynamic import)', kb(page.onDemand.bytes), kb(page.onDemand.gzipBytes)]]);
  print('Each row adds one change to the row above it; the rows before this run were measured by this same code at their commits. The materials row holds two changes: shortening the shaders\' names saved 6,457 bytes, and the PBR fragment stage, material textures, mipmaps and lights added about 21,500 (skin.wgsl alone went from 5,617 to 15,724 bytes in the page).');
  print();
  // Issue 38: the page may grow by at most 2 KB (2,048 bytes) over the row before it (261,761 bytes).
  const allowed = 261_761 + 2048;
  print(`${page.bytes <= 269_000 ? 'Under' : 'Over'} the target by ${kb(Math.abs(page.bytes - 269_000))} bytes, and ${kb(Math.abs(page.bytes - allowed))} bytes ${page.bytes <= allowed ? 'under' : 'over'} issue 38's bound (the row before it plus 2 KB: ${kb(allowed)}). Since that row the page took createCrowd and the WebGPU canvas crowd (3,927 bytes, issue 37), impostor routing and its band in the cull and palette passes (about 5,400, issue 40, of which the routing row moved about 2,400 into the impostor feature; what stays: the cull pass's impostor and band lists and their uniforms, 565 bytes of cull.wgsl, the palette pass's band list, skin.wgsl's BAND variant), and issue 38's own (about 2,500: extensions.ts naming every missing extension and what brings it, KTX2 textures in material-textures.ts; quantization.ts now comes with a quantized file); loads fetch what only some of them need (dynamic imports): root-motion extraction (6,305 bytes), the making of mesh LOD levels (about 900), the VRM reader (1,690 bytes), the morph target reader (1,333), the baking of morph targets (1,613), KHR_mesh_quantization's types (about 500) and the uri policy and reader (1,450), each for a file that needs it (parse.ts tests the JSON). What is left is reached from Crowd and loadCharacter through options and methods of the public API, or is shader text. Measured on the src/ bundle below by cutting each path out (issue 33), bytes of the minified page: the PBR and environment terms of shaders/skin.wgsl, about 12,700 (5,617 bytes before issue 21, 18,687 now); the palette pass and its shader, 8,300 (needed past 65,536 instances now that the palette is on by default); layer stacks and masks (Crowd.setLayers, createMask), about 9,000 (layer-records, layer-input, masks, the layered pose code); the environment light's prefilter and its shader, 5,800; the shadow pass (CrowdOptions.shadows), 3,900; the deprecated per-feature delegates (legacy.ts, due to go in the next release), 1,800. Each needs an option or method of the API to become an object the page makes or a function passed in. What the kernel still holds of impostors is shader text and the lists' bindings (cull.wgsl's lists, the palette pass's band, skin.wgsl's BAND): the next candidates, which need a feature's WGSL joined to a kernel shader (tools/rename-wgsl.ts renames each file on its own today).`);
  print();
  const standalone = readFileSync('dist/crowd-skin.standalone.js');
  print(`The self-contained file (dist/crowd-skin.standalone.js, every export and its dependencies) went with it: ${kb(630_482)} bytes, ${kb(203_126)} gzipped before issue 19; ${kb(standalone.byteLength)}, ${kb(gzipSync(standalone, { level: 9 }).byteLength)} in this run.`);
  print();
  print('Its largest inputs (bytes in the minified output; ours by dist/ file):');
  print();
  table(['input', 'bytes', 'share'], page.inputs.slice(0, 12).map((i) => [i.what, kb(i.bytes), `${((100 * i.bytes) / page.bytes).toFixed(1)} %`]));
  const SOURCE_ROWS = 25;
  const sources = await minimalPageSources(process.cwd());
  const ours = sources.reduce((sum, i) => sum + i.bytes, 0);
  const wgsl = sources.filter((i) => i.what.endsWith('.wgsl')).reduce((sum, i) => sum + i.bytes, 0);
  print(`Our part by source file: the same page bundled from src/ (shaders stripped and renamed as the package build does), ${kb(ours)} bytes of ours, ${kb(wgsl)} of them WGSL; the ${SOURCE_ROWS} largest:`);
  print();
  table(['source', 'bytes'], sources.slice(0, SOURCE_ROWS).map((i) => [i.what, kb(i.bytes)]));
}

/** The animation-controller section: both drivers at 10,000 and 100,000, in one run. */
async function controllerSection(): Promise<void> {
  const msText = (v: number) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 3 : 1) : 'n/a');
  print(CONTROLLERS_HEADING);
  print();
  print('Every instance under a controller walking/running at its own speed; each frame about 1 in 300 instances changes speed or requests a random action, applied inside the timed region. CPU ms per frame: the inputs + CrowdControllers.update + crowd.update + encode + finish (median and 95th percentile over the timed frames, after 2 s of warm-up; 62 s for the gpu driver, so that its timed frames include the refresh sweep of its second 60 s period, which the first lacks). Driver cpu: every controller stepped on the CPU each frame (the old path, the baseline). Driver gpu: the CPU acts on events only (commands, transitions due now, a refresh per controller per minute) and the control pass evaluates the rest (src/features/controllers/gpu-controllers.ts). Events: controllers touched per frame. µs per event: CPU ms over events (the per-frame constant included); marginal: the gpu driver\'s extra CPU from 10,000 to 100,000 over its extra events (the constant taken out). Bytes: written to GPU buffers per frame. GPU ms: submit to done of one frame\'s compute passes (control + pose), which on a software adapter is CPU time of the same two cores.');
  print();
  {
    const robotPath = MODELS[2][1];
    const robot = await characterFromFile(robotPath);
    const config = parseControllerConfig(JSON.parse(await readFile(robotPath.replace('.glb', '.controller.json'), 'utf8')), robot.clipNames);
    const rows: ControllerRow[] = [];
    for (const count of quick ? [10000] : [10000, 100000]) {
      for (const driver of ['gpu', 'cpu'] as const) rows.push(await benchControllers(device, robot, config, count, quick ? 10 : 240, driver));
    }
    const gpuRows = rows.filter((r) => r.driver === 'gpu');
    const marginal = gpuRows.length === 2 ? ((gpuRows[1].cpuMs - gpuRows[0].cpuMs) * 1000) / (gpuRows[1].eventsPerFrame - gpuRows[0].eventsPerFrame) : NaN;
    table(['instances', 'driver', 'CPU ms / frame (median)', 'p95', 'events / frame', 'µs per event', 'µs per event, marginal', 'bytes uploaded / frame', 'GPU ms (control + pose)', 'CPU ratio to the cpu driver'],
      rows.map((r) => {
        const base = rows.find((b) => b.instances === r.instances && b.driver === 'cpu')!;
        return [r.instances.toLocaleString('en'), r.driver, msText(r.cpuMs), msText(r.p95Ms), r.eventsPerFrame.toLocaleString('en'),
          r.driver === 'gpu' && r.eventsPerFrame > 0 ? ((r.cpuMs * 1000) / r.eventsPerFrame).toFixed(2) : 'n/a',
          r.driver === 'gpu' && r.instances === 100000 && Number.isFinite(marginal) ? marginal.toFixed(2) : 'n/a',
          r.uploadBytes.toLocaleString('en'), msText(r.gpuMs), r.driver === 'cpu' ? '1.00' : `1/${(base.cpuMs / r.cpuMs).toFixed(0)}`];
      }));
  }
  // --against A,B: a paired table per REF, in the order given.
  for (const ref of against?.split(',') ?? []) await pairedControllers(ref);
}

/** `--against REF`: the control frame and a steady crowd for this tree and REF in one process, in alternation (tools/bench/against.ts). */
async function pairedControllers(ref: string): Promise<void> {
  const { root, commit } = worktreeOf(ref);
  const libs = [await treeLibrary(process.cwd(), 'this tree'), await treeLibrary(root, ref)] as const;
  const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');
  const loadBefore = load();
  const loadAverageBefore = loadavg()[0];
  const frames = quick ? 60 : 600;
  const rows: PairedRow[] = await benchPaired(device, [libs[0], libs[1]], MODELS[2][1], quick ? [10000] : [100000], frames, (l) => console.error(l));
  print(`### This tree against ${ref}${commit.startsWith(ref) ? '' : ` (${commit.slice(0, 7)})`}, paired in one process`);
  print();
  print(`RobotExpressive; each tree's library (its own worktree, tools/bench/against.ts) driven by the same scene code, frame by frame in alternation (which goes first swaps every frame), ${frames} timed frames each after the warm-up (62 s for the gpu driver, 2 s for the steady crowd), so that a busy machine slows both alike: read the ratio, not the milliseconds. Controllers: the frame of the table above (inputs + CrowdControllers.update + crowd.update + encode + finish). Steady crowd: the same crowd without controllers, nothing changing (crowd.update + encode + finish). paletteSize Infinity: the section's crowd (a joint set per instance); default: CrowdOptions.paletteSize left out, as a page leaves it (65,536 joint sets since e0b8c4e, when the palette runs for more instances; before it, every set that fits). Load average (1, 5, 15 min) before: ${loadBefore}; after: ${load()}${Math.max(loadAverageBefore, loadavg()[0]) > cpus().length ? ` (above the ${cpus().length} cores: other programs shared the machine during the run, which is what the alternation is for)` : ''}.`);
  print();
  const msText = (v: number) => v.toFixed(3);
  table(['scene', 'instances', 'paletteSize', 'this tree: CPU ms (median)', 'p95', `${ref}: CPU ms (median)`, 'p95', `ratio (this tree / ${ref})`],
    rows.map((r) => [r.scene, r.instances.toLocaleString('en'), r.palette, msText(r.ours.median), msText(r.ours.p95), msText(r.ref.median), msText(r.ref.p95), r.ratio.toFixed(2)]));
}

/** `--section S --against REF` for the sections of tools/bench/paired-scenes.ts: each scene for this tree and REF in one process, in alternation. */
async function pairedSection(section: PairedSection, ref: string): Promise<void> {
  const { root, commit } = worktreeOf(ref);
  const libs = [await treeLibrary(process.cwd(), 'this tree'), await treeLibrary(root, ref)] as const;
  const load = () => loadavg().map((l) => l.toFixed(1)).join(', ');
  const loadBefore = load();
  const frames = quick ? 60 : 400, warmup = quick ? 20 : 100;
  const rows: (string | number)[][] = [];
  for (const spec of pairedSpecs(section, quick)) {
    console.error(`against ${ref}: ${spec.scene}, ${spec.instances} instances…`);
    (globalThis as { gc?: () => void }).gc?.();
    const scenes: [Scene, Scene] = [await spec.make(libs[0], device), await spec.make(libs[1], device)];
    const { times } = runPaired(scenes, warmup, frames);
    for (const s of scenes) s.destroy();
    const [a, b] = times;
    rows.push([spec.scene, spec.instances.toLocaleString('en'), median(a).toFixed(3), p95(a).toFixed(3), median(b).toFixed(3), p95(b).toFixed(3), (median(a) / median(b)).toFixed(2)]);
  }
  print(`### This tree against ${ref}${commit.startsWith(ref) ? '' : ` (${commit.slice(0, 7)})`}, paired in one process`);
  print();
  print(`Each tree's library (its own worktree, tools/bench/against.ts) driven by the same scene code (tools/bench/paired-scenes.ts), frame by frame in alternation (which goes first swaps every frame), ${frames} timed frames each after ${warmup}, not submitted: read the ratio, not the milliseconds. Load average (1, 5, 15 min) before: ${loadBefore}; after: ${load()}.`);
  print();
  table(['scene', 'instances', 'this tree: CPU ms (median)', 'p95', `${ref}: CPU ms (median)`, 'p95', `ratio (this tree / ${ref})`], rows);
}

/** The million section (tools/bench/million.ts): bytes, add time, and frames at 100k / 1M with 1% / 10% in view, ratios to 100k at 1%. */
async function millionSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
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
async function impostorsSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
  print(IMPOSTORS_HEADING);
  print();
  const swiftShader = /swiftshader/i.test(adapterName);
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${swiftShader ? ' (SwiftShader: a CPU emulating a GPU, so GPU times are CPU figures; the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  const bake = await benchImpostorBake(device, character);
  print(`${CROWD_MODEL[0]}: the atlas with the defaults (CrowdImpostors, docs/impostors.md): 3 clips x ${bake.frames} frames x ${bake.azimuths} azimuths x ${bake.elevations} elevations, ${bake.cellSize} x ${bake.cellSize} cells, ${bake.width} x ${bake.height} texels, ${(bake.bytes / 2 ** 20).toFixed(1)} MiB (the budget: 64 MiB); baked in ${bake.ms.toFixed(0)} ms (made, recorded and done on the GPU).`);
  print();
  // A mesh-only million is 216 M skinned vertices a frame: minutes a frame on SwiftShader, so there the meshes-only row is 100,000 (its vertices scale with the count).
  const many = quick ? 100_000 : 1_000_000;
  const meshMany = swiftShader || quick ? 100_000 : many;
  print(`${CROWD_MODEL[0]}es on a square grid (spacing 220), clips and times varied, every one in view (a camera straight down over the grid, 640 x 360 target, LOD as for a 1080-pixel-high view; culling, mesh and animation LOD on, the default palette), after 2 warm-up frames, medians of ${quick ? 2 : 3}. Vertices: the cull stats' (indices drawn; an impostor 4). GPU ms: the whole frame (cull, palette, pose, draw).${meshMany !== many ? ` On SwiftShader the meshes-only row is ${meshMany.toLocaleString('en')} (a million would be 216 M skinned vertices a frame, minutes on a CPU): its vertices grow with the count.` : ''}`);
  print();
  const rows: ImpostorRow[] = [];
  for (const [count, how] of [[10_000, 'meshes'], [meshMany, 'meshes'], [many, 'impostors']] as const) {
    console.error(`impostors: ${count} ${how}…`);
    rows.push(await benchImpostorFrame(device, character, count, how, quick ? 2 : 3));
  }
  const base = rows[0];
  table(['instances in view', 'drawn as', 'visible', 'as impostors', 'posed', 'vertices a frame', 'vertices / instance', 'CPU ms', 'GPU ms', 'GPU x 10,000 meshes'], rows.map((r) => [
    r.instances.toLocaleString('en'), r.how, r.visible.toLocaleString('en'), r.impostors.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'),
    (r.vertices / Math.max(r.visible, 1)).toFixed(1), ms(r.cpuMs), ms(r.gpuMs), (r.gpuMs / base.gpuMs).toFixed(2),
  ]));
  print(`GPU times by ${base.method}.`);
  print();
  // The band's cost: the same crowd, every Fox inside the band, drawn with no band (a cut at the switch: they are meshes) against the default band (each drawn as mesh and impostor, screen-door faded).
  const inBand = quick ? 400 : 2_500;
  print(`The band's per-frame cost: ${inBand.toLocaleString('en')} ${CROWD_MODEL[0]}es as above, every one inside the band (mesh LOD at the crowd's defaults: the band's meshes draw the switch's level; the viewport height set so the switch lies 1.2 x the camera's height away), drawn with band 0 (a cut at the switch: these Foxes, nearer than it, are meshes) against the default band 0.25 (each Fox drawn as its mesh and as its impostor, each screen-door faded); alternated: the mean of two runs' medians of ${quick ? 2 : 3} frames.`);
  print();
  const bandRows: ImpostorRow[] = [];
  for (const band of [0, 0.25, 0, 0.25]) {
    console.error(`impostors: band ${band}…`);
    bandRows.push(await benchImpostorFrame(device, character, inBand, 'impostors', quick ? 2 : 3, band));
  }
  const cut = (bandRows[0].gpuMs + bandRows[2].gpuMs) / 2;
  table(['band', 'in the band', 'posed', 'vertices a frame', 'GPU ms', 'x band 0'], [0, 1].map((k) => {
    const r = bandRows[k], gpu = (bandRows[k].gpuMs + bandRows[k + 2].gpuMs) / 2;
    return [k ? '0.25 (default)' : '0 (a cut: meshes)', r.band.toLocaleString('en'), r.posed.toLocaleString('en'), r.vertices.toLocaleString('en'), ms(gpu), (gpu / cut).toFixed(2)];
  }));
  print();
}

/** Two bodies sharing one ClipLibrary against each with its own copy (tools/bench/clip-library.ts). */
async function clipLibrarySection(): Promise<void> {
  print(CLIP_LIBRARY_HEADING);
  print();
  print('Two bodies of one skeleton (WalkerBody.glb loaded as two Characters) with the 19 clips of WalkerClips.glb (docs/clips.md): each loading the clips file itself (the baseline), against one loadClips library both use. CPU bytes: the baked track entries and track references both bodies hold, each array counted once. GPU: the table buffers a crowd of each body makes on one device. Load ms: both bodies and their clips, parsed, bound and baked (LOD off).');
  print();
  const rows = await benchClipLibrary(device, 'public/models/Walker');
  const base = rows[0];
  table(['how', 'load ms', 'x baseline', 'CPU table bytes', 'x baseline', 'GPU table buffers', 'GPU table bytes', 'x baseline'], rows.map((r) => [
    r.how, ms(r.loadMs), (r.loadMs / base.loadMs).toFixed(2), r.cpuBytes.toLocaleString('en'), (r.cpuBytes / base.cpuBytes).toFixed(2),
    r.gpuBuffers, r.gpuBytes.toLocaleString('en'), (r.gpuBytes / base.gpuBytes).toFixed(2),
  ]));
}

/** The picking section: frame time with one request against none, in one run; frames until the answer. */
async function threeShadingSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
  print(THREE_SHADING_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  print("crowd-skin/three (docs/three.md): Foxes walking and running on a grid, every one in view, in a three.js scene (ground, hemisphere light, directional light), three's WebGPURenderer in Node rendering into the bridge's 640 x 360 target (tools/bench/three-shading.ts). Frame ms: wall time from crowd.update to the GPU done (renderToTarget: pose pass, three's passes, and for 'crowd' our skin pass), median over the measured frames after 2 warm-up rounds, the variants interleaved frame by frame; ratio to 'crowd' in the same run. 'crowd': our skin pass (one fixed light, no shadows). 'three': shading 'three', three's MeshStandardNodeMaterial lit by the scene, no shadow map. 'three + shadows': the sun casts shadows (1024^2 map; the crowd is drawn again by three's shadow pass). Copy alone: the per-frame copy of the crowd's joints and records into three's buffers, submit to done.");
  print();
  const rows: ShadingRow[] = [];
  for (const count of quick ? [100] : [100, 1000]) {
    console.error(`three-shading: ${count} instances…`);
    rows.push(...await benchThreeShading(device, character, count, quick ? 2 : 3));
  }
  table(['instances', 'shading', 'frame ms', 'ratio to crowd'], rows.map((r) => [r.instances.toLocaleString('en'), r.variant, ms(r.frameMs), r.ratio.toFixed(r.ratio < 0.01 ? 5 : 2)]));
  const count = 10_000;
  print(`Culling and LOD in a three.js scene: the demo's ${count.toLocaleString('en')}-Fox crowd from the demo's default camera (OrbitCamera.frame), a ground, a hemisphere light and a sun casting shadows (2048^2 map over the whole crowd), ThreeCrowdRenderer.renderToTarget handing each crowd three's camera (tools/bench/three-shading.ts, benchThreeCulling). 'all on': culling, mesh LOD and animation LOD (the defaults); 'all off': none (every Fox drawn at full detail by three's view pass and again by its shadow pass). 'crowd' draws no shadow (its own shading). Frame ms as above (wall time, update to GPU done); visible and posed: the cull pass's counts; ratio to 'crowd' all on in the same run.`);
  print();
  console.error(`three-shading: ${count} instances, culling…`);
  const culled = await benchThreeCulling(device, character, count, quick ? 1 : 2);
  table(['instances', 'shading, culling and LOD', 'frame ms', 'visible', 'posed', "ratio to 'crowd' all on"],
    culled.map((r) => [count.toLocaleString('en'), r.variant, ms(r.frameMs), Math.round(r.visible).toLocaleString('en'), Math.round(r.posed).toLocaleString('en'), r.ratio.toFixed(2)]));
}

async function pickingSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
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

/** The appearance section: a crowd with per-instance appearance against the same crowd without it, in one run. */
async function appearanceSection(): Promise<void> {
  print(APPEARANCE_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  print('The Mannequin (4 parts, 2 variant images), the demo\'s crowd from the demo\'s default camera, culling and mesh LOD on, 640 x 360 (tools/bench/appearance.ts). plain: no CrowdAppearance. appearance: every instance tinted, on one of 3 variants and 3 part sets (set once). 1% changed: as appearance, and 1% of the tints set again before every frame; plain, 1% placed: the plain crowd with 1% of its transforms written again before every frame (the kernel\'s own record upload, a yardstick for that row). GPU ms: timestamp-query from the first compute pass to the end of the render pass (submit to done without timestamps), median of 6 frames after 2 warm-up rounds; CPU ms: update + encode + draw recording without submitting, median of 200 rounds after 10, before the GPU frames; the kinds interleaved round by round; ratios to plain in the same run.');
  print();
  const rows: AppearanceRow[] = [];
  const character = await characterFromFile('public/models/Mannequin/Mannequin.glb');
  for (const count of quick ? [1000] : [1000, 2000]) {
    console.error(`appearance: ${count} instances…`);
    rows.push(...await benchAppearance(device, character, count, quick ? 3 : 6, quick ? 20 : 200));
  }
  table(['instances', 'crowd', 'frame GPU ms', 'GPU ratio', 'CPU ms', 'CPU ratio', 'bytes uploaded a frame'], rows.map((r) => {
    const plain = rows.find((o) => o.instances === r.instances && o.kind === 'plain')!;
    return [r.instances.toLocaleString('en'), r.kind, ms(r.gpuMs), (r.gpuMs / plain.gpuMs).toFixed(3), ms(r.cpuMs), (r.cpuMs / plain.cpuMs).toFixed(3), r.uploaded.toLocaleString('en')];
  }));
}

/** The steering section: the steering pass against the pose pass of the same frames; CPU per frame; the scenario numbers. */
async function steeringSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
  print(STEERING_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  print(`${CROWD_MODEL[0]}, every instance an agent (radius 0.3 m, 1.3 m/s preferred, 1.8 m/s at most), packed 0.75 m apart in a square block left of a wall with a 1.5 m door every 10 m, all sharing a goal 20 m beyond it with a flow field (tools/bench/steering.ts); no camera (every instance posed). GPU ms: timestamp-query around the steering pass (grid counting sort, ORCA, move: six dispatches; then the position projection: iterations + 2 more; 0 iterations: the step without it) and around the pose pass of the same frame, median of the measured frames after one warm-up. CPU ms: crowd.update + encode without submitting, median of the rounds; steering's own hooks (prepare + encode) measured alone. Uploaded: bytes a frame without events (steering's uniforms: 64).`);
  print();
  const rows: SteeringRow[] = [];
  // 10,000 agents with the projection off first: the step without it, for the projection's share.
  for (const [count, iterations] of quick ? [[10000, 0], [10000, undefined]] : [[10000, 0], [10000, undefined], [100000, undefined]]) {
    console.error(`steering: ${count} agents, projection ${iterations ?? 'default'}…`);
    rows.push(await benchSteering(device, character, count!, quick ? 1 : 2, quick ? 5 : 20, iterations));
  }
  table(['agents', 'projection iterations', 'steering GPU ms', 'pose GPU ms', 'steering / pose', 'CPU ms a frame (update + encode)', "steering's hooks CPU ms", 'bytes uploaded a frame'], rows.map((r) => [
    r.agents.toLocaleString('en'), r.projectionIterations, ms(r.steeringMs), ms(r.poseMs), (r.steeringMs / r.poseMs).toFixed(2), ms(r.cpuFrameMs), r.cpuSteeringMs.toFixed(4), r.uploadedBytes.toLocaleString('en'),
  ]));
  print("A new goal's flow field on a 256 x 256 grid (cells of 0.5 m, three walls with doors; tools/bench/steering.ts benchFieldSlices), 100 agents sent to it: CPU ms of steering's hook (prepare: the field's slice and the uploads) in each frame until the field is ready, solved in the frame the goal appears (`cellsPerFrame: Infinity`, as before) or in slices of the default budget. Median over 7 goals after 2 warm-up goals; worst goal: the largest frame over the goals (a shared CPU included). First frame: the zeroed slot uploaded and the solve started; last: the field copied into its slot and uploaded (512 KB).");
  print();
  console.error('steering: flow field slices…');
  const slices = [benchFieldSlices(device, character, Infinity), benchFieldSlices(device, character, undefined)];
  table(['flowField.cellsPerFrame', 'largest frame ms (median over goals)', 'largest frame ms (worst goal)', 'median frame ms', 'first / last frame ms', 'frames until ready', 'hook ms summed over them'], slices.map((r) => [
    r.cellsPerFrame === Infinity ? 'Infinity (one-shot)' : `${r.cellsPerFrame.toLocaleString('en')} (default)`, r.largestFrameMs.toFixed(2), r.worstFrameMs.toFixed(2), r.medianFrameMs.toFixed(2),
    `${r.firstFrameMs.toFixed(2)} / ${r.lastFrameMs.toFixed(2)}`, r.frames, r.totalMs.toFixed(1),
  ]));
  print(`On WebGL 2 (GLCrowd), CrowdSteering steps with its TypeScript twin on the CPU (SteeringTwin; MAX_TWIN_AGENTS = 150 comes from this table: the largest count whose median step stays under 2 ms on the 2-core AMD EPYC it was set on). The bottleneck scenario scaled with the count (packed 0.75 m apart, a door off their line, a flow field; tools/bench/steering.ts benchSteeringTwin), 30 steps a second; CPU ms of one step, median and 90th percentile of ${quick ? 20 : 100} steps after 20 warm-up steps. Load average before: ${loadavg().map((v) => v.toFixed(1)).join(', ')}.`);
  print();
  console.error('steering: the twin on the CPU (WebGL 2)…');
  table(['agents', 'step CPU ms (median)', 'step CPU ms (p90)'], benchSteeringTwin([50, 100, 150, 200, 300], quick ? 20 : 100).map((r) => [r.agents, r.medianMs.toFixed(2), r.p90Ms.toFixed(2)]));
  print('Scenarios on the TypeScript twin of the step (tools/steering-scenes.ts; test/features/steering/ holds the GPU to the twin), 20 steps a second. Closest approach: the smallest centre distance over the sum of radii, over every pair and step (1 = touching). Overlapping pairs: pairs that came closer than 0.99 of their radii sum. In obstacles: agents whose centre came within 0.99 of their radius of an obstacle segment, or crossed one. Time to goal: until the last agent was within its radius of its goal (bottleneck: within 2.5 m, as all share one point). Short: agents not there at the end. Stalled: the most steps one agent spent below 1% of its preferred speed while short of its goal.');
  print();
  table(['scenario', 'agents', 'closest approach', 'overlapping pairs', 'in obstacles', 'time to goal s (last)', 'mean s', 'short of goal', 'stalled steps'], steeringScenes().map(([name, r]) => [
    name, r.agents, r.closestApproach.toFixed(3), r.overlappingPairs, r.agentsInObstacles, Number.isNaN(r.timeToGoal) ? 'n/a' : r.timeToGoal.toFixed(1), Number.isNaN(r.meanTimeToGoal) ? 'n/a' : r.meanTimeToGoal.toFixed(1), r.shortOfGoal, r.stalledSteps,
  ]));
}

/**
 * The draw section (tools/bench/draw.ts, issue 31): the skin pass against the floor in the culling
 * bench's two views, and against three.js's draw of the same crowd; then the steps recorded as
 * they were taken (DRAW_STEPS) and those tried and not kept (DRAW_TRIED), which one run cannot redo.
 */
async function drawSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
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

/** The WebGL 2 crowd's CPU culling (tools/bench/gl-cull.ts): ms a frame against a floor in the same run. */
async function glCullSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
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
async function webgl2Section(): Promise<void> {
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

/** The culling / LOD section: ratios to all-off in one run, per view. */
async function cullingSection(character: Awaited<ReturnType<typeof characterFromFile>>): Promise<void> {
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

print('## Load and bake, per bundled model');
print();
const bakeRows = [];
for (const [name, path] of MODELS) bakeRows.push(await benchBake(name, path));
table(['model', 'nodes', 'joint slots', 'clips', 'load ms (parse + validate + rig)', 'bake ms', 'baked table bytes'],
  bakeRows.map((r) => [r.model, r.nodes, r.joints, r.clips, ms(r.loadMs), ms(r.bakeMs), `${r.tableBytes.toLocaleString('en')} (${formatBytes(r.tableBytes)})`]));

const character = await characterFromFile(CROWD_MODEL[1]);
const joints = character.gpu.slotCount;
print(`## CPU per frame, ${CROWD_MODEL[0]} (${joints} joints), crowd mode`);
print();
print('update(dt) + encode (compute pass) + draw (render pass) + finish, median; command buffers not submitted (see tools/bench/ours.ts).');
print();
const frameRows: Awaited<ReturnType<typeof benchFrames>> = [];
for (const count of COUNTS) frameRows.push(...await benchFrames(device, character, count, quick ? 10 : count >= 100000 ? 20 : 60));
table(['instances', 'scenario', 'CPU ms / frame', 'bytes uploaded / frame'],
  frameRows.map((r) => [r.instances.toLocaleString('en'), r.scenario, ms(r.cpuMs), r.uploadBytes.toLocaleString('en')]));

print(`## Pose pass (compute) time, ${CROWD_MODEL[0]}`);
print();
const gpuRows: Awaited<ReturnType<typeof benchPosePass>>[] = [];
for (const count of quick ? [1000, 10000] : [1000, 10000, 100000]) gpuRows.push(await benchPosePass(device, character, count, count >= 100000 ? 2 : 5));
table(['instances', 'ms', 'ns per joint matrix', 'joint matrices / s', 'measured with'],
  gpuRows.map((r) => [r.instances.toLocaleString('en'), ms(r.ms), r.nsPerJointMatrix.toFixed(1), (1e9 / r.nsPerJointMatrix).toExponential(2), r.method]));

print('## Thread mapping: threads per instance (workgroup size), pose pass');
print();
print('One workgroup per instance, a thread per rig node (looping when the workgroup is smaller). Plain records, best of 3 rounds. The default is 32.');
print();
{
  const rows: (string | number)[][] = [];
  for (const [name, path] of [MODELS[0], MODELS[2]]) {
    const model = name === CROWD_MODEL[0] ? character : await characterFromFile(path);
    const count = quick ? 500 : 2000;
    const results: [number, number][] = [];
    for (const size of [32, 64, 128, 256]) results.push([size, (await benchLayerCodeCost(device, model, count, 3, size)).plainMs]);
    const best = Math.min(...results.map((r) => r[1]));
    for (const [size, t] of results) rows.push([name, model.gpu.nodeCount, count.toLocaleString('en'), size, ms(t), (t / best).toFixed(2)]);
  }
  table(['model', 'nodes', 'instances', 'threads per instance', 'pose pass ms', 'ratio to best'], rows);
}

print(`## Layered records against two-clip records, pose pass, ${CROWD_MODEL[0]}`);
print();
print('Plain two-clip records are posed by a pipeline with the layer-stack code compiled out; records with stacks by a second pipeline, in the same compute pass (PosePass). First table: the same plain records through each pipeline, which is what the split saves them. Second: a crowd of plain records against the same crowd with every instance carrying the largest stack (4 override layers, 2 masked, and 2 additive layers). Best of 3 interleaved rounds.');
print();
const layerCount = quick ? 1000 : 10000;
const cost = await benchLayerCodeCost(device, character, layerCount, 3);
table(['instances', 'plain records through', 'pose pass ms', 'ratio'], [
  [layerCount.toLocaleString('en'), 'the plain pipeline (what Crowd does)', ms(cost.plainMs), '1.00'],
  [layerCount.toLocaleString('en'), 'the layered pipeline (had they not been split off)', ms(cost.layeredPipelineMs), (cost.layeredPipelineMs / cost.plainMs).toFixed(2)],
]);
let plainCrowd = Infinity;
let stackedCrowd = Infinity;
for (let round = 0; round < 3; round++) {
  plainCrowd = Math.min(plainCrowd, (await benchPosePass(device, character, layerCount, 2)).ms);
  stackedCrowd = Math.min(stackedCrowd, (await benchPosePass(device, character, layerCount, 2, true)).ms);
}
table(['instances', 'records', 'pose pass ms', 'ratio', 'record bytes per instance'], [
  [layerCount.toLocaleString('en'), 'two-clip', ms(plainCrowd), '1.00', String(INSTANCE.size)],
  [layerCount.toLocaleString('en'), '4 override + 2 additive layers', ms(stackedCrowd), (stackedCrowd / plainCrowd).toFixed(2), `${INSTANCE.size} + ${LAYER_STACK.size} (stack)`],
]);

await controllerSection();

if (peer) {
  print(`## Against three.js (a mixer per instance), ${CROWD_MODEL[0]}, Walk + Run blended`);
  print();
  print('three.js: SkeletonUtils.clone + AnimationMixer per instance, two weighted actions, mixer.update + updateMatrixWorld + skeleton.update per frame (tools/bench/three-peer.ts). three.js re-blends every instance every frame, so ours is the like-for-like row above where every instance\'s blend changes every frame (the whole record buffer uploaded), not the steady crowd.');
  print();
  const peerRows: PeerRow[] = await benchThreePeer(CROWD_MODEL[1], ['Walk', 'Run'], COUNTS, { maxHeapBytes: 12e9, log: (l) => console.error(l) });
  table(['instances', 'three.js CPU ms / frame', 'ours CPU ms / frame', 'ratio (three.js / ours)', 'three.js joint matrices / s (CPU)', 'ours joint matrices / s (pose pass)'],
    peerRows.map((p) => {
      const ours = frameRows.find((r) => r.instances === p.instances && r.scenario === 'all records change')!;
      const gpu = gpuRows.find((r) => r.instances === p.instances);
      return [p.instances.toLocaleString('en'), Number.isFinite(p.msPerFrame) ? ms(p.msPerFrame) : p.note ?? 'skipped', ms(ours.cpuMs),
        Number.isFinite(p.msPerFrame) ? `${(p.msPerFrame / ours.cpuMs).toFixed(0)}x` : 'n/a',
        Number.isFinite(p.jointMatricesPerSecond) ? p.jointMatricesPerSecond.toExponential(2) : 'n/a',
        gpu ? (1e9 / gpu.nsPerJointMatrix).toExponential(2) : 'n/a'];
    }));
}

await cullingSection(character);
await millionSection(character);
await clipLibrarySection();
await pickingSection(character);
await threeShadingSection(character);
await appearanceSection();
await steeringSection(character);
await drawSection(character);
await loadFormatsSection(print, table, quick);
await glCullSection(character);
await webgl2Section();

device.destroy();
// Figures from another machine (a section headed '## On an NVIDIA ...', say) are kept at the end: this run cannot redo them.
const LENT_HEADING = '\n## On an ';
const previousFile = await readFile('BENCHMARKS.md', 'utf8').catch(() => '');
const lent = previousFile.includes(LENT_HEADING) ? previousFile.slice(previousFile.indexOf(LENT_HEADING)) : '';
if (!quick) await writeFile('BENCHMARKS.md', out.join('\n').trimEnd() + '\n' + lent);
console.error(quick ? '(--quick: BENCHMARKS.md not written)' : 'wrote BENCHMARKS.md');
process.exit(0);
