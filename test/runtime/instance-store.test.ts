import { describe, expect, it } from 'vitest';
import { InstanceStore } from '../../src/runtime/instance-store';
import { INSTANCE, LAYER, LAYER_STACK, LAYERS_NONE, MASK_NONE } from '../../src/runtime/layout';
import { openTestDevice } from '../helpers/gpu';
import { seededRandom } from '../helpers/prng';
import { startAllocationWatch } from '../helpers/allocations';
import { HANDLE_SPAN } from '../../src/runtime/instance-ids';

const device = await openTestDevice();
const CLIPS = [1, 2, 3];

function store(capacity: number, slotCount = 4, nodeCount = 5, generationLimit?: number): InstanceStore {
  return new InstanceStore(device!, { nodeCount, slotCount, clipDurations: CLIPS, capacity, label: 'test', generationLimit });
}

/** A one-layer stack whose weight identifies its instance. */
function tagStack(weight: number) {
  return { layers: [{ clip: 1, time: 0, speed: 1, weight, mask: MASK_NONE }], additive: [] };
}

/** The weight of the first layer of stack record `stack`, read from the CPU mirror. */
function stackTag(s: InstanceStore, stack: number): number {
  return new Float32Array(s.stacks.bytes)[(stack * LAYER_STACK.size + LAYER_STACK.layers + LAYER.weight) / 4];
}

/** Every invariant of the store's bookkeeping, checked from the outside. */
function expectConsistent(s: InstanceStore, live: Map<number, number | undefined>): void {
  expect(s.count).toBe(live.size);
  expect(s.plainCount + s.layeredCount).toBe(live.size);
  const slots = new Set<number>();
  const stacks = new Set<number>();
  for (const [handle, tag] of live) {
    const slot = s.slot(handle);
    expect(slot).toBeLessThan(s.count);
    slots.add(slot);
    const stack = s.stackOf(handle);
    if (tag === undefined) {
      expect(stack, `handle ${handle} is plain`).toBe(LAYERS_NONE);
      expect(slot).toBeLessThan(s.plainCount);
    } else {
      expect(slot, `handle ${handle} is layered`).toBeGreaterThanOrEqual(s.plainCount);
      expect(stack).toBeLessThan(s.layeredCount);
      stacks.add(stack);
      expect(stackTag(s, stack), `handle ${handle} kept its own stack`).toBeCloseTo(tag, 6);
    }
  }
  expect(slots.size).toBe(live.size);
  expect(stacks.size).toBe(s.layeredCount);
}

