import { describe, expect, it } from 'vitest';
import {
  advancePhase,
  BlendSpace1D,
  BlendSpace2D,
  blendSpaceStack,
  clipTimeAtPhase,
  clipTimesAtPhase,
  createBlendWeights,
  type BlendSpace2DEntry,
  type BlendWeights,
} from '../../src/anim/blend-space';
import { seededRandom } from '../helpers/prng';

/**
 * Blend spaces (src/anim/blend-space*.ts): validity first, then hand-computed 1D weights, phase
 * sync, hand-computed 2D cases (the directional locomotion layouts), and property tests on
 * seeded random 2D spaces checked against a hull and nearest-point search written here.
 */

/** The filled entries of `out` as {entry: weight}, for exact comparisons. */
function weightsOf(out: BlendWeights): Record<number, number> {
  const result: Record<number, number> = {};
  for (let i = 0; i < out.count; i++) result[out.entries[i]] = out.weights[i];
  return result;
}

function expectWeights(out: BlendWeights, expected: Record<number, number>, digits = 12): void {
  const actual = weightsOf(out);
  expect(Object.keys(actual).sort(), `entries ${JSON.stringify(actual)}`).toEqual(Object.keys(expected).sort());
  for (const [entry, w] of Object.entries(expected)) expect(actual[Number(entry)], `weight of entry ${entry} in ${JSON.stringify(actual)}`).toBeCloseTo(w, digits);
}

/** Weights in (0, 1], summing to 1 within 1e-9; clips, durations and rates consistent with the space. */
function expectWellFormed(out: BlendWeights, entries: { clip: number; duration: number }[]): void {
  expect(out.count).toBeGreaterThanOrEqual(1);
  expect(out.count).toBeLessThanOrEqual(out.capacity);
  let sum = 0;
  let cycle = 0;
  for (let i = 0; i < out.count; i++) {
    expect(out.weights[i]).toBeGreaterThan(0);
    expect(out.weights[i]).toBeLessThanOrEqual(1);
    expect(out.clips[i]).toBe(entries[out.entries[i]].clip);
    expect(out.durations[i]).toBe(entries[out.entries[i]].duration);
    sum += out.weights[i];
    cycle += out.weights[i] * out.durations[i];
  }
  expect(Math.abs(sum - 1)).toBeLessThanOrEqual(1e-9);
  expect(new Set(out.entries.subarray(0, out.count)).size).toBe(out.count);
  expect(out.cycleDuration).toBeCloseTo(cycle, 12);
  for (let i = 0; i < out.count; i++) expect(out.rates[i]).toBeCloseTo(out.durations[i] / cycle, 12);
}

/** sum_i w_i p_i for a 2D space's output. */
function blendedPoint(out: BlendWeights, entries: BlendSpace2DEntry[]): [number, number] {
  let x = 0, y = 0;
  for (let i = 0; i < out.count; i++) {
    x += out.weights[i] * entries[out.entries[i]].x;
    y += out.weights[i] * entries[out.entries[i]].y;
  }
  return [x, y];
}

const line = (...positions: number[]) => positions.map((position, i) => ({ clip: 10 + i, position, duration: 1 + i }));
const plane = (...points: number[][]) => points.map(([x, y], i) => ({ clip: 10 + i, x, y, duration: 1 + i / 4 }));

