/**
 * Steering's cost (src/features/steering/): the bottleneck scene scaled up (a crowd in a block
 * left of a long wall with doors, sharing a goal beyond it, with a flow field), every instance an
 * agent; GPU ms of the steering pass against the pose pass of the same frame (timestamp-query on
 * each pass), and the CPU ms a frame costs: crowd.update + encode, and steering's own hooks within
 * it. Then the scenario numbers of docs/steering.md, on the twin. Used by tools/bench.ts (--section steering).
 */
import type { Character } from '../../src/character/character';
import { CrowdSteering } from '../../src/features/steering/crowd-steering';
import { AGENT_STATE, PROJECTION_ITERATIONS, STEERING_PARAMS } from '../../src/features/steering/layout';
import { stepSteering, tableSizeFor } from '../../src/features/steering/step';
import { Crowd } from '../../src/runtime/crowd';
import { bottleneck, circleSwap, corridorCrossing, runScene, type SceneReport } from '../steering-scenes';
import { median } from './timed-frame';

export interface SteeringRow {
  agents: number;
  /** CrowdSteeringOptions.projectionIterations of the run (0: ORCA's step alone). */
  projectionIterations: number;
  steeringMs: number;
  poseMs: number;
  cpuFrameMs: number;
  cpuSteeringMs: number;
  uploadedBytes: number;
  method: string;
}

/**
 * The bottleneck at `count` agents: block of rows 0.75 m apart left of x = 0, a wall there with a
 * door every 10 m, goal 20 m right; `projectionIterations` of the position projection (default: the option's default).
 */
export async function benchSteering(device: GPUDevice, character: Character, count: number, frames: number, cpuRounds: number, projectionIterations = PROJECTION_ITERATIONS): Promise<SteeringRow> {
  const crowd = new Crowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: count });
  const side = Math.ceil(Math.sqrt(count));
  const depth = side * 0.75;
  const half = depth / 2 + 5;
  const steering = new CrowdSteering(crowd, { projectionIterations, flowField: { min: [-depth - 10, -half], max: [30, half], cellSize: Math.max(0.5, (depth + 40) / 512), clearance: 0.3 } });
  for (let z = -half; z < half; z += 10) steering.addObstacle([[0, z + 1.5], [0, Math.min(z + 10, half)]]);
  const positions = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) {
    positions[3 * i] = -1 - (i % side) * 0.75;
    positions[3 * i + 2] = -depth / 2 + Math.floor(i / side) * 0.75;
  }
  const ids = crowd.addMany({ count, positions, yaws: new Float32Array(count).fill(Math.PI / 2), clipA: 0 });
  for (let i = 0; i < count; i++) steering.addAgent(ids[i], { radius: 0.3, maxSpeed: 1.8, preferredSpeed: 1.3, goal: [20, 0] });
  // The field solved before the frames (in slices it would take a few frames' hooks): frames without events.
  while (steering.cpuModel.pendingFieldCount > 0) steering.cpuModel.advanceFields();
  const timestamps = device.features.has('timestamp-query');
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 4 }) : undefined;
  const resolve = device.createBuffer({ size: 32, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 32, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  steering.timestampWrites = querySet && { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 };
  const steeringMs: number[] = [], poseMs: number[] = [];
  for (let f = 0; f < frames + 1; f++) {
    crowd.update(1 / 30);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder, undefined, querySet && { querySet, beginningOfPassWriteIndex: 2, endOfPassWriteIndex: 3 });
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 4, resolve, 0);
      encoder.copyBufferToBuffer(resolve, 0, read, 0, 32);
    }
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (!querySet || f === 0) continue;
    await read.mapAsync(GPUMapMode.READ);
    const t = new BigUint64Array(read.getMappedRange());
    steeringMs.push(Number(t[1] - t[0]) / 1e6);
    poseMs.push(Number(t[3] - t[2]) / 1e6);
    read.unmap();
  }
  steering.timestampWrites = undefined;
  // CPU: update + encode without submitting (nothing waits on the GPU), and steering's hooks alone.
  const whole: number[] = [], own: number[] = [];
  for (let r = 0; r < cpuRounds; r++) {
    const t0 = performance.now();
    crowd.update(0);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder);
    const t1 = performance.now();
    steering.prepare(crowd.clock);
    steering.encode(encoder, 'drive');
    const t2 = performance.now();
    encoder.finish();
    whole.push(t1 - t0);
    own.push(t2 - t1);
  }
  crowd.update(0);
  const row: SteeringRow = {
    agents: count, projectionIterations, steeringMs: timestamps ? median(steeringMs) : NaN, poseMs: timestamps ? median(poseMs) : NaN,
    cpuFrameMs: median(whole), cpuSteeringMs: median(own), uploadedBytes: crowd.uploadedBytes, method: timestamps ? 'timestamp-query' : 'none',
  };
  querySet?.destroy();
  resolve.destroy();
  read.destroy();
  crowd.destroy();
  return row;
}

/** A new goal's flow field, solved at once or in slices (benchFieldSlices). */
export interface FieldSliceRow {
  /** flowField.cellsPerFrame of the run (Infinity: the whole field in the frame the goal appears). */
  cellsPerFrame: number;
  /** The largest CPU ms of one frame's steering hook (prepare) while a new goal's field is solved: median over the goals. */
  largestFrameMs: number;
  /** The same, the worst goal. */
  worstFrameMs: number;
  /** The median CPU ms of one frame's hook, over every frame of every goal. */
  medianFrameMs: number;
  /** Median over the goals of the first frame (the goal's zeroed slot uploaded, the solve's arrays made) and the last (the field copied into its slot and uploaded). */
  firstFrameMs: number;
  lastFrameMs: number;
  /** Frames until the field is ready (median over the goals). */
  frames: number;
  /** CPU ms of the hooks summed over those frames (median over the goals). */
  totalMs: number;
}

