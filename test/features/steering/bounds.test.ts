import { describe, expect, it } from 'vitest';
import { ACCELERATION, COORDINATE, HORIZON, LENGTH, MAX_STEP_DT, MIN_STEP_DT, SPEED } from '../../../src/features/steering/bounds';
import { CrowdSteering } from '../../../src/features/steering/crowd-steering';
import { AGENT_STATE, STEERING_PARAMS } from '../../../src/features/steering/layout';
import { SteeringModel } from '../../../src/features/steering/model';
import { checkAgentOptions, checkPolygon } from '../../../src/features/steering/options';
import { stepSteering, tableSizeFor } from '../../../src/features/steering/step';
import { Crowd } from '../../../src/runtime/crowd';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';

/**
 * Issue 41: steering refuses what float32 cannot hold or the step's arithmetic would overflow
 * (naming the bound, changing nothing), refuses a flow field the device cannot bind at
 * construction (installing nothing), refuses self-intersecting obstacles, bounds reported
 * velocities by maxSpeed and steps nobody below MIN_STEP_DT; and at the bounds the GPU step stays
 * finite and agrees with its float64 twin. SimpleSkin crowds, a few agents, a few frames; and on
 * the twin alone, what an agent placed inside an obstacle does (docs/steering.md).
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

/** One frame of `dt` on the GPU, and the same step of the twin on `twin` (grown to the handles). */
function frame(crowd: Crowd, steering: CrowdSteering, dt: number, twin: { states: ArrayBuffer }): void {
  crowd.update(dt);
  const model = steering.cpuModel;
  if (twin.states.byteLength < model.handleLimit * AGENT_STATE.size) {
    const grown = new ArrayBuffer(model.handleLimit * AGENT_STATE.size);
    new Uint8Array(grown).set(new Uint8Array(twin.states));
    twin.states = grown;
  }
  stepSteering({ agents: model.agents, states: twin.states, obstacles: model.obstacles, fields: model.fields, params: model.params, projectionIterations: model.settings.projectionIterations });
  const encoder = crowd.device.createCommandEncoder();
  crowd.encode(encoder);
  crowd.device.queue.submit([encoder.finish()]);
}

describe('an agent placed inside an obstacle (the twin)', () => {
  it('is not held by it: it walks out to its goal, then is held off it; without a goal it stands', () => {
    const walk = (goal: [number, number] | null): number[][] => {
      const model = new SteeringModel({});
      model.addObstacle(checkPolygon([[-1.5, -1.5], [1.5, -1.5], [1.5, 1.5], [-1.5, 1.5]]));
      const world = Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, 0.2, 1);
      model.add(0, checkAgentOptions({ radius: 0.3, maxSpeed: 1.8, preferredSpeed: 1.3, goal }), world);
      const states = new ArrayBuffer(64 * AGENT_STATE.size), at: number[][] = [];
      for (let f = 1; f <= 80; f++) {
        const params = new DataView(model.writeParams(1 / 20));
        params.setUint32(STEERING_PARAMS.handleCount, model.handleLimit, true);
        params.setUint32(STEERING_PARAMS.tableSize, tableSizeFor(model.handleLimit), true);
        stepSteering({ agents: model.agents, states, obstacles: model.obstacles, fields: model.fields, params: params.buffer as ArrayBuffer });
        at.push(Array.from(new Float32Array(states, 0, 2)));
      }
      return at;
    };
    const out = walk([4, 0.2]);
    expect(out[39][0]).toBeGreaterThan(1.5 + 0.3); // out of the square after 2 s
    expect(out[79][0]).toBeCloseTo(4, 3); // at its goal after 4 s
    expect(Math.abs(out[79][1] - 0.2)).toBeLessThan(0.01);
    expect(walk(null)[79]).toEqual([0.5, Math.fround(0.2)]); // no goal: it stands where placed
  });
});

