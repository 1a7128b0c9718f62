import { describe, expect, it } from 'vitest';
import { bottleneck, circleSwap, corridorCrossing, runScene } from '../../../tools/steering-scenes';

/**
 * The scenarios on the TypeScript twin of the GPU step (which test/features/steering/crowd-steering.test.ts
 * holds to the GPU): agents reach their goals, nobody freezes, and agents that all avoid never
 * overlap (closer than 0.99 of their radii sum) nor enter an obstacle, dense meetings included:
 * where ORCA's program is infeasible the position projection keeps them apart. The numbers
 * themselves go to docs/steering.md through `npm run bench -- --section steering`.
 */
describe('steering scenarios (twin, 20 steps a second)', () => {
  it('the circle swap: 24 agents to the opposite point, through the middle, none frozen, none overlapping', () => {
    const report = runScene(circleSwap(24, 6), 40);
    expect(report.shortOfGoal).toBe(0);
    expect(report.overlappingPairs).toBe(0);
    expect(report.closestApproach).toBeGreaterThan(0.99);
    // Straight across is 12 m at 1.3 m/s (9.2 s): the detour and the meeting cost under 3 s more.
    expect(report.timeToGoal).toBeLessThan(12.5);
  });

  it('the dense circle swap: 48 agents on a circle of 8 m, where ORCA alone is infeasible in the middle, none overlapping', () => {
    const report = runScene(circleSwap(48, 8), 40);
    expect(report.shortOfGoal).toBe(0);
    expect(report.overlappingPairs).toBe(0);
    expect(report.timeToGoal).toBeLessThan(20);
  });

  it('two groups of 12 crossing in a corridor 4 m wide: all through, none overlapping, none in a wall', () => {
    const report = runScene(corridorCrossing(12), 60);
    expect(report.shortOfGoal).toBe(0);
    expect(report.overlappingPairs).toBe(0);
    expect(report.agentsInObstacles).toBe(0);
    expect(report.timeToGoal).toBeLessThan(30);
  });

  it('a bottleneck: 30 agents find a door off their straight line with the flow field, pressed through it without overlapping; without it, some are still pressed to the wall', () => {
    const field = runScene(bottleneck(30, true), 60);
    expect(field.shortOfGoal).toBe(0);
    expect(field.timeToGoal).toBeLessThan(40);
    expect(field.overlappingPairs).toBe(0);
    expect(field.agentsInObstacles).toBe(0);
    const straight = runScene(bottleneck(30, false), 30);
    expect(straight.shortOfGoal).toBeGreaterThan(field.shortOfGoal);
    expect(straight.overlappingPairs).toBe(0);
    expect(straight.agentsInObstacles).toBe(0);
  });
});
