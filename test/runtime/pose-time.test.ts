import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { skinPositions } from '../../src/anim/skinning';
import { bake, type BakedModel } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import type { Rig } from '../../src/bake/rig';
import { restPose, sampleClip } from '../../src/bake/sampler';
import { gpuJointMatrices } from '../../tools/gpu-poser';
import { longClipModel } from '../helpers/gltf-builder';
import { openTestDevice } from '../helpers/gpu';
import { seededRandom } from '../helpers/prng';

/**
 * The pose pass's time maths (src/runtime/clip-clock.ts): a clip's position is phase x 2^32 +
 * rate x ticks in exact 64-bit integer arithmetic, then its table entry and fraction. Measured as
 * the worst skinned-vertex distance between the GPU pose and the CPU pose at the exact (float64)
 * time, over the model's bounding-box diagonal, on the long-clip character of
 * test/helpers/gltf-builder.ts (its spine turns at up to 2.9 rad/s, so 1e-5 s of time is about
 * 2e-5 of the diagonal). The bar: within 1e-5 of the exact sampler (the CPU table's own error is
 * up to 4e-6 on the 1000 s clip: test/bake/table-size.test.ts) and within 1e-6 of the CPU table
 * lookup, at any clock the passes take and any depth into a clip. Float32 time (time = phase +
 * speed x clock) measured 9.0e-5 (a 1000 s clip near its end) and 8.1e-5 (clock 599.99 s).
 */

const device = await openTestDevice();

function diagonalOf(rig: Rig): number {
  const rest = new CpuPoser(rig, (_c, _t, out) => restPose(rig.nodes, out));
  rest.evaluate({ clipA: 0, timeA: 0 });
  const p = rest.positions(rig.primitives);
  const extent = [0, 1, 2].map((c) => { let lo = Infinity, hi = -Infinity; for (let i = c; i < p.length; i += 3) { lo = Math.min(lo, p[i]); hi = Math.max(hi, p[i]); } return hi - lo; });
  return Math.hypot(...extent);
}

/**
 * Worst vertex error over the diagonal of the GPU posing clip 0 at `times` (seconds into the
 * clip, float64) with records written at clock 0 so that at `clock` they reach those times at
 * `speed`: against the exact sampler and against the CPU table lookup (which isolates the GPU's
 * time maths from the table's own error).
 */
async function gpuTimeError(rig: Rig, baked: BakedModel, times: number[], clock: number, speed = 1): Promise<{ exact: number; lut: number; at: number }> {
  const records = times.map((t) => ({ clipA: 0, clipB: 0, blend: 0, timeA: t - speed * clock, timeB: 0, speedA: speed, speedB: 0 }));
  const gpu = await gpuJointMatrices(device!, rig, baked, records, { clock });
  const joints = rig.skins[0].joints.length;
  const exact = new CpuPoser(rig, (c, t, out) => sampleClip(rig, c, t, out));
  const lut = new CpuPoser(rig, (c, t, out) => sampleLut(baked, c, t, out));
  const diagonal = diagonalOf(rig);
  const prim = rig.primitives[0];
  const a = new Float64Array(prim.vertexCount * 3);
  const b = new Float64Array(prim.vertexCount * 3);
  const worst = { exact: 0, lut: 0, at: 0 };
  times.forEach((t, i) => {
    skinPositions(prim, Float64Array.from(gpu.subarray(i * joints * 16, (i + 1) * joints * 16)), a, 0);
    for (const [poser, key] of [[exact, 'exact'], [lut, 'lut']] as const) {
      poser.evaluate({ clipA: 0, timeA: t });
      skinPositions(prim, poser.jointMatrices(0), b, 0);
      for (let v = 0; v < a.length; v += 3) {
        const e = Math.hypot(a[v] - b[v], a[v + 1] - b[v + 1], a[v + 2] - b[v + 2]) / diagonal;
        if (e > worst[key]) { worst[key] = e; if (key === 'exact') worst.at = t; }
      }
    }
  });
  return worst;
}

describe.skipIf(!device)('PosePass time maths (the clip clock)', () => {
  const long = buildRig(longClipModel({ seconds: 1000, fps: 30 }).builder.build());
  const longBaked = bake(long);
  const short = buildRig(longClipModel({ seconds: 2, fps: 30 }).builder.build());
  const shortBaked = bake(short);

  it('a 1000 s clip, near its end and anywhere, at clocks 0 and +-599.99 s: within 1e-5 of the exact sampler, 1e-6 of the CPU table', async () => {
    const random = seededRandom(5);
    const late = [999.5, 999.99, ...Array.from({ length: 300 }, () => 990 + random() * 10)];
    const anywhere = Array.from({ length: 300 }, () => random() * 1000);
    const rows: string[] = [];
    for (const [name, times] of [['990-1000 s', late], ['0-1000 s', anywhere]] as const) {
      for (const clock of [0, 599.99, -599.99]) {
        const e = await gpuTimeError(long, longBaked, times, clock);
        rows.push(`${name} at clock ${clock}: ${e.exact.toExponential(2)} of the diagonal (exact sampler, worst at ${e.at.toFixed(3)} s), ${e.lut.toExponential(2)} (CPU table)`);
        // Measured 3.7e-6 and 1.8e-7 (float32 time: 9.0e-5 and 9.0e-5).
        expect(e.exact, `${name} at clock ${clock}, exact sampler`).toBeLessThan(1e-5);
        expect(e.lut, `${name} at clock ${clock}, CPU table`).toBeLessThan(1e-6);
      }
    }
    console.log(rows.join('\n'));
  }, 120_000);

  it('the clock term: as precise just before the 600 s rebase (and at the largest clock the pass takes) as at clock 0, forwards and backwards', async () => {
    const random = seededRandom(6);
    const times = Array.from({ length: 300 }, () => random() * 2);
    const rows: string[] = [];
    for (const speed of [1.3, -0.77]) {
      for (const clock of [0, 59.99, 599.99, -599.99, 2047]) {
        const e = await gpuTimeError(short, shortBaked, times, clock, speed);
        rows.push(`2 s clip at speed ${speed}, clock ${clock} s: ${e.exact.toExponential(2)} of the diagonal (exact sampler), ${e.lut.toExponential(2)} (CPU table)`);
        // Measured 1.1e-7 at every clock (float32 time: 1.7e-7, 3.6e-6 and 8.1e-5 at 0, 59.99 and 599.99 s).
        expect(e.exact, `speed ${speed}, clock ${clock}, exact sampler`).toBeLessThan(1e-5);
        expect(e.lut, `speed ${speed}, clock ${clock}, CPU table`).toBeLessThan(1e-6);
      }
    }
    console.log(rows.join('\n'));
  }, 120_000);

  it('refuses a clock whose tick count would not fit an i32 (2048 s), naming it', async () => {
    const request = { clipA: 0, clipB: 0, blend: 0, timeA: 0, timeB: 0, speedA: 1, speedB: 0 };
    for (const clock of [2048, -3000, NaN, Infinity]) {
      await expect(gpuJointMatrices(device!, short, shortBaked, [request], { clock })).rejects.toThrow(/PosePass\.update: clock must be a number of seconds within \+-2047/);
    }
  });
});
