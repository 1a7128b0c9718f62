import { describe, expect, it } from 'vitest';
import { Crowd } from '../../src/runtime/crowd';
import { DEFAULT_PALETTE_SIZE } from '../../src/runtime/joint-palette';
import { LAYER_STACK, PALETTE_BUCKETS } from '../../src/runtime/layout';
import { requiredCrowdLimits } from '../../src/runtime/limits';
import { requestNodeAdapter } from '../../tools/gpu-poser';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';

/**
 * Crowd.addMany (src/runtime/bulk-add.ts), the palette's default budget and Crowd.gpuBytes, on a
 * device made as the README says, with requiredCrowdLimits (storage bindings as large as the adapter allows).
 */
const adapter = await requestNodeAdapter();
const device = await openTestDevice(adapter ? requiredCrowdLimits(adapter) : {});
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

describe.skipIf(!device)('Crowd.addMany: many instances from typed arrays in one call', () => {
  it('makes the same instances as the same adds one by one', async () => {
    const character = await testCharacter('Fox');
    const bulk = new Crowd(device!, character, { ...FORMATS, capacity: 4 });
    const single = new Crowd(device!, character, { ...FORMATS, capacity: 4 });
    bulk.update(0.7);
    single.update(0.7);
    const n = 50;
    const positions = Float32Array.from({ length: 3 * n }, (_, i) => i * 1.5 - 20);
    const yaws = Float32Array.from({ length: n }, (_, i) => i * 0.3);
    const scales = Float32Array.from({ length: n }, (_, i) => 0.5 + i / n);
    const clipsA = Uint32Array.from({ length: n }, (_, i) => i % 3);
    const timesA = Float32Array.from({ length: n }, (_, i) => i * 0.11);
    const speeds = Float32Array.from({ length: n }, (_, i) => 0.5 + (i % 4) * 0.25);
    const blends = Float32Array.from({ length: n }, (_, i) => (i % 5) / 4);
    const ids = bulk.addMany({ count: n, positions, yaws, scales, clipsA, clipB: 'Run', timesA, speeds, blends });
    expect(ids).toBeInstanceOf(Float64Array);
    expect(ids.length).toBe(n);
    for (let i = 0; i < n; i++) {
      const id = single.add({ clipA: clipsA[i], clipB: 'Run', timeA: timesA[i], timeB: timesA[i], speedA: speeds[i], speedB: speeds[i], blend: blends[i] });
      single.setPlacement(id, positions[3 * i], positions[3 * i + 1], positions[3 * i + 2], yaws[i], scales[i]);
      expect(ids[i]).toBe(id);
      expect(bulk.getAnimation(ids[i])).toEqual(single.getAnimation(id));
      expect(Array.from(bulk.getTransform(ids[i]))).toEqual(Array.from(single.getTransform(id)));
    }
    const out = new Float64Array(3);
    expect(bulk.addMany({ count: 3, transforms: new Float32Array(48).fill(1) }, out)).toBe(out);
    expect(Array.from(out)).toEqual([n, n + 1, n + 2]);
    // A reused handle comes back under its next generation's id, and the removed id stays refused.
    bulk.remove(out[1]);
    const [again] = bulk.addMany({ count: 1 });
    expect(again).toBe(n + 1 + 2 ** 24);
    expect(() => bulk.getAnimation(out[1])).toThrow(/removed/);
    bulk.destroy();
    single.destroy();
  });

  it('refuses a bad field, naming it and the first bad value, and leaves the crowd as it was', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), FORMATS);
    crowd.add();
    const before = crowd.gpuBytes;
    const times = new Float32Array(10);
    times[7] = NaN;
    expect(() => crowd.addMany({ count: 10, timesA: times })).toThrow(/timesA\[7\] must be a finite number, got NaN/);
    expect(() => crowd.addMany({ count: 10, clipsA: new Uint32Array(10).fill(3) })).toThrow(/clipsA\[0\] must be a clip index below 3/);
    expect(() => crowd.addMany({ count: 10, positions: new Float32Array(29) })).toThrow(/positions holds 29 numbers, needs 3 x count = 30/);
    expect(() => crowd.addMany({ count: 10, scales: new Float32Array(10) })).toThrow(/scales\[0\] must be a positive finite number/);
    expect(() => crowd.addMany({ count: 10, blends: new Float32Array(10).fill(2) })).toThrow(/blends\[0\] must be in \[0, 1\]/);
    expect(() => crowd.addMany({ count: 2, transforms: new Float32Array(32), positions: new Float32Array(6) })).toThrow(/transforms or positions/);
    expect(() => crowd.addMany({ count: 2, colour: 1 } as never)).toThrow(/unknown field "colour"/);
    expect(() => crowd.addMany({ count: -1 })).toThrow(/count must be a non-negative integer/);
    expect(() => crowd.addMany({ count: 4 }, new Float64Array(3))).toThrow(/out must be a Float64Array of at least 4 ids/);
    expect(() => crowd.addMany({ count: 4 }, new Uint32Array(4) as never)).toThrow(/out must be a Float64Array/);
    expect(() => crowd.addMany({ count: 4, clipA: 'Jog' })).toThrow(/clipA: no clip "Jog"/);
    expect(crowd.count).toBe(1);
    expect(crowd.gpuBytes).toBe(before);
    crowd.destroy();
  });
});

