import { describe, expect, it } from 'vitest';
import { ClipPlayback, HOLD_SECONDS } from '../../../src/anim/control/playback';
import { expectAlone, runScript, syntheticRuntime } from '../../helpers/control';

/**
 * Per-clip playback speed and loop/clamp (config "clips": {"X": {"speed": s, "loop": bool}}),
 * through the simulation at 8 fps (steps of 1/8 s, exact in binary, so loop wraps land exactly),
 * then ClipPlayback directly. Synthetic clips: A 1 s, B 2 s, C 0.5 s, D 4 s.
 */

const CLIPS = {
  clips: {
    A: { speed: 2 }, // loops (the default)
    B: { speed: -1, loop: false },
    C: { speed: -1, loop: true },
    D: { speed: 4, loop: false },
  },
  fade: { seconds: 0.5, curve: 'linear' },
};

describe('clip playback through the simulation', () => {
  const rt = syntheticRuntime(CLIPS);

  it('speed 2, looping: the clock runs twice as fast and wraps at the clip\'s end', () => {
    const frames = runScript(rt, [{ at: 0, play: 'A' }], 8, 2);
    frames.forEach((f, k) => { expect(f.state).toBe('play:A'); expectAlone(f, 'A', (k * 0.25) % 1); });
    expect(frames.map((f) => f.base.time).slice(0, 6)).toEqual([0, 0.25, 0.5, 0.75, 0, 0.25]);
  });

  it('negative speed, clamped: plays backwards from the end and holds at 0', () => {
    const frames = runScript(rt, [{ at: 0, play: 'B' }], 8, 3);
    expect(frames[0].base.time).toBeCloseTo(2 - HOLD_SECONDS, 12);
    for (let k = 0; k < 16; k++) expectAlone(frames[k], 'B', 2 - HOLD_SECONDS - k / 8);
    for (let k = 16; k < frames.length; k++) expectAlone(frames[k], 'B', 0);
  });

  it('negative speed, looping: plays backwards from 0, wrapping to the end', () => {
    const frames = runScript(rt, [{ at: 0, play: 'C' }], 8, 1.5);
    expect(frames.map((f) => f.base.time)).toEqual([0, 0.375, 0.25, 0.125, 0, 0.375, 0.25, 0.125, 0, 0.375, 0.25, 0.125]);
  });

  it('positive speed, clamped: holds just before the end (time d would sample as the first frame)', () => {
    const frames = runScript(rt, [{ at: 0, play: 'D' }], 8, 2);
    expect(frames).toHaveLength(16);
    frames.forEach((f, k) => expectAlone(f, 'D', k <= 7 ? k / 2 : 4 - HOLD_SECONDS));
  });

  it('clips not listed play at speed 1 and loop; a fade target plays at its own configured speed', () => {
    const frames = runScript(rt, [{ at: 0, play: 'C' }, { at: 0, fadeTo: 'A' }], 8, 0.5);
    // C backwards, A (speed 2) forward, fade 0.5 s linear.
    expect(frames.map((f) => [f.base.clip, f.base.time, f.layers[0]?.clip, f.layers[0]?.time, f.layers[0]?.weight])).toEqual([
      ['C', 0, undefined, undefined, undefined],
      ['C', 0.375, 'A', 0.25, 0.25],
      ['C', 0.25, 'A', 0.5, 0.5],
      ['C', 0.125, 'A', 0.75, 0.75],
    ]);
    const plain = syntheticRuntime({});
    const idle = runScript(plain, [{ at: 0, play: 'C' }], 8, 1);
    expect(idle.map((f) => f.base.time)).toEqual([0, 0.125, 0.25, 0.375, 0, 0.125, 0.25, 0.375]);
  });
});

describe('ClipPlayback', () => {
  it('looping: time wraps into [0, duration) both ways, however far it runs', () => {
    const p = new ClipPlayback().set(0, 1, 1, true, 2.25);
    expect(p.time).toBe(0.25);
    p.set(0, 1, 1, true, -0.25);
    expect(p.time).toBe(0.75);
    p.advance(0.25);
    expect(p.time).toBe(0); // exactly the end wraps to 0, never to 1
    p.advance(3.5);
    expect(p.time).toBe(0.5);
    p.set(0, 1, -2, true);
    p.advance(0.125);
    expect(p.time).toBe(0.75);
    expect(p.finished).toBe(false);
    expect(p.sampleSpeed).toBe(-2);
  });

  it('clamped, backwards: holds at 0, finished, sample speed 0', () => {
    const p = new ClipPlayback().set(3, 1, -1, false, Infinity);
    expect(p.time).toBe(1 - HOLD_SECONDS);
    expect(p.finished).toBe(false);
    p.advance(0.5);
    expect(p.time).toBeCloseTo(0.5 - HOLD_SECONDS, 12);
    p.advance(0.75);
    expect(p.time).toBe(0);
    expect(p.finished).toBe(true);
    expect(p.sampleSpeed).toBe(0);
    p.advance(10);
    expect(p.time).toBe(0);
  });

  it('clamped, forwards: holds HOLD_SECONDS before the end, finished, sample speed 0', () => {
    const p = new ClipPlayback().set(0, 2, 3, false);
    p.advance(0.5);
    expect(p.time).toBe(1.5);
    expect(p.finished).toBe(false);
    expect(p.sampleSpeed).toBe(3);
    p.advance(0.5);
    expect(p.time).toBe(2 - HOLD_SECONDS);
    expect(p.finished).toBe(true);
    expect(p.sampleSpeed).toBe(0);
    expect(new ClipPlayback().set(0, 2, 1, false, 7).time).toBe(2 - HOLD_SECONDS);
    expect(new ClipPlayback().set(0, 2, 1, false, -7).time).toBe(0);
  });

  it('frozen clocks and first-frame holds do not advance; a held clip samples at time 0', () => {
    const p = new ClipPlayback().set(0, 1, 1, true, 0.5);
    p.frozen = true;
    p.advance(0.25);
    expect(p.time).toBe(0.5);
    expect(p.sampleSpeed).toBe(0);
    p.frozen = false;
    p.holdFirstFrame = true;
    p.advance(0.25);
    expect(p.time).toBe(0.5);
    expect(p.sampleTime).toBe(0);
    expect(p.sampleSpeed).toBe(0);
    p.holdFirstFrame = false;
    p.advance(0.25);
    expect(p.sampleTime).toBe(0.75);
  });

  it('a clip of no length stays at time 0; copy takes every field', () => {
    const p = new ClipPlayback().set(1, 0, 1, true, 3);
    p.advance(1);
    expect(p.time).toBe(0);
    const q = new ClipPlayback().set(4, 2, -1.5, false, 1.25);
    q.frozen = true;
    q.holdFirstFrame = true;
    expect({ ...new ClipPlayback().copy(q) }).toEqual({ ...q });
  });
});
