import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rootMotionAt, rootMotionBetween } from '../../src/anim/root-motion';
import { bake } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import { bakeRootMotion, extractRootMotion, type BakedRootMotion } from '../../src/bake/root-motion';
import { loadCharacter, type Character } from '../../src/character/character';
import { createPose, localToModel } from '../../src/math/pose';
import { modelPath } from '../helpers/models';
import { armatureRig, sampleUnwrapped } from '../helpers/root-motion';

/**
 * Root motion in closed form (src/anim/root-motion.ts): M(t) for unwrapped clip times and the
 * motion between two times, against composing many small steps (forwards, backwards, across
 * loops, with and without turning) and against the original clip's root.
 */

/** (x, z, yaw) composition: first a, then b in a's frame. */
function compose(a: number[], b: ArrayLike<number>): number[] {
  const cos = Math.cos(a[2]);
  const sin = Math.sin(a[2]);
  return [a[0] + b[0] * cos + b[1] * sin, a[1] - b[0] * sin + b[1] * cos, a[2] + b[2]];
}

/**
 * The motion from t0 to t1 integrated as a per-frame loop would: `steps` small steps, each read
 * inside one cycle (times wrapped into [0, d]) and split where it crosses a loop boundary, so
 * no step uses more than one cycle of the closed form.
 */
function stepped(m: BakedRootMotion, clip: number, t0: number, t1: number, steps: number): number[] {
  const d = m.clipDurations[clip];
  const out = new Float64Array(3);
  let total = [0, 0, 0];
  const step = (a: number, b: number) => { total = compose(total, rootMotionBetween(m, clip, a, b, out)); };
  for (let s = 0; s < steps; s++) {
    const a = t0 + ((t1 - t0) * s) / steps;
    const b = t0 + ((t1 - t0) * (s + 1)) / steps;
    const ka = Math.floor(a / d);
    const kb = Math.floor(b / d);
    const ra = a - ka * d;
    const rb = b - kb * d;
    if (ka === kb) step(ra, rb);
    else if (kb > ka) { step(ra, d); step(0, rb); } // forwards over the loop point
    else { step(ra, 0); step(d, rb); } // backwards over it
  }
  return total;
}

async function walker(): Promise<Character> {
  const bytes = readFileSync(modelPath('Walker'));
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'in-place' } });
}

/** A root walking a half circle (180 degrees) in 2 s, turning with it (test/helpers/root-motion.ts' armature rig). */
function turning(): BakedRootMotion {
  const times = [0, 0.5, 1, 1.5, 2];
  const translation = times.flatMap((t) => { const a = (Math.PI / 2) * t; return [50 * (1 - Math.cos(a)), -50 * Math.sin(a), 90]; });
  const rotation = times.flatMap((t) => [0, 0, Math.sin((Math.PI / 4) * t), Math.cos((Math.PI / 4) * t)]);
  const x = extractRootMotion(buildRig(armatureRig([{ name: 'Turn', interpolation: 'LINEAR', times, translation, rotation }])), { mode: 'in-place', yaw: true });
  return bakeRootMotion(x, bake(x.rig));
}

describe('root motion closed form: validity', () => {
  it('rejects a clip that does not exist and a time that is not finite', async () => {
    const m = (await walker()).baked.rootMotion!;
    const out = new Float64Array(3);
    expect(() => rootMotionAt(m, 19, 0, out)).toThrow(/clip 19 does not exist \(the model has 19 clips\)/);
    expect(() => rootMotionAt(m, -1, 0, out)).toThrow(/clip -1 does not exist/);
    expect(() => rootMotionBetween(m, 0, 0, NaN, out)).toThrow(/root motion time must be a finite number of seconds, got NaN/);
  });
});