describe('blend space validity', () => {
  it('createBlendWeights rejects a capacity that is not an integer >= 1', () => {
    for (const bad of [0, -1, 1.5, NaN, Infinity]) {
      expect(() => createBlendWeights(bad)).toThrow(new RegExp(`createBlendWeights: capacity must be an integer >= 1, got ${bad}`));
    }
    expect(createBlendWeights().capacity).toBe(4);
    expect(createBlendWeights(1).count).toBe(0);
  });

  it('BlendSpace1D rejects entries that are not a non-empty array of objects', () => {
    expect(() => new BlendSpace1D(undefined as never)).toThrow(TypeError);
    expect(() => new BlendSpace1D({} as never)).toThrow(/BlendSpace1D: entries must be an array of \{clip, position, duration\}, got \{\}/);
    expect(() => new BlendSpace1D([])).toThrow(/BlendSpace1D: entries is empty; a blend space needs at least one clip/);
    expect(() => new BlendSpace1D([...line(0), null as never])).toThrow(/BlendSpace1D entries\[1\] must be an object \{clip, position, duration\}, got null/);
  });

  it('BlendSpace1D rejects a clip that is not an integer >= 0, naming the entry', () => {
    for (const bad of [-1, 1.5, NaN, '2', undefined]) {
      const entries = line(0, 1, 2);
      (entries[2] as { clip: unknown }).clip = bad;
      expect(() => new BlendSpace1D(entries), String(bad)).toThrow(/BlendSpace1D entries\[2\]\.clip must be a clip index \(an integer >= 0\), got /);
    }
  });

  it('BlendSpace1D rejects a position that is not finite, naming the entry', () => {
    for (const bad of [NaN, Infinity, -Infinity, '1', null]) {
      const entries = line(0, 1, 2);
      (entries[1] as { position: unknown }).position = bad;
      expect(() => new BlendSpace1D(entries), String(bad)).toThrow(new RegExp(`BlendSpace1D entries\\[1\\]\\.position must be a finite number, got ${bad === '1' ? '"1"' : bad}`));
    }
  });

  it('BlendSpace1D rejects two entries at the same position, naming both', () => {
    expect(() => new BlendSpace1D(line(0, 2, 1, 2))).toThrow(/BlendSpace1D entries\[1\] and entries\[3\] are both at position 2; positions must be distinct/);
    expect(() => new BlendSpace1D(line(0, -0))).toThrow(/entries\[0\] and entries\[1\] are both at position 0/);
  });

  it('BlendSpace1D rejects a duration that is not a finite number > 0, naming the entry', () => {
    for (const bad of [0, -1, NaN, Infinity, '1']) {
      const entries = line(0, 1);
      (entries[0] as { duration: unknown }).duration = bad;
      expect(() => new BlendSpace1D(entries), String(bad)).toThrow(/BlendSpace1D entries\[0\]\.duration must be a finite number of seconds > 0, got /);
    }
  });

  it('BlendSpace1D.evaluate rejects a parameter that is not finite and an output too small', () => {
    const space = new BlendSpace1D(line(0, 1));
    for (const bad of [NaN, Infinity]) expect(() => space.evaluate(bad, createBlendWeights())).toThrow(new RegExp(`BlendSpace1D.evaluate: parameter must be a finite number, got ${bad}`));
    expect(() => space.evaluate(0.5, createBlendWeights(1))).toThrow(/BlendSpace1D.evaluate: the output has capacity 1, this blend space needs 2 \(createBlendWeights\(2\)\)/);
    // A one-clip space needs room for one entry only.
    expect(new BlendSpace1D(line(3)).evaluate(0, createBlendWeights(1)).count).toBe(1);
  });

  it('BlendSpace2D with fewer than 3 entries says to use BlendSpace1D', () => {
    for (const points of [[], [[0, 0]], [[0, 0], [1, 0]]]) {
      expect(() => new BlendSpace2D(plane(...points))).toThrow(new RegExp(`BlendSpace2D needs at least 3 entries that span an area, got ${points.length}; for 1 or 2 clips use BlendSpace1D`));
    }
    expect(() => new BlendSpace2D('points' as never)).toThrow(/BlendSpace2D: entries must be an array of \{clip, x, y, duration\}, got "points"/);
  });

  it('BlendSpace2D with all points on one line says to use BlendSpace1D', () => {
    expect(() => new BlendSpace2D(plane([0, 0], [1, 1], [2, 2]))).toThrow(/BlendSpace2D: all 3 points lie on one line, so they span no area; for clips along a line use BlendSpace1D/);
    expect(() => new BlendSpace2D(plane([0, -1], [0, 0], [0, 3], [0, 1], [0, 2]))).toThrow(/all 5 points lie on one line.*use BlendSpace1D/);
  });

  it('BlendSpace2D rejects a bad entry, naming its index and field', () => {
    const cases: [string, unknown, RegExp][] = [
      ['x', NaN, /BlendSpace2D entries\[2\]\.x must be a finite number, got NaN/],
      ['y', Infinity, /BlendSpace2D entries\[2\]\.y must be a finite number, got Infinity/],
      ['y', undefined, /BlendSpace2D entries\[2\]\.y must be a finite number, got undefined/],
      ['clip', -3, /BlendSpace2D entries\[2\]\.clip must be a clip index \(an integer >= 0\), got -3/],
      ['duration', 0, /BlendSpace2D entries\[2\]\.duration must be a finite number of seconds > 0, got 0/],
    ];
    for (const [field, bad, message] of cases) {
      const entries = plane([0, 0], [1, 0], [0, 1]);
      (entries[2] as Record<string, unknown>)[field] = bad;
      expect(() => new BlendSpace2D(entries)).toThrow(message);
    }
    expect(() => new BlendSpace2D([...plane([0, 0], [1, 0], [0, 1]), 7 as never])).toThrow(/BlendSpace2D entries\[3\] must be an object \{clip, x, y, duration\}, got 7/);
  });

  it('BlendSpace2D rejects two entries at the same point, naming both', () => {
    expect(() => new BlendSpace2D(plane([0, 0], [1, 0], [0, 1], [1, 0]))).toThrow(/BlendSpace2D entries\[1\] and entries\[3\] are both at \(1, 0\); points must be distinct/);
  });

  it('BlendSpace2D.evaluate rejects a point that is not finite and an output too small', () => {
    const space = new BlendSpace2D(plane([0, 0], [1, 0], [0, 1]));
    expect(() => space.evaluate(NaN, 0, createBlendWeights())).toThrow(/BlendSpace2D.evaluate: x and y must be finite numbers, got \(NaN, 0\)/);
    expect(() => space.evaluate(0, -Infinity, createBlendWeights())).toThrow(/got \(0, -Infinity\)/);
    expect(() => space.evaluate(0.2, 0.2, createBlendWeights(2))).toThrow(/BlendSpace2D.evaluate: the output has capacity 2, this blend space needs 3/);
  });

  it('the phase helpers reject a phase outside [0, 1), a bad dt or index, and weights never evaluated', () => {
    const out = new BlendSpace1D(line(0, 1)).evaluate(0.5, createBlendWeights());
    for (const bad of [-0.1, 1, NaN]) {
      expect(() => clipTimesAtPhase(out, bad, new Float64Array(2))).toThrow(new RegExp(`clipTimesAtPhase: phase must be in \\[0, 1\\), got ${bad}`));
      expect(() => clipTimeAtPhase(out, 0, bad)).toThrow(/clipTimeAtPhase: phase must be in \[0, 1\)/);
      expect(() => advancePhase(bad, 0.1, out)).toThrow(/advancePhase: phase must be in \[0, 1\)/);
      expect(() => blendSpaceStack(out, bad)).toThrow(/blendSpaceStack: phase must be in \[0, 1\)/);
    }
    expect(() => advancePhase(0, NaN, out)).toThrow(/advancePhase: dt must be a finite number of seconds, got NaN/);
    expect(() => clipTimeAtPhase(out, 2, 0.5)).toThrow(/clipTimeAtPhase: entry 2 is out of range; the blend has 2 entries/);
    expect(() => clipTimesAtPhase(out, 0.5, new Float64Array(1))).toThrow(/clipTimesAtPhase: times has room for 1 values, the blend has 2 entries/);
    const empty = createBlendWeights();
    expect(() => advancePhase(0, 0.1, empty)).toThrow(/advancePhase: the blend weights are empty; call a blend space's evaluate\(\) first/);
    expect(() => clipTimesAtPhase(empty, 0, [])).toThrow(/clipTimesAtPhase: the blend weights are empty/);
    expect(() => blendSpaceStack(empty, 0)).toThrow(/blendSpaceStack: the blend weights are empty/);
  });
});

describe('BlendSpace1D', () => {
  // Entries given out of order: run (entry 0) at 3, idle (entry 1) at 0, walk (entry 2) at 1.
  const entries = [
    { clip: 7, position: 3, duration: 0.8 },
    { clip: 5, position: 0, duration: 2 },
    { clip: 6, position: 1, duration: 1.2 },
  ];
  const space = new BlendSpace1D(entries);
  const out = createBlendWeights();

  it('at a position: that clip alone', () => {
    expectWeights(space.evaluate(0, out), { 1: 1 });
    expectWeights(space.evaluate(1, out), { 2: 1 });
    expectWeights(space.evaluate(3, out), { 0: 1 });
    expect(out.clips[0]).toBe(7);
    expect([space.min, space.max]).toEqual([0, 3]);
  });

  it('between positions: the two bracketing clips, linear in the parameter', () => {
    expectWeights(space.evaluate(0.25, out), { 1: 0.75, 2: 0.25 });
    expectWeights(space.evaluate(2, out), { 2: 0.5, 0: 0.5 });
    expectWeights(space.evaluate(2.5, out), { 2: 0.25, 0: 0.75 });
    // Lower position first.
    expect(Array.from(out.clips.subarray(0, out.count))).toEqual([6, 7]);
    expect(Array.from(out.weights.subarray(0, out.count))).toEqual([0.25, 0.75]);
  });

  it('outside the range: clamped to the end clip with weight 1', () => {
    expectWeights(space.evaluate(-5, out), { 1: 1 });
    expectWeights(space.evaluate(-1e300, out), { 1: 1 });
    expectWeights(space.evaluate(3.0001, out), { 0: 1 });
    expectWeights(space.evaluate(1e300, out), { 0: 1 });
  });

  it('one clip: weight 1 everywhere, at its own rate', () => {
    const single = new BlendSpace1D([{ clip: 4, position: 2, duration: 1.5 }]);
    for (const p of [-10, 2, 3]) {
      single.evaluate(p, out);
      expectWeights(out, { 0: 1 });
      expect([out.clips[0], out.rates[0], out.cycleDuration]).toEqual([4, 1, 1.5]);
    }
  });

  it('reuses the output: a later evaluate overwrites count and entries', () => {
    space.evaluate(2, out);
    expect(out.count).toBe(2);
    space.evaluate(0, out);
    expect(out.count).toBe(1);
    expect(out.clips[0]).toBe(5);
  });

  it('weights are >= 0, sum to 1 and move continuously across a sweep', () => {
    const r = seededRandom(3);
    const positions = Array.from({ length: 9 }, () => r() * 10 - 5);
    const random = positions.map((position, i) => ({ clip: i, position, duration: 0.5 + r() }));
    const sweep = new BlendSpace1D(random);
    const sorted = [...positions].sort((a, b) => a - b);
    for (let p = -6; p <= 6; p += 0.01) {
      sweep.evaluate(p, out);
      expectWellFormed(out, random);
      // The blended position is the parameter, clamped to the range.
      let position = 0;
      for (let i = 0; i < out.count; i++) position += out.weights[i] * positions[out.entries[i]];
      expect(position).toBeCloseTo(Math.min(sorted[8], Math.max(sorted[0], p)), 9);
    }
  });
});

describe('phase sync', () => {
  const space = new BlendSpace1D([
    { clip: 0, position: 0, duration: 1 },
    { clip: 1, position: 1, duration: 2 },
  ]);

  it('two clips of 1 s and 2 s at 50/50: D = 1.5 s, rates 1/1.5 and 2/1.5', () => {
    const out = space.evaluate(0.5, createBlendWeights());
    expect(out.cycleDuration).toBeCloseTo(1.5, 15);
    expect(out.rates[0]).toBeCloseTo(1 / 1.5, 15);
    expect(out.rates[1]).toBeCloseTo(2 / 1.5, 15);
    // 25/75: D = 0.25 * 1 + 0.75 * 2 = 1.75 s.
    space.evaluate(0.75, out);
    expect(out.cycleDuration).toBeCloseTo(1.75, 15);
    expect(Array.from(out.rates.subarray(0, 2))).toEqual([1 / 1.75, 2 / 1.75]);
  });

  it('times from a shared phase line up: each clip is the same fraction through its cycle', () => {
    const out = space.evaluate(0.5, createBlendWeights());
    const times = clipTimesAtPhase(out, 0.4, new Float64Array(2));
    expect(Array.from(times)).toEqual([0.4, 0.8]);
    expect(clipTimeAtPhase(out, 1, 0.4)).toBe(0.8);
    expect(clipTimesAtPhase(out, 0, [9, 9, 9])).toEqual([0, 0, 9]);
  });

  it('playing each clip at its rate keeps it at phase * d_i, and both loop once every D seconds', () => {
    const out = space.evaluate(0.5, createBlendWeights());
    const dt = 1 / 60;
    let phase = 0;
    const time = [0, 0];
    for (let frame = 1; frame <= 90; frame++) {
      phase = advancePhase(phase, dt, out);
      for (let i = 0; i < 2; i++) {
        time[i] = (time[i] + out.rates[i] * dt) % out.durations[i];
        const expected = phase * out.durations[i];
        // Compare on the loop: 0 and d_i are the same instant.
        const gap = Math.abs(time[i] - expected);
        expect(Math.min(gap, out.durations[i] - gap), `clip ${i} at frame ${frame}`).toBeLessThan(1e-12);
      }
    }
    // 90 frames = 1.5 s = exactly one cycle of the blend.
    expect(Math.min(phase, 1 - phase)).toBeLessThan(1e-12);
  });

  it('advancePhase adds dt / D and wraps into [0, 1), backwards too', () => {
    const out = space.evaluate(0.5, createBlendWeights());
    expect(advancePhase(0.9, 0.3, out)).toBeCloseTo(0.1, 12);
    expect(advancePhase(0.1, -0.3, out)).toBeCloseTo(0.9, 12);
    expect(advancePhase(0.5, 15, out)).toBeCloseTo(0.5, 12);
    expect(advancePhase(0, 0, out)).toBe(0);
  });

  it('blendSpaceStack turns the blend into a weightedAverageStack at the shared phase', () => {
    const entries = plane([0, 0], [1, 0], [0, 1]);
    const out = new BlendSpace2D(entries).evaluate(0.25, 0.25, createBlendWeights());
    // Weights 0.5, 0.25, 0.25 on durations 1, 1.25, 1.5: the base, then layers w_i / (running total).
    const stack = blendSpaceStack(out, 0.5);
    expect(stack.base).toEqual({ clip: 10, time: 0.5 });
    expect(stack.layers).toHaveLength(2);
    expect(stack.layers[0].clip).toBe(11);
    expect(stack.layers[0].time).toBeCloseTo(0.625, 15);
    expect(stack.layers[0].weight).toBeCloseTo(0.25 / 0.75, 15);
    expect(stack.layers[1].clip).toBe(12);
    expect(stack.layers[1].time).toBeCloseTo(0.75, 15);
    expect(stack.layers[1].weight).toBeCloseTo(0.25, 15);
    expect(stack.additive).toEqual([]);
  });
});

describe('BlendSpace2D', () => {
  const out = createBlendWeights();

  it('one triangle: barycentric weights inside, the nearest edge point or corner outside', () => {
    const entries = plane([0, 0], [1, 0], [0, 1]);
    const space = new BlendSpace2D(entries);
    expect(space.triangles.length).toBe(3);
    expectWeights(space.evaluate(0.25, 0.25, out), { 0: 0.5, 1: 0.25, 2: 0.25 });
    expectWeights(space.evaluate(0.5, 0, out), { 0: 0.5, 1: 0.5 });
    expectWeights(space.evaluate(0, 1, out), { 2: 1 });
    // Outside: (2, 2) is nearest (0.5, 0.5) on the long edge; (-1, -1) the corner (0, 0);
    // (0.5, -1) the midpoint of the bottom edge; (3, -1) the corner (1, 0).
    expectWeights(space.evaluate(2, 2, out), { 1: 0.5, 2: 0.5 });
    expectWeights(space.evaluate(-1, -1, out), { 0: 1 });
    expectWeights(space.evaluate(0.5, -1, out), { 0: 0.5, 1: 0.5 });
    expectWeights(space.evaluate(3, -1, out), { 1: 1 });
    expectWellFormed(out, entries);
  });

  // Directional locomotion: entry 0 idle, 1 forward, 2 back, 3 left, 4 right.
  const IDLE = 0, FORWARD = 1, BACK = 2, RIGHT = 4, FORWARD_RIGHT = 5;
  const cardinals = [[0, 0], [0, 1], [0, -1], [-1, 0], [1, 0]];

  it('locomotion, cardinals and idle: halfway forward is idle and forward 50/50', () => {
    const entries = plane(...cardinals);
    const space = new BlendSpace2D(entries);
    expectWeights(space.evaluate(0, 0.5, out), { [IDLE]: 0.5, [FORWARD]: 0.5 });
    expectWeights(space.evaluate(0, 0, out), { [IDLE]: 1 });
    expectWeights(space.evaluate(0, -0.25, out), { [IDLE]: 0.75, [BACK]: 0.25 });
    // (0.5, 0.5) is on the forward-right edge of the diamond: forward and right 50/50.
    expectWeights(space.evaluate(0.5, 0.5, out), { [FORWARD]: 0.5, [RIGHT]: 0.5 });
    expectWeights(space.evaluate(0.25, 0.25, out), { [IDLE]: 0.5, [FORWARD]: 0.25, [RIGHT]: 0.25 });
    // Far outside: clamped to the diamond. (10, 10) -> (0.5, 0.5); (0, 7) -> forward;
    // (2, -2) -> (0.5, -0.5) between right and back.
    expectWeights(space.evaluate(10, 10, out), { [FORWARD]: 0.5, [RIGHT]: 0.5 });
    expectWeights(space.evaluate(0, 7, out), { [FORWARD]: 1 });
    expectWeights(space.evaluate(2, -2, out), { [RIGHT]: 0.5, [BACK]: 0.5 });
  });

  it('locomotion with diagonals on the unit circle: (0.5, 0.5) lands on idle and forward-right', () => {
    const s = Math.SQRT1_2;
    const entries = plane(...cardinals, [s, s], [-s, s], [s, -s], [-s, -s]);
    const space = new BlendSpace2D(entries);
    expect(space.triangles.length / 3).toBe(8);
    expectWeights(space.evaluate(0, 0.5, out), { [IDLE]: 0.5, [FORWARD]: 0.5 });
    // (0.5, 0.5) = s * (s, s): on the segment from idle to forward-right, a fraction s along it.
    expectWeights(space.evaluate(0.5, 0.5, out), { [IDLE]: 1 - s, [FORWARD_RIGHT]: s });
    expectWeights(space.evaluate(10, 10, out), { [FORWARD_RIGHT]: 1 });
    expectWeights(space.evaluate(s, s, out), { [FORWARD_RIGHT]: 1 });
    const [x, y] = blendedPoint(space.evaluate(0.3, 0.6, out), entries);
    expect(x).toBeCloseTo(0.3, 12);
    expect(y).toBeCloseTo(0.6, 12);
    expect(out.count).toBe(3);
  });

  it('locomotion with diagonals at the square corners: (0.5, 0.5) blends the cell around it', () => {
    const entries = plane(...cardinals, [1, 1], [-1, 1], [1, -1], [-1, -1]);
    const space = new BlendSpace2D(entries);
    // Each quarter of the square is a cocircular cell with two valid Delaunay diagonals; with
    // this entry order the cell is split forward-right, so (0.5, 0.5) is forward and right 50/50.
    // The other split would give idle and forward-right 50/50; both reproduce the point.
    expectWeights(space.evaluate(0.5, 0.5, out), { [FORWARD]: 0.5, [RIGHT]: 0.5 });
    expectWeights(space.evaluate(0, 0.5, out), { [IDLE]: 0.5, [FORWARD]: 0.5 });
    expectWeights(space.evaluate(5, 5, out), { [FORWARD_RIGHT]: 1 });
    // (3, 0.5) is nearest (1, 0.5), halfway up the right edge of the square.
    expectWeights(space.evaluate(3, 0.5, out), { [RIGHT]: 0.5, [FORWARD_RIGHT]: 0.5 });
    expect(Array.from(space.hull)).toHaveLength(8);
  });

  it('the output carries the phase-sync rates, as in 1D', () => {
    const entries = plane(...cardinals);
    const space = new BlendSpace2D(entries);
    space.evaluate(0.25, 0.25, out); // idle 0.5 (1 s), forward 0.25 (1.25 s), right 0.25 (2 s)
    const D = 0.5 * 1 + 0.25 * 1.25 + 0.25 * 2;
    expect(out.cycleDuration).toBeCloseTo(D, 15);
    expectWellFormed(out, entries);
    const times = clipTimesAtPhase(out, 0.5, new Float64Array(3));
    for (let i = 0; i < 3; i++) expect(times[i] / out.durations[i]).toBeCloseTo(0.5, 15);
  });

  /** The convex hull of `entries` (no collinear points), counter-clockwise, by monotone chain. */
  function hullOf(entries: BlendSpace2DEntry[]): [number, number][] {
    const points = entries.map((e) => [e.x, e.y] as [number, number]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const turn = (o: number[], a: number[], b: number[]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    const chain = (list: [number, number][]) => {
      const h: [number, number][] = [];
      for (const p of list) {
        while (h.length >= 2 && turn(h[h.length - 2], h[h.length - 1], p) <= 0) h.pop();
        h.push(p);
      }
      h.pop();
      return h;
    };
    return [...chain(points), ...chain([...points].reverse())];
  }

  /** Brute force over every hull edge: the nearest point of the hull boundary to (x, y). */
  function nearestOnHull(hull: [number, number][], x: number, y: number): [number, number] {
    let best: [number, number] = hull[0];
    let bestDistance = Infinity;
    for (let k = 0; k < hull.length; k++) {
      const [ax, ay] = hull[k];
      const [bx, by] = hull[(k + 1) % hull.length];
      const s = Math.min(1, Math.max(0, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
      const px = ax + s * (bx - ax), py = ay + s * (by - ay);
      const distance = (x - px) ** 2 + (y - py) ** 2;
      if (distance < bestDistance) { bestDistance = distance; best = [px, py]; }
    }
    return best;
  }

  /** Whether (x, y) is inside the counter-clockwise convex polygon, with a margin (> 0: strictly inside by that much). */
  function insideHull(hull: [number, number][], x: number, y: number, margin: number): boolean {
    return hull.every(([ax, ay], k) => {
      const [bx, by] = hull[(k + 1) % hull.length];
      return ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / Math.hypot(bx - ax, by - ay) > margin;
    });
  }

  for (const count of [3, 4, 6, 9, 16, 25]) {
    it(`random spaces of ${count} clips: weights reproduce the point inside, clamp to the nearest hull point outside`, () => {
      for (let seed = 1; seed <= 4; seed++) {
        const r = seededRandom(seed * 100 + count);
        const entries = Array.from({ length: count }, (_, i) => ({ clip: i, x: r() * 4 - 2, y: r() * 2 - 1, duration: 0.5 + r() }));
        const space = new BlendSpace2D(entries);
        const hull = hullOf(entries);
        let inside = 0, outside = 0;
        for (let q = 0; q < 400; q++) {
          const x = r() * 8 - 4, y = r() * 4 - 2;
          space.evaluate(x, y, out);
          expectWellFormed(out, entries);
          const [bx, by] = blendedPoint(out, entries);
          if (insideHull(hull, x, y, 1e-9)) {
            inside++;
            expect(out.count).toBeLessThanOrEqual(3);
            expect(Math.abs(bx - x), `x of (${x}, ${y})`).toBeLessThanOrEqual(1e-9);
            expect(Math.abs(by - y), `y of (${x}, ${y})`).toBeLessThanOrEqual(1e-9);
          } else if (!insideHull(hull, x, y, -1e-9)) {
            outside++;
            expect(out.count).toBeLessThanOrEqual(2);
            const [nx, ny] = nearestOnHull(hull, x, y);
            expect(Math.abs(bx - nx), `x of the clamp of (${x}, ${y})`).toBeLessThanOrEqual(1e-9);
            expect(Math.abs(by - ny), `y of the clamp of (${x}, ${y})`).toBeLessThanOrEqual(1e-9);
          }
        }
        expect(inside).toBeGreaterThan(0);
        expect(outside).toBeGreaterThan(0);
      }
    });
  }

  it('slivers (points within rounding of one line) still give finite, well-formed weights', () => {
    // Not collinear exactly, so accepted, but the triangle's floating-point area is 0.
    const sliver = plane([0.09999999999999823, 0.30000000000000004], [0, 0.19999999999999912], [8.881784197001252e-16, 0.2]);
    const thin = new BlendSpace2D(sliver);
    for (const [x, y] of [[0.05, 0.25], [0, 0.2], [1, 1], [-1, 0]]) {
      thin.evaluate(x, y, out);
      expectWellFormed(out, sliver);
    }
    // A grid jittered by a few ulps: slivers along its lines, and the rest must still work.
    const r = seededRandom(46);
    const ulps = () => (r() < 0.5 ? 0 : 2 ** -50 * (Math.floor(r() * 5) - 2));
    const entries = plane(...new Map(Array.from({ length: 30 }, () => {
      const p = [Math.floor(r() * 4) * 0.1 + ulps(), Math.floor(r() * 4) * 0.1 + ulps()];
      return [p.join(), p] as const;
    })).values());
    const space = new BlendSpace2D(entries);
    const hull = hullOf(entries);
    for (let q = 0; q < 500; q++) {
      const x = r() * 0.5 - 0.1, y = r() * 0.5 - 0.1;
      space.evaluate(x, y, out);
      expectWellFormed(out, entries);
      const [bx, by] = blendedPoint(out, entries);
      const [nx, ny] = insideHull(hull, x, y, 0) ? [x, y] : nearestOnHull(hull, x, y);
      expect(Math.abs(bx - nx) + Math.abs(by - ny)).toBeLessThanOrEqual(1e-9);
    }
  });

  it('points exactly on the hull and at every clip reproduce themselves', () => {
    const r = seededRandom(42);
    const entries = Array.from({ length: 12 }, (_, i) => ({ clip: i, x: r(), y: r(), duration: 1 }));
    const space = new BlendSpace2D(entries);
    entries.forEach((e, i) => expectWeights(space.evaluate(e.x, e.y, out), { [i]: 1 }));
    const hull = space.hull;
    for (let k = 0; k < hull.length; k++) {
      const a = entries[hull[k]], b = entries[hull[(k + 1) % hull.length]];
      for (const s of [0.1, 0.5, 0.9]) {
        const x = a.x + s * (b.x - a.x), y = a.y + s * (b.y - a.y);
        space.evaluate(x, y, out);
        expectWellFormed(out, entries);
        const [bx, by] = blendedPoint(out, entries);
        expect(Math.abs(bx - x)).toBeLessThanOrEqual(1e-9);
        expect(Math.abs(by - y)).toBeLessThanOrEqual(1e-9);
      }
    }
  });
});
