import { describe, expect, it } from 'vitest';
import { bake, bakedBytes, DEFAULT_MAX_ENTRIES_PER_TRACK, differenceAt, keyAlignedEntries, PATHS, TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import { ModelError } from '../../src/bake/errors';
import { PATH_COMPONENTS } from '../../src/bake/rig';
import { sampleChannel, sampleClip } from '../../src/bake/sampler';
import { skinnedModel } from '../helpers/gltf-builder';
import { loadModel } from '../helpers/models';
import { createPose } from '../../src/math/pose';

/** Entry e of the track that starts at vec4 index `start`, as 4 numbers. */
function entry(tracks: Float32Array, start: number, e: number): number[] {
  return Array.from(tracks.subarray((start + e) * 4, (start + e) * 4 + 4));
}

/** Vec4 index of entry 0 of every track, in channel order (clip after clip). */
function trackStarts(rig: { clips: { channels: unknown[] }[] }, clipEntries: Uint32Array): number[] {
  const starts: number[] = [];
  let offset = 0;
  rig.clips.forEach((clip, c) => clip.channels.forEach(() => { starts.push(offset); offset += clipEntries[c]; }));
  return starts;
}

describe('bake validity', () => {
  const rig = buildRig(skinnedModel().builder.build());

  it('rejects maxEntriesPerTrack below 2 or not an integer', () => {
    expect(() => bake(rig, { maxEntriesPerTrack: 1 })).toThrow(/maxEntriesPerTrack must be an integer >= 2, got 1/);
    expect(() => bake(rig, { maxEntriesPerTrack: 2.5 })).toThrow(/maxEntriesPerTrack must be an integer >= 2, got 2.5/);
    expect(() => bake(rig, { maxEntriesPerTrack: 0 })).toThrow(RangeError);
  });

  it('names a CUBICSPLINE curve that leaves the float32 range between its keys', () => {
    const m = skinnedModel();
    const big = 3e38;
    m.json.animations![0].channels.push({ sampler: 1, target: { node: 1, path: 'translation' } });
    m.json.animations![0].samplers.push({
      input: m.acc.times, interpolation: 'CUBICSPLINE',
      // in-tangent, value, out-tangent per key: the curve bulges to 1.25 x 3e38 halfway.
      output: m.builder.addAccessor('VEC3', Float32Array.of(0, 0, 0, big, 0, 0, big, 0, 0, -big, 0, 0, big, 0, 0, 0, 0, 0)),
    });
    const overflowing = buildRig(m.builder.build());
    expect(() => bake(overflowing)).toThrow(ModelError);
    expect(() => bake(overflowing)).toThrow(/^animation 'wave' \(node 'arm' translation\): its value at 0\.\d+ s is 3\.\d+e\+38, outside the 32-bit float range the tables store$/);
  });

  it('names tables that cannot fit maxTableBytes even at 2 entries per track', () => {
    expect(() => bake(rig, { maxTableBytes: 40 })).toThrow(/^the model's 1 animated tracks need at least 0\.000 MiB of tables \(2 entries each\), more than the 0\.000 MiB they may take \(maxTableBytes\)$/);
    expect(() => bake(rig, { maxTableBytes: 0 })).toThrow(/maxTableBytes must be a positive number of bytes, got 0/);
  });

  it('accepts the smallest table, 2 entries: t = 0 and t = d', () => {
    const baked = bake(rig, { maxEntriesPerTrack: 2, alignToKeys: false });
    expect(Array.from(baked.clipEntries)).toEqual([2]);
    expect(entry(baked.tracks, 0, 0)).toEqual([0, 0, 0, 1]);
    expect(entry(baked.tracks, 0, 1)).toEqual(Array.from(Float32Array.of(0, 0, Math.SQRT1_2, Math.SQRT1_2)));
  });
});

describe('bake layout', () => {
  it('gives one track per channel and a reference for every (clip, node, path)', async () => {
    for (const name of ['Fox', 'RobotExpressive', 'InterpolationTest']) {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      for (const entries of baked.clipEntries) expect(entries).toBeLessThanOrEqual(DEFAULT_MAX_ENTRIES_PER_TRACK);
      expect(baked.trackCount).toBe(rig.clips.reduce((n, c) => n + c.channels.length, 0));
      expect(baked.tracks.length).toBe(rig.clips.reduce((n, c, i) => n + c.channels.length * baked.clipEntries[i], 0) * 4);
      expect(baked.trackRefs.length).toBe(rig.clips.length * rig.nodes.count * 3);
      expect(Array.from(baked.clipDurations)).toEqual(rig.clips.map((c) => Math.fround(c.duration)));
      expect(baked.parents).toEqual(rig.nodes.parent);
      // Every animated triple points at its own track's entry 0; every other one is TRACK_NONE.
      const expected = new Uint32Array(baked.trackRefs.length).fill(TRACK_NONE);
      const starts = trackStarts(rig, baked.clipEntries);
      let track = 0;
      rig.clips.forEach((clip, c) => clip.channels.forEach((ch) => {
        expected[(c * rig.nodes.count + ch.node) * 3 + PATHS.indexOf(ch.path)] = starts[track++] | (ch.interpolation === 'STEP' ? TRACK_STEP : 0);
      }));
      expect(baked.trackRefs, name).toEqual(expected);
    }
  });

  it('leaves the never-animated Fox joints on TRACK_NONE in every clip', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig);
    for (const joint of ['_rootJoint', 'b_Root_00', 'b_LeftFoot02_018', 'b_RightFoot02_022']) {
      const n = rig.nodes.names.indexOf(joint);
      expect(n, joint).toBeGreaterThanOrEqual(0);
      for (let c = 0; c < rig.clips.length; c++) {
        expect(Array.from(baked.trackRefs.subarray((c * rig.nodes.count + n) * 3, (c * rig.nodes.count + n) * 3 + 3))).toEqual([TRACK_NONE, TRACK_NONE, TRACK_NONE]);
      }
    }
  });

  it('sets the STEP flag exactly on the STEP channels of InterpolationTest', async () => {
    const { rig } = await loadModel('InterpolationTest');
    const baked = bake(rig);
    rig.clips.forEach((clip, c) => {
      const ch = clip.channels[0];
      const ref = baked.trackRefs[(c * rig.nodes.count + ch.node) * 3 + PATHS.indexOf(ch.path)];
      expect(ref, clip.name).not.toBe(TRACK_NONE);
      expect((ref & TRACK_STEP) !== 0, clip.name).toBe(clip.name.startsWith('Step'));
      expect(ref & TRACK_INDEX_MASK).toBe(trackStarts(rig, baked.clipEntries)[c]);
    });
  });

  it('stores the rest pose as 3 vec4 per node', async () => {
    const { rig } = await loadModel('RiggedSimple');
    const baked = bake(rig);
    for (let n = 0; n < rig.nodes.count; n++) {
      const f = Math.fround;
      expect(Array.from(baked.rest.subarray(n * 12, n * 12 + 12))).toEqual([
        ...Array.from(rig.nodes.restTranslation.subarray(n * 3, n * 3 + 3), f), 0,
        ...Array.from(rig.nodes.restRotation.subarray(n * 4, n * 4 + 4), f),
        ...Array.from(rig.nodes.restScale.subarray(n * 3, n * 3 + 3), f), 0,
      ]);
    }
  });
});