describe('checkPolygon: self-intersection', () => {
  /** Whether two closed segments share a point (exact orientation tests, as options.ts; the reference). */
  function segmentsMeet(p: number[][], a: number, b: number, c: number, d: number): boolean {
    const o = (u: number, v: number, w: number) => Math.sign((p[v][0] - p[u][0]) * (p[w][1] - p[u][1]) - (p[v][1] - p[u][1]) * (p[w][0] - p[u][0]));
    const on = (u: number, v: number, w: number) => Math.min(p[u][0], p[v][0]) <= p[w][0] && p[w][0] <= Math.max(p[u][0], p[v][0]) && Math.min(p[u][1], p[v][1]) <= p[w][1] && p[w][1] <= Math.max(p[u][1], p[v][1]);
    const [o1, o2, o3, o4] = [o(a, b, c), o(a, b, d), o(c, d, a), o(c, d, b)];
    if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    return (o1 === 0 && on(a, b, c)) || (o2 === 0 && on(a, b, d)) || (o3 === 0 && on(c, d, a)) || (o4 === 0 && on(c, d, b));
  }
  /** Simple by every pair: non-neighbours share no point, neighbours only their vertex (all pairs, O(n^2)). */
  function simple(p: number[][]): boolean {
    const n = p.length;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const a = i, b = (i + 1) % n, c = j, d = (j + 1) % n;
        if (d === a || c === b) {
          const s = c === b ? b : a, x = s === b ? a : b, y = s === b ? d : c;
          const cross = (p[s][0] - p[x][0]) * (p[y][1] - p[x][1]) - (p[s][1] - p[x][1]) * (p[y][0] - p[x][0]);
          if (cross === 0 && (p[y][0] - p[s][0]) * (p[x][0] - p[s][0]) + (p[y][1] - p[s][1]) * (p[x][1] - p[s][1]) > 0) return false; // folded back
        } else if (segmentsMeet(p, a, b, c, d)) return false;
      }
    }
    return true;
  }

  it('refuses exactly the outlines the all-pairs test finds not simple (random and star-shaped, 3 to 200 vertices, on a coarse lattice so that touching is common)', () => {
    let seed = 41;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    let refused = 0, taken = 0;
    for (let t = 0; t < 300; t++) {
      const n = 3 + Math.floor(random() * (t % 3 === 0 ? 200 : 12));
      const star = t % 2 === 0;
      const p: number[][] = [];
      for (let i = 0; i < n; i++) {
        const angle = (i / n) * 2 * Math.PI, r = 5 + Math.floor(random() * 6);
        p.push(star ? [Math.round(r * Math.cos(angle) * 4), Math.round(r * Math.sin(angle) * 4)] : [Math.floor(random() * 8), Math.floor(random() * 8)]);
      }
      if (p.some((q, i) => q[0] === p[(i + 1) % n][0] && q[1] === p[(i + 1) % n][1])) continue; // equal neighbours: another refusal
      let ok = true;
      try { checkPolygon(p as [number, number][]); } catch (error) { ok = false; expect((error as Error).message).toMatch(/an obstacle must be a simple polygon/); }
      expect(ok).toBe(simple(p));
      if (ok) taken++; else refused++;
    }
    expect(refused).toBeGreaterThan(50);
    expect(taken).toBeGreaterThan(50);
  });
});

