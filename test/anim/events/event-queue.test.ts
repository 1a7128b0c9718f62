import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../../src/anim/events/event-queue';
import { seededRandom } from '../../helpers/prng';

/**
 * The event queue (src/anim/events/event-queue.ts): pops in (due, order, insertion) order, one
 * live entry per key (rescheduling and cancelling leave stale entries that never surface),
 * one-shot entries, and compaction; checked against a sorted reference under random operations.
 */
describe('EventQueue', () => {
  it('pops due entries in (due, order, insertion) order and stops at the time given', () => {
    const q = new EventQueue();
    q.push(2, 5, 0, 0);
    q.push(1, 9, 0, 1);
    q.push(2, 3, 0, 2);
    q.push(2, 3, 0, 3);
    q.schedule(7, 1.5, 1, 0, 4, 0.25);
    const popped: number[] = [];
    while (q.pop(2)) popped.push(q.popped.event);
    expect(popped).toEqual([1, 4, 2, 3, 0]);
    q.push(3, 0, 0, 5);
    expect(q.pop(2.5)).toBe(false);
    expect(q.pop(3)).toBe(true);
    expect(q.popped).toEqual({ key: -1, due: 3, order: 0, clip: 0, event: 5, aux: 0 });
  });

  it('keeps one live entry per key: rescheduling replaces, cancelling removes, the same crossing again is kept as it is', () => {
    const q = new EventQueue();
    q.schedule(3, 5, 0, 1, 1, 0);
    q.schedule(3, 2, 0, 1, 2, 0);
    expect(q.dueOf(3)).toBe(2);
    q.schedule(4, 1, 0, 1, 3, 0);
    q.cancel(4);
    expect(q.dueOf(4)).toBeNaN();
    const size = q.heapSize;
    q.schedule(3, 2, 0, 1, 2, 0);
    expect(q.heapSize).toBe(size);
    expect(q.pop(10)).toBe(true);
    expect(q.popped).toMatchObject({ key: 3, due: 2, event: 2 });
    expect(q.dueOf(3)).toBeNaN();
    expect(q.pop(10)).toBe(false);
    expect(() => q.schedule(-1, 0, 0, 0, 0, 0)).toThrow(/event key must be an integer >= 0, got -1/);
  });

  it('matches a sorted reference under 20,000 random schedules, cancels, one-shots and pops (compacting on the way)', () => {
    const random = seededRandom(42);
    const q = new EventQueue();
    const live = new Map<number, { due: number; order: number; seq: number; event: number }>();
    const shots: { due: number; order: number; seq: number; event: number }[] = [];
    let seq = 0;
    let now = 0;
    let maxHeap = 0;
    for (let step = 0; step < 20000; step++) {
      const r = random();
      const key = Math.floor(random() * 50);
      const due = now + Math.floor(random() * 20) / 4;
      const order = Math.floor(random() * 4);
      if (r < 0.5) {
        const known = live.get(key);
        q.schedule(key, due, order, 0, step, 0);
        if (!(known && known.due === due && known.event === step)) live.set(key, { due, order, seq: seq++, event: step });
      } else if (r < 0.6) {
        q.cancel(key);
        live.delete(key);
      } else if (r < 0.7) {
        q.push(due, order, 0, step);
        shots.push({ due, order, seq: seq++, event: step });
      } else {
        now += 0.5;
        const want = [...live.values(), ...shots].filter((e) => e.due <= now)
          .sort((a, b) => a.due - b.due || a.order - b.order || a.seq - b.seq).map((e) => e.event);
        const got: number[] = [];
        while (q.pop(now)) got.push(q.popped.event);
        expect(got).toEqual(want);
        for (const [k, e] of live) if (e.due <= now) live.delete(k);
        for (let i = shots.length - 1; i >= 0; i--) if (shots[i].due <= now) shots.splice(i, 1);
      }
      maxHeap = Math.max(maxHeap, q.heapSize);
    }
    expect(maxHeap).toBeLessThan(400); // stale entries are compacted, not kept
  });
});