describe('bake contents', () => {
  it('entry 0 holds the value at t = 0 and the last entry the value at t = d (CesiumMan, keys from 0.0417 s)', async () => {
    const { rig } = await loadModel('CesiumMan');
    const baked = bake(rig);
    const last = baked.clipEntries[0] - 1;
    const starts = trackStarts(rig, baked.clipEntries);
    const value = new Float64Array(4);
    rig.clips[0].channels.forEach((ch, k) => {
      for (const [e, t] of [[0, 0], [last, rig.clips[0].duration]]) {
        value.fill(0);
        sampleChannel(ch, t, value, 0);
        const stored = entry(baked.tracks, starts[k], e);
        // Rotations may be stored negated (sign continuity); q and -q are the same rotation.
        const sign = ch.path === 'rotation' && stored[3] * value[3] + stored[0] * value[0] + stored[1] * value[1] + stored[2] * value[2] < 0 ? -1 : 1;
        expect(stored).toEqual(Array.from(Float32Array.from(value, (v) => v * sign)));
      }
      if (PATH_COMPONENTS[ch.path] === 3) expect(baked.tracks[(starts[k] + 5) * 4 + 3]).toBe(0);
    });
  });

  it('entry e holds the exact value at e * d / (entries - 1)', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig, { maxEntriesPerTrack: 64, alignToKeys: false });
    const clip = rig.clips[1];
    const firstTrack = rig.clips[0].channels.length * 64;
    const value = new Float64Array(4);
    clip.channels.forEach((ch, k) => {
      for (const e of [1, 17, 40, 62]) {
        value.fill(0);
        sampleChannel(ch, (e * clip.duration) / 63, value, 0);
        const stored = entry(baked.tracks, firstTrack + k * 64, e);
        const dot = stored.reduce((s, v, i) => s + v * value[i], 0);
        expect(stored).toEqual(Array.from(value, (v) => Math.fround(v * (dot < 0 ? -1 : 1))));
      }
    });
  });

  it('makes every rotation track of RobotExpressive sign-continuous', async () => {
    const { rig } = await loadModel('RobotExpressive');
    const baked = bake(rig);
    const starts = trackStarts(rig, baked.clipEntries);
    let track = 0;
    let rotationTracks = 0;
    for (const [c, clip] of rig.clips.entries()) {
      for (const ch of clip.channels) {
        if (ch.path === 'rotation') {
          rotationTracks++;
          for (let e = 1; e < baked.clipEntries[c]; e++) {
            const a = entry(baked.tracks, starts[track], e - 1);
            const b = entry(baked.tracks, starts[track], e);
            const dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
            if (!(dot >= 0)) expect.fail(`${clip.name} track ${track} entries ${e - 1}, ${e}: dot ${dot}`);
          }
        }
        track++;
      }
    }
    expect(rotationTracks).toBeGreaterThan(100);
  });

  it('the file really has sign flips that the bake had to remove (RobotExpressive Dance)', async () => {
    const { rig } = await loadModel('RobotExpressive');
    const dance = rig.clips.find((c) => c.name === 'Dance')!;
    let flips = 0;
    for (const ch of dance.channels.filter((c) => c.path === 'rotation')) {
      for (let k = 1; k < ch.times.length; k++) {
        let dot = 0;
        for (let i = 0; i < 4; i++) dot += ch.values[(k - 1) * 4 + i] * ch.values[k * 4 + i];
        if (dot < 0) flips++;
      }
    }
    expect(flips).toBe(9);
  });

  it('keeps the Fox tables under 4 MB', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig);
    // 21 tracks per clip x (985 + 1021 + 974 entries, aligned to the 24 fps keys) x 16 bytes,
    // plus refs, rest and durations.
    expect(baked.trackCount).toBe(63);
    expect(Array.from(baked.clipEntries)).toEqual([985, 1021, 974]);
    expect(bakedBytes(baked)).toBe(21 * (985 + 1021 + 974) * 16 + 3 * 25 * 3 * 4 + 25 * 12 * 4 + 3 * 4);
    expect(bakedBytes(baked)).toBeLessThan(4 * 1024 * 1024);
  });
});

