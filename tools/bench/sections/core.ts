/**
 * The full run's own sections (npm run bench without --section, tools/bench.ts), in its order:
 * load and bake per bundled model, the CPU per frame, the pose pass's time, its thread mapping,
 * layered records against two-clip ones; after the controllers section, three.js's mixers
 * against ours (threePeerSection, skipped by --no-peer), which reads the first ones' rows.
 */
import { formatBytes } from '../../../src/runtime/limits';
import { INSTANCE, LAYER_STACK } from '../../../src/runtime/layout';
import { benchBake, benchFrames, benchLayerCodeCost, benchPosePass, characterFromFile } from '../ours';
import { ms } from '../report';
import { benchThreePeer, type PeerRow } from '../three-peer';
import { CROWD_MODEL, MODELS, type BenchContext } from './context';

/** The crowd sizes of the CPU-per-frame rows and of three.js's. */
const counts = (quick: boolean) => (quick ? [1000, 10000] : [1000, 10000, 100000]);

/** The rows threePeerSection sets ours against: the CPU per frame and the pose pass's time. */
export interface CoreRows {
  readonly frameRows: Awaited<ReturnType<typeof benchFrames>>;
  readonly gpuRows: Awaited<ReturnType<typeof benchPosePass>>[];
}

/** Load and bake, CPU per frame, pose pass, thread mapping and layered records: the full run's first sections. */
export async function coreSections(ctx: BenchContext): Promise<CoreRows> {
  const { device, quick, print, table } = ctx;
  const COUNTS = counts(quick);
  print('## Load and bake, per bundled model');
  print();
  const bakeRows = [];
  for (const [name, path] of MODELS) bakeRows.push(await benchBake(name, path));
  table(['model', 'nodes', 'joint slots', 'clips', 'load ms (parse + validate + rig)', 'bake ms', 'baked table bytes'],
    bakeRows.map((r) => [r.model, r.nodes, r.joints, r.clips, ms(r.loadMs), ms(r.bakeMs), `${r.tableBytes.toLocaleString('en')} (${formatBytes(r.tableBytes)})`]));

  const character = await ctx.fox();
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

  return { frameRows, gpuRows };
}

/** Three.js with a mixer per instance against ours (tools/bench/three-peer.ts), beside `rows` of this run. */
export async function threePeerSection(ctx: BenchContext, { frameRows, gpuRows }: CoreRows): Promise<void> {
  const { quick, print, table } = ctx;
  const COUNTS = counts(quick);
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
