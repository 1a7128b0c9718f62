import { describe, expect, it } from 'vitest';
import { RingTrack } from '../../demo/scenes/ring-track';

describe('RingTrack', () => {
  it('rejects sizes that are not positive', () => {
    expect(() => new RingTrack(0, 1, 1)).toThrow(/must be > 0/);
    expect(() => new RingTrack(1, -1, 1)).toThrow(/must be > 0/);
    expect(() => new RingTrack(1, 1, NaN)).toThrow(/must be > 0/);
  });

  it('fills lanes from the inside, each to the walkers its circumference holds', () => {
    const track = new RingTrack(10, 2, 2 * Math.PI); // lane k holds floor(10 + 2k) walkers
    expect([0, 1, 2].map((k) => track.capacity(k))).toEqual([10, 12, 14]);
    const lane = new Int32Array(30);
    const slot = new Int32Array(30);
    const laneCount = new Int32Array(track.lanesFor(30));
    expect(track.layout(30, lane, slot, laneCount)).toBe(3);
    expect([...laneCount]).toEqual([10, 12, 8]);
    expect([lane[0], slot[0], lane[9], slot[9], lane[10], slot[10], lane[29], slot[29]]).toEqual([0, 0, 0, 9, 1, 0, 2, 7]);
  });

  it('keeps the places of the first walkers when more are added', () => {
    const track = new RingTrack(3, 1.5, 2);
    const a = { lane: new Int32Array(50), slot: new Int32Array(50) };
    const b = { lane: new Int32Array(80), slot: new Int32Array(80) };
    track.layout(50, a.lane, a.slot, new Int32Array(track.lanesFor(50)));
    track.layout(80, b.lane, b.slot, new Int32Array(track.lanesFor(80)));
    expect([...b.lane.subarray(0, 50)]).toEqual([...a.lane]);
    expect([...b.slot.subarray(0, 50)]).toEqual([...a.slot]);
  });

  it('gives even a tiny lane room for one walker', () => {
    const track = new RingTrack(0.01, 0.01, 100);
    expect(track.capacity(0)).toBe(1);
    expect(track.lanesFor(3)).toBe(3);
  });
});