describe('entries aligned to the key grid', () => {
  it('puts every key of every bundled clip exactly on an entry', async () => {
    for (const name of ['Fox', 'CesiumMan', 'RobotExpressive', 'InterpolationTest']) {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      rig.clips.forEach((clip, c) => {
        const intervals = baked.clipEntries[c] - 1;
        for (const ch of clip.channels) {
          for (const t of ch.times) {
            const u = (t / clip.duration) * intervals;
            expect(Math.abs(u - Math.round(u)), `${name} '${clip.name}' key at ${t}`).toBeLessThan(1e-3);
          }
        }
      });
    }
  });

  it('uses 48 key intervals x 21 entries each for CesiumMan (keys every 1/24 s over 2 s)', async () => {
    const { rig } = await loadModel('CesiumMan');
    expect(keyAlignedEntries(rig.clips[0], 1024)).toBe(48 * 21 + 1);
  });

  it('falls back to the maximum when keys lie on no grid, and when alignment is off', () => {
    const times = Float32Array.of(0, 0.1, Math.SQRT2 / 10, 0.31415);
    const clip = { name: 'odd', duration: 0.31415, channels: [{ node: 0, path: 'translation' as const, interpolation: 'LINEAR' as const, times, values: new Float32Array(12) }] };
    expect(keyAlignedEntries(clip, 1024)).toBe(1024);
    const { builder } = skinnedModel();
    expect(Array.from(bake(buildRig(builder.build()), { alignToKeys: false }).clipEntries)).toEqual([1024]);
  });

  it('gives a clip of one key (duration 0) two entries', () => {
    const clip = { name: 'still', duration: 0, channels: [{ node: 0, path: 'scale' as const, interpolation: 'LINEAR' as const, times: Float32Array.of(0), values: Float32Array.of(1, 1, 1) }] };
    expect(keyAlignedEntries(clip, 1024)).toBe(2);
  });
});

