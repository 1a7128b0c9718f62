/**
 * The steering pass of several source trees against each other in one process (docs/steering.md,
 * Numbers): the steering section's bottleneck scene (tools/bench/steering.ts benchSteering's scene:
 * agents packed 0.75 m apart behind a wall with a door every 10 m, one goal and its flow field),
 * built once per tree with that tree's Crowd and CrowdSteering, then stepped frame by frame, the
 * trees taken in turn (the order reversed every other round). Each frame is timed twice over:
 * - whole: timestamp-query around the steering pass as it encodes it (one compute pass);
 * - split: the same dispatches, each in a compute pass of its own with timestamps around it (the
 *   encoder the pass records into is wrapped: its one compute pass becomes a pass per dispatch),
 *   labelled by the pipeline's label (SteeringPass.<entry point>), summed over repeats of one
 *   entry point (the projection's iterations).
 * Per tree: the median GPU ms over the rounds, and the median of the rounds' ratios to the first
 * tree (on a shared machine the paired ratios are what stays put). On SwiftShader the GPU ms are
 * CPU time of its threads: read the ratios. Each tree is a checkout of this repository
 * (`git archive <commit> | tar -x -C <dir>`, node_modules linked).
 *
 *   node --import ./tools/register.mjs tools/bench/steering-ab.ts <rounds> <agents> <iterations> <tree> <tree> ...
 *
 * <agents>: agents of the scene (1 to 1,000,000); <iterations>: projection iterations (0 to 16).
 */
import { openNodeDevice } from '../gpu-poser';
import { characterFromFile } from './ours';
import { CROWD_MODEL } from './sections/context';

const [rounds, agents, iterations] = process.argv.slice(2, 5).map(Number);
const trees = process.argv.slice(5);
if (!(rounds >= 1) || !(agents >= 1 && agents <= 1_000_000) || !(iterations >= 0 && iterations <= 16) || trees.length < 1) {
  throw new Error('usage: steering-ab.ts <rounds >= 1> <agents 1..1e6> <iterations 0..16> <tree> <tree> ...');
}
const names = trees.map((t) => t.split('/').pop()!);
const { device, adapterName } = await openNodeDevice({ maxStorageBufferBindingSize: 2 ** 30, maxBufferSize: 2 ** 30 });
// A tree whose pipelines fail validation would time stale timestamps: stop at its first error.
device.addEventListener('uncapturederror', (event) => {
  console.error(`steering-ab: a WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`);
  process.exit(1);
});
if (!device.features.has('timestamp-query')) throw new Error(`steering-ab: the adapter (${adapterName}) has no timestamp-query`);
const character = await characterFromFile(CROWD_MODEL[1]);
const med = (v: number[]): number => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

/** The most dispatches one step records (6 + 16 iterations + 2, and room for a few more). */
const MAX_DISPATCHES = 32;
const querySet = device.createQuerySet({ type: 'timestamp', count: 2 * MAX_DISPATCHES });
const resolve = device.createBuffer({ size: 16 * MAX_DISPATCHES, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const read = device.createBuffer({ size: 16 * MAX_DISPATCHES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });

interface Scene { crowd: { update(dt: number): void; destroy(): void }; steering: { encode(e: GPUCommandEncoder, stage: 'drive'): void; timestampWrites: GPUComputePassTimestampWrites | undefined } }

/** benchSteering's scene, with `tree`'s classes. */
async function scene(tree: string): Promise<Scene> {
  const { Crowd } = await import(`${tree}/src/runtime/crowd.ts`);
  const { CrowdSteering } = await import(`${tree}/src/features/steering/crowd-steering.ts`);
  const crowd = new Crowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: agents });
  const side = Math.ceil(Math.sqrt(agents));
  const depth = side * 0.75;
  const half = depth / 2 + 5;
  const steering = new CrowdSteering(crowd, { projectionIterations: iterations, flowField: { min: [-depth - 10, -half], max: [30, half], cellSize: Math.max(0.5, (depth + 40) / 512), clearance: 0.3 } });
  for (let z = -half; z < half; z += 10) steering.addObstacle([[0, z + 1.5], [0, Math.min(z + 10, half)]]);
  const positions = new Float32Array(agents * 3);
  for (let i = 0; i < agents; i++) {
    positions[3 * i] = -1 - (i % side) * 0.75;
    positions[3 * i + 2] = -depth / 2 + Math.floor(i / side) * 0.75;
  }
  const ids = crowd.addMany({ count: agents, positions, yaws: new Float32Array(agents).fill(Math.PI / 2), clipA: 0 });
  for (let i = 0; i < agents; i++) steering.addAgent(ids[i], { radius: 0.3, maxSpeed: 1.8, preferredSpeed: 1.3, goal: [20, 0] });
  while (steering.cpuModel.pendingFieldCount > 0) steering.cpuModel.advanceFields();
  return { crowd, steering };
}

