import { describe, expect, it } from 'vitest';
import { exactMorphSampler, morphPrimitive } from '../../src/anim/morph';
import { sampleMorphLut } from '../../src/anim/lut';
import { bake, bakedBytes, TRACK_NONE, TRACK_STEP } from '../../src/bake/bake';
import { constantAtDefault } from '../../src/bake/bake-morph';
import { buildRig } from '../../src/bake/build-rig';
import { ModelError } from '../../src/bake/errors';
import type { Rig } from '../../src/bake/rig';
import { morphModel, type MorphModel } from '../helpers/gltf-builder';
import { loadModel } from '../helpers/models';

function rigWith(mutate: (m: MorphModel) => void = () => {}): Rig {
  const model = morphModel();
  mutate(model);
  return buildRig(model.builder.build());
}

/** Largest distance between the morphed vertices of `rig` under two padded weight vectors, over all morphed primitives. */
function vertexGap(rig: Rig, setBase: Uint32Array, a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (const prim of rig.primitives.filter((p) => p.morph)) {
    const pa = morphPrimitive(prim, a, setBase, new Float64Array(prim.vertexCount * 3));
    const pb = morphPrimitive(prim, b, setBase, new Float64Array(prim.vertexCount * 3));
    for (let i = 0; i < pa.length; i += 3) worst = Math.max(worst, Math.hypot(pa[i] - pb[i], pa[i + 1] - pb[i + 1], pa[i + 2] - pb[i + 2]));
  }
  return worst;
}

/** Bounding-box diagonal of the rest vertices of every primitive. */
function meshDiagonal(rig: Rig): number {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const p of rig.primitives) for (let i = 0; i < p.positions.length; i++) { lo[i % 3] = Math.min(lo[i % 3], p.positions[i]); hi[i % 3] = Math.max(hi[i % 3], p.positions[i]); }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

describe('bake: morph weights, validity', () => {
  it('names a CUBICSPLINE weights curve that leaves the float32 range', () => {
    const rig = rigWith((m) => {
      // Values 3e38 at 0 and 1.5 s, out-tangent 3e38 then in-tangent -3e38: the curve bulges to 4.1e38 halfway.
      const big = 3e38;
      m.json.animations![1].samplers[0].output = m.builder.addAccessor('SCALAR', Float32Array.of(0, 0, big, 0, big, 0, /**/ -big, 0, big, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 0));
    });
    expect(() => bake(rig)).toThrow(ModelError);
    expect(() => bake(rig)).toThrow(/^animation 'blink' \(mesh 'mesh' weights 0\.\.1\): its value at [\d.]+ s is [\d.]+e\+38, outside the 32-bit float range the tables store$/);
  });
});

describe('bake: morph weights, layout', () => {
  it('one group of 4 per morph set (padded with 0), the default weights as its rest, a track per animating clip', () => {
    const rig = rigWith();
    const { morph, clipEntries } = bake(rig);
    expect(morph).toMatchObject({ groups: 1, weightCount: 4, trackCount: 3 });
    expect(Array.from(morph!.setBase)).toEqual([0]);
    expect(Array.from(morph!.rest)).toEqual([0.25, 0, 0, 0]);
    expect(Array.from(morph!.maskNodes)).toEqual([0]);
    const refs = Array.from(morph!.refs);
    expect(refs[0]).toBe(0);
    expect(refs[1]).toBe(clipEntries[0]);
    expect(refs[2]).toBe(((clipEntries[0] + clipEntries[1]) | TRACK_STEP) >>> 0);
    expect(morph!.tracks.length).toBe((clipEntries[0] + clipEntries[1] + clipEntries[2]) * 4);
    // Key alignment counts the weights keys: 'blink' (keys at 0, 1.5, 2 s) is on a 0.5 s grid: 4 x 255 + 1 entries.
    expect(clipEntries[1]).toBe(1021);
    // Entry 0 of 'wave' holds the first key, padded; STEP entries hold the value in the middle of their interval.
    expect(Array.from(morph!.tracks.subarray(0, 4))).toEqual([0, 0, 0, 0]);
  });

  it('a channel constant at the default weights costs no table; constant at another value does', () => {
    const rig = rigWith((m) => {
      m.json.animations![0].samplers[1].output = m.builder.addAccessor('SCALAR', Float32Array.of(0.25, 0, 0.25, 0, 0.25, 0));
    });
    expect(constantAtDefault(rig.clips[0].weights![0], rig.morphs[0].defaultWeights)).toBe(true);
    const baked = bake(rig);
    expect(baked.morph!.refs[0]).toBe(TRACK_NONE);
    expect(baked.morph!.trackCount).toBe(2);
    const other = rigWith((m) => { m.json.animations![0].samplers[1].output = m.builder.addAccessor('SCALAR', Float32Array.of(0.5, 0, 0.5, 0, 0.5, 0)); });
    expect(constantAtDefault(other.clips[0].weights![0], other.morphs[0].defaultWeights)).toBe(false);
    expect(bake(other).morph!.refs[0]).not.toBe(TRACK_NONE);
  });

  it('a model without morph targets has no morph tables', () => {
    const rig = rigWith((m) => {
      delete m.json.meshes![0].primitives[0].targets;
      delete m.json.meshes![0].weights;
      m.json.animations!.splice(1, 2);
      m.json.animations![0].channels.pop();
    });
    expect(bake(rig).morph).toBeUndefined();
  });

  it('difference clips hold A - R per weight (0 where neither moves the set)', () => {
    const rig = rigWith();
    const baked = bake(rig, {
      differences: [
        { clip: 0, reference: 'rest', name: 'wave-rest' },
        { clip: 1, reference: { clip: 2, time: 0.3 }, name: 'blink-snap' },
      ],
    });
    const exact = exactMorphSampler(rig);
    const a = new Float64Array(4), r = new Float64Array(4), read = new Float64Array(4);
    for (const t of [0.1, 0.37, 0.8]) {
      sampleMorphLut(baked, 3, t, read);
      exact(0, t, a);
      [a[0] - 0.25, a[1], 0, 0].forEach((v, i) => expect(read[i]).toBeCloseTo(v, 6));
      sampleMorphLut(baked, 4, t, read);
      exact(1, t, a);
      exact(2, 0.3, r);
      [a[0] - r[0], a[1] - r[1], 0, 0].forEach((v, i) => expect(read[i]).toBeCloseTo(v, 5)); // a cubic between entries
    }
    expect(Array.from(baked.clipIsDifference)).toEqual([0, 0, 0, 1, 1]);
  });
});

