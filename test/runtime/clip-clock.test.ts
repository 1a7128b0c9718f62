import { describe, expect, it } from 'vitest';
import { clockResidual, clockTicks, gpuClipTime, MAX_GPU_CLOCK_SECONDS, phaseTurns, writeRate } from '../../src/runtime/clip-clock';
import { CLOCK_TICKS_PER_SECOND } from '../../src/runtime/layout';
import { CLIP_CLOCK } from '../../src/runtime/wgsl-constants';
import { wrapTime } from '../../src/math/time';
import { openTestDevice, readBuffer } from '../helpers/gpu';
import { seededRandom } from '../helpers/prng';

/*
 * The clip clock (src/runtime/clip-clock.ts): the CPU's words, the float64 twin, and the WGSL
 * functions (CLIP_CLOCK) run on the device against BigInt arithmetic, edge words included.
 */

const device = await openTestDevice();
const U64 = 2n ** 64n;

/** The rate words as one unsigned 64-bit integer. */
function rateOf(speed: number, duration: number): bigint {
  const words = new Uint32Array(2);
  writeRate(speed, duration, words, 0, 1);
  return (BigInt(words[1]) << 32n) | BigInt(words[0]);
}

describe('clip clock: validity', () => {
  it('refuses a clock whose tick count would not fit an i32, or is no number, naming it', () => {
    for (const clock of [2048, -2047.5, NaN, Infinity, -Infinity]) {
      expect(() => clockTicks(clock, 'PosePass.update: clock')).toThrow(/^PosePass\.update: clock must be a number of seconds within \+-2047 .*got /);
    }
    expect(clockTicks(MAX_GPU_CLOCK_SECONDS)).toBe(MAX_GPU_CLOCK_SECONDS * CLOCK_TICKS_PER_SECOND);
    expect(clockTicks(-MAX_GPU_CLOCK_SECONDS)).toBeGreaterThanOrEqual(-(2 ** 31));
  });
});

describe('clip clock: the CPU words', () => {
  it('ticks are the nearest tick; the residual is the rest, at most half a tick', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 1000; i++) {
      const clock = (random() * 2 - 1) * 600;
      const ticks = clockTicks(clock);
      expect(Number.isInteger(ticks)).toBe(true);
      const residual = clockResidual(clock, ticks);
      expect(Math.abs(residual)).toBeLessThanOrEqual(0.5 / CLOCK_TICKS_PER_SECOND);
      expect(ticks / CLOCK_TICKS_PER_SECOND + residual).toBe(clock);
    }
  });

  it('a phase word is the wrapped time in 2^-32 turns, rounded; a clip without duration gets 0', () => {
    expect(phaseTurns(0, 2)).toBe(0);
    expect(phaseTurns(1, 2)).toBe(2 ** 31);
    expect(phaseTurns(-0.5, 2)).toBe(3 * 2 ** 30); // wraps forward
    expect(phaseTurns(5, 2)).toBe(2 ** 31);
    expect(phaseTurns(2 - 1e-12, 2)).toBe(0); // rounds up to a whole turn: 0, not 2^32
    expect(phaseTurns(0.7, 0)).toBe(0);
    expect(phaseTurns(999.99, 1000)).toBe(Math.round(0.99999 * 2 ** 32));
  });

  it('a rate is round(speed / duration x 2^44) mod 2^64, two\'s complement backwards; 0 without duration or past float64', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 2000; i++) {
      const speed = (random() * 2 - 1) * 10 ** (random() * 8 - 4);
      const duration = 10 ** (random() * 6 - 2);
      const exact = BigInt(Math.round((speed / duration) * 2 ** 44));
      expect(rateOf(speed, duration), `speed ${speed}, duration ${duration}`).toBe(((exact % U64) + U64) % U64);
    }
    expect(rateOf(-1, 1)).toBe(U64 - 2n ** 44n);
    expect(rateOf(0, 1)).toBe(0n);
    expect(rateOf(1, 0)).toBe(0n);
    expect(rateOf(1e300, 1e-300)).toBe(0n);
    // Beyond 2^64 units per tick only the rate mod 2^64 matters: ticks are integers.
    expect(rateOf(2 ** 30, 1)).toBe((2n ** 74n) % U64);
  });

  it('gpuClipTime, the twin of the shader maths, gives the float64 time within 1e-9 of the duration at any clock', () => {
    const random = seededRandom(3);
    for (let i = 0; i < 3000; i++) {
      const duration = 10 ** (random() * 4 - 1); // 0.1 s to 1000 s
      const speed = random() < 0.1 ? 0 : (random() * 2 - 1) * 3;
      const clock = (random() * 2 - 1) * MAX_GPU_CLOCK_SECONDS;
      const phase = (random() * 4 - 2) * duration;
      const words = new Uint32Array(2);
      writeRate(speed, duration, words, 0, 1);
      const got = gpuClipTime(phaseTurns(phase, duration), words[0], words[1], speed, duration, clock);
      const want = wrapTime(phase + speed * clock, duration);
      const gap = Math.abs(got - want);
      expect(Math.min(gap, duration - gap), `duration ${duration}, speed ${speed}, clock ${clock}`).toBeLessThan(1e-9 * duration);
    }
  });
});

