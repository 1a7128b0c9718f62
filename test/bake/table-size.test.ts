import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { bake, bakedBytes, type BakedModel } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import type { Rig } from '../../src/bake/rig';
import { restPose, sampleClip } from '../../src/bake/sampler';
import { clipKeyTimes, keyGridIntervals, rigSize, startingSize, TABLE_TOLERANCE } from '../../src/bake/table-size';
import { createPose } from '../../src/math/pose';
import { longClipModel, type LongClipOptions } from '../helpers/gltf-builder';
import { seededRandom } from '../helpers/prng';

/** The issue's bar: the lookup within 1e-5 of the model's bounding-box diagonal of the exact sampler. */
const BAR = 1e-5;

/** Worst vertex distance between the exact and the lookup pose over `times`, over the rest-pose diagonal. */
function worstError(rig: Rig, baked: BakedModel, times: number[]): { error: number; at: number } {
  const exact = new CpuPoser(rig, (c, t, out) => sampleClip(rig, c, t, out));
  const lut = new CpuPoser(rig, (c, t, out) => sampleLut(baked, c, t, out));
  const rest = new CpuPoser(rig, (_c, _t, out) => restPose(rig.nodes, out));
  rest.evaluate({ clipA: 0, timeA: 0 });
  const p = rest.positions(rig.primitives);
  const extent = [0, 1, 2].map((c) => { let lo = Infinity, hi = -Infinity; for (let i = c; i < p.length; i += 3) { lo = Math.min(lo, p[i]); hi = Math.max(hi, p[i]); } return hi - lo; });
  const diagonal = Math.hypot(...extent);
  let worst = { error: 0, at: 0 };
  for (const t of times) {
    exact.evaluate({ clipA: 0, timeA: t });
    lut.evaluate({ clipA: 0, timeA: t });
    const a = exact.positions(rig.primitives);
    const b = lut.positions(rig.primitives);
    for (let v = 0; v < a.length; v += 3) {
      const error = Math.hypot(a[v] - b[v], a[v + 1] - b[v + 1], a[v + 2] - b[v + 2]) / diagonal;
      if (error > worst.error) worst = { error, at: t };
    }
  }
  return worst;
}

/** Every key time, a time a hair either side of each, and 3000 seeded random times. */
function probeTimes(rig: Rig, count = 3000): number[] {
  const keys = Array.from(rig.clips[0].channels[0].times);
  const random = seededRandom(7);
  const d = rig.clips[0].duration;
  return [...keys, ...keys.flatMap((k) => [k - 1e-3, k + 1e-3]), ...Array.from({ length: count }, () => random() * d)];
}

function longRig(options: LongClipOptions): Rig {
  return buildRig(longClipModel(options).builder.build());
}