describe.skipIf(!device)('CrowdSteering input bounds (issue 41)', async () => {
  const character = await testCharacter('SimpleSkin');
  const crowd = new Crowd(device!, character, FORMATS);
  const steering = new CrowdSteering(crowd);

  it('refuses numbers float32 cannot hold or the step would overflow on, naming the bound, changing nothing', () => {
    const a = crowd.add();
    steering.addAgent(a, { radius: 0.3, maxSpeed: 2, goal: [1, 0] });
    const b = crowd.add();
    const far = crowd.add();
    crowd.setPlacement(far, 2e9, 0, 0, 0);
    const bytes = steering.cpuModel.agents.slice(0);
    const attempts: [() => unknown, RegExp][] = [
      [() => steering.setGoal(a, [1e39, 0]), /goal\[0\] must be a number in \[-1e9, 1e9\] \(float32 on the GPU.*got 1e\+39/],
      [() => steering.setGoal(a, [0, 2e19]), /goal\[1\] must be a number in \[-1e9, 1e9\]/],
      [() => steering.addAgent(b, { radius: 1e39, maxSpeed: 1 }), /radius must be a number in \[1e-6, 1e6\].*got 1e\+39/],
      [() => steering.addAgent(b, { radius: 1e30, maxSpeed: 1 }), /radius must be a number in \[1e-6, 1e6\]/],
      [() => steering.addAgent(b, { radius: 1e-40, maxSpeed: 1 }), /radius must be a number in \[1e-6, 1e6\]/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1e20 }), /maxSpeed must be a number in \[0, 1e6\].*got 100000000000000000000/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, maxAcceleration: 1e39 }), /maxAcceleration must be a number in \[1e-6, 1e9\]/],
      [() => steering.addAgent(b, { radius: 0.3, maxSpeed: 1, goal: [0, -1e39] }), /goal\[1\] must be a number in \[-1e9, 1e9\]/],
      [() => steering.addAgent(far, { radius: 0.3, maxSpeed: 1 }), /placement x must be a number in \[-1e9, 1e9\].*got 2000000000/],
      [() => steering.setAgentOptions(a, { maxSpeed: 1e20, preferredSpeed: 1 }), /maxSpeed must be a number in \[0, 1e6\]/],
      [() => steering.addObstacle([[0, 0], [1e39, 0]]), /vertices\[1\]\[0\] must be a number in \[-1e9, 1e9\]/],
    ];
    for (const [attempt, message] of attempts) expect(attempt).toThrow(message);
    expect(steering.agentCount).toBe(1);
    expect(steering.obstacleCount).toBe(0);
    expect(steering.goal(a)).toEqual([1, 0]);
    expect(new Uint8Array(steering.cpuModel.agents.slice(0, bytes.byteLength))).toEqual(new Uint8Array(bytes));
    const options: [object, RegExp][] = [
      [{ timeHorizon: 1e-30 }, /timeHorizon must be a number in \[1e-3, 1e6\]/],
      [{ obstacleTimeHorizon: 1e39 }, /obstacleTimeHorizon must be a number in \[1e-3, 1e6\]/],
      [{ neighbourDistance: 1e30 }, /neighbourDistance must be a number in \[1e-6, 1e6\]/],
      [{ turnRate: 1e39 }, /turnRate must be a number in \[1e-6, 1e6\]/],
      [{ flowField: { min: [-1e39, 0], max: [1, 1] } }, /flowField.min\[0\] must be a number in \[-1e9, 1e9\]/],
      [{ flowField: { min: [0, 0], max: [1, 1], cellSize: 1e-30 } }, /flowField.cellSize must be a number in \[1e-6, 1e6\]/],
      [{ flowField: { min: [0, 0], max: [1, 1], clearance: 1e39 } }, /flowField.clearance must be a number in \[0, 1e6\]/],
    ];
    const other = new Crowd(device!, character, FORMATS);
    for (const [bad, message] of options) expect(() => new CrowdSteering(other, bad)).toThrow(message);
    expect(other.hasFeature('steering')).toBe(false);
    other.destroy();
    crowd.remove(a);
    crowd.remove(b);
    crowd.remove(far);
  });

  it('refuses a flow field the device cannot bind when it is given, installing nothing: the crowd still updates', () => {
    const limit = Math.min(device!.limits.maxStorageBufferBindingSize, device!.limits.maxBufferSize);
    const perGoal = 1024 * 1024 * 8; // the field: [-512, 512]^2 at cellSize 1
    const maxGoals = Math.floor(limit / perGoal) + 1;
    expect(maxGoals).toBeLessThanOrEqual(64); // a device whose limit is above 512 MiB cannot show it
    const other = new Crowd(device!, character, FORMATS);
    const id = other.add();
    expect(() => new CrowdSteering(other, { flowField: { min: [-512, -512], max: [512, 512], cellSize: 1, maxGoals } }))
      .toThrow(new RegExp(`flowField needs [0-9.]+ MiB \\(maxGoals ${maxGoals} x 1024 x 1024 cells x 8 bytes\\) but the device's (maxStorageBufferBindingSize|maxBufferSize) is`));
    expect(other.hasFeature('steering')).toBe(false);
    // Nothing was installed: the crowd updates and encodes as before, and steering can still be made.
    other.update(1 / 60);
    const encoder = device!.createCommandEncoder();
    other.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const fits = new CrowdSteering(other, { flowField: { min: [-512, -512], max: [512, 512], cellSize: 1, maxGoals: maxGoals - 1 } });
    fits.addAgent(id, { radius: 0.3, maxSpeed: 1 });
    other.update(1 / 60);
    other.destroy();
  });

  it('refuses a self-intersecting obstacle by name (the bow-tie an agent walked into), accepts simple ones', () => {
    expect(() => steering.addObstacle([[-1.5, -1.5], [1.5, 1.5], [1.5, -1.5], [-1.5, 1.5]]))
      .toThrow(/vertices: edge 0 \(\[-1.5, -1.5\] -> \[1.5, 1.5\]\) and edge 2 \(\[1.5, -1.5\] -> \[-1.5, 1.5\]\) cross or touch: an obstacle must be a simple polygon/);
    expect(() => steering.addObstacle([[0, 0], [2, 0], [1, 0]])).toThrow(/fold back over each other/); // zero area, folded
    expect(() => steering.addObstacle([[0, 0], [2, 0], [2, 2], [1, 0], [0, 2]])).toThrow(/edge 0 .* and edge [23] .* cross or touch/); // a vertex on another edge
    expect(steering.obstacleCount).toBe(0);
    // A concave L, a triangle, a wall: accepted.
    const ids = [
      steering.addObstacle([[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]]),
      steering.addObstacle([[10, 10], [11, 10], [10, 11]]),
      steering.addObstacle([[20, 0], [20, 5]]),
    ];
    expect(steering.obstacleCount).toBe(3);
    for (const id of ids) steering.removeObstacle(id);
  });

  it('bounds reported velocities by maxSpeed and steps nobody below MIN_STEP_DT (two agents on one spot, dt 1e-30, 1e-6, 1e-3), GPU and twin alike', async () => {
    const other = new Crowd(device!, character, FORMATS);
    const spotted = new CrowdSteering(other);
    for (let i = 0; i < 2; i++) {
      const id = other.add();
      other.setPlacement(id, 0, 0, 0, 0);
      spotted.addAgent(id, { radius: 0.3, maxSpeed: 2 });
    }
    const twin = { states: new ArrayBuffer(0) };
    for (const dt of [1e-30, 1e-6]) frame(other, spotted, dt, twin);
    // Neither step moved anyone (1e-6 s is below MIN_STEP_DT; its time waits for the next step).
    let gpu = await spotted.readAgents();
    expect(Array.from(gpu.positions)).toEqual([0, 0, 0, 0]);
    expect(Array.from(spotted.agentsFrom(twin.states).positions)).toEqual([0, 0, 0, 0]);
    frame(other, spotted, 1e-3, twin);
    gpu = await spotted.readAgents();
    const cpu = spotted.agentsFrom(twin.states);
    for (const { positions, velocities } of [gpu, cpu]) {
      // Parted by the projection, reported at maxSpeed at most (it was 510 m/s).
      expect(Math.abs(positions[0] - positions[2])).toBeGreaterThan(0.5);
      for (let i = 0; i < 2; i++) expect(Math.hypot(velocities[2 * i], velocities[2 * i + 1])).toBeLessThanOrEqual(2 * (1 + 1e-6));
    }
    for (let i = 0; i < 4; i++) {
      expect(gpu.positions[i]).toBeCloseTo(cpu.positions[i], 5);
      expect(gpu.velocities[i]).toBeCloseTo(cpu.velocities[i], 4);
    }
    other.destroy();
  });

  it('an agent moved past +-1e9 by the crowd (which cannot ask steering) restarts from the nearest point within', () => {
    const id = crowd.add();
    steering.addAgent(id, { radius: 0.3, maxSpeed: 1 });
    crowd.setPlacement(id, 2e9, 0, -5e9, 0);
    const start = steering.agentsFrom(new ArrayBuffer(0)); // no GPU state: each agent at its start
    expect(Array.from(start.positions)).toEqual([1e9, -1e9]);
    crowd.remove(id);
  });

  it('names what it expected of a wrong first argument', () => {
    for (const bad of [undefined, null, {}, 'crowd']) expect(() => new CrowdSteering(bad as never)).toThrow(/CrowdSteering needs a Crowd: new CrowdSteering\(crowd, options\?\), got/);
  });

  it('at the bounds the GPU step stays finite and agrees with its float64 twin', async () => {
    // Every bound at once: far coordinates, big and fast agents, the shortest horizons, a wall
    // whose ends lie at the coordinate bound, steps of MAX_STEP_DT and MIN_STEP_DT.
    const other = new Crowd(device!, character, FORMATS);
    const edge = new CrowdSteering(other, { timeHorizon: HORIZON.min, obstacleTimeHorizon: HORIZON.min, neighbourDistance: LENGTH.max });
    const C = COORDINATE.max, R = LENGTH.max, V = SPEED.max;
    edge.addObstacle([[-C, 0.5 * C], [C, 0.5 * C]]);
    const agents: [number, number, [number, number]][] = [
      [-0.9 * C, 0.5 * C - 1.5 * R, [C, 0.5 * C - 1.5 * R]], // along the wall, within its reach
      [0.9 * C, 0.5 * C - 2.5 * R, [-C, 0.5 * C - 3 * R]], // head-on with it
      [0, 0, [0, -C]],
      [1.5 * R, 0, [0, -C]], // overlapping the one before: parted with a step of MIN_STEP_DT
    ];
    for (const [x, z, goal] of agents) {
      const id = other.add();
      other.setPlacement(id, x, 0, z, 0);
      edge.addAgent(id, { radius: R, maxSpeed: V, maxAcceleration: ACCELERATION.max, goal });
    }
    // And the walk among three others at the top speed (its default acceleration, 2 x maxSpeed), 40 steps.
    for (let i = 0; i < 4; i++) {
      const id = other.add();
      other.setPlacement(id, 3 * Math.cos(i * 1.7), 0, -1e8 + 3 * Math.sin(i * 1.7), 0);
      edge.addAgent(id, { radius: 0.3, maxSpeed: V, goal: [-3 * Math.cos(i * 1.7), -1e8 - 3 * Math.sin(i * 1.7)] });
    }
    const twin = { states: new ArrayBuffer(0) };
    for (const dt of [MIN_STEP_DT, MAX_STEP_DT, 1 / 60, MIN_STEP_DT, 2 * MAX_STEP_DT]) frame(other, edge, dt, twin);
    for (let f = 0; f < 40; f++) frame(other, edge, 1 / 60, twin);
    const gpu = await edge.readAgents();
    const cpu = edge.agentsFrom(twin.states);
    for (let i = 0; i < gpu.positions.length; i++) {
      expect(Number.isFinite(gpu.positions[i]) && Number.isFinite(gpu.velocities[i])).toBe(true);
      // Fixed tolerances (not scaled by the bounds, so that a looser bound cannot loosen them): float32
      // holds 1e9 to 64 units, and at 1e6 units a second ORCA's branches see 0.06 units a second.
      expect(Math.abs(gpu.positions[i] - cpu.positions[i])).toBeLessThan(1e4);
      expect(Math.abs(gpu.velocities[i] - cpu.velocities[i])).toBeLessThan(1e3);
    }
    for (let i = 0; i < gpu.velocities.length / 2; i++) expect(Math.hypot(gpu.velocities[2 * i], gpu.velocities[2 * i + 1])).toBeLessThanOrEqual(1e6 * (1 + 1e-5));
    other.destroy();
  });
});
