import { describe, expect, it } from 'vitest';
import { ControllerConfigStore, parseControllerConfig, serializeControllerConfig } from '../../../src/anim/control/config';
import { ControllerRuntime } from '../../../src/anim/control/controller';
import { parseScript, simulate, type SimulationFrame } from '../../../src/anim/control/simulate';
import { CLIP_DURATIONS, CLIP_NAMES, runScript, syntheticRuntime } from '../../helpers/control';

/**
 * Clip events of controllers (src/anim/control/events.ts), through the CPU path (simulate steps
 * AnimationController.update with the scanner): the config's "events", the crossing rules on
 * looping, clamped and backwards clips, the weight at the crossing during fades and actions, the
 * locomotion blend's heaviest clip. Synthetic clips (A 1 s, B 2 s, C 0.5 s, D 4 s, Idle 2 s,
 * Walk 1 s, Run 0.5 s) at 8 fps, so frame k's step ends at state time k / 8 exactly.
 */

/** The events of every frame as "frame:clip:name". */
function fired(frames: SimulationFrame[]): string[] {
  return frames.flatMap((f, k) => f.events.map((e) => `${k}:${e.clip}:${e.name}`));
}

describe('config "events"', () => {
  it('parses per clip, sorted by time, and saves them back', () => {
    const config = parseControllerConfig({ events: { A: [{ time: 0.75, name: 'b' }, { time: 0.25, name: 'a' }], Walk: [] } }, CLIP_NAMES);
    expect(config.events[0]).toEqual([{ time: 0.25, name: 'a' }, { time: 0.75, name: 'b' }]);
    expect(config.events[5]).toEqual([]);
    const saved = serializeControllerConfig(config);
    expect(saved.events).toEqual({ A: [{ time: 0.25, name: 'a' }, { time: 0.75, name: 'b' }] });
    expect(parseControllerConfig(saved, CLIP_NAMES).events).toEqual(config.events);
    expect(serializeControllerConfig(parseControllerConfig({}, CLIP_NAMES)).events).toBeUndefined();
  });

  it('rejects bad events naming the entry: a time outside the clip (with durations, or in the runtime), a bad name, an unknown clip', () => {
    const late = { events: { A: [{ time: 0.5, name: 'ok' }, { time: 1.5, name: 'late' }] } };
    expect(() => parseControllerConfig(late, CLIP_NAMES, 'config', CLIP_DURATIONS)).toThrow(/config\.events\.A\[1\]\.time 1\.5 is outside the clip \(0 to 1 s\)/);
    const parsed = parseControllerConfig(late, CLIP_NAMES); // no durations: the runtime checks
    expect(() => new ControllerRuntime(parsed, CLIP_DURATIONS)).toThrow(/config\.events\.A\[1\]\.time 1\.5 is outside the clip \(0 to 1 s\)/);
    expect(() => parseControllerConfig({ events: { A: [{ time: -1, name: 'x' }] } }, CLIP_NAMES)).toThrow(/config\.events\.A\[0\]\.time -1 is outside the clip/);
    expect(() => parseControllerConfig({ events: { A: [{ time: 0.1, name: 3 }] } }, CLIP_NAMES)).toThrow(/config\.events\.A\[0\]\.name must be a non-empty string, got 3/);
    expect(() => parseControllerConfig({ events: { Jog: [] } }, CLIP_NAMES)).toThrow(/config\.events: no clip named "Jog"/);
    expect(() => parseControllerConfig({ events: [] }, CLIP_NAMES)).toThrow(/config\.events must be an object of clip name/);
  });

  it('a store refuses a config whose event lies outside its clip and keeps the one it had', () => {
    const store = new ControllerConfigStore(parseControllerConfig({ events: { A: [{ time: 0.5, name: 'x' }] } }, CLIP_NAMES), CLIP_DURATIONS);
    expect(() => store.load(JSON.stringify({ events: { C: [{ time: 0.75, name: 'y' }] } }))).toThrow(/config\.events\.C\[0\]\.time 0\.75 is outside the clip \(0 to 0\.5 s\)/);
    expect(store.config.events[0]).toEqual([{ time: 0.5, name: 'x' }]);
  });
});