describe('table sizes from key density: long clips', () => {
  it('a 60 s clip keyed at 30 fps: the old 1024 entries were off by 0.5% of the model, the new table within 1e-5', () => {
    const rig = longRig({ seconds: 60, fps: 30 });
    const old = bake(rig, { alignToKeys: false }); // 1024 entries for every clip: the rule before
    expect(worstError(rig, old, probeTimes(rig, 500)).error).toBeGreaterThan(1e-3);
    const baked = bake(rig);
    const entries = baked.clipEntries[0];
    expect((entries - 1) % 1800).toBe(0); // every key on an entry
    expect(entries).toBeGreaterThanOrEqual(1801);
    const { error, at } = worstError(rig, baked, probeTimes(rig));
    expect(error, `worst ${error.toExponential(2)} at ${at} s`).toBeLessThan(BAR);
    expect(rig.warnings).toEqual([]);
    expect(bakedBytes(baked)).toBe(4 * entries * 16 + 3 * 3 * 4 + 3 * 12 * 4 + 4);
  });

  it.each(['STEP', 'CUBICSPLINE'] as const)('a 60 s %s clip at 30 fps stays within 1e-5 (CUBICSPLINE is refined between keys)', (interpolation) => {
    const rig = longRig({ seconds: 60, fps: 30, interpolation });
    const baked = bake(rig);
    expect((baked.clipEntries[0] - 1) % 1800).toBe(0);
    if (interpolation === 'CUBICSPLINE') expect(baked.clipEntries[0]).toBeGreaterThan(1801);
    // STEP: right at a key the table may still hold the previous key for a float32 rounding; probe between keys.
    const times = interpolation === 'STEP' ? Array.from({ length: 3000 }, (_, i) => ((i + 0.5) * 60) / 3000) : probeTimes(rig);
    expect(worstError(rig, baked, times).error).toBeLessThan(BAR);
    expect(rig.warnings).toEqual([]);
  });

  it('fast rotations (3x the speed) get more entries per key until the nlerp between entries matches slerp', () => {
    const slow = bake(longRig({ seconds: 40, fps: 30 }));
    const rig = longRig({ seconds: 40, fps: 30, speed: 3 });
    const fast = bake(rig);
    expect(fast.clipEntries[0]).toBeGreaterThan(slow.clipEntries[0]);
    expect((fast.clipEntries[0] - 1) % 1200).toBe(0);
    expect(worstError(rig, fast, probeTimes(rig)).error).toBeLessThan(BAR);
  });

  it('a 1000 s clip at 30 fps: 30,001 or more entries, within 1e-5 (the issue measured 0.04 with 1024)', () => {
    const rig = longRig({ seconds: 1000, fps: 30 });
    const baked = bake(rig);
    expect(baked.clipEntries[0]).toBeGreaterThanOrEqual(30_001);
    expect((baked.clipEntries[0] - 1) % 30_000).toBe(0);
    const random = seededRandom(3);
    const times = Array.from({ length: 4000 }, () => random() * 1000);
    const keys = Array.from(rig.clips[0].channels[0].times).filter((_, k) => k % 97 === 0);
    expect(worstError(rig, baked, [...times, ...keys, ...keys.map((k) => k + 1e-3)]).error).toBeLessThan(BAR);
  });

  it('keys off any grid, slow motion: refined in proportion to the corner error until within the aim', () => {
    const rig = longRig({ seconds: 2, fps: 4, jitter: 0.3, speed: 0.2 });
    expect(keyGridIntervals(rig.clips[0], 1e9)).toBeUndefined();
    const baked = bake(rig);
    expect(baked.clipEntries[0]).toBeGreaterThan(1024);
    expect(rig.warnings).toEqual([]);
    expect(worstError(rig, baked, probeTimes(rig)).error).toBeLessThan(BAR);
  });

  it('keys off any grid, fast motion: when the table that would be needed exceeds the byte share, a warning says how far off it reads', () => {
    const rig = longRig({ seconds: 20, fps: 30, jitter: 0.3 });
    const baked = bake(rig, { maxTableBytes: 4 * 2 ** 20 });
    expect(baked.tracks.byteLength + baked.trackRefs.byteLength).toBeLessThanOrEqual(4 * 2 ** 20);
    expect(rig.warnings).toHaveLength(1);
    const [, reported] = /read up to (\S+) radians/.exec(rig.warnings[0]) ?? [];
    expect(rig.warnings[0]).toMatch(/^clip 'long': its \d+-entry tables read up to \d\.\de-\d+ radians off the exact sampler \(animation 'long' \(node '(spine|head)' rotation\) at \d+\.\d+ s; the bake aims for 1\.0e-6\): a table that fine would take [\d.]+ MiB, more than this clip's share of maxTableBytes$/);
    expect(baked.clipEntries[0]).toBeGreaterThan(1024); // refined as far as the share allows
    expect(Number(reported)).toBeGreaterThan(1e-6);
    expect(worstError(rig, baked, probeTimes(rig, 500)).error).toBeLessThan(7e-4); // better than the 7.1e-4 of 1024 entries
  });

  it('a 1000 s clip: the file\'s float32 key times (up to 3e-5 s off the grid) are reported, not refined', () => {
    const rig = longRig({ seconds: 1000, fps: 30 });
    const baked = bake(rig);
    expect(baked.clipEntries[0]).toBe(30_001);
    expect(rig.warnings).toHaveLength(1);
    expect(rig.warnings[0]).toMatch(/: its key times sit up to \d\.\de-5 s off their 0\.03333 s grid \(float32 rounding\)$/);
  });
});

describe('table sizes: budget and starting sizes', () => {
  it('falls back to the short size off the grid when one entry per key does not fit maxTableBytes, and says how far off it reads', () => {
    const rig = longRig({ seconds: 60, fps: 30 });
    const baked = bake(rig, { maxTableBytes: 100 * 1024 }); // 1801 entries x 4 tracks x 16 bytes do not fit; 1024 do
    expect(Array.from(baked.clipEntries)).toEqual([1024]);
    expect(rig.warnings).toHaveLength(1);
    expect(rig.warnings[0]).toMatch(/^clip 'long': its 1024-entry tables read up to \d\.\de-\d+ \w+.* off the exact sampler .*: a table that fine would take [\d.]+ MiB, more than this clip's share of maxTableBytes$/);
  });

  it('shrinks every clip in proportion when even the starting sizes exceed maxTableBytes, with a warning', () => {
    const rig = longRig({ seconds: 60, fps: 30 });
    const baked = bake(rig, { maxTableBytes: 16 * 1024 });
    expect(baked.tracks.byteLength + baked.trackRefs.byteLength).toBeLessThanOrEqual(16 * 1024);
    expect(rig.warnings[0]).toBe(`clip 'long': baked with ${baked.clipEntries[0]} entries per track instead of 1024 to keep all tables within 0.016 MiB (maxTableBytes)`);
  });

  it('names a model whose track references alone exceed maxTableBytes', () => {
    const rig = longRig({ seconds: 1, fps: 30 });
    expect(() => bake(rig, { maxTableBytes: 16 })).toThrow(/^the model's 1 clips x 3 rig nodes need 0\.000 MiB of track references, more than the 0\.000 MiB its tables may take \(maxTableBytes\)$/);
  });

  it('keeps the short-clip sizes: floor(1023 / N) entries per key interval below 1024 intervals, one per key above', () => {
    const clip = (seconds: number) => longRig({ seconds, fps: 30 }).clips[0];
    expect(startingSize(clip(2), 1024, 1e9)).toEqual({ entries: 60 * 17 + 1, grid: 60 });
    expect(startingSize(clip(34), 1024, 1e9)).toEqual({ entries: 1021, grid: 1020 });
    expect(startingSize(clip(35), 1024, 1e9)).toEqual({ entries: 1051, grid: 1050 });
    expect(startingSize(clip(35), 1024, 100)).toEqual({ entries: 1024 }); // no grid fits the budget
  });

  it('measures the rig by its skeleton: rest-pose joint origins of the long-clip character span 2 units', () => {
    expect(rigSize(longRig({ seconds: 1, fps: 30 }))).toBeCloseTo(2, 12);
    expect(TABLE_TOLERANCE).toBe(1e-6);
  });
});

describe('table sizes: key times far apart (a hostile or broken file)', () => {
  /** The long-clip character (2 s at 30 keys a second) with the hip translation's last key moved to `last` seconds: a clip of `last` s whose motion is in its first 2 s. */
  function stretchedRig(last: number): Rig {
    const { builder, json } = longClipModel({ seconds: 2, fps: 30 });
    const times = Float32Array.from({ length: 61 }, (_, k) => (k < 60 ? k / 30 : last));
    json.animations![0].samplers[0].input = builder.addAccessor('SCALAR', times);
    return buildRig(builder.build());
  }

  /** Counts the exact sampler's reads of every channel (each sampleChannel call reads `times` once). */
  function countSamples(rig: Rig): { reads: number } {
    const counter = { reads: 0 };
    for (const channel of rig.clips[0].channels) {
      const times = channel.times;
      Object.defineProperty(channel, 'times', { get: () => { counter.reads++; return times; } });
    }
    return counter;
  }

  it.each([1e30, 3.4028234663852886e38])('one key at %d s: loaded as the clip of that length, and a finer table that cannot help is never baked', (last) => {
    const rig = stretchedRig(last);
    const counter = countSamples(rig);
    const baked = bake(rig);
    const d = rig.clips[0].duration;
    expect(d).toBe(Math.fround(last));
    expect(baked.clipDurations[0]).toBe(Math.fround(last));
    expect(Array.from(baked.clipEntries)).toEqual([1024]); // no key grid: the short size
    expect(baked.tracks.every(Number.isFinite)).toBe(true);
    // Its motion is all inside the first entry interval (1e27 s and more): reported, not refined.
    expect(rig.warnings).toHaveLength(1);
    expect(rig.warnings[0]).toMatch(/^clip 'long': its 1024-entry tables read up to \d\.\de[-+]\d+ radians off the exact sampler \(animation 'long' \(node '(spine|head)' rotation\) at \d\.\d{3} s; the bake aims for 1\.0e-6\): more entries do not help$/);
    // The tables hold the exact sampler's values at their entry times.
    for (const e of [0, 1, 2, 1023]) {
      const t = (e * d) / 1023;
      const lut = sampleLut(baked, 0, t, createPose(rig.nodes.count));
      const exact = sampleClip(rig, 0, t, createPose(rig.nodes.count));
      for (const key of ['translation', 'rotation', 'scale'] as const) {
        lut[key].forEach((v, i) => expect(Math.abs(v - exact[key][i]), `${key} at entry ${e}`).toBeLessThan(1e-6));
      }
    }
    // 4 channels: bake 1024 entries, measure 3 points an entry and every key, then a few samples of
    // the finer table (2 entries, 4 points). Baking and measuring the finer table (65,473 entries)
    // took about 260,000 reads a channel and seconds.
    expect(counter.reads).toBeLessThan(4 * 5 * 1024);
  });

  it('merges the key times of channels that do not share them: unique, ascending', () => {
    const rig = stretchedRig(1e30);
    expect(clipKeyTimes(rig.clips[0])).toEqual([...Array.from({ length: 61 }, (_, k) => Math.fround(k / 30)), Math.fround(1e30)]);
    const clip = { name: 'c', duration: 2, channels: [{ times: Float32Array.of(0, 1, 2) }, { times: Float32Array.of(0, 0.5, 2) }, { times: Float32Array.of(0, 1, 2) }], weights: [{ times: Float32Array.of(0.25) }] };
    expect(clipKeyTimes(clip as unknown as Rig['clips'][number])).toEqual([0, 0.25, 0.5, 1, 2]);
  });
});
