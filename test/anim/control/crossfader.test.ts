import { describe, expect, it } from 'vitest';
import { AnimationController } from '../../../src/anim/control/controller';
import { Crossfader, MAX_FADES, SOURCE_CLIP, Source } from '../../../src/anim/control/crossfader';
import type { SimulationFrame } from '../../../src/anim/control/simulate';
import { clipShares, cubic, expectAlone, frameAt, layerOf, runScript, syntheticRuntime } from '../../helpers/control';

/**
 * Crossfades (src/anim/control/crossfader.ts) through scripts run by the simulation, on synthetic
 * clips A (1 s), B (2 s), C (0.5 s), D (4 s) at 10 fps, so every weight and time is worked out by
 * hand. Clip times start at 0 when a clip is played or faded to.
 *
 * Script timing (simulate.ts): frame k applies the entries due by t = k / fps, then advances by
 * 1 / fps (nothing on frame 0). So an entry at s > 0 has run t - s + 0.1 seconds at frame t
 * (an entry at 0 has run t seconds): a 1 s fade entered at 0.3 has weight 0.1 at t = 0.3 and
 * completes at t = 1.2.
 *
 * The output's override layers carry progressive weights; for a chain of fades between distinct
 * clips (base = the shown clip, one layer per fade target) each layer's weight is exactly its
 * fade's weight.
 */

const LINEAR = { fade: { seconds: 1, kind: 'smooth', curve: 'linear' } };
const ticks = (from: number, to: number) => Array.from({ length: Math.round((to - from) * 10) + 1 }, (_, i) => Math.round(from * 10 + i) / 10);

function expectFade(frame: SimulationFrame, state: string, base: [string, number], layers: [string, number, number][]): void {
  const where = `t = ${frame.t}`;
  expect(frame.state, where).toBe(state);
  expect(frame.base.clip, where).toBe(base[0]);
  expect(frame.base.time, `base time, ${where}`).toBeCloseTo(base[1], 9);
  expect(frame.layers.map((l) => l.clip), where).toEqual(layers.map((l) => l[0]));
  layers.forEach(([clip, time, weight], i) => {
    expect(frame.layers[i].time, `${clip} time, ${where}`).toBeCloseTo(time, 9);
    expect(frame.layers[i].weight, `${clip} weight, ${where}`).toBeCloseTo(weight, 9);
  });
}