describe.skipIf(!device)('the palette budget and gpuBytes', () => {
  it('defaults to a fixed budget of DEFAULT_PALETTE_SIZE joint sets; paletteSize is checked, Infinity is every set that fits', async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 8 });
    const setBytes = crowd.jointsPerInstance * crowd.bytesPerJoint;
    const limit = Math.min(device!.limits.maxStorageBufferBindingSize, device!.limits.maxBufferSize);
    expect(DEFAULT_PALETTE_SIZE).toBe(65_536);
    expect(crowd.palette.budget).toBe(Math.min(DEFAULT_PALETTE_SIZE, Math.floor(limit / setBytes) - 3 * PALETTE_BUCKETS));
    expect(crowd.palette.active).toBe(false);
    crowd.destroy();
    expect(() => new Crowd(device!, character, { ...FORMATS, paletteSize: 0 })).toThrow(/paletteSize must be a positive integer or Infinity/);
    expect(() => new Crowd(device!, character, { ...FORMATS, paletteSize: 2.5 })).toThrow(/paletteSize must be a positive integer or Infinity/);
    expect(() => new Crowd(device!, character, { ...FORMATS, paletteSize: -Infinity })).toThrow(/paletteSize must be a positive integer or Infinity/);
    for (const paletteSize of [1e12, Infinity]) {
      const large = new Crowd(device!, character, { ...FORMATS, capacity: 8, paletteSize });
      expect(large.palette.budget).toBe(Math.floor(limit / setBytes) - 3 * PALETTE_BUCKETS);
      large.destroy();
    }
  });

  it('a million Foxes made with default options hold at most a quarter of a joint set each (issue 33: 1.3 GB before)', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), FORMATS);
    const setBytes = crowd.jointsPerInstance * crowd.bytesPerJoint;
    // Every instance exact while the crowd fits the budget...
    crowd.addMany({ count: DEFAULT_PALETTE_SIZE });
    expect(crowd.palette).toMatchObject({ active: false, size: DEFAULT_PALETTE_SIZE });
    expect(crowd.gpuBytes).toBeGreaterThan(DEFAULT_PALETTE_SIZE * setBytes);
    // ... and past it the joint buffer stays where it was: the drawn instances share the budget.
    const count = 1_000_000;
    crowd.addMany({ count: count - DEFAULT_PALETTE_SIZE });
    expect(crowd.count).toBe(count);
    expect(crowd.gpuBytes).toBeLessThanOrEqual((count * setBytes) / 4); // 251,820,144 bytes (SwiftShader, 2 GiB bindings)
    expect(crowd.palette).toMatchObject({ active: true, size: DEFAULT_PALETTE_SIZE, budget: DEFAULT_PALETTE_SIZE });
    crowd.destroy();
  });

  it('gpuBytes adds up the store: records, joint sets and lists grow with the crowd', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 64 });
    const setBytes = crowd.jointsPerInstance * crowd.bytesPerJoint;
    // 64 records of 112 bytes, 64 joint sets, u32 stamps, identity, 2 x u32 pose state, 2 pose lists (+16), 2 draw lists, 16 layer stacks, handle slots (64 bytes at least), masks.
    const lists = 64 * 4 * (1 + 1 + 2 + 2 + 2) + 16 + 16 * LAYER_STACK.size;
    expect(crowd.gpuBytes).toBeGreaterThanOrEqual(64 * 112 + 64 * setBytes + lists + 64);
    expect(crowd.gpuBytes).toBeLessThan(64 * 112 + 64 * setBytes + lists + 64 + 4096); // + the mask table and spare handle slots
    crowd.destroy();
  });
});
