import { describe, expect, it } from 'vitest';
import { buildControlModel, CurveTables } from '../../src/features/controllers/control-records';
import { ControlPass } from '../../src/features/controllers/control-pass';
import { InstanceStore } from '../../src/runtime/instance-store';
import { CONTROL_INPUT, CONTROL_UPDATE, INSTANCE, LAYER_STACK, PALETTE_BUCKETS } from '../../src/runtime/layout';
import { checkStorageBinding, checkStorageBindings, formatCount, growthCount, largestFit, storageLimit } from '../../src/runtime/limits';
import { syntheticRuntime } from '../helpers/control';
import { expectNoGpuError, openTestDevice } from '../helpers/gpu';

// No requiredLimits: the adapter's defaults (maxStorageBufferBindingSize 128 MiB, maxBufferSize
// 256 MiB), the limits every app gets unless it asks for more.
const device = await openTestDevice();
const MiB = 1 << 20;
const CLIPS = [1, 2];

function store(slotCount: number, capacity = 1, nodeCount = 4, paletteSize?: number): InstanceStore {
  return new InstanceStore(device!, { nodeCount, slotCount, clipDurations: CLIPS, capacity, label: 'test', paletteSize });
}

/** What a refusal must leave as it was. */
function snapshot(s: InstanceStore) {
  return {
    count: s.count, layered: s.layeredCount, capacity: s.capacity, generation: s.generation, handles: s.handleCount, stackCapacity: s.stacks.capacity,
    masks: s.masks.count, buffers: [s.instanceBuffer, s.jointBuffer, s.layerStackBuffer, s.masksBuffer, s.handleSlotBuffer, s.drawListBuffer, s.poseListBuffer],
  };
}

/** A refused call changed nothing: the counts, and the very same buffers. */
function expectUnchanged(s: InstanceStore, before: ReturnType<typeof snapshot>): void {
  const after = snapshot(s);
  expect({ ...after, buffers: [] }).toEqual({ ...before, buffers: [] });
  after.buffers.forEach((buffer, i) => expect(buffer, `buffer ${i} kept`).toBe(before.buffers[i]));
}

/** The refusal's message: `label` needs `bytes` for `count` `noun` ... at most `fit` fit (the issue's form). */
function refusal(label: string, count: number, noun: string, fit: number): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${esc(label)} needs [\\d.]+ MiB( \\([\\d,]+ bytes\\))? for ${formatCount(count)} ${noun} but the device's maxStorageBufferBindingSize is 128\\.0 MiB( \\(134,217,728 bytes\\))?: ` +
    `at most ${formatCount(fit)} ${noun} fit; request a larger limit when creating the device \\(see requiredCrowdLimits\\) or use fewer ${noun}$`);
}

