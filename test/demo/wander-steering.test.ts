import { describe, expect, it } from 'vitest';
import type { AnimationController, ControllerConfig, CrowdSteering, GroundPoint, LocomotionReadback, SteeringAgentOptions } from '../../src/index';
import { Wander, type WanderSteer } from '../../demo/scenes/wander';
import { WanderSteering } from '../../demo/scenes/wander-steering';

/** CrowdSteering's calls WanderSteering makes, recorded (no GPU). */
class FakeSteering {
  agents = new Map<number, SteeringAgentOptions>();
  goals = new Map<number, GroundPoint | null>();
  removed: number[] = [];
  hasAgent(id: number): boolean { return this.agents.has(id); }
  addAgent(id: number, options: SteeringAgentOptions): void {
    if (this.agents.has(id)) throw new RangeError(`instance ${id} is already an agent`);
    this.agents.set(id, options);
  }
  removeAgent(id: number): void { this.agents.delete(id); this.removed.push(id); }
  setGoal(id: number, goal: GroundPoint | null): void {
    if (!this.agents.has(id)) throw new RangeError(`instance ${id} is not an agent`);
    this.goals.set(id, goal);
  }
  setAgentOptions(id: number, options: Partial<SteeringAgentOptions>): void {
    if (!this.agents.has(id)) throw new RangeError(`instance ${id} is not an agent`);
    this.agents.set(id, { ...this.agents.get(id)!, ...options });
  }
}

const WALK_SPEED = 1.2;

function steeringWith(count: number): { fake: FakeSteering; steer: WanderSteering } {
  const fake = new FakeSteering();
  const steer = new WanderSteering(fake as unknown as CrowdSteering, WALK_SPEED, 0.3);
  steer.ids = Int32Array.from({ length: count }, (_, i) => 100 + i);
  steer.on = true;
  return { fake, steer };
}

describe('WanderSteering', () => {
  it('makes wanderers agents at a walking pace, and the keyboard character one that cannot move', () => {
    const { fake, steer } = steeringWith(4);
    for (let i = 0; i < 4; i++) steer.join(100 + i, i === 0);
    const keyboard = fake.agents.get(100)!;
    expect(keyboard.maxSpeed).toBe(0);
    expect(keyboard.radius).toBeCloseTo(0.6, 9);
    for (let i = 1; i < 4; i++) {
      const o = fake.agents.get(100 + i)!;
      expect(o.radius).toBe(0.3);
      expect(o.preferredSpeed! / WALK_SPEED).toBeCloseTo(0.8, 9);
      expect(o.maxSpeed).toBeGreaterThan(o.preferredSpeed!);
    }
    // Joining again (the keyboard moved on) replaces the agent.
    steer.join(100, false);
    expect(fake.removed).toEqual([100]);
    expect(fake.agents.get(100)!.maxSpeed).toBeGreaterThan(0);
  });

  it('turns a decision into a pace and a goal ahead, beyond the next decision, or none', () => {
    const { fake, steer } = steeringWith(3);
    steer.join(101, false);
    steer.go(1, 2, -1, 0.3, -0.4, false); // walking at half of walkSpeed
    expect(fake.agents.get(101)!.preferredSpeed).toBeCloseTo(0.5 * WALK_SPEED, 9);
    const [gx, gz] = fake.goals.get(101)!;
    const d = Math.hypot(gx - 2, gz + 1);
    expect(d).toBeGreaterThan(6 * 0.5 * WALK_SPEED); // decisions come 2 to 6 s apart
    expect((gx - 2) / d).toBeCloseTo(0.6, 6);
    expect((gz + 1) / d).toBeCloseTo(-0.8, 6);
    steer.go(1, 2, -1, 0, 1, true); // running: twice walkSpeed
    expect(fake.agents.get(101)!.preferredSpeed).toBeCloseTo(2 * WALK_SPEED, 9);
    expect(fake.agents.get(101)!.maxSpeed).toBeGreaterThan(2 * WALK_SPEED);
    steer.goOn(1, 0, 0, 0.9, 0); // joining on the move: its velocity, units per second
    expect(fake.agents.get(101)!.preferredSpeed).toBeCloseTo(0.9, 9);
    expect(fake.goals.get(101)![0]).toBeGreaterThan(6 * 0.9);
    steer.stand(1);
    expect(fake.goals.get(101)).toBeNull();
  });

  it('does nothing while off, or for a wanderer that is no agent', () => {
    const { fake, steer } = steeringWith(3);
    steer.go(2, 0, 0, 1, 0, false); // 102 is no agent
    steer.join(101, false);
    steer.on = false;
    steer.go(1, 0, 0, 1, 0, false);
    steer.stand(1);
    expect(fake.goals.size).toBe(0);
    steer.on = true;
    steer.leave(101);
    steer.leave(101);
    expect(fake.agents.size).toBe(0);
  });
});

describe('Wander with steering', () => {
  it('sends every decision to its steer as well as to the controller', () => {
    const config = { locomotion: { blendSpace: '1d' }, actions: [], transitions: new Map() } as unknown as ControllerConfig;
    const wander = new Wander(config, 7);
    const calls: string[] = [];
    const steer: WanderSteer = {
      go: (i, x, z, dx, dz) => calls.push(`go ${i} ${x},${z} ${Math.hypot(dx, dz) <= 1}`),
      stand: (i) => calls.push(`stand ${i}`),
    };
    wander.steer = steer;
    const moves: string[] = [];
    const controller = {
      action: -1,
      move: () => moves.push('move'),
      stop: () => moves.push('stop'),
      face: () => {},
    } as unknown as AnimationController;
    const state: LocomotionReadback = { x: 1, z: 2, velocityX: 0, velocityZ: 0, heading: 0, phase: 0, age: 0 };
    wander.reserve(1);
    wander.radius = 100;
    for (let k = 0; k < 40; k++) wander.update(0, controller, state, 7); // a decision each look
    expect(calls.length).toBe(40);
    expect(moves.length).toBe(40);
    expect(calls.filter((c) => c === 'go 0 1,2 true').length + calls.filter((c) => c === 'stand 0').length).toBe(40);
    expect(calls).toContain('stand 0');
    expect(calls).toContain('go 0 1,2 true');
  });
});