describe('bake: the morph tables against the exact sampler', () => {
  it('every clip of the hand-built model: weights within 1e-5, morphed vertices within 1e-5 of the diagonal (STEP exact away from its steps)', () => {
    const rig = rigWith();
    const baked = bake(rig);
    const exact = exactMorphSampler(rig);
    const diagonal = meshDiagonal(rig);
    const e = new Float64Array(4), l = new Float64Array(4);
    rig.clips.forEach((clip, c) => {
      let worstWeight = 0, worstVertex = 0;
      const step = baked.morph!.refs[c] & TRACK_STEP;
      const spacing = clip.duration / (baked.clipEntries[c] - 1);
      for (let i = 0; i <= 4000; i++) {
        const t = (i / 4000) * clip.duration * 0.9999;
        // A STEP track switches at the entry that holds its key: up to one entry early or late.
        if (step && [0.25, 0.5].some((k) => Math.abs(t - k) < spacing)) continue;
        exact(c, t, e);
        sampleMorphLut(baked, c, t, l);
        for (let k = 0; k < 4; k++) worstWeight = Math.max(worstWeight, Math.abs(e[k] - l[k]));
        worstVertex = Math.max(worstVertex, vertexGap(rig, baked.morph!.setBase, e, l) / diagonal);
      }
      // LINEAR and STEP tables hold the keys exactly; the CUBICSPLINE one reads 7e-6 off at most between entries.
      expect(worstWeight, `${clip.name}: worst weight error`).toBeLessThan(clip.name === 'blink' ? 1e-5 : 1e-6);
      expect(worstVertex, `${clip.name}: worst vertex error / diagonal`).toBeLessThan(1e-5);
    });
  });

  it('RobotExpressive: its 14 weights channels hold the default 0, so they bake to no track; the tables grow by the refs and rest only', async () => {
    const { rig } = await loadModel('RobotExpressive');
    const baked = bake(rig);
    expect(baked.morph).toMatchObject({ groups: 1, weightCount: 4, trackCount: 0 });
    expect(baked.morph!.tracks.length).toBe(0);
    expect(Array.from(baked.morph!.refs)).toEqual(new Array(14).fill(TRACK_NONE));
    const without = bake({ ...rig, morphs: [], clips: rig.clips.map((c) => ({ ...c, weights: undefined })) });
    expect(bakedBytes(baked) - bakedBytes(without)).toBe(14 * 4 + 16);
    // The exact sampler agrees: every clip holds the defaults.
    const e = new Float64Array(4), l = new Float64Array(4);
    for (let c = 0; c < rig.clips.length; c++) {
      exactMorphSampler(rig)(c, 0.37 * c, e);
      sampleMorphLut(baked, c, 0.37 * c, l);
      expect(Array.from(e)).toEqual(Array.from(l));
    }
  });
});
