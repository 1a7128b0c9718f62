import { describe, expect, it } from 'vitest';
import { CrowdSteering } from '../../../src/features/steering/crowd-steering';
import { MAX_TWIN_AGENTS } from '../../../src/features/steering/twin-engine';
import type { CrowdFeature, CrowdKernel } from '../../../src/runtime/feature';
import { InstanceStore } from '../../../src/runtime/instance-store';
import type { RecordBufferLike, RecordDevice } from '../../../src/runtime/record-device';

/**
 * CrowdSteering on a WebGL 2 crowd (src/features/steering/twin-engine.ts), in Node: no GPU is
 * involved there, so the crowd is what a GLCrowd hands a feature (CrowdKernel with backend
 * 'webgl2') over an InstanceStore on a record device that keeps nothing on a GPU. The twin's
 * step is held to the GPU in test/e2e/gl-crowd.test.ts; here: each agent's record follows its
 * state as steering.wgsl's moveAgents writes it (yaw, height, scale kept, non-agents untouched),
 * and the MAX_TWIN_AGENTS refusal changes nothing.
 */

/** A record device whose buffers hold nothing (the store's CPU side is what the twin writes). */
const cpuDevice: RecordDevice<RecordBufferLike> = {
  limits: { maxStorageBufferBindingSize: 2 ** 31, maxBufferSize: 2 ** 31 },
  queue: { writeBuffer() {} },
  createBuffer: ({ size }) => ({ size, destroy() {} }),
};

function glCrowd() {
  const store = new InstanceStore(cpuDevice, { nodeCount: 2, slotCount: 2, clipDurations: [1], capacity: 4, label: 'test' });
  let clock = 0;
  const kernel = { backend: 'webgl2', store, get clock() { return clock; }, feature: () => undefined } as unknown as CrowdKernel;
  const features: CrowdFeature[] = [];
  const crowd = { backend: 'webgl2' as const, install(feature: CrowdFeature) { features.push(feature); return kernel; } };
  /** GLCrowd's update as the feature sees it (prepare after the clock moved), its encode (cpuDrive), and a frame of both. */
  const update = (dt: number) => {
    clock += dt;
    for (const f of features) f.prepare?.(clock);
  };
  const encode = () => {
    for (const f of features) f.cpuDrive?.();
  };
  const frame = (dt: number) => {
    update(dt);
    encode();
  };
  return { crowd, store, frame, update, encode, clock: () => clock };
}

const placement = (x: number, y: number, z: number, scale: number) => [scale, 0, 0, 0, 0, scale, 0, 0, 0, 0, scale, 0, x, y, z, 1];

