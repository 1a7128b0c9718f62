import { describe, expect, it } from 'vitest';
import { clockTicks } from '../../../src/runtime/clip-clock';
import { Crowd } from '../../../src/runtime/crowd';
import { paletteBucket, PaletteTwin } from '../../../src/runtime/culling/palette-twin';
import { CULL_COUNTERS, PALETTE_FREE, PALETTE_NONE, PALETTE_SHARED } from '../../../src/runtime/layout';
import { testCharacter } from '../../helpers/character';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { seededRandom } from '../../helpers/prng';
import { lookAt, renderCrowd } from '../../helpers/render';

/**
 * PaletteTwin (src/runtime/culling/palette-twin.ts), the CPU twin of the WebGPU palette pass that
 * the WebGL 2 crowd runs (GLPalette): its time bucket is the shader's exactly, and fed the lists
 * the WebGPU cull pass drew frame after frame, it holds the sets the GPU holds, shares the slots
 * the GPU shares with the same shared poses, and keeps the sets of instances that stay drawn.
 * Within one list the GPU pops its free stack in the order its atomics run, so which of the
 * instances past the budget get a set is compared as counts; everything else slot by slot.
 */
const device = await openTestDevice();

describe('paletteBucket: the top 4 bits of the 64-bit clip position, as palette.wgsl forms them', () => {
  it('equals the BigInt position for random records and clocks of either sign', () => {
    const next = seededRandom(11), word = () => Math.floor(next() * 2 ** 32) >>> 0;
    for (let i = 0; i < 2000; i++) {
      const phase = word(), lo = word(), hi = i % 3 === 0 ? 0xffffffff - (word() & 0xff) : word() & 0xffff;
      const ticks = Math.round((next() * 2 - 1) * 2047 * 2 ** 20);
      const rate = (BigInt(hi) << 32n) | BigInt(lo);
      const position = BigInt.asUintN(64, (BigInt(phase) << 32n) + rate * BigInt(ticks));
      expect(paletteBucket(phase, lo, hi, ticks), `record ${i}`).toBe(Number(position >> 60n));
    }
  });
});

