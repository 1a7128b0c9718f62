import { describe, expect, it } from 'vitest';
import { clipWeights } from '../../demo/clip-weights';
import type { LayerStackArrays } from '../../src/index';

const CLIPS = ['Idle', 'Walk', 'Run', 'Wave', 'Jump'];

/** A controller's output stack (base clip, then override layers at time 0, speed 1). */
function output(base: number, layers: [clip: number, weight: number, mask: number][]): LayerStackArrays {
  return {
    baseClip: base, baseTime: 0, baseSpeed: 0, layerCount: layers.length,
    layerClip: layers.map((l) => l[0]), layerTime: layers.map(() => 0), layerSpeed: layers.map(() => 1),
    layerWeight: layers.map((l) => l[1]), layerMask: layers.map((l) => l[2]),
  };
}

describe('clipWeights', () => {
  it('gives the base everything without layers', () => {
    const dst = new Float32Array(CLIPS.length);
    clipWeights(output(1, []), dst);
    expect([...dst]).toEqual([0, 1, 0, 0, 0]);
  });

  it('turns progressive layer weights back into a weighted average that sums to 1', () => {
    // Idle 0.2, Walk 0.3, Run 0.5 as a stack: base Idle, Walk at 0.3/0.5, Run at 0.5/1.
    const dst = new Float32Array(CLIPS.length);
    clipWeights(output(0, [[1, 0.6, -1], [2, 0.5, -1]]), dst);
    expect(dst[0]).toBeCloseTo(0.2);
    expect(dst[1]).toBeCloseTo(0.3);
    expect(dst[2]).toBeCloseTo(0.5);
    expect(dst.reduce((a, b) => a + b)).toBeCloseTo(1);
  });

  it('reports a masked layer at its own weight without taking from the others', () => {
    const dst = new Float32Array(CLIPS.length);
    clipWeights(output(1, [[2, 0.25, -1], [3, 0.8, 0]]), dst);
    expect(dst[1]).toBeCloseTo(0.75);
    expect(dst[2]).toBeCloseTo(0.25);
    expect(dst[3]).toBeCloseTo(0.8);
  });

  it('lets an unmasked action on top take its weight from everything below', () => {
    const dst = new Float32Array(CLIPS.length);
    clipWeights(output(1, [[4, 0.9, -1]]), dst);
    expect(dst[1]).toBeCloseTo(0.1);
    expect(dst[4]).toBeCloseTo(0.9);
  });

  it('adds up a clip that appears twice', () => {
    const dst = new Float32Array(CLIPS.length);
    clipWeights(output(1, [[2, 0.5, -1], [1, 0.5, -1]]), dst);
    expect(dst[1]).toBeCloseTo(0.75);
    expect(dst[2]).toBeCloseTo(0.25);
  });
});
