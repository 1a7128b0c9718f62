import { describe, expect, it } from 'vitest';
import { CrowdSteering } from '../../../src/features/steering/crowd-steering';
import { AGENT, AGENT_STATE, SORTED_AGENT, STEERING_PARAMS } from '../../../src/features/steering/layout';
import type { SteeringPass } from '../../../src/features/steering/steering-pass';
import { stepSteering } from '../../../src/features/steering/step';
import { Crowd } from '../../../src/runtime/crowd';
import { INSTANCE, LOCOMOTION_DRIVE } from '../../../src/runtime/layout';
import { testCharacter } from '../../helpers/character';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { kernelOf } from '../../helpers/kernel';

/**
 * CrowdSteering on the GPU (shaders/steering/steering.wgsl) against its TypeScript twin
 * (src/features/steering/step.ts) stepping the same bytes: positions, velocities and the world
 * matrices written into the instance records; and the API's refusals, each of which changes nothing.
 * One crowd for the file, a few agents, a few dozen frames (SwiftShader on CI).
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;
const DT = 1 / 20;

function frame(crowd: Crowd, dt: number): void {
  crowd.update(dt);
  const encoder = crowd.device.createCommandEncoder();
  crowd.encode(encoder);
  crowd.device.queue.submit([encoder.finish()]);
}

describe.skipIf(!device)('CrowdSteering', async () => {
  const character = await testCharacter('SimpleSkin');
  const crowd = new Crowd(device!, character, FORMATS);
  const steering = new CrowdSteering(crowd, { flowField: { min: [-8, -8], max: [8, 8], cellSize: 0.5, clearance: 0.25 } });
  const store = kernelOf(crowd).store;

  it('refuses stale and unknown ids, a second addAgent, bad options and goals, changing nothing', () => {
    const a = crowd.add();
    const gone = crowd.add();
    crowd.remove(gone);
    steering.addAgent(a, { radius: 0.3, maxSpeed: 1 });
    const bytes = steering.cpuModel.agents.slice(0);
    const attempts: [() => unknown, RegExp][] = [
      [() => steering.addAgent(gone, { radius: 0.3, maxSpeed: 1 }), /instance \d+ does not exist: it was removed/],
      [() => steering.addAgent(123456, { radius: 0.3, maxSpeed: 1 }), /does not exist/],
      [() => steering.addAgent(a, { radius: 0.3, maxSpeed: 1 }), /already an agent/],
      [() => steering.setGoal(gone, [1, 1]), /does not exist/],
      [() => steering.removeAgent(gone), /does not exist/],
      [() => steering.setGoal(a, [NaN, 0]), /goal must be \[x, z\]/],
      [() => steering.setGoal(a, [1] as unknown as [number, number]), /goal must be \[x, z\]/],
      [() => steering.addObstacle([[0, 0]]), /at least 2 vertices/],
      [() => steering.addObstacle([[0, 0], [0, Infinity]]), /vertices\[1\]/],
      [() => steering.addObstacle([[0, 0], [0, 0]]), /same point/],
      [() => steering.removeObstacle(99), /obstacle 99 does not exist/],
      [() => new CrowdSteering(crowd), /already has the "steering" feature/],
    ];
    const b = crowd.add();
    attempts.push(
      [() => steering.addAgent(b, { radius: -1, maxSpeed: 1 }), /radius must be a number in \[1e-6, 1e6\] .*, got -1/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: NaN }), /maxSpeed/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, preferredSpeed: 2 }), /preferredSpeed must be a number in \[0, maxSpeed = 1\]/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, goal: [0, NaN] }), /goal must be \[x, z\]/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, maxAcceleration: 0 }), /maxAcceleration must be a number in \[1e-6, 1e9\] .*, got 0/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, maxAcceleration: Infinity }), /maxAcceleration must be a number in \[1e-6, 1e9\] .*, got Infinity/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, speed: 1 } as never), /unknown field "speed"/],
      [() => steering.setGoal(b, [0, 0]), /is not an agent/],
    );
    for (const [attempt, message] of attempts) expect(attempt).toThrow(message);
    expect(steering.agentCount).toBe(1);
    expect(steering.hasAgent(b)).toBe(false);
    expect(new Uint8Array(steering.cpuModel.agents.slice(0, bytes.byteLength))).toEqual(new Uint8Array(bytes));
    expect(() => new CrowdSteering(new Crowd(device!, character, FORMATS), { timeHorizon: -1 })).toThrow(/timeHorizon must be a number in \[1e-3, 1e6\]/);
    for (const bad of [-1, 1.5, 17]) expect(() => new CrowdSteering(new Crowd(device!, character, FORMATS), { projectionIterations: bad })).toThrow(/projectionIterations must be an integer in \[0, 16\]/);
    crowd.remove(a);
    crowd.remove(b);
    expect(steering.agentCount).toBe(0);
  });

  it('steps like its TypeScript twin: agents crossing around a pillar and a wall, flow field, placement and yaw in the records', async () => {
    steering.addObstacle([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]);
    steering.addObstacle([[2, -3], [2, 1]]);
    const ids: number[] = [];
    const starts: [number, number, [number, number]][] = [
      [-4, 0.1, [4, 0]], [4, -0.1, [-4, 0]], [-3.5, 1, [4, 0]], [0.2, -4, [0, 4]], [0, 4, [0.3, -4]], [3.5, -2, [-4, 0]],
    ];
    for (const [x, z, goal] of starts) {
      const id = crowd.add();
      crowd.setPlacement(id, x, 0.25, z, 0, 1.5);
      steering.addAgent(id, { radius: 0.35, maxSpeed: 1.6, preferredSpeed: 1.2, goal });
      ids.push(id);
    }
    const model = steering.cpuModel;
    let twin = new ArrayBuffer(0);
    for (let f = 0; f < 40; f++) {
      // A new goal mid-way: its field's slot alone is uploaded (by its byte range), the others stay.
      if (f === 20) steering.setGoal(ids[3], [-4, -3]);
      crowd.update(DT);
      // The twin steps what the GPU was given this frame: its records, obstacles, fields and uniforms.
      if (twin.byteLength < model.handleLimit * AGENT_STATE.size) {
        const grown = new ArrayBuffer(model.handleLimit * AGENT_STATE.size);
        new Uint8Array(grown).set(new Uint8Array(twin));
        twin = grown;
      }
      stepSteering({ agents: model.agents, states: twin, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: model.settings.projectionIterations });
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    const gpu = await steering.readAgents();
    const cpu = steering.agentsFrom(twin);
    // Ids in handle order (the crowd reuses the handles of removed instances).
    const byHandle = ids.slice().sort((a, b) => store.handle(a) - store.handle(b));
    expect(Array.from(gpu.ids)).toEqual(byHandle);
    expect(Array.from(cpu.ids)).toEqual(byHandle);
    let worst = 0;
    for (let i = 0; i < gpu.positions.length; i++) worst = Math.max(worst, Math.abs(gpu.positions[i] - cpu.positions[i]), Math.abs(gpu.velocities[i] - cpu.velocities[i]) * DT);
    expect(worst).toBeLessThan(2e-3);
    // Everyone moved a good way (not stuck), and nobody stands in the pillar.
    for (let i = 0; i < ids.length; i++) {
      const start = starts[ids.indexOf(gpu.ids[i])];
      expect(Math.hypot(gpu.positions[2 * i] - start[0], gpu.positions[2 * i + 1] - start[1])).toBeGreaterThan(1);
      expect(Math.max(Math.abs(gpu.positions[2 * i]), Math.abs(gpu.positions[2 * i + 1]))).toBeGreaterThan(0.5 + 0.3);
    }
    // The records' world: (x, 0.25, z), scale 1.5, facing the twin's heading.
    const records = new Float32Array(await readBuffer(device!, store.instanceBuffer));
    const states = new Float32Array(twin);
    for (let i = 0; i < ids.length; i++) {
      const id = gpu.ids[i];
      const w = records.subarray((store.slotOfId(id) * INSTANCE.size) / 4, (store.slotOfId(id) * INSTANCE.size) / 4 + 16);
      const h = store.handle(id) * (AGENT_STATE.size / 4);
      const heading = states[h + AGENT_STATE.heading / 4];
      const expected = [1.5 * Math.cos(heading), 0, -1.5 * Math.sin(heading), 0, 0, 1.5, 0, 0, 1.5 * Math.sin(heading), 0, 1.5 * Math.cos(heading), 0, gpu.positions[2 * i], 0.25, gpu.positions[2 * i + 1], 1];
      for (let k = 0; k < 16; k++) expect(Math.abs(w[k] - expected[k])).toBeLessThan(3e-3);
      // Facing follows the velocity (turn rate 2 pi rad/s is fast enough to have caught up).
      const v = [gpu.velocities[2 * i], gpu.velocities[2 * i + 1]];
      if (Math.hypot(v[0], v[1]) > 0.5) expect(Math.cos(heading - Math.atan2(v[0], v[1]))).toBeGreaterThan(0.9);
    }
  });

  it('a denser crowd (300 agents: a grid of 1024 cells, one scan block; the projection off) steps like the twin for a few frames', async () => {
    const many = new Crowd(device!, character, { ...FORMATS, capacity: 300 });
    // projectionIterations 0: the pipelines made without the projection (PROJECTING false) still bind and step.
    const dense = new CrowdSteering(many, { neighbourDistance: 2, maxNeighbours: 6, projectionIterations: 0 });
    for (let i = 0; i < 300; i++) {
      const id = many.add();
      const x = (i % 20) * 0.9 - 9, z = Math.floor(i / 20) * 0.9 - 7;
      many.setPlacement(id, x, 0, z, 0);
      dense.addAgent(id, { radius: 0.3, maxSpeed: 1.5, goal: [-x * 0.5, -z * 0.5] });
    }
    const model = dense.cpuModel;
    const twin = new ArrayBuffer(model.handleLimit * AGENT_STATE.size);
    for (let f = 0; f < 4; f++) {
      many.update(DT);
      stepSteering({ agents: model.agents, states: twin, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: model.settings.projectionIterations });
      const encoder = device!.createCommandEncoder();
      many.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    expect(new DataView(model.params).getUint32(4, true)).toBe(1024); // STEERING_PARAMS.tableSize
    const gpu = await dense.readAgents();
    const cpu = dense.agentsFrom(twin);
    let worst = 0;
    for (let i = 0; i < gpu.positions.length; i++) worst = Math.max(worst, Math.abs(gpu.positions[i] - cpu.positions[i]));
    expect(worst).toBeLessThan(1e-3);
    many.destroy();
  });

  it('the grid of a crowd over several scan blocks (3,000 agents: 8,192 cells, 8 blocks) is the twin\'s: the same starts, the same agents in each cell, step after step', async () => {
    const many = new Crowd(device!, character, { ...FORMATS, capacity: 3000 });
    const gridded = new CrowdSteering(many, { neighbourDistance: 1, projectionIterations: 0 });
    let seed = 12345;
    const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 3000; i++) {
      const id = many.add();
      // Denser in the middle: cells of one agent, of many, and empty ones; buckets shared by cells.
      const x = (random() - 0.5) * 60 * random(), z = (random() - 0.5) * 60 * random();
      many.setPlacement(id, x, 0, z, 0);
      gridded.addAgent(id, { radius: 0.2, maxSpeed: 1.5, goal: [-x, -z] });
    }
    const model = gridded.cpuModel;
    const bytes = model.handleLimit * AGENT_STATE.size;
    for (let f = 0; f < 3; f++) {
      // The twin's grid of this step, from the very bytes the GPU steps from (its states before the
      // step; zeros before the first, whose buffer the first update makes).
      const states = f === 0 ? new ArrayBuffer(bytes) : await readBuffer(device!, gridded.stateBuffer, bytes);
      const stepStart = states.slice(0);
      many.update(DT);
      const grid = stepSteering({ agents: model.agents, states, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: 0 });
      const encoder = device!.createCommandEncoder();
      many.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      const { cellStarts, sorted, tableSize } = (gridded as unknown as { pass: SteeringPass }).pass.gridBuffers;
      expect(tableSize).toBe(8192);
      const starts = new Uint32Array(await readBuffer(device!, cellStarts, (tableSize + 1) * 4));
      // The sorted records (SORTED_AGENT): each handle with the position its state held as the step
      // began (the first step's: the agent's start, countCells's restart; stepSteering steps `states`
      // in place, hence the copy taken before it).
      const records = await readBuffer(device!, sorted, 3000 * SORTED_AGENT.size);
      const words = new Uint32Array(records), floats = new Float32Array(records);
      const order = words.filter((_, i) => i % 4 === 0);
      const began = new Float32Array(stepStart), agentFloats = new Float32Array(model.agents);
      const positions = new Float32Array(2 * 3000), expected = new Float32Array(2 * 3000);
      for (let i = 0; i < 3000; i++) {
        const h = order[i], state = (h * AGENT_STATE.size) / 4, agent = (h * AGENT.size) / 4;
        positions.set([floats[4 * i + 1], floats[4 * i + 2]], 2 * i);
        expected.set(f === 0 ? [agentFloats[agent + AGENT.startX / 4], agentFloats[agent + AGENT.startZ / 4]] : [began[state + AGENT_STATE.x / 4], began[state + AGENT_STATE.z / 4]], 2 * i);
      }
      expect(positions).toEqual(expected);
      expect(starts[tableSize]).toBe(3000);
      expect(starts).toEqual(grid.starts);
      // Within a cell the GPU's order is its atomics' (not fixed): the same agents, in any order.
      for (let c = 0; c < tableSize; c++) {
        const cell = (from: Uint32Array): number[] => [...from.subarray(grid.starts[c], grid.starts[c + 1])].sort((a, b) => a - b);
        if (grid.starts[c + 1] > grid.starts[c]) expect(cell(order)).toEqual(cell(grid.sorted));
      }
    }
    many.destroy();
  });

  it('the position projection steps like the twin: a packed block and two agents nearly on one spot pressed to a wall come apart, off the wall', async () => {
    const packed = new Crowd(device!, character, FORMATS);
    // 3 iterations: an odd count, so the last one's result is read from the second buffer.
    const projecting = new CrowdSteering(packed, { projectionIterations: 3 });
    projecting.addObstacle([[1, -3], [1, 3]]);
    const radius = 0.3;
    const spots: [number, number][] = [[0.5, 0.5], [0.52, 0.5]]; // nearly on one spot
    for (let i = 0; i < 12; i++) spots.push([0.6 - (i % 3) * 0.4, -1.2 + Math.floor(i / 3) * 0.4]);
    spots.push([-0.5, 1.5], [-0.5, 1.5]); // exactly on one spot, one velocity: RVO2's line is NaN there, ours parts them along x
    for (const [x, z] of spots) {
      const id = packed.add();
      packed.setPlacement(id, x, 0, z, 0);
      projecting.addAgent(id, { radius, maxSpeed: 1.5, goal: [4, z] }); // through the wall: pressed against it
    }
    const model = projecting.cpuModel;
    const twin = new ArrayBuffer(model.handleLimit * AGENT_STATE.size);
    const unprojected = new ArrayBuffer(twin.byteLength);
    for (let f = 0; f < 8; f++) {
      packed.update(DT);
      stepSteering({ agents: model.agents, states: twin, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: 3 });
      if (f === 0) stepSteering({ agents: model.agents, states: unprojected, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: 0 });
      const encoder = device!.createCommandEncoder();
      packed.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    }
    const gpu = await projecting.readAgents();
    const cpu = projecting.agentsFrom(twin);
    let worst = 0;
    for (let i = 0; i < gpu.positions.length; i++) worst = Math.max(worst, Math.abs(gpu.positions[i] - cpu.positions[i]), Math.abs(gpu.velocities[i] - cpu.velocities[i]) * DT);
    // 1.3e-5 measured: the velocity cut to maxSpeed (issue 41) acts in the first frames, where the
    // block is pushed apart faster than that, and the crowd stays pressed longer (1e-6 without it).
    expect(worst).toBeLessThan(3e-5); // NaN fails it too
    // The projection did the work: one step of ORCA alone leaves the two nearly on one spot.
    const alone = projecting.agentsFrom(unprojected).positions;
    expect(Math.hypot(alone[0] - alone[2], alone[1] - alone[3])).toBeLessThan(0.5 * radius);
    const p = gpu.positions, n = p.length / 2;
    let closest = Infinity;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) closest = Math.min(closest, Math.hypot(p[2 * i] - p[2 * j], p[2 * i + 1] - p[2 * j + 1]) / (2 * radius));
    expect(closest).toBeGreaterThan(0.99);
    for (let i = 0; i < n; i++) expect(p[2 * i]).toBeLessThanOrEqual(1 - radius * 0.999); // left of the wall, not in it
    // The records' translation and the velocity follow the projected position.
    const records = new Float32Array(await readBuffer(device!, kernelOf(packed).store.instanceBuffer));
    for (let i = 0; i < n; i++) {
      const at = (kernelOf(packed).store.slotOfId(gpu.ids[i]) * INSTANCE.size) / 4 + 12;
      expect([records[at], records[at + 2]]).toEqual([p[2 * i], p[2 * i + 1]]);
    }
    packed.destroy();
  });

  it('the circle swap on the GPU: 24 agents cross to the opposite point, none overlapping, none left short', async () => {
    const circle = new Crowd(device!, character, FORMATS);
    const swap = new CrowdSteering(circle);
    const radius = 0.3;
    for (let i = 0; i < 24; i++) {
      const a = (2 * Math.PI * i) / 24;
      const id = circle.add();
      circle.setPlacement(id, 6 * Math.cos(a), 0, 6 * Math.sin(a), 0);
      swap.addAgent(id, { radius, maxSpeed: 1.8, preferredSpeed: 1.3, goal: [-6 * Math.cos(a), -6 * Math.sin(a)] });
    }
    let closest = Infinity;
    let agents = await swap.readAgents();
    for (let f = 0; f < 300; f++) {
      frame(circle, DT);
      if (f % 3 !== 2) continue;
      agents = await swap.readAgents();
      const p = agents.positions;
      for (let i = 0; i < 24; i++) for (let j = i + 1; j < 24; j++) closest = Math.min(closest, Math.hypot(p[2 * i] - p[2 * j], p[2 * i + 1] - p[2 * j + 1]) / (2 * radius));
    }
    const short = Array.from(agents.ids, (id, i) => {
      const goal = swap.goal(id)!;
      return Math.hypot(agents.positions[2 * i] - goal[0], agents.positions[2 * i + 1] - goal[1]) > radius;
    }).filter(Boolean).length;
    expect(short).toBe(0);
    expect(closest).toBeGreaterThan(0.99);
    circle.destroy();
  });

  it('readAgents follows removal and placement; a placed agent restarts there; frames upload nothing per agent', async () => {
    const before = await steering.readAgents();
    const [first, second] = [before.ids[0], before.ids[1]];
    steering.removeAgent(first);
    crowd.setPlacement(second, 6, 0, 6, 0);
    frame(crowd, 0); // dt 0: nobody moves, the placed agent restarts from (6, 6)
    const after = await steering.readAgents();
    expect(Array.from(after.ids)).toEqual(Array.from(before.ids.subarray(1)));
    expect(Array.from(after.positions.subarray(0, 2))).toEqual([6, 6]);
    expect(steering.hasAgent(first)).toBe(false);
    steering.setGoal(second, null);
    expect(steering.goal(second)).toBeNull();
    // A frame without events uploads the uniforms alone.
    frame(crowd, DT);
    expect(crowd.uploadedBytes).toBe(64 + 64); // the record setGoal changed, and the uniforms
    frame(crowd, DT);
    const uploaded = crowd.uploadedBytes;
    frame(crowd, DT);
    expect(crowd.uploadedBytes).toBe(uploaded);
    expect(steering.gpuBytes).toBeGreaterThan(0);
  });

  it('the step visits handles up to the top agent: it shrinks when the top agents go, after one step that clears their locomotion records', async () => {
    const model = steering.cpuModel;
    const stepped = () => new DataView(model.params).getUint32(STEERING_PARAMS.handleCount, true);
    const top = [crowd.add(), crowd.add()];
    for (const id of top) steering.addAgent(id, { radius: 0.2, maxSpeed: 1, goal: [0, -7] });
    const limit = model.handleLimit;
    expect(limit).toBe(store.handle(top[1]) + 1);
    frame(crowd, DT);
    expect(stepped()).toBe(limit);
    const drives = kernelOf(crowd).locomotionDrive!;
    const driven = async (id: number) => new Uint32Array(await readBuffer(device!, drives))[(store.handle(id) * LOCOMOTION_DRIVE.size + LOCOMOTION_DRIVE.driven) / 4];
    expect(await driven(top[1])).toBe(1);
    for (const id of [...top].reverse()) steering.removeAgent(id);
    expect(model.handleLimit).toBeLessThan(store.handle(top[0]) + 1);
    frame(crowd, DT); // visits the old range once: the removed agents' records are cleared
    expect(stepped()).toBe(limit);
    expect(await driven(top[1])).toBe(0);
    frame(crowd, DT);
    expect(stepped()).toBe(model.handleLimit);
    for (const id of top) crowd.remove(id);
  });

  it('setAgentOptions changes speeds from the next step on, the agent going on from where it is; refusals change nothing', async () => {
    const id = crowd.add();
    crowd.setPlacement(id, -7, 0, 7, Math.PI / 2);
    steering.addAgent(id, { radius: 0.2, maxSpeed: 1, preferredSpeed: 0.5, maxAcceleration: 50, goal: [7, 7] });
    const obstacles = steering.obstacleCount;
    const wall = steering.addObstacle([[0, 9], [1, 9]]);
    expect(steering.obstacleCount).toBe(obstacles + 1);
    steering.removeObstacle(wall);
    expect(steering.obstacleCount).toBe(obstacles);
    for (let f = 0; f < 4; f++) frame(crowd, DT);
    const at = (agents: Awaited<ReturnType<CrowdSteering['readAgents']>>) => Array.from(agents.ids).indexOf(id);
    const walking = await steering.readAgents();
    const speed = (agents: typeof walking) => Math.hypot(agents.velocities[2 * at(agents)], agents.velocities[2 * at(agents) + 1]);
    const [x0, z0] = walking.positions.subarray(2 * at(walking), 2 * at(walking) + 2);
    expect(Math.abs(speed(walking) - 0.5)).toBeLessThan(0.01); // the 1% nudge of the preferred velocity
    const bytes = steering.cpuModel.agents.slice(0);
    for (const [options, message] of [
      [{ maxSpeed: 0.4 }, /maxSpeed 0\.4 is below the agent's preferredSpeed 0\.5/],
      [{ preferredSpeed: 2 }, /preferredSpeed must be a number in \[0, maxSpeed = 1\]/],
      [{ radius: 0 }, /radius must be a number in \[1e-6, 1e6\] .*, got 0/],
      [{ goal: [0, 0] }, /unknown field "goal"/],
    ] as const) expect(() => steering.setAgentOptions(id, options as never)).toThrow(message);
    expect(() => steering.setAgentOptions(crowd.add(), { maxSpeed: 1 })).toThrow(/is not an agent/);
    expect(new Uint8Array(steering.cpuModel.agents.slice(0, bytes.byteLength))).toEqual(new Uint8Array(bytes));
    // A run: twice the pace, from where it walked to (a restart would put it back at x = -7, standing).
    steering.setAgentOptions(id, { maxSpeed: 2, preferredSpeed: 1 });
    expect(steering.agentOptions(id)).toEqual({ radius: 0.2, maxSpeed: 2, preferredSpeed: 1, maxAcceleration: 50, goal: [7, 7] });
    frame(crowd, DT);
    const running = await steering.readAgents();
    expect(Math.abs(speed(running) - 1)).toBeLessThan(0.01);
    const [x1, z1] = running.positions.subarray(2 * at(running), 2 * at(running) + 2);
    // It moved on by this step's velocity: a restart would have put it back near x = -7.
    const [vx, vz] = running.velocities.subarray(2 * at(running), 2 * at(running) + 2);
    expect(Math.hypot(x1 - x0 - DT * vx, z1 - z0 - DT * vz)).toBeLessThan(1e-4);
  });

  it('updates without an encode between them (a paused view, two fixed steps a frame) lose no step time and no shrink: the next encode steps them', async () => {
    const own = new Crowd(device!, character, FORMATS);
    const agents = new CrowdSteering(own);
    const ownStore = kernelOf(own).store;
    const encode = () => {
      const encoder = device!.createCommandEncoder();
      own.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    };
    // A walker up the z axis at 1 unit/s (at full speed after its first step), and a top agent far off.
    const walker = own.add();
    own.setPlacement(walker, 0, 0, -6, 0);
    agents.addAgent(walker, { radius: 0.2, maxSpeed: 1, preferredSpeed: 1, maxAcceleration: 1e3, goal: [0, 60] });
    const top = own.add();
    own.setPlacement(top, 30, 0, 0, 0);
    agents.addAgent(top, { radius: 0.2, maxSpeed: 1, goal: [30, 5] });
    frame(own, DT);
    for (let f = 0; f < 10; f++) {
      own.update(DT);
      own.update(DT);
      encode();
    }
    const walked = await agents.readAgents();
    const z = walked.positions[2 * Array.from(walked.ids).indexOf(walker) + 1];
    // 21 updates of DT stepped: 1.05 units (the 1% nudge of the preferred velocity aside); with
    // each first update's time lost, 0.55.
    console.log(`walked ${(z + 6).toFixed(4)} in ${own.clock.toFixed(2)} s`);
    expect(Math.abs(z + 6 - own.clock)).toBeLessThan(0.03);
    // The top agent goes: the step after clears its locomotion record, also when that step comes
    // after two updates (the first update's prepare had the shrink, no encode ran it).
    const drives = () => kernelOf(own).locomotionDrive!;
    const driven = async () => new Uint32Array(await readBuffer(device!, drives()))[(ownStore.handle(top) * LOCOMOTION_DRIVE.size + LOCOMOTION_DRIVE.driven) / 4];
    expect(await driven()).toBe(1);
    agents.removeAgent(top);
    own.update(DT);
    own.update(DT);
    encode();
    expect(await driven()).toBe(0);
    own.destroy();
  });

  it('two encodes for one update (two views drawn a frame) step once: the second writes the same placements and moves nobody', async () => {
    const own = new Crowd(device!, character, FORMATS);
    const agents = new CrowdSteering(own);
    const ownStore = kernelOf(own).store;
    const walker = own.add();
    own.setPlacement(walker, 0, 0, -6, 0);
    agents.addAgent(walker, { radius: 0.2, maxSpeed: 1, preferredSpeed: 1, maxAcceleration: 1e3, goal: [0, 60] });
    const world = async () => new Float32Array(await readBuffer(device!, ownStore.instanceBuffer)).slice(ownStore.slotOfId(walker) * INSTANCE.size / 4, ownStore.slotOfId(walker) * INSTANCE.size / 4 + 16);
    for (let f = 0; f < 20; f++) {
      own.update(DT);
      // One submit per view (a split screen drawn view by view), or both views in one command
      // buffer (a shadow map and the main view).
      if (f % 2 === 0) {
        for (let view = 0; view < 2; view++) {
          const encoder = device!.createCommandEncoder();
          own.encode(encoder);
          device!.queue.submit([encoder.finish()]);
        }
      } else {
        const encoder = device!.createCommandEncoder();
        own.encode(encoder);
        own.encode(encoder);
        device!.queue.submit([encoder.finish()]);
      }
    }
    const once = await world();
    const z = (await agents.readAgents()).positions[1];
    // 20 updates of DT: 1 unit at 1 unit/s (the 1% nudge aside); stepped at each encode, 2.
    console.log(`walked ${(z + 6).toFixed(4)} in ${own.clock.toFixed(2)} s`);
    expect(Math.abs(z + 6 - own.clock)).toBeLessThan(0.03);
    expect(once[14]).toBe(z);
    // A third view: the record's placement again, the same.
    const encoder = device!.createCommandEncoder();
    own.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    expect(Array.from(await world())).toEqual(Array.from(once));
    own.destroy();
  });
});
