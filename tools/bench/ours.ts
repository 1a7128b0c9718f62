/**
 * Measurements of this project's path: load/bake per model, CPU per frame for a crowd, and the
 * pose pass's GPU time. Used by tools/bench.ts.
 */
import { fullCrowd } from './full-crowd';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { MeshoptSimplifier } from '../../src/bake/meshopt-simplifier';
import { loadCharacter, type Character } from '../../src/character/character';
import type { ControllerConfig } from '../../src/anim/control/config';
import { Crowd } from '../../src/runtime/crowd';
import { InstanceRecords } from '../../src/runtime/instance-records';
import { PosePass } from '../../src/runtime/pose-pass';
import { CrowdControllers } from '../../src/features/controllers/crowd-controllers';
import { readGltfFile } from '../node-io';
import { seededRandom } from '../random';
import { INSTANCE, LAYER_STACK } from '../../src/runtime/layout';

/** A model file loaded as the demo loads it, with mesh LOD levels (the culling section measures them). */
export async function characterFromFile(path: string): Promise<Character> {
  const bytes = await readFile(path);
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, {
    lod: { simplifier: MeshoptSimplifier },
    readResource: async (url) => { throw new Error(`external resource ${url} not supported by the bench`); },
  });
}

export interface BakeRow { model: string; loadMs: number; bakeMs: number; tableBytes: number; clips: number; nodes: number; joints: number }

/** Load (parse + validate + rig) and bake time per model: median of `runs`. */
export async function benchBake(name: string, path: string, runs = 5): Promise<BakeRow> {
  await readGltfFile(path); // warm the module and file caches
  const load: number[] = [];
  const bakeMs: number[] = [];
  let character!: Character;
  for (let i = 0; i < runs; i++) {
    character = await characterFromFile(path);
    load.push(character.timings.loadMs);
    bakeMs.push(character.timings.bakeMs);
  }
  return {
    model: name, loadMs: median(load), bakeMs: median(bakeMs), tableBytes: character.bakedBytes,
    clips: character.clipNames.length, nodes: character.rig.nodes.count, joints: character.gpu.slotCount,
  };
}

export interface FrameRow { instances: number; scenario: string; cpuMs: number; uploadBytes: number }

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const VIEW_PROJECTION = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0.5, 0, 0, 0, 0.5, 1]);

/** Random clips, times, blend and speed per instance, on a grid. */
export function fillCrowd(crowd: Crowd, count: number, seed = 1): void {
  const next = seededRandom(seed);
  const clips = crowd.character.clipNames.length;
  const side = Math.ceil(Math.sqrt(count));
  const transform = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  crowd.clear();
  for (let i = 0; i < count; i++) {
    transform[12] = (i % side) * 2;
    transform[14] = Math.floor(i / side) * 2;
    crowd.add({
      transform, clipA: Math.floor(next() * clips), clipB: Math.floor(next() * clips), blend: next(),
      timeA: next() * 10, timeB: next() * 10, speedA: 0.5 + next(), speedB: 0.5 + next(),
    });
  }
}

/**
 * CPU ms per frame for `count` instances: update(dt) (clock, record upload, uniform) +
 * encode (compute pass) + draw (render pass) + finish, median over the frames. Command buffers
 * are recorded but not submitted: on SwiftShader the GPU is the same two CPU cores, and its work
 * would be timed as ours (GPU time is measured separately). Scenarios: 'steady' (a crowd mode
 * crowd whose records do not change: nothing is uploaded) and 'all records change' (every
 * instance's blend set every frame: the whole record buffer is uploaded).
 */
export async function benchFrames(device: GPUDevice, character: Character, count: number, frames: number): Promise<FrameRow[]> {
  const crowd = fullCrowd(device, character, { ...FORMATS, capacity: count });
  fillCrowd(crowd, count);
  const color = device.createTexture({ size: [64, 64], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [64, 64], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const passDescriptor: GPURenderPassDescriptor = {
    colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store' }],
    depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
  };
  const rows: FrameRow[] = [];
  for (const scenario of ['steady', 'all records change'] as const) {
    const times: number[] = [];
    crowd.update(0); // first upload is not a frame
    for (let f = 0; f < frames + 3; f++) {
      const start = performance.now();
      if (scenario !== 'steady') for (let id = 0; id < count; id++) crowd.setBlend(id, (f % 10) / 10);
      crowd.update(1 / 60);
      const encoder = device.createCommandEncoder();
      crowd.encode(encoder);
      const pass = encoder.beginRenderPass(passDescriptor);
      crowd.draw(pass, VIEW_PROJECTION);
      pass.end();
      encoder.finish();
      if (f >= 3) times.push(performance.now() - start);
    }
    rows.push({ instances: count, scenario, cpuMs: median(times), uploadBytes: scenario === 'steady' ? 0 : count * INSTANCE.size });
  }
  color.destroy(); depth.destroy(); crowd.destroy();
  return rows;
}

export interface GpuRow { instances: number; ms: number; nsPerJointMatrix: number; method: string }

/**
 * Pose-pass time for `count` instances: GPU timestamps when the adapter has timestamp-query,
 * else wall time from submit to completion. Median of `runs` after one warm-up.
 */
export async function benchPosePass(device: GPUDevice, character: Character, count: number, runs: number, fullStacks = false): Promise<GpuRow> {
  const crowd = fullCrowd(device, character, { ...FORMATS, capacity: count });
  fillCrowd(crowd, count);
  if (fullStacks) addFullStacks(crowd, count);
  crowd.update(0);
  const timestamps = device.features.has('timestamp-query');
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
  const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const times: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder, querySet && { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 });
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
      encoder.copyBufferToBuffer(resolve, 0, read, 0, 16);
    }
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    const wall = performance.now() - start;
    let ms = wall;
    if (querySet) {
      await read.mapAsync(GPUMapMode.READ);
      const [begin, end] = new BigUint64Array(read.getMappedRange());
      ms = Number(end - begin) / 1e6;
      read.unmap();
    }
    if (r > 0) times.push(ms);
  }
  querySet?.destroy(); resolve.destroy(); read.destroy(); crowd.destroy();
  const ms = median(times);
  return { instances: count, ms, nsPerJointMatrix: (ms * 1e6) / (count * character.gpu.slotCount), method: timestamps ? 'timestamp-query' : 'submit to done' };
}