/** Runs clipTurns and clipEntry on the device: per case (phase, rateLo, rateHi, ticks, last, extra bits) -> (turns lo, hi, index, fraction bits). */
async function runShader(cases: Uint32Array<ArrayBuffer>): Promise<Uint32Array> {
  const code = `${CLIP_CLOCK}
@group(0) @binding(0) var<storage, read> cases: array<u32>;
@group(0) @binding(1) var<storage, read_write> results: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let c = id.x * 6u;
  if (c >= arrayLength(&cases)) {
    return;
  }
  let turns = clipTurns(cases[c], cases[c + 1u], cases[c + 2u], bitcast<i32>(cases[c + 3u]));
  let entry = clipEntry(turns, bitcast<f32>(cases[c + 5u]), cases[c + 4u]);
  let r = id.x * 4u;
  results[r] = turns.x;
  results[r + 1u] = turns.y;
  results[r + 2u] = entry.index;
  results[r + 3u] = bitcast<u32>(entry.fraction);
}`;
  const d = device!;
  const input = d.createBuffer({ label: 'test.cases', size: cases.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  d.queue.writeBuffer(input, 0, cases);
  const count = cases.length / 6;
  const output = d.createBuffer({ label: 'test.results', size: count * 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const pipeline = d.createComputePipeline({ layout: 'auto', compute: { module: d.createShaderModule({ code }), entryPoint: 'main' } });
  const encoder = d.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, d.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: input } }, { binding: 1, resource: { buffer: output } }] }));
  pass.dispatchWorkgroups(Math.ceil(count / 64));
  pass.end();
  d.queue.submit([encoder.finish()]);
  const results = new Uint32Array(await readBuffer(d, output));
  input.destroy();
  output.destroy();
  return results;
}

describe.skipIf(!device)('clip clock: the WGSL functions', () => {
  it('clipTurns is exact mod 2^64 and clipEntry finds the entry and fraction of the position, edge words and negative ticks included', async () => {
    const random = seededRandom(4);
    const word = () => (random() < 0.2 ? [0, 1, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff][Math.floor(random() * 7)] : Math.floor(random() * 2 ** 32));
    const tick = () => (random() < 0.2 ? [0, 1, -1, 2 ** 31 - 1, -(2 ** 31)][Math.floor(random() * 5)] : Math.floor((random() * 2 - 1) * 2 ** 31));
    const n = 4096;
    const cases = new Uint32Array(n * 6);
    const f32 = new Float32Array(cases.buffer);
    for (let i = 0; i < n; i++) {
      const last = [1, 2, 30, 1023, 30000, 216000][i % 6];
      cases.set([word(), word(), word(), tick() >>> 0, last], i * 6);
      f32[i * 6 + 5] = i % 3 === 0 ? 0 : (random() * 2 - 1) * 1e-6;
    }
    const results = await runShader(cases);
    let worst = 0;
    for (let i = 0; i < n; i++) {
      const [phase, rateLo, rateHi, ticksBits, last] = cases.subarray(i * 6, i * 6 + 5);
      const ticks = ticksBits | 0;
      const turns = BigInt.asUintN(64, (BigInt(phase) << 32n) + ((BigInt(rateHi) << 32n) | BigInt(rateLo)) * BigInt(ticks));
      const got = (BigInt(results[i * 4 + 1]) << 32n) | BigInt(results[i * 4]);
      expect(got, `case ${i}: phase ${phase}, rate ${rateHi}:${rateLo}, ticks ${ticks}`).toBe(turns);
      // u = (turns / 2^64 + extra) x last, wrapped into [0, last): index + fraction.
      const u = (Number(turns) / 2 ** 64 + f32[i * 6 + 5]) * last;
      const want = ((u % last) + last) % last;
      const index = results[i * 4 + 2];
      const fraction = new Float32Array(results.buffer, (i * 4 + 3) * 4, 1)[0];
      expect(index, `case ${i}`).toBeLessThan(last);
      expect(fraction).toBeGreaterThanOrEqual(0);
      expect(fraction).toBeLessThanOrEqual(1);
      const gap = Math.abs(index + fraction - want);
      worst = Math.max(worst, Math.min(gap, last - gap));
    }
    // The fraction is float32 (2^-24 of an entry); the entry is exact.
    expect(worst).toBeLessThan(2 ** -22);
  });
});