describe('crossfades through the simulation', () => {
  it('play shows one clip; a linear 1 s smooth fade weighs 0.1, 0.2, ... with both clips playing, then replaces the current clip at t = 1', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }], 10, 1.5);
    expectFade(frames[0], 'fade:A->B', ['A', 0], []); // weight 0: the target is not drawn yet
    for (let k = 1; k <= 9; k++) expectFade(frames[k], 'fade:A->B', ['A', k / 10], [['B', k / 10, k / 10]]);
    // The finished fade leaves the list: B is the current clip, shown alone, still on its own clock.
    for (let k = 10; k <= 14; k++) {
      expect(frames[k].state).toBe('play:B');
      expectAlone(frames[k], 'B', k / 10);
    }
  });

  it('play alone: one base clip on its clock, no layers, state "play:<clip>"', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'D' }, { at: 0.5, play: 'B' }], 10, 1);
    for (const t of ticks(0, 0.4)) { expect(frameAt(frames, t).state).toBe('play:D'); expectAlone(frameAt(frames, t), 'D', t); }
    for (const t of ticks(0.5, 0.9)) { expect(frameAt(frames, t).state).toBe('play:B'); expectAlone(frameAt(frames, t), 'B', t - 0.4); }
  });

  it('cubic curve: weight 3u^2 - 2u^3 at normalised fade time u; the config default curve and seconds apply unless the entry overrides them', () => {
    const rt = syntheticRuntime({ fade: { seconds: 1, curve: 'cubic' } });
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }], 10, 1.2);
    for (let k = 1; k <= 9; k++) expectFade(frames[k], 'fade:A->B', ['A', k / 10], [['B', k / 10, cubic(k / 10)]]);
    expectAlone(frames[10], 'B', 1);
    // Entry options override the config: linear over 0.5 s.
    const linear = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B', seconds: 0.5, curve: 'linear' }], 10, 1);
    for (let k = 1; k <= 4; k++) expectFade(linear[k], 'fade:A->B', ['A', k / 10], [['B', k / 10, k / 5]]);
    expect(linear[5].state).toBe('play:B');
    expectAlone(linear[5], 'B', 0.5);
  });

  it('a fadeTo toward the clip already playing (no fade in flight) is ignored: nothing restarts', () => {
    const rt = syntheticRuntime(LINEAR);
    const base = [{ at: 0, play: 'A' }];
    const without = runScript(rt, base, 10, 1.5);
    for (const entry of [{ at: 0.5, fadeTo: 'A' }, { at: 0.5, fadeTo: 'A', seconds: 0.2, kind: 'first-frame' }, { at: 0.5, fadeTo: 'A', kind: 'immediate' }]) {
      const frames = runScript(rt, [...base, entry], 10, 1.5);
      expect(frames, JSON.stringify(entry)).toEqual(without);
    }
    for (const f of without) { expect(f.state).toBe('play:A'); expect(f.layers).toEqual([]); }
  });

  it('a fadeTo toward the clip already last in the fade list is ignored (whatever its seconds or kind): the fade runs on unchanged', () => {
    const rt = syntheticRuntime(LINEAR);
    const one = [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }];
    expect(runScript(rt, [...one, { at: 0.4, fadeTo: 'B', seconds: 0.2, kind: 'frozen', curve: 'cubic' }], 10, 1.5)).toEqual(runScript(rt, one, 10, 1.5));
    // With two fades in flight (A->B, then D over it), the last target is D.
    const two = [...one, { at: 0.8, fadeTo: 'D' }];
    expect(runScript(rt, [...two, { at: 1.1, fadeTo: 'D', seconds: 3 }], 10, 2)).toEqual(runScript(rt, two, 10, 2));
  });

  it('several fades in flight: each target is blended over the previous result; a finished fade replaces the current clip and leaves the list', () => {
    const rt = syntheticRuntime(LINEAR);
    // A->B over 1 s from 0; at 0.8 (B 70% in, so D fades in on top) D over 1 s, in from t = 0.7.
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.8, fadeTo: 'D' }], 10, 2);
    expectFade(frameAt(frames, 0.7), 'fade:A->B', ['A', 0.7], [['B', 0.7, 0.7]]);
    expectFade(frameAt(frames, 0.8), 'fade:A->D', ['A', 0.8], [['B', 0.8, 0.8], ['D', 0.1, 0.1]]);
    expectFade(frameAt(frames, 0.9), 'fade:A->D', ['A', 0.9], [['B', 0.9, 0.9], ['D', 0.2, 0.2]]);
    // P = mix(mix(A, B, 0.8), D, 0.1): A 0.2 * 0.9, B 0.8 * 0.9, D 0.1.
    const shares = clipShares(frameAt(frames, 0.8));
    expect(shares.A).toBeCloseTo(0.18, 9);
    expect(shares.B).toBeCloseTo(0.72, 9);
    expect(shares.D).toBeCloseTo(0.1, 9);
    // t = 1: A->B done, so B is current and only the D fade is left.
    expectFade(frameAt(frames, 1), 'fade:B->D', ['B', 1], [['D', 0.3, 0.3]]);
    expectFade(frameAt(frames, 1.6), 'fade:B->D', ['B', 1.6], [['D', 0.9, 0.9]]);
    expect(frameAt(frames, 1.7).state).toBe('play:D');
    expectAlone(frameAt(frames, 1.7), 'D', 1);
    expectAlone(frameAt(frames, 1.9), 'D', 1.2);
  });

  it('three fades in flight: layer weights are the fade weights, and each completion drops every fade before it', () => {
    const rt = syntheticRuntime(LINEAR);
    // B over 4 s from 0; D over 2 s in from 2.1 (B 52.5% in); C over 1 s in from 3.3 (D 60% in).
    const frames = runScript(rt, [
      { at: 0, play: 'A' }, { at: 0, fadeTo: 'B', seconds: 4 }, { at: 2.2, fadeTo: 'D', seconds: 2 }, { at: 3.4, fadeTo: 'C', seconds: 1 },
    ], 10, 4.5);
    const at35 = frameAt(frames, 3.5);
    expect(at35.state).toBe('fade:A->C');
    expect(at35.base.clip).toBe('A');
    expect(at35.layers.map((l) => [l.clip, +l.weight.toFixed(9)])).toEqual([['B', 0.875], ['D', 0.7], ['C', 0.2]]);
    const shares = clipShares(at35);
    expect(shares.A).toBeCloseTo(0.125 * 0.3 * 0.8, 9);
    expect(shares.B).toBeCloseTo(0.875 * 0.3 * 0.8, 9);
    expect(shares.D).toBeCloseTo(0.7 * 0.8, 9);
    expect(shares.C).toBeCloseTo(0.2, 9);
    // t = 4: B's fade completes (A leaves); t = 4.1: D's (B leaves); t = 4.3: C's.
    const at4 = frameAt(frames, 4);
    expect(at4.state).toBe('fade:B->C');
    expect([at4.base.clip, ...at4.layers.map((l) => [l.clip, +l.weight.toFixed(9)])]).toEqual(['B', ['D', 0.95], ['C', 0.7]]);
    const at41 = frameAt(frames, 4.1);
    expect(at41.state).toBe('fade:D->C');
    expect([at41.base.clip, ...at41.layers.map((l) => [l.clip, +l.weight.toFixed(9)])]).toEqual(['D', ['C', 0.8]]);
    expect(frameAt(frames, 4.2).state).toBe('fade:D->C');
    expect(frameAt(frames, 4.3).state).toBe('play:C');
    expectAlone(frameAt(frames, 4.3), 'C');
    expectAlone(frameAt(frames, 4.4), 'C', 0.1); // 1.1 s on a 0.5 s loop
  });
});