/**
 * `real` with its compute passes split: each dispatch recorded into the pass it hands out runs in
 * a compute pass of its own, timestamps 2i and 2i + 1 around the i-th; `labels` gets the pipelines' labels.
 */
function splitting(real: GPUCommandEncoder, labels: string[]): GPUCommandEncoder {
  const beginComputePass = (): GPUComputePassEncoder => {
    let pipeline: GPUComputePipeline | undefined, group: GPUBindGroup | undefined;
    const fake = {
      setPipeline(p: GPUComputePipeline) { pipeline = p; },
      setBindGroup(_index: number, g: GPUBindGroup) { group = g; },
      dispatchWorkgroups(x: number, y = 1, z = 1) {
        const i = labels.length;
        if (i >= MAX_DISPATCHES) throw new Error(`steering-ab: more than ${MAX_DISPATCHES} dispatches`);
        labels.push(pipeline!.label);
        const pass = real.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
        pass.setPipeline(pipeline!);
        pass.setBindGroup(0, group!);
        pass.dispatchWorkgroups(x, y, z);
        pass.end();
      },
      end() {},
    };
    return fake as unknown as GPUComputePassEncoder;
  };
  return new Proxy(real, {
    get(target, key) {
      if (key === 'beginComputePass') return beginComputePass;
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** One step of `s`: whole (the pass's own timestamps) or split; GPU ms by label ('whole' for the whole pass). */
async function step(s: Scene, split: boolean): Promise<Map<string, number>> {
  s.crowd.update(1 / 30);
  const encoder = device.createCommandEncoder();
  const labels: string[] = [];
  if (split) s.steering.encode(splitting(encoder, labels), 'drive');
  else {
    s.steering.timestampWrites = { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 };
    s.steering.encode(encoder, 'drive');
    s.steering.timestampWrites = undefined;
    labels.push('whole');
  }
  encoder.resolveQuerySet(querySet, 0, 2 * labels.length, resolve, 0);
  encoder.copyBufferToBuffer(resolve, 0, read, 0, 16 * labels.length);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const t = new BigUint64Array(read.getMappedRange());
  const ms = new Map<string, number>();
  labels.forEach((label, i) => {
    const name = label.replace('SteeringPass.', '');
    ms.set(name, (ms.get(name) ?? 0) + Number(t[2 * i + 1] - t[2 * i]) / 1e6);
  });
  read.unmap();
  return ms;
}

const scenes: Scene[] = [];
for (const tree of trees) scenes.push(await scene(tree));
for (const s of scenes) { await step(s, false); await step(s, true); } // warm-up
const times: Map<string, number[]>[] = trees.map(() => new Map());
const ratios: Map<string, number[]>[] = trees.map(() => new Map());
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...scenes.keys()].reverse() : [...scenes.keys()];
  const got: Map<string, number>[] = [];
  for (const i of order) {
    const whole = await step(scenes[i], false);
    const split = await step(scenes[i], true);
    const all = new Map([...whole, ...split]);
    all.set('split sum', [...split.values()].reduce((a, b) => a + b, 0));
    got[i] = all;
    console.error(`round ${round}, ${names[i]}: ` + [...all].map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', '));
  }
  got.forEach((all, i) => {
    for (const [k, v] of all) {
      if (!times[i].has(k)) { times[i].set(k, []); ratios[i].set(k, []); }
      times[i].get(k)!.push(v);
      const base = got[0].get(k);
      if (base !== undefined) ratios[i].get(k)!.push(v / base);
    }
  });
}
console.log(`steering-ab: ${agents} agents, ${iterations} projection iterations, ${rounds} rounds, ${adapterName}`);
for (let i = 0; i < trees.length; i++) {
  const row = [...times[i]].map(([k, v]) => {
    const r = ratios[i].get(k)!;
    const spread = r.length ? ` [${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)}]` : '';
    return `${k} ${med(v).toFixed(3)} ms` + (i > 0 && r.length ? ` (x ${med(r).toFixed(2)}${spread})` : '');
  });
  console.log(`${names[i]}: ${row.join('; ')}`);
}
for (const s of scenes) s.crowd.destroy();
process.exit(0);