describe.skipIf(!device)('InstanceStore', () => {
  describe('validity', () => {
    it('rejects a bad capacity and dead handles, naming them', () => {
      expect(() => store(0)).toThrow(/capacity must be a positive integer, got 0/);
      expect(() => store(2.5)).toThrow(/capacity must be a positive integer, got 2.5/);
      const s = store(2);
      expect(() => s.slot(0)).toThrow(/handle 0 holds no instance/);
      const h = s.add();
      s.remove(h);
      expect(() => s.remove(h)).toThrow(/handle \d+ holds no instance/);
      expect(() => s.makeLayered(-1)).toThrow(/handle -1 holds no instance/);
      expect(s.has(h)).toBe(false);
      expect(() => store(1, 4, 5, 0)).toThrow(/generationLimit must be an integer in \[1, 536870912\], got 0/);
      s.destroy();
    });
  });

  describe('ids: handle + generation x HANDLE_SPAN', () => {
    it('hands out ids 0, 1, 2, ... first (generation 0), and a reused handle under its next generation', () => {
      const s = store(2);
      const ids = [0, 1, 2].map(() => s.idOf(s.add()));
      expect(ids).toEqual([0, 1, 2]);
      s.remove(s.handle(1));
      const again = s.add();
      expect(again).toBe(1);
      expect(s.idOf(again)).toBe(1 + HANDLE_SPAN);
      expect(s.handle(1 + HANDLE_SPAN)).toBe(1);
      expect(s.slotOfId(1 + HANDLE_SPAN)).toBe(s.slot(1));
      expect(s.hasId(1)).toBe(false);
      expect(s.find(1)).toBe(-1);
      expect(() => s.handle(1)).toThrow(new RangeError(`instance 1 does not exist: it was removed (its handle now holds instance ${1 + HANDLE_SPAN})`));
      s.remove(again);
      expect(() => s.handle(1 + HANDLE_SPAN)).toThrow(new RangeError(`instance ${1 + HANDLE_SPAN} does not exist: it was removed`));
      expect(() => s.handle(1 + 2 * HANDLE_SPAN)).toThrow(/instance 33554433 does not exist: it was never added \(ids come from Crowd\.add\)/);
      expect(() => s.handle(99)).toThrow(/instance 99 does not exist: it was never added/);
      expect(() => s.handle(-1)).toThrow(/instance -1 does not exist: it was never added/);
      expect(() => s.handle(2 ** 60)).toThrow(/does not exist: it was never added/);
      expect(() => s.handle(0.5)).toThrow(new TypeError('instance id must be an integer from Crowd.add, got 0.5'));
      expect(() => s.handle('0' as never)).toThrow(TypeError);
      s.destroy();
    });

    it('clear() bumps every live handle: none of the cleared ids comes back', () => {
      const s = store(4);
      const ids = [0, 1, 2, 3].map(() => s.idOf(s.add()));
      s.clear();
      const next = [0, 1, 2, 3].map(() => s.idOf(s.add()));
      for (const id of ids) expect(s.hasId(id)).toBe(false);
      expect(next.sort((a, b) => a - b)).toEqual(ids.map((id) => id + HANDLE_SPAN));
      s.destroy();
    });

    it('retires a handle whose generation would reach the limit, for good, rather than wrap its ids', () => {
      const s = store(2, 4, 5, 3);
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) {
        const h = s.add();
        expect(h).toBe(0);
        seen.push(s.idOf(h));
        s.remove(h);
      }
      expect(seen).toEqual([0, HANDLE_SPAN, 2 * HANDLE_SPAN]);
      expect(s.retiredHandles).toBe(1);
      const h = s.add();
      expect(h, 'handle 0 is never handed out again').toBe(1);
      for (const id of seen) expect(() => s.handle(id)).toThrow(new RangeError(`instance ${id} does not exist: it was removed`));
      expect(() => s.handle(3 * HANDLE_SPAN)).toThrow(/never added/);
      s.destroy();
    });

    it('answers an id without allocating', () => {
      const s = store(4);
      for (let i = 0; i < 4; i++) s.add();
      s.remove(2);
      const id = s.idOf(s.add());
      const watch = startAllocationWatch();
      let sum = 0;
      try {
        for (let i = 0; i < 1000; i++) sum += s.handle(id) + s.slotOfId(id) + s.find(2) + (s.hasId(id) ? 1 : 0) + s.idOf(1);
      } finally {
        watch.stop();
      }
      expect(watch.count).toBe(0);
      expect(sum).toBeGreaterThan(0);
      s.destroy();
    });

    it('refuses a growth past the binding limit before anything is given up, naming the limit', () => {
      // 700,000 joint slots x 48 bytes = 33.6 MB per instance: 3 fit in 128 MiB (the default limit), 4 do not,
      // and a palette cannot help: its shared poses alone would not fit.
      const s = store(1, 700_000);
      const handles = [s.add(), s.add(), s.add()];
      const before = { buffer: s.jointBuffer, instances: s.instanceBuffer, generation: s.generation, capacity: s.capacity };
      expect(() => s.add()).toThrow(/test\.jointMatrices.*maxStorageBufferBindingSize/);
      expect(s.count).toBe(3);
      expect({ buffer: s.jointBuffer, instances: s.instanceBuffer, generation: s.generation, capacity: s.capacity }).toEqual(before);
      for (const h of handles) expect(s.has(h)).toBe(true);
      s.destroy();
    });
  });

  describe('behaviour', () => {
    it('grows by doubling up to what the limits allow, never past the size it checked', () => {
      const s = store(1, 700_000);
      s.add();
      s.add(); // 1 -> 2
      expect(s.capacity).toBe(2);
      s.add(); // 2 -> 3, not 4: 4 would pass the limit
      expect(s.capacity).toBe(3);
      expect(s.jointBuffer.size).toBe(3 * 700_000 * 48);
      s.destroy();
      const small = store(3);
      for (let i = 0; i < 4; i++) small.add();
      expect(small.capacity).toBe(6);
      expect(small.instanceBuffer.size).toBe(6 * INSTANCE.size);
      small.destroy();
    });

    it('allocates stack records for layered instances only, growing them on demand', () => {
      const s = store(64);
      const handles = Array.from({ length: 40 }, () => s.add());
      expect(s.layerStackBuffer.size).toBe(16 * LAYER_STACK.size);
      for (let i = 0; i < 20; i++) s.stacks.set(s.makeLayered(handles[i]), tagStack(i / 100), 0);
      expect(s.layeredCount).toBe(20);
      expect(s.stacks.capacity).toBe(32);
      expect(s.layerStackBuffer.size).toBe(32 * LAYER_STACK.size);
      s.destroy();
    });

    it('keeps every handle, slot, partition and stack consistent through random churn', () => {
      const next = seededRandom(9);
      const s = store(2);
      const live = new Map<number, number | undefined>();
      let tag = 0;
      for (let step = 0; step < 2000; step++) {
        const r = next();
        const handles = [...live.keys()];
        const pick = handles[Math.floor(next() * handles.length)];
        if (r < 0.35 || handles.length === 0) {
          live.set(s.add(), undefined);
        } else if (r < 0.5) {
          s.remove(pick);
          live.delete(pick);
        } else if (r < 0.8) {
          tag = (tag + 1) % 1000;
          s.stacks.set(s.makeLayered(pick), tagStack(tag / 1000), 0);
          live.set(pick, tag / 1000);
        } else if (r < 0.95) {
          s.makePlain(pick);
          live.set(pick, undefined);
        } else {
          s.clear();
          live.clear();
        }
        if (step % 50 === 0) expectConsistent(s, live);
      }
      expectConsistent(s, live);
      s.destroy();
    });

    it('keeps phases and speeds in float64 through rebases, moves and growth (float32 speeds drifted 2e-4 s an hour)', () => {
      const s = store(1);
      const speed = 1.1; // float32 holds 1.10000002384...
      const a = s.add();
      s.records.setAnimation(s.slot(a), { clipA: 2, clipB: 1, timeA: 0.25, timeB: 1.5, speedA: speed, speedB: -0.3, blend: 0.5 }, 0);
      for (let i = 0; i < 3; i++) s.add(); // growth
      s.makeLayered(a); // a swap
      s.remove(1); // a move
      for (let k = 0; k < 1000; k++) s.rebase(600.25); // 1000 rebases: 600,250 s
      const got = s.records.getAnimation(s.slot(a), 10);
      const elapsed = 1000 * 600.25 + 10;
      expect(got.speedA).toBe(speed);
      expect(Math.abs(got.timeA - ((0.25 + speed * elapsed) % 3))).toBeLessThan(1e-9);
      expect(Math.abs(got.timeB - ((((1.5 - 0.3 * elapsed) % 2) + 2) % 2))).toBeLessThan(1e-9);
      s.destroy();
    });

    it('rebases layer stacks from float64 phases and speeds too, reference clips included (they rebased from float32 and drifted 1.4e-2 s in 1000 rebases)', () => {
      const s = store(2);
      s.add();
      const a = s.add();
      const speed = 1.1; // float32 holds 1.10000002384...
      const stack = s.makeLayered(a);
      s.stacks.set(stack, {
        layers: [{ clip: 2, time: 0.25, speed, weight: 1, mask: MASK_NONE }],
        additive: [{ clip: 1, time: 0.5, speed: 0.7, weight: 1, mask: MASK_NONE, reference: { clip: 2, time: 1, speed: -speed } }],
      }, 0);
      s.remove(0); // a move: the float64 copy goes with its record
      for (let k = 0; k < 1000; k++) s.rebase(600.25);
      const elapsed = 1000 * 600.25;
      const expected = [[0, false, 0.25 + speed * elapsed, 3], [4, false, 0.5 + 0.7 * elapsed, 2], [4, true, 1 - speed * elapsed, 3]] as const;
      const words = new Uint32Array(s.stacks.bytes);
      const moved = s.stackOf(a);
      for (const [layer, reference, time, duration] of expected) {
        const want = ((time % duration) + duration) % duration;
        const what = `layer ${layer}${reference ? ' reference' : ''}`;
        expect(Math.abs(s.stacks.exactPhase(moved, layer, reference) - want), what).toBeLessThan(1e-9);
        expect(s.stacks.exactSpeed(moved, layer, reference), what).toBe(layer === 0 ? speed : reference ? -speed : 0.7);
        // The GPU's phase word (2^-32 turns) holds the same time to a rounding of 2^-33 turns.
        const word = words[(moved * LAYER_STACK.size + LAYER_STACK.layers + layer * LAYER.size + (reference ? LAYER.refPhase : LAYER.phase)) / 4];
        const gap = Math.abs(word / 2 ** 32 - want / duration);
        expect(Math.min(gap, 1 - gap) * duration, what).toBeLessThanOrEqual(duration * 2 ** -33);
      }
      s.destroy();
    });

    it('bumps the generation exactly when a buffer is replaced', () => {
      const s = store(1);
      const g0 = s.generation;
      s.add();
      expect(s.generation).toBe(g0);
      s.add();
      expect(s.generation).toBe(g0 + 1);
      s.upload(device!.queue);
      expect(s.generation).toBe(g0 + 1);
      for (let i = 0; i < 5; i++) s.masks.add(new Float32Array(5).fill(1));
      s.upload(device!.queue);
      expect(s.generation).toBe(g0 + 2);
      s.destroy();
    });
  });

  describe('the lists and stamps of the cull pass', () => {
    it('sizes the lists by LOD levels and a 64-aligned stride, and rejects a bad level count', () => {
      expect(() => new InstanceStore(device!, { nodeCount: 5, slotCount: 4, clipDurations: CLIPS, capacity: 4, lodLevels: 5 }))
        .toThrow(/lodLevels must be an integer in \[1, 4\], got 5/);
      const s = new InstanceStore(device!, { nodeCount: 5, slotCount: 4, clipDurations: CLIPS, capacity: 70, lodLevels: 3 });
      expect(s.listStride).toBe(128);
      expect(s.drawListBuffer.size).toBe(2 * 3 * 128 * 4);
      expect(s.poseListBuffer.size).toBe((2 * 128 + 4) * 4);
      expect(s.poseStateBuffer.size).toBe(128 * 8);
      for (let i = 0; i < 71; i++) s.add(); // grows past 70
      expect(s.listStride).toBe(Math.ceil(s.capacity / 64) * 64);
      expect(s.drawListBuffer.size).toBe(2 * 3 * s.listStride * 4);
      s.destroy();
    });

    it('renews a slot\'s stamp whenever another instance is put into it (add, remove, layered and back)', () => {
      const s = store(8);
      const stamp = (slot: number) => new Uint32Array(s.stamps.bytes)[slot];
      const handles = [s.add(), s.add(), s.add()];
      const first = [0, 1, 2].map(stamp);
      expect(new Set(first).size).toBe(3);
      expect(first.every((x) => x > 0)).toBe(true);
      s.remove(handles[0]); // the last instance moves into slot 0
      expect(stamp(0)).not.toBe(first[0]);
      expect(stamp(1)).toBe(first[1]);
      const before = [0, 1].map(stamp);
      s.makeLayered(handles[2]); // swaps into the layered range
      expect([0, 1].map(stamp).some((x, i) => x !== before[i])).toBe(true);
      s.destroy();
    });
  });

  describe('joint record size (the crowd\'s skinning method)', () => {
    it('validity: bytesPerJoint must be a positive multiple of 16, at creation and when changed; a refusal changes nothing', () => {
      for (const bad of [0, 40, -16, 1.5 * 16, NaN]) {
        expect(() => new InstanceStore(device!, { nodeCount: 5, slotCount: 4, clipDurations: CLIPS, capacity: 2, bytesPerJoint: bad })).toThrow(/bytesPerJoint must be a positive multiple of 16/);
      }
      const s = store(2);
      const before = { buffer: s.jointBuffer, generation: s.generation };
      expect(() => s.setBytesPerJoint(40)).toThrow(/bytesPerJoint must be a positive multiple of 16, got 40/);
      expect(() => s.setBytesPerJoint(1 << 30)).toThrow(/jointMatrices/);
      expect({ buffer: s.jointBuffer, generation: s.generation, bytes: s.bytesPerJoint }).toEqual({ ...before, bytes: 48 });
      s.destroy();
    });

    it('setBytesPerJoint replaces the joint buffer at the new stride and keeps every instance', () => {
      const s = store(3);
      const handles = [s.add(), s.add()];
      const slots = handles.map((h) => s.slot(h));
      s.setBytesPerJoint(64);
      expect(s.bytesPerJoint).toBe(64);
      expect(s.jointBuffer.size).toBe(3 * 4 * 64);
      expect(s.jointBytes(2)).toBe(2 * 4 * 64);
      expect(handles.map((h) => s.slot(h))).toEqual(slots);
      expect(s.count).toBe(2);
      s.destroy();
    });
  });
});
