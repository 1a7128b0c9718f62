import { describe, expect, it } from 'vitest';
import { TimerQueue } from '../../../src/anim/control/timers';
import { seededRandom } from '../../helpers/prng';

describe('TimerQueue', () => {
  it('pops keys in due order, once each, against a sorted reference, through reschedules and cancels', () => {
    const q = new TimerQueue();
    const next = seededRandom(3);
    const due = new Map<number, number>();
    let now = 0;
    for (let step = 0; step < 4000; step++) {
      const key = Math.floor(next() * 300);
      const r = next();
      if (r < 0.6) {
        const when = r < 0.05 ? Infinity : now + next() * 5;
        q.schedule(key, when);
        due.set(key, when); // Infinity: pending forever, never popped
      } else if (r < 0.7) {
        q.cancel(key);
        due.delete(key);
      } else {
        now += next() * 0.5;
        const want = [...due].filter(([, t]) => t <= now).sort((a, b) => a[1] - b[1]);
        const got: number[] = [];
        for (let k = q.popDue(now); k >= 0; k = q.popDue(now)) got.push(k);
        expect(got).toEqual(want.map(([k]) => k));
        for (const [k] of want) due.delete(k);
      }
      for (const k of [key]) expect(q.dueOf(k)).toBe(due.get(k) ?? NaN);
    }
    expect(q.dueOf(10 ** 6)).toBeNaN();
  });

  it('refuses keys and due times it cannot order', () => {
    const q = new TimerQueue();
    expect(() => q.schedule(-1, 0)).toThrow(/timer key must be an integer >= 0, got -1/);
    expect(() => q.schedule(1.5, 0)).toThrow(/timer key must be an integer >= 0, got 1.5/);
    expect(() => q.schedule(0, NaN)).toThrow(/timer due time must be a number, got NaN/);
    expect(q.heapSize).toBe(0);
  });
});