describe.skipIf(!device)('PaletteTwin against the WebGPU palette pass on the same draw lists', () => {
  it('the same sets held, the same slots and shared poses past the budget, the same sets kept', async () => {
    const budget = 16;
    const crowd = new Crowd(device!, await testCharacter('Fox'), { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: 16, paletteSize: budget, animationLod: false });
    const next = seededRandom(5);
    for (let i = 0; i < 100; i++) {
      const id = crowd.add({ clipA: i % 3, clipB: (i + 1) % 3, blend: next(), timeA: next() * 3, timeB: next() * 3, speedA: 1, speedB: 0.5 });
      crowd.setPlacement(id, ((i % 10) - 4.5) * 220, 0, (Math.floor(i / 10) - 4.5) * 220, next() * 6.3);
    }
    const internal = crowd as unknown as { store: { palette: { freeBuffer: GPUBuffer; entryBuffer: GPUBuffer }; drawListBuffer: GPUBuffer; capacity: number; records: { bytes: ArrayBuffer }; listStride: number };
      frame: { cullCounters: GPUBuffer }; clockSeconds: number };
    const store = internal.store, twin = new PaletteTwin();
    twin.reset(store.capacity, budget, budget); // as the store's palette was made at its last growth
    const everything = lookAt([0, 4000, -1], [0, 0, 0], { fovY: 0.7, far: 20000 });
    const corner = lookAt([-990, 250, -1400], [-990, 0, -990], { fovY: 0.5 });
    const nothing = lookAt([0, 100, 5000], [0, 100, 9000]);
    const views = [everything, everything, corner, everything, nothing, everything];
    let previous: Uint32Array | undefined, previousTwin: Uint32Array | undefined;
    const summary: string[] = [];
    for (const [frame, view] of views.entries()) {
      crowd.setCamera(view.viewProjection, view.eye);
      crowd.update(0.1);
      await renderCrowd(device!, crowd, view.viewProjection, 64);
      const counters = new Uint32Array(await readBuffer(device!, internal.frame.cullCounters));
      // The camera lists: level L at L x listStride (the shadow lists after them stay empty here).
      const levels = crowd.lodLevels, counts = Array.from(counters.subarray(CULL_COUNTERS.camera, CULL_COUNTERS.camera + levels));
      const lists = { slots: new Uint32Array(await readBuffer(device!, store.drawListBuffer)), offsets: counts.map((_, l) => l * store.listStride), counts, levels };
      const drawn = counts.reduce((a, b) => a + b, 0);
      const gpu = new Uint32Array(await readBuffer(device!, store.palette.entryBuffer)).slice(0, 100);
      const free = new Int32Array(await readBuffer(device!, store.palette.freeBuffer, 16))[PALETTE_FREE.count];
      twin.assign(lists, undefined, crowd.count, new Uint32Array(store.records.bytes), clockTicks(internal.clockSeconds), () => {});
      const cpu = twin.entries.slice(0, 100);
      const own = (e: Uint32Array) => Array.from(e).filter((x) => x !== PALETTE_NONE && (x & PALETTE_SHARED) === 0).length;
      const sharedSlots = (e: Uint32Array) => Array.from(e.keys()).filter((s) => e[s] !== PALETTE_NONE && (e[s] & PALETTE_SHARED) !== 0);
      summary.push(`${drawn} drawn: ${own(gpu)} / ${own(cpu)} held, ${sharedSlots(gpu).length} / ${sharedSlots(cpu).length} shared`);
      expect(budget - free, `frame ${frame}: sets held`).toBe(twin.held);
      expect(own(cpu)).toBe(Math.min(budget, drawn));
      expect(sharedSlots(gpu).length, `frame ${frame}: slots sharing`).toBe(twin.shared);
      // Drawn slots hold an entry on both, the others none.
      const listed = new Set(counts.flatMap((n, l) => Array.from(lists.slots.subarray(lists.offsets[l], lists.offsets[l] + n))));
      for (let s = 0; s < 100; s++) expect([gpu[s] !== PALETTE_NONE, cpu[s] !== PALETTE_NONE], `frame ${frame} slot ${s}`).toEqual([listed.has(s), listed.has(s)]);
      // A slot sharing on both shares the same pose (clip A's time bucket).
      const both = sharedSlots(gpu).filter((s) => (cpu[s] & PALETTE_SHARED) !== 0 && cpu[s] !== PALETTE_NONE);
      for (const s of both) expect(cpu[s], `frame ${frame} slot ${s}`).toBe(gpu[s]);
      if (drawn > budget) expect(both.length).toBeGreaterThanOrEqual(drawn - 2 * budget);
      // Within the budget the same slots hold sets; a slot that stays drawn keeps its set on each side.
      if (drawn <= budget) expect(sharedSlots(cpu)).toEqual([]);
      if (previous && previousTwin) {
        for (let s = 0; s < 100; s++) {
          const kept = (e: Uint32Array, p: Uint32Array) => listed.has(s) && p[s] !== PALETTE_NONE && (p[s] & PALETTE_SHARED) === 0 ? e[s] === p[s] : true;
          expect(kept(gpu, previous), `frame ${frame} slot ${s} kept on the GPU`).toBe(true);
          expect(kept(cpu, previousTwin), `frame ${frame} slot ${s} kept by the twin`).toBe(true);
        }
      }
      previous = gpu;
      previousTwin = cpu;
    }
    console.log(`palette twin vs GPU: ${summary.join('; ')}`);
    // The case is not vacuous: frames over the budget, within it (the corner) and with nothing drawn.
    expect(summary.some((line) => line.startsWith('100 drawn'))).toBe(true);
    expect(summary.some((line) => /^([1-9]|1[0-6]) drawn/.test(line))).toBe(true);
    expect(summary.some((line) => line.startsWith('0 drawn'))).toBe(true);
    crowd.destroy();
  }, 60_000);
});