describe('difference clips (additive, precomputed)', () => {
  it('appends clip minus reference, per entry, for every node the clip or its reference moves', async () => {
    const { rig } = await loadModel('Fox');
    const walk = rig.clips.findIndex((c) => c.name === 'Walk');
    const run = rig.clips.findIndex((c) => c.name === 'Run');
    const baked = bake(rig, { differences: [{ clip: walk, reference: { clip: run, time: 0.2 }, name: 'Walk-minus-Run' }] });
    const c = rig.clips.length;
    expect(baked.clipNames[c]).toBe('Walk-minus-Run');
    expect(Array.from(baked.clipIsDifference)).toEqual([0, 0, 0, 1]);
    expect(baked.clipDurations[c]).toBe(Math.fround(rig.clips[walk].duration));
    // Entry e holds A(t_e) - R for translation, conj(R) * A(t_e) for rotation (up to sign), A.s / R.s for scale.
    const exactA = createPose(rig.nodes.count);
    const exactR = createPose(rig.nodes.count);
    sampleClip(rig, run, 0.2, exactR);
    const hip = rig.nodes.names.indexOf('b_Hip_01');
    const e = 100;
    sampleClip(rig, walk, (e * rig.clips[walk].duration) / (baked.clipEntries[c] - 1), exactA);
    const expected = new Float64Array(4);
    for (const [p, path] of (['translation', 'rotation', 'scale'] as const).entries()) {
      differenceAt(exactA, exactR, hip, path, expected);
      const ref = baked.trackRefs[(c * rig.nodes.count + hip) * 3 + p];
      expect(ref).not.toBe(TRACK_NONE);
      const stored = entry(baked.tracks, ref & TRACK_INDEX_MASK, e);
      const sign = path === 'rotation' && stored.reduce((s, v, i) => s + v * expected[i], 0) < 0 ? -1 : 1;
      stored.forEach((v, i) => expect(v * sign).toBeCloseTo(expected[i], 6));
    }
    // A node neither clip moves has no track: it reads as the identity difference.
    const never = rig.nodes.names.indexOf('b_LeftFoot02_018');
    expect(Array.from(baked.trackRefs.subarray((c * rig.nodes.count + never) * 3, (c * rig.nodes.count + never) * 3 + 3))).toEqual([TRACK_NONE, TRACK_NONE, TRACK_NONE]);
  });

  it('rejects a missing clip, a bad reference and a name already taken', async () => {
    const { rig } = await loadModel('Fox');
    expect(() => bake(rig, { differences: [{ clip: 9, reference: 'rest', name: 'x' }] })).toThrow(/differences\[0\]\.clip 9 does not exist/);
    expect(() => bake(rig, { differences: [{ clip: 0, reference: { clip: 7, time: 0 }, name: 'x' }] })).toThrow(/differences\[0\]\.reference/);
    expect(() => bake(rig, { differences: [{ clip: 0, reference: 'rest', name: 'Walk' }] })).toThrow(/name 'Walk' is empty or already names a clip/);
  });
});