describe('transition kinds', () => {
  it('frozen: the outgoing clip\'s clock stops for the whole fade while the target plays; afterwards the target runs on', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0.3, fadeTo: 'B', kind: 'frozen' }], 10, 1.6);
    expectAlone(frameAt(frames, 0.2), 'A', 0.2);
    for (const t of ticks(0.3, 1.1)) expectFade(frameAt(frames, t), 'fade:A->B', ['A', 0.2], [['B', t - 0.2, t - 0.2]]);
    expect(frameAt(frames, 1.2).state).toBe('play:B');
    expectAlone(frameAt(frames, 1.2), 'B', 1);
    expectAlone(frameAt(frames, 1.5), 'B', 1.3);
  });

  it('first-frame: the target is held at its first frame (time 0) while the source keeps playing, then starts when the fade completes', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0.3, fadeTo: 'B', kind: 'first-frame' }], 10, 1.6);
    for (const t of ticks(0.3, 0.9)) expectFade(frameAt(frames, t), 'fade:A->B', ['A', t], [['B', 0, t - 0.2]]);
    expectFade(frameAt(frames, 1.1), 'fade:A->B', ['A', 0.1], [['B', 0, 0.9]]); // A (1 s) wrapped
    expect(frameAt(frames, 1.2).state).toBe('play:B');
    expectAlone(frameAt(frames, 1.2), 'B', 0);
    expectAlone(frameAt(frames, 1.3), 'B', 0.1);
    expectAlone(frameAt(frames, 1.5), 'B', 0.3);
  });

  it('immediate (and a fade of 0 seconds): switch at once, the target from time 0, no layer on any frame', () => {
    const rt = syntheticRuntime(LINEAR);
    for (const entry of [{ at: 0.3, fadeTo: 'B', kind: 'immediate' }, { at: 0.3, fadeTo: 'B', seconds: 0 }]) {
      const frames = runScript(rt, [{ at: 0, play: 'A' }, entry], 10, 1);
      for (const t of ticks(0, 0.2)) expectAlone(frameAt(frames, t), 'A', t);
      for (const t of ticks(0.3, 0.9)) {
        expect(frameAt(frames, t).state).toBe('play:B');
        expectAlone(frameAt(frames, t), 'B', t - 0.2);
      }
    }
  });

  it('immediate during a fade drops every fade in flight', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.8, fadeTo: 'D' }, { at: 1, fadeTo: 'C', kind: 'immediate' }], 10, 1.3);
    for (const t of ticks(1, 1.2)) {
      expect(frameAt(frames, t).state).toBe('play:C');
      expectAlone(frameAt(frames, t), 'C', t - 0.9);
    }
  });

  it('frozen over a fade in flight: every outgoing clip stays stopped until the frozen fade completes, even after the fade below it finishes', () => {
    const rt = syntheticRuntime(LINEAR);
    // A->B smooth from 0; at 0.7 (B 60% in) D fades in frozen over 1 s, from t = 0.6: A and B
    // stop at 0.6. At t = 1 A->B completes and B becomes current: it is still D's outgoing clip.
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.7, fadeTo: 'D', kind: 'frozen' }], 10, 2);
    for (const t of ticks(0.7, 0.9)) expectFade(frameAt(frames, t), 'fade:A->D', ['A', 0.6], [['B', 0.6, t], ['D', t - 0.6, t - 0.6]]);
    for (const t of ticks(1, 1.5)) expectFade(frameAt(frames, t), 'fade:B->D', ['B', 0.6], [['D', t - 0.6, t - 0.6]]);
    expect(frameAt(frames, 1.6).state).toBe('play:D');
    expectAlone(frameAt(frames, 1.6), 'D', 1);
    expectAlone(frameAt(frames, 1.8), 'D', 1.2);
  });

  it('frozen, reversed, then toward the target again: the source runs while the fade heads back to it and stops again when the fade heads to the target', () => {
    const rt = syntheticRuntime(LINEAR);
    // 2 s frozen fade A->B from 0 (A stopped at 0). At 0.6 back to A: the fade reverses from 0.5 s
    // and A's clock runs. At 0.9 toward B again (from 0.3 s in): A stops again, at 0.3.
    const frames = runScript(rt, [
      { at: 0, play: 'A' }, { at: 0, fadeTo: 'B', kind: 'frozen', seconds: 2 }, { at: 0.6, fadeTo: 'A' }, { at: 0.9, fadeTo: 'B' },
    ], 10, 2.8);
    for (const t of ticks(0.1, 0.5)) expectFade(frameAt(frames, t), 'fade:A->B', ['A', 0], [['B', t, t / 2]]);
    expect(frameAt(frames, 0.6).base.time).toBeCloseTo(0.1, 9);
    expect(frameAt(frames, 0.6).layers[0].weight).toBeCloseTo(0.4 / 2, 9);
    expect(frameAt(frames, 0.8).base.time).toBeCloseTo(0.3, 9);
    expect(frameAt(frames, 0.8).layers[0].weight).toBeCloseTo(0.2 / 2, 9);
    for (const t of [...ticks(0.9, 1.9), ...ticks(2.1, 2.5)]) {
      expectFade(frameAt(frames, t), 'fade:A->B', ['A', 0.3], [['B', t > 2 ? t - 2 : t, (t - 0.6) / 2]]); // B loops at 2 s
    }
    expect(frameAt(frames, 2.6).state).toBe('play:B');
    expectAlone(frameAt(frames, 2.6), 'B', 0.6);
  });

  it('frozen under another fade: reversing the fade on top does not restart the clip the frozen fade below it stopped', () => {
    const rt = syntheticRuntime(LINEAR);
    // 2 s frozen fade A->B from 0 (A stopped at time 0). D fades in on top, smooth, from 1.1
    // (B 55% in); at 1.5 back to B reverses the D fade, which is gone by t = 1.7. The A->B fade
    // is still in flight until t = 2, so A stays stopped all along.
    const frames = runScript(rt, [
      { at: 0, play: 'A' }, { at: 0, fadeTo: 'B', kind: 'frozen', seconds: 2 }, { at: 1.2, fadeTo: 'D' }, { at: 1.5, fadeTo: 'B' },
    ], 10, 2.3);
    expectFade(frameAt(frames, 1.4), 'fade:A->D', ['A', 0], [['B', 1.4, 0.7], ['D', 0.3, 0.3]]);
    expectFade(frameAt(frames, 1.5), 'fade:A->D', ['A', 0], [['B', 1.5, 0.75], ['D', 0.4, 0.2]]);
    expectFade(frameAt(frames, 1.6), 'fade:A->D', ['A', 0], [['B', 1.6, 0.8], ['D', 0.5, 0.1]]);
    for (const t of ticks(1.7, 1.9)) expectFade(frameAt(frames, t), 'fade:A->B', ['A', 0], [['B', t, t / 2]]);
    expect(frameAt(frames, 2).state).toBe('play:B');
    expectAlone(frameAt(frames, 2.2), 'B', 0.2);
  });
});