/**
 * Gives every instance the largest stack the GPU record holds: 4 override layers (two masked)
 * and 2 additive layers (one against the rest pose, one against a clip), all with weight > 0.
 */
export function addFullStacks(crowd: Crowd, count: number): void {
  const names = crowd.character.rig.nodes.names;
  const upper = crowd.createMask({ root: names[Math.floor(names.length / 3)] });
  const soft = crowd.createMask({ weights: { [names[names.length - 1]]: 1 }, default: 0.5 });
  const clips = crowd.character.clipNames.length;
  for (let id = 0; id < count; id++) {
    const clip = (k: number) => (id + k) % clips;
    crowd.setLayers(id, {
      layers: [
        { clip: clip(1), time: 0.1, weight: 0.5 }, { clip: clip(2), time: 0.2, weight: 0.7, mask: upper },
        { clip: clip(0), time: 0.3, weight: 0.3, mask: soft }, { clip: clip(1), time: 0.4, weight: 0.6 },
      ],
      additive: [
        { clip: clip(2), time: 0.5, weight: 0.5, reference: 'rest' },
        { clip: clip(0), time: 0.6, weight: 0.4, reference: { clip: clip(0), time: 0 }, mask: upper },
      ],
    });
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}


export interface ControllerRow {
  driver: 'cpu' | 'gpu';
  instances: number;
  /** CPU ms per frame: inputs + controllers.update + crowd.update + encode + finish (median, 95th percentile). */
  cpuMs: number;
  p95Ms: number;
  /** Controllers touched per frame: GPU-driven, the rewritten records (commands, due transitions, refreshes); CPU-driven, all. */
  eventsPerFrame: number;
  /** Bytes written to GPU buffers per frame (median). */
  uploadBytes: number;
  /** Submit to done of one frame's compute (control + pose passes), ms, median of a few frames. */
  gpuMs: number;
}

/**
 * CPU ms per frame for `count` RobotExpressive instances under animation controllers driven by
 * `driver`, with the inputs of a living crowd applied inside the timed region (about 1 in 300
 * instances changes speed or requests a random action each frame). Median and 95th percentile
 * over `frames` after a simulated warm-up (2 s; for the gpu driver 62 s, so that the timed frames
 * fall in the refresh sweep of its second control period: its steady state includes the refreshes);
 * then the GPU time of a few submitted frames.
 */
export async function benchControllers(device: GPUDevice, character: Character, config: ControllerConfig, count: number, frames: number, driver: 'cpu' | 'gpu',
  gpuFrames = count >= 100000 ? 1 : 3): Promise<ControllerRow> {
  // The previous row's crowd is garbage now: collect it here (node --expose-gc), not in our frames.
  (globalThis as { gc?: () => void }).gc?.();
  const crowd = fullCrowd(device, character, { ...FORMATS, capacity: count });
  const controllers = new CrowdControllers(crowd, config, { driver });
  const next = seededRandom(5);
  const side = Math.ceil(Math.sqrt(count));
  const actions = config.actions.map((a) => a.name);
  for (let i = 0; i < count; i++) {
    const id = crowd.add();
    controllers.add(id, (i % side) * 3, Math.floor(i / side) * 3, next() * 6.28).setSpeed(next() * 2);
  }
  // Setting up 100,000 controllers leaves garbage of its own: collect it before the frames too.
  (globalThis as { gc?: () => void }).gc?.();
  const times: number[] = [];
  const events: number[] = [];
  const bytes: number[] = [];
  const dt = 1 / 60;
  // 2 s: the crowd settles into its gaits before timing starts; the gpu driver's first period has
  // no refreshes (every record is written in it), so it warms up into the second one's sweep.
  const warmup = driver === 'gpu' ? 62 * 60 : 120;
  const frame = (submit: boolean) => {
    // Inputs of a living crowd: about 1 in 300 instances changes speed or starts an action each frame.
    for (let k = 0; k < count / 300; k++) {
      const c = controllers.get(Math.floor(next() * count));
      if (next() < 0.5) c.setSpeed(next() * 2); else if (actions.length) c.requestAction(actions[Math.floor(next() * actions.length)]);
    }
    controllers.update(dt);
    crowd.update(dt);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder);
    const commands = encoder.finish();
    if (submit) device.queue.submit([commands]);
  };
  for (let f = 0; f < frames + warmup; f++) {
    const t0 = performance.now();
    frame(false);
    const t1 = performance.now();
    if (f >= warmup) {
      times.push(t1 - t0);
      events.push(driver === 'gpu' ? controllers.gpuStats.events : count);
      bytes.push(crowd.uploadedBytes + controllers.gpuStats.uploadBytes);
    }
  }
  const gpu: number[] = [];
  // A software adapter takes seconds per frame at these counts: by default one frame at 100,000.
  for (let f = 0; f < gpuFrames; f++) {
    frame(true);
    const t0 = performance.now();
    await device.queue.onSubmittedWorkDone();
    gpu.push(performance.now() - t0);
  }
  crowd.destroy();
  const sorted = [...times].sort((a, b) => a - b);
  return {
    driver, instances: count, cpuMs: median(times), p95Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))],
    eventsPerFrame: median(events), uploadBytes: median(bytes), gpuMs: gpu.length ? median(gpu) : NaN,
  };
}

