import { describe, expect, it } from 'vitest';
import { TwinScene } from '../../../tools/steering-scenes';

/**
 * SteeringAgentOptions.maxAcceleration on the twin (which test/features/steering/crowd-steering.test.ts
 * holds to the GPU): the preferred velocity moves from the velocity by at most maxAcceleration x dt
 * a step (starting, stopping at the goal, turning to a new one), while avoidance (ORCA's answer) is
 * not bounded. The default is 2 x maxSpeed.
 */
const DT = 1 / 60;

/** Speed and largest change of velocity per second over `steps` steps of agent 0 of `scene`. */
function run(scene: TwinScene, steps: number, each?: (step: number) => void): { speeds: number[]; worst: number } {
  const speeds: number[] = [];
  let worst = 0;
  let [vx, vz] = [0, 0]; // agents start standing
  for (let i = 0; i < steps; i++) {
    each?.(i);
    scene.step(DT);
    const [x, z] = scene.velocity(0);
    worst = Math.max(worst, Math.hypot(x - vx, z - vz) / DT);
    speeds.push(Math.hypot(x, z));
    [vx, vz] = [x, z];
  }
  return { speeds, worst };
}

describe('steering acceleration (twin)', () => {
  it('an agent alone starts, stops at its goal and turns to a new goal within maxAcceleration', () => {
    const scene = new TwinScene();
    scene.add(0, 0, { radius: 0.3, maxSpeed: 2, preferredSpeed: 1.2, maxAcceleration: 3, goal: [4, 0] });
    // From standing: 1.2 m/s after 0.4 s (24 steps), not before; then it brakes to a stop on the
    // goal (braking sqrt(2 a d), overshooting by a step's creep at most) and turns to a new one.
    let atGoal = [NaN, NaN];
    const { speeds, worst } = run(scene, 300, (i) => {
      if (i !== 240) return;
      atGoal = scene.position(0);
      scene.model.setGoal(0, [4, -3]);
    });
    expect(worst).toBeLessThan(3 * 1.0001);
    expect(speeds[22]).toBeLessThan(1.2 * 0.99);
    expect(Math.abs(speeds[30] / 1.2 - 1)).toBeLessThan(0.011); // the 1% symmetry-breaking nudge
    expect(speeds[239]).toBeLessThan(0.01);
    expect(Math.hypot(atGoal[0] - 4, atGoal[1])).toBeLessThan(0.01);
    expect(speeds[299]).toBeGreaterThan(1);
  });

  it('the default is 2 x maxSpeed (full speed from standing in half a second); without a goal it slows within the bound too', () => {
    const scene = new TwinScene();
    scene.add(0, 0, { radius: 0.3, maxSpeed: 1.5, goal: [20, 0] });
    const { speeds, worst } = run(scene, 60, (i) => { if (i === 45) scene.model.setGoal(0, null); });
    expect(worst).toBeLessThan(3 * 1.0001);
    expect(speeds[28]).toBeLessThan(1.5);
    expect(Math.abs(speeds[31] / 1.5 - 1)).toBeLessThan(0.011);
    // 15 steps after the goal went: 1.5 - 15 x 3 / 60 = 0.75 m/s, still slowing.
    expect(speeds[59]).toBeCloseTo(0.75, 2);
  });

  it('avoidance is not bounded: two agents meeting head-on swerve faster than maxAcceleration, and never overlap', () => {
    const scene = new TwinScene();
    scene.add(-4, 0, { radius: 0.3, maxSpeed: 2, preferredSpeed: 1.3, maxAcceleration: 1, goal: [4, 0] });
    scene.add(4, 0.02, { radius: 0.3, maxSpeed: 2, preferredSpeed: 1.3, maxAcceleration: 1, goal: [-4, 0.02] });
    const { worst } = run(scene, 600);
    console.log(`head-on at maxAcceleration 1: the largest velocity change ${worst.toFixed(2)} m/s^2`);
    expect(worst).toBeGreaterThan(1.5);
    expect(scene.report().closestApproach).toBeGreaterThan(0.99);
    expect(scene.report().shortOfGoal).toBe(0);
  });
});