describe('retargeting mid-fade', () => {
  it('back to the source reverses the fade from where it is: the weight runs back down at the same rate, then the source shows alone on its own clock', () => {
    const rt = syntheticRuntime(LINEAR);
    // At 0.6 the fade is 0.5 s in; it runs back 0.1 per frame and ends at t = 1.
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.6, fadeTo: 'A' }], 10, 1.4);
    expectFade(frameAt(frames, 0.5), 'fade:A->B', ['A', 0.5], [['B', 0.5, 0.5]]);
    for (const [t, w] of [[0.6, 0.4], [0.7, 0.3], [0.8, 0.2], [0.9, 0.1]]) {
      const f = frameAt(frames, t);
      expect(f.base).toEqual({ clip: 'A', time: expect.closeTo(t, 9) });
      expect(f.layers.map((l) => l.clip)).toEqual(['B']);
      expect(f.layers[0].time).toBeCloseTo(t, 9); // smooth: B keeps playing while it fades out
      expect(f.layers[0].weight).toBeCloseTo(w, 9);
    }
    expect(frameAt(frames, 1).state).toBe('play:A');
    expect(frameAt(frames, 1).layers).toEqual([]);
    expectAlone(frameAt(frames, 1.1), 'A', 0.1); // A was never restarted: 1.1 s on a 1 s loop
    expectAlone(frameAt(frames, 1.3), 'A', 0.3);
  });

  it('a reversed cubic fade retraces its curve; toward the target again, it runs forward from where it is', () => {
    const rt = syntheticRuntime({ fade: { seconds: 1, curve: 'cubic' } });
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.7, fadeTo: 'A' }, { at: 0.9, fadeTo: 'B' }], 10, 1.8);
    // Fade time u: 0.6 at t = 0.6, back to 0.5, 0.4, then forward 0.5, 0.6, ... 1.0 at t = 1.4.
    const u = [[0.6, 0.6], [0.7, 0.5], [0.8, 0.4], [0.9, 0.5], [1, 0.6], [1.3, 0.9]];
    for (const [t, x] of u) expect(layerOf(frameAt(frames, t), 'B')!.weight, `t = ${t}`).toBeCloseTo(cubic(x), 9);
    expect(frameAt(frames, 1.4).state).toBe('play:B');
    expectAlone(frameAt(frames, 1.4), 'B', 1.4);
  });

  it('a new third clip while the fade is under half done replaces the target: the fade goes on from where it is toward the new clip', () => {
    const rt = syntheticRuntime(LINEAR);
    // At 0.4 the A->B fade is 0.3 s in: D takes B's place (from its time 0, entered at t = 0.3).
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.4, fadeTo: 'D' }], 10, 1.4);
    expectFade(frameAt(frames, 0.3), 'fade:A->B', ['A', 0.3], [['B', 0.3, 0.3]]);
    for (const t of ticks(0.4, 0.9)) expectFade(frameAt(frames, t), 'fade:A->D', ['A', t], [['D', t - 0.3, t]]);
    expect(frameAt(frames, 1).state).toBe('play:D');
    expectAlone(frameAt(frames, 1), 'D', 0.7);
    for (const f of frames.filter((f) => f.t > 0.35)) expect(layerOf(f, 'B'), `t = ${f.t}`).toBeUndefined();
  });

  it('a new third clip once the fade is half done: the half-shown target becomes the source (the new clip fades in on top while the old fade completes underneath)', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B' }, { at: 0.8, fadeTo: 'D', seconds: 0.5 }], 10, 1.5);
    expectFade(frameAt(frames, 0.8), 'fade:A->D', ['A', 0.8], [['B', 0.8, 0.8], ['D', 0.1, 0.2]]);
    expectFade(frameAt(frames, 1), 'fade:B->D', ['B', 1], [['D', 0.3, 0.6]]);
    expect(frameAt(frames, 1.2).state).toBe('play:D');
    expectAlone(frameAt(frames, 1.2), 'D', 0.5);
  });

  it('with two fades in flight, going back to the last fade\'s source (the previous target) reverses only the last fade', () => {
    const rt = syntheticRuntime(LINEAR);
    const frames = runScript(rt, [{ at: 0, play: 'A' }, { at: 0, fadeTo: 'B', seconds: 2 }, { at: 1.2, fadeTo: 'D' }, { at: 1.6, fadeTo: 'B' }], 10, 2.2);
    // D came in from 1.1; at 1.6 it is 0.4 s in and runs back out by t = 1.9; A->B goes on to t = 2.
    expectFade(frameAt(frames, 1.5), 'fade:A->D', ['A', 1.5 % 1], [['B', 1.5, 0.75], ['D', 0.4, 0.4]]);
    expectFade(frameAt(frames, 1.6), 'fade:A->D', ['A', 0.6], [['B', 1.6, 0.8], ['D', 0.5, 0.3]]);
    expectFade(frameAt(frames, 1.8), 'fade:A->D', ['A', 0.8], [['B', 1.8, 0.9], ['D', 0.7, 0.1]]);
    expectFade(frameAt(frames, 1.9), 'fade:A->B', ['A', 0.9], [['B', 1.9, 0.95]]);
    expect(frameAt(frames, 2).state).toBe('play:B');
    expectAlone(frameAt(frames, 2.1), 'B', 0.1);
  });
});