describe.skipIf(!device)('limits: growing buffers on an adapter\'s default limits', () => {
  it('runs on the default limits', () => {
    expect(device!.limits.maxStorageBufferBindingSize).toBe(128 * MiB);
    expect(storageLimit(device!)).toEqual({ bytes: 128 * MiB, name: 'maxStorageBufferBindingSize' });
  });

  describe('limits.ts', () => {
    it('says which limit, the size asked for and the largest count that fits', () => {
      expect(() => checkStorageBinding(device!, 'X.things', { noun: 'things', bytes: 1000, count: 200_000 })).toThrow(
        'X.things needs 190.7 MiB for 200,000 things but the device\'s maxStorageBufferBindingSize is 128.0 MiB: at most 134,217 things fit; ' +
        'request a larger limit when creating the device (see requiredCrowdLimits) or use fewer things');
      // Sizes that print alike get their bytes.
      expect(() => checkStorageBinding(device!, 'X.words', { noun: 'words', bytes: 4, count: 32 * MiB + 1 })).toThrow(
        /^X\.words needs 128\.0 MiB \(134,217,732 bytes\) for 33,554,433 words but the device's maxStorageBufferBindingSize is 128\.0 MiB \(134,217,728 bytes\): at most 33,554,432 words fit/);
      expect(() => checkStorageBinding(device!, 'X.table', 200 * MiB)).toThrow(/^X\.table needs 200\.0 MiB but the device's maxStorageBufferBindingSize is 128\.0 MiB; request a larger limit/);
      expect(() => checkStorageBinding(device!, 'X.things', { noun: 'things', bytes: 1000, count: 134_217 })).not.toThrow();
    });

    it('counts exactly, for sizes rounded up to a stride', () => {
      const listed = { noun: 'entries', bytes: (n: number) => Math.ceil(n / 64) * 64 * 24 + 16 };
      const fit = largestFit(device!, listed);
      expect(listed.bytes(fit)).toBeLessThanOrEqual(128 * MiB);
      expect(listed.bytes(fit + 1)).toBeGreaterThan(128 * MiB);
      expect(largestFit(device!, { noun: 'giants', bytes: 129 * MiB })).toBe(0);
    });

    it('names the buffer that allows the fewest among several, and grows by doubling cut to what fits', () => {
      const buffers = [{ label: 'a', items: { noun: 'n', bytes: 100 } }, { label: 'b', items: { noun: 'n', bytes: 1000 } }];
      expect(() => checkStorageBindings(device!, 10 ** 6, buffers)).toThrow(/^b needs .* at most 134,217 n fit/);
      expect(growthCount(device!, 'b', 100_001, 100_000, buffers[1].items)).toBe(134_217);
      expect(growthCount(device!, 'b', 11, 10, buffers[1].items)).toBe(20);
      expect(() => growthCount(device!, 'b', 134_218, 134_217, buffers[1].items)).toThrow(/at most 134,217 n fit/);
    });
  });

  describe('InstanceStore', () => {
    it('jointMatrices: Fox-sized instances (24 joints) with paletteSize Infinity grow to all 116,508 sets that fit, then the palette takes over in the same bytes, never refused for joints', () => {
      const s = store(24, 1, 4, Infinity);
      const fit = Math.floor((128 * MiB) / (24 * 48));
      expect(fit).toBe(116_508);
      for (let i = 0; i < fit; i++) s.add();
      expect(s.capacity).toBe(fit);
      expect(s.palette.active).toBe(false);
      s.add();
      // The joint buffer keeps its size: fit - 2 clips x 16 shared poses go to the drawn instances (docs/palette.md).
      expect(s.palette.active).toBe(true);
      expect(s.palette.size).toBe(fit - CLIPS.length * PALETTE_BUCKETS);
      expect(s.jointBuffer.size).toBe(fit * 24 * 48);
      expect(s.capacity).toBeGreaterThan(fit);
      s.upload(device!.queue);
      s.remove(5);
      expect(s.add()).toBe(5); // usable: the freed handle is issued again
      s.destroy();
    });

    it('instances: a one-joint rig is bound by its 112-byte records (1,198,372 fit), in the constructor and in growth', () => {
      const fit = Math.floor((128 * MiB) / INSTANCE.size);
      expect(() => store(1, fit + 1)).toThrow(refusal('test.instances', fit + 1, 'instances', fit));
      const s = store(1, fit);
      for (let i = 0; i < fit; i++) s.add();
      const before = snapshot(s);
      expect(() => s.add()).toThrow(refusal('test.instances', fit + 1, 'instances', fit));
      // The example in docs/embedding.md ("Device limits"), word for word.
      expect(() => s.add()).toThrow('test.instances needs 128.0 MiB (134,217,776 bytes) for 1,198,373 instances but the device\'s ' +
        'maxStorageBufferBindingSize is 128.0 MiB (134,217,728 bytes): at most 1,198,372 instances fit; request a larger limit when creating ' +
        'the device (see requiredCrowdLimits) or use fewer instances');
      expectUnchanged(s, before);
      s.remove(0);
      s.add();
      expect(s.count).toBe(fit);
      s.upload(device!.queue);
      s.destroy();
    });

    it('layerStacks: 296-byte stacks grow to all 453,438 that fit (doubling would have refused at 262,145), then refuse naming the limit', () => {
      const fit = Math.floor((128 * MiB) / LAYER_STACK.size);
      expect(fit).toBe(453_438);
      const s = store(1, fit + 1);
      const handles = Array.from({ length: fit + 1 }, () => s.add());
      for (let i = 0; i < fit; i++) s.makeLayered(handles[i]);
      expect(s.stacks.capacity).toBe(fit);
      const before = snapshot(s);
      expect(() => s.makeLayered(handles[fit])).toThrow(refusal('test.layerStacks', fit + 1, 'layered instances', fit));
      expectUnchanged(s, before);
      expect(s.stackOf(handles[fit])).toBe(0xffffffff);
      s.makePlain(handles[0]);
      s.makeLayered(handles[fit]); // usable: a freed stack is taken
      expect(s.layeredCount).toBe(fit);
      s.upload(device!.queue);
      s.destroy();
    });

    it('masks: 4 MB masks (a million nodes) grow to all 33 that fit, then refuse naming the limit, and the table still uploads', async () => {
      const nodes = 1_000_000;
      const fit = Math.floor((128 * MiB) / (nodes * 4));
      expect(fit).toBe(33);
      const s = store(1, 1, nodes);
      const mask = new Float32Array(nodes).fill(0.5);
      for (let i = 0; i < fit; i++) expect(s.masks.add(mask)).toBe(i);
      await expectNoGpuError(device!, () => s.upload(device!.queue));
      const before = snapshot(s);
      expect(() => s.masks.add(mask)).toThrow(refusal('test.masks', fit + 1, 'masks', fit));
      expectUnchanged(s, before);
      await expectNoGpuError(device!, () => s.upload(device!.queue));
      expect(s.masksBuffer.size).toBe(fit * nodes * 4);
      s.destroy();
    });
  });

  describe('ControlPass', () => {
    const model = () => buildControlModel(syntheticRuntime({}), [], new CurveTables());
    const clocks = { crowdClock: 0, dt: 1 / 60, clock0: 0, clock1: 60 };

    /** One frame of the pass over `s` with no controllers: what a usable pass must still do. */
    async function frame(pass: ControlPass, s: InstanceStore): Promise<void> {
      await expectNoGpuError(device!, () => {
        pass.update(s, new Uint32Array(1), 0, false, new ArrayBuffer(0), 0, 1, clocks);
        const encoder = device!.createCommandEncoder();
        pass.encode(encoder);
        device!.queue.submit([encoder.finish()]);
      });
    }

    it(`inputs: ${CONTROL_INPUT.size} bytes per handle, ${Math.floor((128 * MiB) / CONTROL_INPUT.size).toLocaleString('en')} fit; a reserve past them names the limit and changes nothing`, async () => {
      const s = store(1);
      const pass = new ControlPass(device!, model());
      const fit = Math.floor((128 * MiB) / CONTROL_INPUT.size);
      expect(fit).toBe(508_400); // 264-byte records
      const states = pass.stateBuffer;
      expect(() => pass.reserve(fit + 1, 1)).toThrow(refusal('ControlPass.inputs', fit + 1, 'handles', fit));
      expect(() => pass.update(s, new Uint32Array(1), 0, false, new ArrayBuffer(0), 0, fit + 1, clocks)).toThrow(refusal('ControlPass.inputs', fit + 1, 'handles', fit));
      expect(pass.stateBuffer).toBe(states);
      await frame(pass, s);
      pass.reserve(100_000, 1); // doubling is cut to what fits: 64 -> 100,000 -> ...
      pass.reserve(fit, 1);
      expect(pass.stateBuffer.size).toBe(fit * 32);
      await frame(pass, s);
      pass.destroy();
      s.destroy();
    });

    it(`updates: ${CONTROL_UPDATE.size} bytes per controller (one update each a frame), ${Math.floor((128 * MiB) / CONTROL_UPDATE.size).toLocaleString('en')} fit; the workgroup limit is named too`, async () => {
      const s = store(1);
      const pass = new ControlPass(device!, model());
      const fit = Math.floor((128 * MiB) / CONTROL_UPDATE.size);
      expect(fit).toBe(500_812); // 268-byte updates
      const states = pass.stateBuffer;
      expect(() => pass.reserve(1, fit + 1)).toThrow(refusal('ControlPass.updates', fit + 1, 'updates', fit));
      expect(() => pass.reserve(1, 65535 * 64 + 1)).toThrow('ControlPass: 4,194,241 controllers need more than 65535 workgroups of 64: at most 4,194,240 controllers fit');
      expect(pass.stateBuffer).toBe(states);
      await frame(pass, s);
      pass.reserve(1, fit);
      await frame(pass, s);
      pass.destroy();
      s.destroy();
    });

    it('model: a table past the limit names it; growth is cut to what fits', async () => {
      const s = store(1);
      const m = model();
      const pass = new ControlPass(device!, m);
      const words = 32 * MiB; // 4 bytes each: 33,554,432 fit exactly
      expect(() => pass.setModel({ ...m, words: new Float32Array(words + 1) })).toThrow(refusal('ControlPass.model', words + 1, 'model words', words));
      await frame(pass, s);
      pass.setModel({ ...m, words: new Float32Array(20_000_000) });
      pass.setModel({ ...m, words: new Float32Array(20_000_001) }); // doubling to 160 MB would pass the limit: cut to 128 MiB
      await frame(pass, s); // binds the model buffer: a validation error if it were over the limit
      pass.setModel(m);
      await frame(pass, s);
      pass.destroy();
      s.destroy();
    });
  });
});