describe('CrowdSteering on WebGL 2: the twin steps on the CPU', () => {
  it('writes each agent\'s placement and facing into its record from the twin\'s state; other instances keep theirs', async () => {
    const { crowd, store, frame } = glCrowd();
    const steering = new CrowdSteering(crowd);
    expect(steering.gpuBytes).toBe(0);
    const ids = [0, 1, 2].map(() => store.idOf(store.add()));
    const bystander = store.idOf(store.add());
    store.records.setWorld(store.slotOfId(bystander), placement(7, 0.5, 7, 2));
    ids.forEach((id, i) => store.records.setWorld(store.slotOfId(id), placement(-3 + 3 * i, 0.25, i - 1, 1.5)));
    ids.forEach((id, i) => steering.addAgent(id, { radius: 0.35, maxSpeed: 1.6, preferredSpeed: 1.2, goal: i === 1 ? [0, 3] : [3 - 3 * i, 1 - i] }));
    for (let f = 0; f < 30; f++) frame(1 / 20);
    const agents = await steering.readAgents();
    expect(Array.from(agents.ids)).toEqual(ids);
    const world = new Float32Array(16);
    for (let i = 0; i < ids.length; i++) {
      store.records.getWorld(store.slotOfId(ids[i]), world);
      const x = agents.positions[2 * i], z = agents.positions[2 * i + 1];
      expect(Math.hypot(x - (-3 + 3 * i), z - (i - 1))).toBeGreaterThan(1); // it walked
      expect([world[12], world[13], world[14]]).toEqual([x, Math.fround(0.25), z]);
      const heading = Math.atan2(world[8], world[10]);
      expect(Math.hypot(world[8], world[10])).toBeCloseTo(1.5, 5);
      expect(world[5]).toBeCloseTo(1.5, 6);
      expect(world[0]).toBeCloseTo(1.5 * Math.cos(heading), 6);
      expect(world[2]).toBeCloseTo(-1.5 * Math.sin(heading), 6);
      // Facing follows the velocity (2 pi rad/s has caught up).
      const v = [agents.velocities[2 * i], agents.velocities[2 * i + 1]];
      if (Math.hypot(v[0], v[1]) > 0.5) expect(Math.cos(heading - Math.atan2(v[0], v[1]))).toBeGreaterThan(0.9);
    }
    expect(Array.from(store.records.getWorld(store.slotOfId(bystander), world))).toEqual(placement(7, 0.5, 7, 2));
  });

  it('updates without an encode between them (a paused view, two fixed steps a frame) lose no step time: the next encode steps them', async () => {
    const { crowd, store, frame, update, encode, clock } = glCrowd();
    const steering = new CrowdSteering(crowd);
    const id = store.idOf(store.add());
    store.records.setWorld(store.slotOfId(id), placement(0, 0, -6, 1));
    steering.addAgent(id, { radius: 0.2, maxSpeed: 1, preferredSpeed: 1, maxAcceleration: 1e3, goal: [0, 60] });
    frame(1 / 20);
    for (let f = 0; f < 10; f++) {
      update(1 / 20);
      update(1 / 20);
      encode();
    }
    // 21 updates of 1/20 s stepped: 1.05 units at 1 unit/s (the 1% nudge aside); with each first update's time lost, 0.55.
    const z = (await steering.readAgents()).positions[1];
    expect(Math.abs(z + 6 - clock())).toBeLessThan(0.03);
  });

  it('two encodes for one update (two views drawn a frame) step once: the second moves nobody', async () => {
    const { crowd, store, update, encode, clock } = glCrowd();
    const steering = new CrowdSteering(crowd);
    const id = store.idOf(store.add());
    store.records.setWorld(store.slotOfId(id), placement(0, 0, -6, 1));
    steering.addAgent(id, { radius: 0.2, maxSpeed: 1, preferredSpeed: 1, maxAcceleration: 1e3, goal: [0, 60] });
    for (let f = 0; f < 20; f++) {
      update(1 / 20);
      encode();
      encode();
    }
    // 20 updates of 1/20 s: 1 unit at 1 unit/s (the 1% nudge aside); stepped at each encode, 2.
    const z = (await steering.readAgents()).positions[1];
    expect(Math.abs(z + 6 - clock())).toBeLessThan(0.03);
    expect(store.records.getWorld(store.slotOfId(id), new Float32Array(16))[14]).toBe(z);
  });

  it(`takes at most MAX_TWIN_AGENTS (${MAX_TWIN_AGENTS}) agents: the next is refused by name, changing nothing`, () => {
    const { crowd, store } = glCrowd();
    const steering = new CrowdSteering(crowd);
    const ids = Array.from({ length: MAX_TWIN_AGENTS + 1 }, () => store.idOf(store.add()));
    for (const id of ids.slice(0, MAX_TWIN_AGENTS)) steering.addAgent(id, { radius: 0.3, maxSpeed: 1 });
    expect(() => steering.addAgent(ids[MAX_TWIN_AGENTS], { radius: 0.3, maxSpeed: 1 }))
      .toThrow(/steering on WebGL 2 steps at most 150 agents \(its TypeScript twin on the CPU: more would cost over 2 ms a frame\); more agents need WebGPU/);
    expect(steering.agentCount).toBe(MAX_TWIN_AGENTS);
    expect(steering.hasAgent(ids[MAX_TWIN_AGENTS])).toBe(false);
    steering.removeAgent(ids[0]);
    steering.addAgent(ids[MAX_TWIN_AGENTS], { radius: 0.3, maxSpeed: 1 });
    expect(steering.agentCount).toBe(MAX_TWIN_AGENTS);
  });
});