/**
 * A new goal on a 256 x 256 flow field (cells of 0.5 m over 128 m, walls with doors), `agents`
 * agents sent to it: for each of `goals` goals, the CPU ms of each frame's steering hook
 * (CrowdSteering.prepare: the field's slice, the uploads) until the field is ready, with
 * flowField.cellsPerFrame `cellsPerFrame`. Two goals first to warm up (JIT).
 */
export function benchFieldSlices(device: GPUDevice, character: Character, cellsPerFrame: number | undefined, goals = 7, agents = 100): FieldSliceRow {
  const crowd = new Crowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: agents });
  const steering = new CrowdSteering(crowd, { flowField: { min: [-64, -64], max: [64, 64], cellSize: 0.5, clearance: 0.3, cellsPerFrame } });
  for (const x of [-32, 0, 32]) {
    steering.addObstacle([[x, -64], [x, -4]]);
    steering.addObstacle([[x, 4], [x, 64]]);
  }
  const positions = new Float32Array(agents * 3);
  for (let i = 0; i < agents; i++) { positions[3 * i] = -50 + (i % 10); positions[3 * i + 2] = Math.floor(i / 10); }
  const ids = crowd.addMany({ count: agents, positions, yaws: new Float32Array(agents), clipA: 0 });
  for (const id of ids) steering.addAgent(id, { radius: 0.3, maxSpeed: 1.8 });
  const model = steering.cpuModel;
  let clock = 0;
  const largest: number[] = [], frames: number[] = [], totals: number[] = [], all: number[] = [], first: number[] = [], last: number[] = [];
  for (let g = 0; g < goals + 2; g++) {
    const goal: [number, number] = [g % 2 === 0 ? 50 - g : -20 + g, ((g * 17) % 100) - 50];
    for (const id of ids) steering.setGoal(id, goal);
    const times: number[] = [];
    while (model.pendingFieldCount > 0) {
      clock += 1 / 60;
      const t0 = performance.now();
      steering.prepare(clock);
      times.push(performance.now() - t0);
    }
    if (g < 2) continue;
    largest.push(Math.max(...times)); frames.push(times.length); totals.push(times.reduce((a, b) => a + b, 0));
    all.push(...times); first.push(times[0]); last.push(times[times.length - 1]);
  }
  crowd.destroy();
  return { cellsPerFrame: model.settings.field!.cellsPerFrame, largestFrameMs: median(largest), worstFrameMs: Math.max(...largest), medianFrameMs: median(all), firstFrameMs: median(first), lastFrameMs: median(last), frames: median(frames), totalMs: median(totals) };
}

const OFF = { projectionIterations: 0 } as const;

/** The scenarios of docs/steering.md on the twin (20 steps a second); the dense ones also with the projection off. */
export function steeringScenes(): [string, SceneReport][] {
  return [
    ['circle swap, 24 agents, circle of 6 m', runScene(circleSwap(24, 6), 40)],
    ['circle swap, 48 agents, circle of 8 m', runScene(circleSwap(48, 8), 40)],
    ['corridor 4 m wide, 2 x 12 agents crossing', runScene(corridorCrossing(12), 60)],
    ['bottleneck, 30 agents, door off their line, flow field', runScene(bottleneck(30, true), 60)],
    ['bottleneck, 30 agents, no flow field (straight at the goal)', runScene(bottleneck(30, false), 60)],
    // The dense ones again with the position projection off: ORCA's step alone, as before it.
    ['circle swap, 48 agents, projection off', runScene(circleSwap(48, 8, OFF), 40)],
    ['bottleneck, flow field, projection off', runScene(bottleneck(30, true, 1, OFF), 60)],
    ['bottleneck, no flow field, projection off', runScene(bottleneck(30, false, 1, OFF), 60)],
  ];
}

/** One row of the WebGL 2 table: the twin's step on the CPU at `agents`. */
export interface SteeringTwinRow {
  agents: number;
  /** Median CPU ms of one step (stepSteering: grid, ORCA, move, projection), and its 90th percentile. */
  medianMs: number;
  p90Ms: number;
}

/**
 * What steering costs on a WebGL 2 crowd, where its TypeScript twin steps on the CPU
 * (SteeringTwin, src/features/steering/twin-engine.ts): the bottleneck scene of the scenarios
 * (agents packed 0.75 m apart, a door off their line, a flow field; scaled with the count), 30
 * steps a second; median and 90th percentile of `steps` steps after 20 warm-up steps. The step
 * alone (the scene's measurements are not timed). MAX_TWIN_AGENTS comes from this table.
 */
export function benchSteeringTwin(counts: readonly number[], steps: number): SteeringTwinRow[] {
  return counts.map((agents) => {
    const scene = bottleneck(agents, true, Math.max(1, Math.sqrt(agents / 30)));
    const model = scene.model;
    const states = new ArrayBuffer(model.handleLimit * AGENT_STATE.size);
    const times: number[] = [];
    for (let i = 0; i < 20 + steps; i++) {
      model.advanceFields();
      const params = model.writeParams(1 / 30);
      const view = new DataView(params);
      view.setUint32(STEERING_PARAMS.handleCount, model.handleLimit, true);
      view.setUint32(STEERING_PARAMS.tableSize, tableSizeFor(model.handleLimit), true);
      const start = performance.now();
      stepSteering({ agents: model.agents, states, obstacles: model.obstacles, fields: model.fields, params, projectionIterations: model.settings.projectionIterations });
      if (i >= 20) times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { agents, medianMs: median(times), p90Ms: times[Math.floor(times.length * 0.9)] };
  });
}