/**
 * What the layer code would cost plain records if the pass did not split them off: the same
 * `count` plain two-clip records posed by the plain pipeline (how Crowd runs them) and by the
 * layered pipeline (which contains the stack code). GPU ms, best of `rounds` interleaved rounds.
 */
export async function benchLayerCodeCost(device: GPUDevice, character: Character, count: number, rounds: number, workgroupSize?: number): Promise<{ plainMs: number; layeredPipelineMs: number }> {
  const pass = new PosePass(device, character.gpu, { workgroupSize });
  const records = new InstanceRecords(count, character.clipDurations);
  const next = seededRandom(3);
  const clips = character.clipNames.length;
  const world = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  for (let i = 0; i < count; i++) {
    records.setWorld(i, world);
    records.clearLayers(i);
    records.setAnimation(i, {
      clipA: Math.floor(next() * clips), clipB: Math.floor(next() * clips), timeA: next() * 5, timeB: next() * 5, speedA: 1, speedB: 1, blend: next(),
    }, 0);
  }
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
  const instances = device.createBuffer({ size: records.bytes.byteLength, usage });
  const stacks = device.createBuffer({ size: LAYER_STACK.size, usage }); // one stack: the layered pipeline's binding minimum
  const masks = device.createBuffer({ size: 256, usage });
  const joints = device.createBuffer({ size: pass.jointBytes(count), usage });
  records.upload(device.queue, instances);
  const identity = device.createBuffer({ size: count * 4, usage });
  device.queue.writeBuffer(identity, 0, Uint32Array.from({ length: count }, (_, i) => i));
  // The same buffers presented as all plain, then as all layered (records without stacks): the
  // partition a Crowd's store would never make, which is the point of the comparison.
  const buffers = {
    instanceBuffer: instances, layerStackBuffer: stacks, masksBuffer: masks, jointBuffer: joints, generation: 0,
    identityListBuffer: identity, poseListBuffer: identity, jointEntryBuffer: identity, listStride: count,
  };
  const asPlain = { ...buffers, plainCount: count, layeredCount: 0 };
  const asLayered = { ...buffers, plainCount: 0, layeredCount: count };
  const time = async (plain: boolean) => {
    pass.update(plain ? asPlain : asLayered, 0);
    const encoder = device.createCommandEncoder();
    const querySet = device.features.has('timestamp-query') ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
    const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    device.pushErrorScope('validation');
    pass.encode(encoder, querySet && { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 });
    if (querySet) { encoder.resolveQuerySet(querySet, 0, 2, resolve, 0); encoder.copyBufferToBuffer(resolve, 0, read, 0, 16); }
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    // A refused dispatch would time nothing: fail rather than print a zero.
    const error = await device.popErrorScope();
    if (error) throw new Error(`benchLayerCodeCost: the pose pass was refused: ${error.message}`);
    let ms = performance.now() - start;
    if (querySet) {
      await read.mapAsync(GPUMapMode.READ);
      const [b, e] = new BigUint64Array(read.getMappedRange());
      ms = Number(e - b) / 1e6;
    }
    querySet?.destroy(); resolve.destroy(); read.destroy();
    return ms;
  };
  let plainMs = Infinity;
  let layeredPipelineMs = Infinity;
  await time(true); await time(false); // warm-up
  for (let r = 0; r < rounds; r++) {
    plainMs = Math.min(plainMs, await time(true));
    layeredPipelineMs = Math.min(layeredPipelineMs, await time(false));
  }
  for (const b of [instances, stacks, masks, joints, identity]) b.destroy();
  pass.destroy();
  return { plainMs, layeredPipelineMs };
}