describe('Crossfader and controller details a script cannot express', () => {
  const clip = (index: number, duration = 1): Source => {
    const s = new Source();
    s.kind = SOURCE_CLIP;
    s.playback.set(index, duration, 1, true);
    return s;
  };

  it('fadeTo reports what it did: started, ignored, reversed, retargeted, played', () => {
    const f = new Crossfader();
    f.play(clip(0));
    expect(f.fadeTo(clip(0), 1, 'smooth', 'linear')).toBe('ignored');
    expect(f.fadeTo(clip(1), 1, 'smooth', 'linear')).toBe('started');
    expect(f.fadeTo(clip(1), 0.5, 'frozen', 'cubic')).toBe('ignored');
    f.update(0.2);
    expect(f.fadeTo(clip(2), 1, 'smooth', 'linear')).toBe('retargeted');
    expect(f.fades[0].target.playback.clip).toBe(2);
    expect(f.fadeTo(clip(0), 1, 'smooth', 'linear')).toBe('reversed');
    expect(f.fades[0].reversing).toBe(true);
    expect(f.fadeTo(clip(0), 1, 'smooth', 'linear')).toBe('ignored'); // already heading back to 0
    expect(f.fadeTo(clip(2), 1, 'smooth', 'linear')).toBe('reversed');
    expect(f.fades[0].reversing).toBe(false);
    expect(f.fadeTo(clip(3), 0, 'smooth', 'linear')).toBe('played');
    expect(f.fadeCount).toBe(0);
    expect(f.current.playback.clip).toBe(3);
  });

  it(`MAX_FADES (${MAX_FADES}) in flight: a further fade completes the oldest at once (its target becomes current, clock kept)`, () => {
    expect(MAX_FADES).toBe(3);
    const f = new Crossfader();
    f.play(clip(0));
    f.fadeTo(clip(1), 10, 'smooth', 'linear');
    f.update(5.5); // 1 is 55% in
    f.fadeTo(clip(2), 4, 'smooth', 'linear');
    f.update(2.2); // 2 is 55% in, 1 at 7.7 / 10
    f.fadeTo(clip(3), 1, 'smooth', 'linear');
    f.update(0.6); // 3 is 60% in, 2 at 2.8 / 4, 1 at 8.3 / 10
    expect(f.fadeCount).toBe(3);
    expect(f.fadeTo(clip(4), 1, 'smooth', 'linear')).toBe('started');
    expect(f.fadeCount).toBe(3);
    expect(f.current.playback.clip).toBe(1);
    expect(f.current.playback.time).toBeCloseTo(0.3, 9); // 8.3 s on a 1 s loop
    expect(f.fades.slice(0, 3).map((x) => x.target.playback.clip)).toEqual([2, 3, 4]);
    const w = new Float64Array(4);
    f.sourceWeights(w);
    expect(Array.from(w, (x) => +x.toFixed(9))).toEqual([0.12, 0.28, 0.6, 0]); // (1 - 0.7)(1 - 0.6), 0.7 (1 - 0.6), 0.6, 0
    f.update(0.4); // 3 completes: everything below it leaves
    expect(f.fadeCount).toBe(1);
    expect(f.current.playback.clip).toBe(3);
    expect(f.fades[0].target.playback.clip).toBe(4);
  });

  it('MAX_FADES overflow with the oldest fade reversing: completing it means finishing its way back, so the current clip stays', () => {
    const f = new Crossfader();
    f.play(clip(0));
    f.fadeTo(clip(1), 10, 'smooth', 'linear');
    f.update(6);
    expect(f.fadeTo(clip(0), 10, 'smooth', 'linear')).toBe('reversed'); // 0 -> 1 heads back to 0
    expect(f.fadeTo(clip(2), 4, 'smooth', 'linear')).toBe('started');
    f.update(2.5); // 2 is 62.5% in; 0 -> 1 back at 3.5 / 10
    f.fadeTo(clip(3), 1, 'smooth', 'linear');
    f.update(0.6);
    expect(f.fadeCount).toBe(3);
    expect(f.fades[0].reversing).toBe(true);
    f.fadeTo(clip(4), 1, 'smooth', 'linear');
    expect(f.current.playback.clip).toBe(0);
    expect(f.current.playback.time).toBeCloseTo(0.1, 9); // 9.1 s on a 1 s loop, clock kept
    expect(f.fades.slice(0, f.fadeCount).map((x) => x.target.playback.clip)).toEqual([2, 3, 4]);
  });

  it('sourceWeights: current gets prod(1 - w_i), fade i\'s target w_i * prod_{j > i}(1 - w_j); they sum to 1', () => {
    const f = new Crossfader();
    f.play(clip(0));
    f.fadeTo(clip(1), 10, 'smooth', 'linear');
    f.update(8); // 0.8
    f.fadeTo(clip(2), 5, 'smooth', 'linear');
    f.update(1); // 0.9, 0.2
    const w = new Float64Array(3);
    f.sourceWeights(w);
    expect(w[0]).toBeCloseTo(0.1 * 0.8, 12);
    expect(w[1]).toBeCloseTo(0.9 * 0.8, 12);
    expect(w[2]).toBeCloseTo(0.2, 12);
    expect(w[0] + w[1] + w[2]).toBeCloseTo(1, 12);
  });

  it('custom blend curves are functions of u, given per fade or as the config default in code; results are clamped to [0, 1], non-finite ones throw', () => {
    const rt = syntheticRuntime(LINEAR);
    const c = new AnimationController(rt);
    c.play('A');
    c.fadeTo('B', { seconds: 1, curve: (u) => u * u });
    for (let k = 1; k <= 9; k++) {
      c.update(0.1);
      expect(c.output.layerCount).toBe(1);
      expect(c.output.layerWeight[0]).toBeCloseTo((k / 10) ** 2, 9);
    }
    c.update(0.1);
    expect(c.state).toBe('play:B');

    const sqrt = syntheticRuntime(LINEAR);
    sqrt.config.fade.curve = (u) => Math.sqrt(u);
    const d = new AnimationController(sqrt);
    d.play('A');
    d.fadeTo('B');
    d.update(0.25);
    expect(d.output.layerWeight[0]).toBeCloseTo(0.5, 9);

    const wild = new AnimationController(syntheticRuntime(LINEAR));
    wild.play('A');
    wild.fadeTo('B', { curve: (u) => 3 * u - 1 });
    wild.update(0.2); // 3 * 0.2 - 1 < 0: clamped to 0, so B is not drawn
    expect(wild.output.layerCount).toBe(0);
    wild.update(0.5); // 3 * 0.7 - 1 > 1: clamped to 1, B alone
    expect(wild.output.baseClip).toBe(1);
    expect(wild.output.layerCount).toBe(0);

    // A curve that fails anywhere in [0, 1] (sampled at 65 points) is refused by fadeTo, not frames later mid-fade.
    const broken = new AnimationController(syntheticRuntime(LINEAR));
    broken.play('A');
    expect(() => broken.fadeTo('B', { curve: (u) => (u > 0.05 ? NaN : 0) })).toThrow(/fadeTo options\.curve: custom blend curve returned NaN at u = 0\.0625/);
    expect(broken.crossfader.fadeCount).toBe(0);
    broken.update(0.1);
    expect(broken.state).toBe('play:A');

    // A curve that fails at once is refused before anything changes.
    const refused = new AnimationController(syntheticRuntime(LINEAR));
    refused.play('A');
    expect(() => refused.fadeTo('B', { curve: () => NaN })).toThrow(/custom blend curve returned NaN at u = 0/);
    expect(refused.crossfader.fadeCount).toBe(0);
    refused.update(0.1);
    expect(refused.state).toBe('play:A');
  });

  it('controller.fadeTo validates its clip and seconds', () => {
    const c = new AnimationController(syntheticRuntime(LINEAR));
    expect(() => c.fadeTo('Nope')).toThrow(/no clip "Nope"/);
    expect(() => c.fadeTo('B', { seconds: -1 })).toThrow(/fade seconds must be >= 0/);
    expect(() => c.play(99)).toThrow(RangeError);
  });
});
