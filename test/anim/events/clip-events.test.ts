import { describe, expect, it } from 'vitest';
import { checkClipEvents, ClipEventTable, EVENT_EPSILON_SECONDS, firstCrossing, nextCrossing } from '../../../src/anim/events/clip-events';

/** Event tables and the crossing arithmetic of looping clips (src/anim/events/clip-events.ts). */
describe('clip event tables', () => {
  it('validates before changing anything and keeps events sorted by time, stably', () => {
    const table = new ClipEventTable(['Walk', 'Run'], [1, 0.5]);
    expect(table.hasEvents).toBe(false);
    table.set(0, [{ time: 0.8, name: 'b' }, { time: 0.2, name: 'a' }, { time: 0.8, name: 'c' }]);
    expect(table.get(0)).toEqual([{ time: 0.2, name: 'a' }, { time: 0.8, name: 'b' }, { time: 0.8, name: 'c' }]);
    expect(table.hasEvents).toBe(true);
    const version = table.version;
    expect(() => table.set(0, [{ time: 1.2, name: 'x' }])).toThrow(/events of clip "Walk"\[0\]\.time 1\.2 is outside the clip \(0 to 1 s\)/);
    expect(() => table.set(2, [])).toThrow(/clip 2 does not exist \(the model has 2 clips\)/);
    expect(table.version).toBe(version);
    expect(table.count(0)).toBe(3);
    table.set(0, []);
    expect(table.hasEvents).toBe(false);
    expect(() => checkClipEvents([{ time: Infinity, name: 'x' }], 1, 'e')).toThrow(/e\[0\]\.time must be a finite number of seconds, got null/);
  });
});

describe('crossings of a looping clip', () => {
  const times = Float64Array.of(0, 0.25, 1);
  const c = { index: 0, position: 0 };
  it('forwards: the first crossing strictly ahead (by more than the epsilon), then each in turn across cycles', () => {
    expect(firstCrossing(times, 1, 0.1, true, c)).toEqual({ index: 1, position: 0.25 });
    expect(firstCrossing(times, 1, 0.25, true, c)).toEqual({ index: 2, position: 1 }); // not the one it starts on
    expect(firstCrossing(times, 1, 0.25 - EVENT_EPSILON_SECONDS / 2, true, c)).toEqual({ index: 2, position: 1 });
    expect(firstCrossing(times, 1, 3.5, true, c)).toEqual({ index: 2, position: 4 });
    const seen = [];
    for (let k = 0; k < 5; k++) { seen.push([c.index, c.position]); nextCrossing(times, 1, true, c); }
    // At 4 the cycle left (time 1) fires before the next one's time 0.
    expect(seen).toEqual([[2, 4], [0, 4], [1, 4.25], [2, 5], [0, 5]]);
  });

  it('backwards: mirrored, the cycle left first', () => {
    expect(firstCrossing(times, 1, 0.5, false, c)).toEqual({ index: 1, position: 0.25 });
    expect(firstCrossing(times, 1, -0.5, false, c)).toEqual({ index: 1, position: -0.75 });
    const seen = [];
    for (let k = 0; k < 5; k++) { seen.push([c.index, c.position]); nextCrossing(times, 1, false, c); }
    expect(seen).toEqual([[1, -0.75], [0, -1], [2, -1], [1, -1.75], [0, -2]]);
  });
});