describe('root motion closed form', () => {
  it('M(0) is the identity, M(d) the cycle, M(k d + r) = C^k M(r) for whole k of either sign', async () => {
    const c = await walker();
    const m = c.baked.rootMotion!;
    const clip = c.clipIndex('WalkForwardLeft');
    const d = c.clipDurations[clip];
    const out = new Float64Array(3);
    expect(Array.from(rootMotionAt(m, clip, 0, out))).toEqual([0, 0, 0]);
    expect(Array.from(rootMotionAt(m, clip, d, out))).toEqual([m.cycle[clip * 4], m.cycle[clip * 4 + 2], m.cycle[clip * 4 + 3]]);
    const partial = Array.from(rootMotionAt(m, clip, 0.3 * d, out));
    for (const k of [-3, -1, 2, 7]) {
      const at = rootMotionAt(m, clip, k * d + 0.3 * d, new Float64Array(3));
      expect(at[0]).toBeCloseTo(k * m.cycle[clip * 4] + partial[0], 5);
      expect(at[1]).toBeCloseTo(k * m.cycle[clip * 4 + 2] + partial[1], 5);
    }
    const turn = turning();
    // Half a circle of radius 0.5 m per cycle, turning 180 degrees: two cycles come back to the start.
    expect(turn.cycle[3]).toBeCloseTo(Math.PI, 6);
    expect(Array.from(rootMotionAt(turn, 0, 4, out)).map((v) => +v.toFixed(5))).toEqual([0, 0, +(2 * Math.PI).toFixed(5)]);
    const cycle = [turn.cycle[0], turn.cycle[2], turn.cycle[3]];
    const three = compose(compose(cycle, cycle), cycle);
    rootMotionAt(turn, 0, 6, out);
    three.forEach((v, i) => expect(out[i]).toBeCloseTo(v, 5));
    rootMotionAt(turn, 0, -2, out); // C^-1
    compose(cycle, out).forEach((v) => expect(v).toBeCloseTo(0, 5));
  });

  it('matches composing small steps: forwards across loops, backwards, from negative times, while turning', async () => {
    const c = await walker();
    const out = new Float64Array(3);
    const cases: [BakedRootMotion, number, number, number][] = [
      [c.baked.rootMotion!, c.clipIndex('WalkForwardLeft'), 0.1, 3.55],
      [c.baked.rootMotion!, c.clipIndex('RunBack'), 2.2, -1.3],
      [c.baked.rootMotion!, c.clipIndex('WalkRight'), -4.05, -0.7],
      [turning(), 0, 0.3, 7.1],
      [turning(), 0, 5.2, -3.3],
    ];
    for (const [m, clip, t0, t1] of cases) {
      const closed = Array.from(rootMotionBetween(m, clip, t0, t1, out));
      const steps = stepped(m, clip, t0, t1, 997);
      closed.forEach((v, i) => expect(v, `clip ${clip} ${t0} -> ${t1}`).toBeCloseTo(steps[i], 5));
      // And the way back undoes it.
      const back = rootMotionBetween(m, clip, t1, t0, new Float64Array(3));
      compose(closed, back).forEach((v) => expect(v).toBeCloseTo(0, 5));
    }
  });

  it('equals the original clip\'s root: whole cycles of its displacement plus the partial cycle', async () => {
    const original = (() => {
      const bytes = readFileSync(modelPath('Walker'));
      return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    })();
    const c = await walker();
    const rig = (await original).rig;
    const pose = createPose(rig.nodes.count);
    const model = new Float64Array(rig.nodes.count * 16);
    /** The Hips' model x, z in the original clip at a time inside the cycle. */
    const hips = (clip: number, t: number) => { localToModel(rig.nodes.parent, sampleUnwrapped(rig, clip, t, pose), model); return [model[12], model[14]]; };
    const out = new Float64Array(3);
    for (const name of ['WalkBackRight', 'RunForward']) {
      const clip = c.clipIndex(name);
      const d = c.clipDurations[clip];
      const start = hips(clip, 0);
      const end = hips(clip, d);
      for (const t of [0.37, 2.5 * d, 5 * d + 0.013]) {
        const k = Math.floor(t / d);
        const r = hips(clip, t - k * d);
        rootMotionBetween(c.baked.rootMotion!, clip, 0, t, out);
        expect(out[0], `${name} at ${t}`).toBeCloseTo(k * (end[0] - start[0]) + r[0] - start[0], 4);
        expect(out[1], `${name} at ${t}`).toBeCloseTo(k * (end[1] - start[1]) + r[1] - start[1], 4);
      }
    }
  });
});