describe('crossing rules through a controller', () => {
  it('an event exactly at a step\'s end fires once, in that frame; frame 0 (no step) fires nothing', () => {
    const rt = syntheticRuntime({ events: { A: [{ time: 0.25, name: 'step' }, { time: 0, name: 'start' }] } });
    const frames = runScript(rt, [{ at: 0, play: 'A' }], 8, 2.5);
    expect(frames[0].events).toEqual([]);
    // A starts at 0 (not fired: a playback's start is not crossed), wraps at 1 and 2.
    expect(fired(frames)).toEqual(['2:A:step', '8:A:start', '10:A:step', '16:A:start', '18:A:step']);
    expect(frames[2].events).toEqual([{ name: 'step', clip: 'A', time: 0.25 }]);
  });

  it('a step spanning several loops fires once per crossing, in order', () => {
    const rt = syntheticRuntime({ events: { C: [{ time: 0.125, name: 'a' }, { time: 0.375, name: 'b' }] } });
    const frames = simulate(rt, parseScript([{ at: 0, play: 'C' }, { at: 2, play: 'C' }], rt), 0.5); // dt = 2 s: four loops of a 0.5 s clip
    expect(frames[1].events.map((e) => e.name).join('')).toBe('abababab');
  });

  it('negative speed plays the events backwards', () => {
    const rt = syntheticRuntime({ clips: { A: { speed: -1 } }, events: { A: [{ time: 0.25, name: 'a' }, { time: 0.75, name: 'b' }] } });
    const frames = runScript(rt, [{ at: 0, play: 'A' }], 8, 2);
    // 0 -> -0.125 (0.875) ...: b at 0.25 s, a at 0.75 s, b at 1.25 s, a at 1.75 s.
    expect(fired(frames)).toEqual(['2:A:b', '6:A:a', '10:A:b', '14:A:a']);
  });

  it('a clamped clip fires an event at its end once, when it reaches the end, and never while it holds it', () => {
    const rt = syntheticRuntime({ clips: { C: { loop: false } }, events: { C: [{ time: 0.5, name: 'end' }, { time: 0.25, name: 'mid' }] } });
    const frames = runScript(rt, [{ at: 0, play: 'C' }], 8, 3);
    expect(fired(frames)).toEqual(['2:C:mid', '4:C:end']);
    const backwards = syntheticRuntime({ clips: { C: { loop: false, speed: -0.5 } }, events: { C: [{ time: 0, name: 'start' }, { time: 0.5, name: 'end' }] } });
    // Starts held at its end (0.5 - 1e-4 counts as the end: not crossed), reaches 0 after 1 s (frame 8).
    expect(fired(runScript(backwards, [{ at: 0, play: 'C' }], 8, 3))).toEqual(['8:C:start']);
  });
});

describe('weights at the crossing', () => {
  it('a crossfade hands the events over at weight 0.5 (the threshold, inclusive); a lower threshold fires more', () => {
    // Fade A -> B (1 s, linear) applied at frame 8: the state is at 0.875 s, so A's weight at state time T is 1.875 - T.
    const rt = syntheticRuntime({ fade: { seconds: 1, curve: 'linear' }, events: { A: [{ time: 0.375, name: 'a' }], B: [{ time: 0.25, name: 'b1' }, { time: 0.75, name: 'b2' }] } });
    const script = [{ at: 0, play: 'A' }, { at: 1, fadeTo: 'B' }, { at: 3.5, play: 'B' }];
    const frames = simulate(rt, parseScript(script, rt), 8);
    // A at 0.375 (w 1) and 1.375 (w 0.5, fires); B (time T - 0.875) b1 at T = 1.125 (w 0.25: no), b2 at 1.625 (w 0.75), b1 at 3.125 (w 1).
    expect(fired(frames)).toEqual(['3:A:a', '11:A:a', '13:B:b2', '25:B:b1']);
    expect(fired(simulate(rt, parseScript(script, rt), 8, 0.25))).toEqual(['3:A:a', '9:B:b1', '11:A:a', '13:B:b2', '25:B:b1']);
  });

  it('an unmasked action hides the events below it while it weighs more than half; a masked one does not', () => {
    const rt = syntheticRuntime({
      actions: { Jump: { clip: 'D', fadeIn: 0.5, fadeOut: 0.5, curve: 'linear' }, Wave: { clip: 'D', fadeIn: 0.5, fadeOut: 0.5, curve: 'linear', mask: { root: 'Torso' } } },
      transitions: [['locomotion', 'Jump'], ['locomotion', 'Wave']],
      events: { A: [{ time: 0.5, name: 'a' }], D: [{ time: 0.375, name: 'd' }] },
    });
    // A plays from 0 (events at 0.5, 1.5, ...). The action is requested on frame 8 (state 0.875 s): weight (T - 0.875) / 0.5
    // up to 1.375 s, 1 until its last 0.5 s (D is 4 s: from 4.375 s), then 1 - (T - 4.375) / 0.5, gone at 4.875 s.
    const jump = runScript(rt, [{ at: 0, play: 'A' }, { at: 1, action: 'Jump' }], 8, 6);
    // A at 0.5 (weight 1), 1.5 ... 3.5 (hidden), 4.5 (1 - 0.75: hidden), 5.5 (weight 1); D at 0.375 into it (T = 1.25, weight 0.75).
    expect(fired(jump)).toEqual(['4:A:a', '10:D:d', '44:A:a']);
    const wave = runScript(rt, [{ at: 0, play: 'A' }, { at: 1, action: 'Wave' }], 8, 6);
    expect(fired(wave)).toEqual(['4:A:a', '10:D:d', '12:A:a', '20:A:a', '28:A:a', '36:A:a', '44:A:a']);
  });

  it('the locomotion blend fires its heaviest clip\'s events at the blend\'s phase: footsteps once per cycle when walking', () => {
    const rt = syntheticRuntime({
      locomotion: { idle: 'Idle', directions: { any: { walk: 'Walk', run: 'Run' } }, walkSpeed: 1, maxAcceleration: 8 },
      events: { Walk: [{ time: 0.25, name: 'left' }, { time: 0.75, name: 'right' }], Idle: [{ time: 1, name: 'breath' }] },
    });
    const frames = runScript(rt, [{ at: 0, speed: 1 }], 8, 4);
    // Walking speed is reached in the first step (8 x 0.125 = 1): Walk (1 s) alone at rate 1 from phase 0, so a footstep
    // every 0.5 s, alternating; Idle is never the heaviest clip in a step.
    expect(fired(frames)).toEqual([2, 6, 10, 14, 18, 22, 26, 30].map((k, i) => `${k}:Walk:${i % 2 ? 'right' : 'left'}`));
  });
});
