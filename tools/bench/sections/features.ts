/**
 * The sections of `npm run bench` that measure a feature against the same crowd without it: two
 * bodies sharing one clip library (tools/bench/clip-library.ts), shading in a three.js scene
 * (three-shading.ts), per-instance appearance (appearance.ts) and steering (steering.ts).
 */
import { loadavg } from 'node:os';
import { benchAppearance, type AppearanceRow } from '../appearance';
import { benchClipLibrary } from '../clip-library';
import { characterFromFile } from '../ours';
import { ms } from '../report';
import { benchFieldSlices, benchSteering, benchSteeringTwin, steeringScenes, type SteeringRow } from '../steering';
import { benchThreeCulling, benchThreeShading, type ShadingRow } from '../three-shading';
import { CROWD_MODEL, type BenchContext } from './context';

/** The sections' headings in BENCHMARKS.md. */
export const CLIP_LIBRARY_HEADING = '## Two bodies, one clip library (Walker)';
export const THREE_SHADING_HEADING = "## In a three.js scene: shading 'crowd' against shading 'three', Fox";
export const APPEARANCE_HEADING = '## Per-instance appearance: cost per frame against a plain crowd, Mannequin';
export const STEERING_HEADING = '## Steering: the bottleneck scaled up, Fox (ORCA, grid, flow field on the GPU)';

/** Two bodies sharing one ClipLibrary against each with its own copy (tools/bench/clip-library.ts). */
export async function clipLibrarySection(ctx: BenchContext): Promise<void> {
  const { device, print, table } = ctx;
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

/** The three.js section: our skin pass against three's shading of the crowd, then culling and LOD in a three.js scene; ratios to 'crowd' in one run. */
export async function threeShadingSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
  print(THREE_SHADING_HEADING);
  print();
  print(`Measured ${new Date().toISOString().slice(0, 10)} on ${adapterName}${/swiftshader/i.test(adapterName) ? ' (SwiftShader: the ratios stand in for a GPU\'s)' : ''}.`);
  print();
  print("crowd-skin/three (docs/three.md): Foxes walking and running on a grid, every one in view, in a three.js scene (ground, hemisphere light, directional light), three's WebGPURenderer in Node rendering into the bridge's 640 x 360 target (tools/bench/three-shading.ts). Frame ms: wall time from crowd.update to the GPU done (renderToTarget: pose pass, three's passes, and for 'crowd' our skin pass), median over the measured frames after 2 warm-up rounds, the variants interleaved frame by frame; ratio to 'crowd' in the same run. 'crowd': our skin pass (one fixed light, no shadows). 'three': shading 'three', three's MeshStandardNodeMaterial lit by the scene, no shadow map. 'three + shadows': the sun casts shadows (1024^2 map; the crowd is drawn again by three's shadow pass). Copy alone: the per-frame copy of the crowd's joints and records into three's buffers, submit to done. Calling thread ms: the frame's wall ms until renderToTarget returns (update, three's and our JavaScript, Dawn's encoding and submits; the GPU idle as the frame starts): what of the frame is the calling thread's, which a GPU does not change.");
  print();
  const rows: ShadingRow[] = [];
  for (const count of quick ? [100] : [100, 1000]) {
    console.error(`three-shading: ${count} instances…`);
    rows.push(...await benchThreeShading(device, character, count, quick ? 2 : 9));
  }
  table(['instances', 'shading', 'frame ms', 'ratio to crowd', 'calling thread ms'], rows.map((r) => [r.instances.toLocaleString('en'), r.variant, ms(r.frameMs), r.ratio.toFixed(r.ratio < 0.01 ? 5 : 2), Number.isNaN(r.callingMs) ? 'n/a' : ms(r.callingMs)]));
  const count = 10_000;
  print(`Culling and LOD in a three.js scene: the demo's ${count.toLocaleString('en')}-Fox crowd from the demo's default camera (OrbitCamera.frame), a ground, a hemisphere light and a sun casting shadows (2048^2 map over the whole crowd), ThreeCrowdRenderer.renderToTarget handing each crowd three's camera (tools/bench/three-shading.ts, benchThreeCulling). 'all on': culling, mesh LOD and animation LOD (the defaults); 'all off': none (every Fox drawn at full detail by three's view pass and again by its shadow pass). 'crowd' draws no shadow (its own shading). Frame ms as above (wall time, update to GPU done); visible and posed: the cull pass's counts; ratio to 'crowd' all on in the same run.`);
  print();
  console.error(`three-shading: ${count} instances, culling…`);
  const culled = await benchThreeCulling(device, character, count, quick ? 1 : 2);
  table(['instances', 'shading, culling and LOD', 'frame ms', 'visible', 'posed', "ratio to 'crowd' all on"],
    culled.map((r) => [count.toLocaleString('en'), r.variant, ms(r.frameMs), Math.round(r.visible).toLocaleString('en'), Math.round(r.posed).toLocaleString('en'), r.ratio.toFixed(2)]));
}

/** The appearance section: a crowd with per-instance appearance against the same crowd without it, in one run. */
export async function appearanceSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
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
export async function steeringSection(ctx: BenchContext): Promise<void> {
  const { device, adapterName, quick, print, table } = ctx;
  const character = await ctx.fox();
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
