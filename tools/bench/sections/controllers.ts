/**
 * The animation-controller section of `npm run bench` (tools/bench/ours.ts, benchControllers) and
 * the tables `--against REF` adds: this tree against REF's worktree, scene by scene in one process
 * (tools/bench/against.ts; the controllers' scenes there, the other pairable sections' in
 * tools/bench/paired-scenes.ts).
 */
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { parseControllerConfig } from '../../../src/anim/control/config';
import { benchPaired, median, p95, runPaired, treeLibrary, worktreeOf, type PairedRow, type Scene } from '../against';
import { benchControllers, characterFromFile, type ControllerRow } from '../ours';
import { pairedSpecs, type PairedSection } from '../paired-scenes';
import { MODELS, type BenchContext } from './context';

/** The section's heading in BENCHMARKS.md. */
export const CONTROLLERS_HEADING = '## Animation controllers, RobotExpressive (crossfades, locomotion, action state machines)';

/** The animation-controller section: both drivers at 10,000 and 100,000, in one run; with --against, a paired table per REF. */
export async function controllersSection(ctx: BenchContext): Promise<void> {
  const { device, quick, print, table } = ctx;
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
  for (const ref of ctx.against) await pairedControllers(ctx, ref);
}

/** `--against REF`: the control frame and a steady crowd for this tree and REF in one process, in alternation (tools/bench/against.ts). */
async function pairedControllers(ctx: BenchContext, ref: string): Promise<void> {
  const { device, quick, print, table } = ctx;
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
export async function pairedSection(ctx: BenchContext, section: PairedSection, ref: string): Promise<void> {
  const { device, quick, print, table } = ctx;
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
