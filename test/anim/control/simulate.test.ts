import { describe, expect, it } from 'vitest';
import { parseScript, simulate } from '../../../src/anim/control/simulate';
import { expectAlone, syntheticRuntime } from '../../helpers/control';

/**
 * The script runner (src/anim/control/simulate.ts): script validation with errors naming the
 * entry and field, frame timing and the frame shape. Synthetic clips: A 1 s, B 2 s, C 0.5 s, ...
 */

const WITH_LOCOMOTION = {
  fade: { seconds: 0.5, curve: 'linear' },
  locomotion: { idle: 'Idle', directions: { any: { walk: 'Walk', run: 'Run' } } },
  actions: { Jump: { clip: 'A' } },
  transitions: [['locomotion', 'Jump']],
};

describe('parseScript', () => {
  const rt = syntheticRuntime(WITH_LOCOMOTION);
  const plain = syntheticRuntime({});

  it('accepts every command with its options', () => {
    const script = [
      { at: 0, play: 'A' }, { at: 0.5, fadeTo: 'B', seconds: 0.2, kind: 'first-frame', curve: 'cubic' }, { at: 1, speed: 1.5 },
      { at: 1, move: [0, -1], run: true }, { at: 1, face: 0.5 }, { at: 2, action: 'Jump' }, { at: 2.5, face: null }, { at: 3, stop: true },
    ];
    expect(parseScript(script, rt)).toEqual(script);
  });

  const BAD: [string, unknown, RegExp][] = [
    ['not an array', { at: 0 }, /script must be a JSON array/],
    ['an entry that is not an object', [{ at: 0, play: 'A' }, 'B'], /script\[1\] must be an object/],
    ['a missing at', [{ play: 'A' }], /script\[0\]\.at must be a number of seconds >= 0, got undefined/],
    ['a negative at', [{ at: -1, play: 'A' }], /script\[0\]\.at must be a number of seconds >= 0, got -1/],
    ['entries out of time order', [{ at: 1, play: 'A' }, { at: 0.5, play: 'B' }], /script\[1\]\.at 0\.5 comes before the previous entry's 1/],
    ['no command', [{ at: 0 }], /script\[0\] must have exactly one of play, fadeTo, speed, move, stop, action, face, has none/],
    ['two commands', [{ at: 0, play: 'A', fadeTo: 'B' }], /script\[0\] must have exactly one of .*, has play, fadeTo/],
    ['an option of another command', [{ at: 0, play: 'A', seconds: 1 }], /script\[0\]: field "seconds" does not go with "play"/],
    ['an unknown clip', [{ at: 0, play: 'A' }, { at: 1, fadeTo: 'Nope' }], /script\[1\]\.fadeTo: no clip "Nope" \(clips: "A", "B"/],
    ['a clip that is not a name', [{ at: 0, play: 3 }], /script\[0\]\.play must be a clip name/],
    ['negative seconds', [{ at: 0, fadeTo: 'B', seconds: -1 }], /script\[0\]\.seconds must be a number >= 0/],
    ['an unknown kind', [{ at: 0, fadeTo: 'B', kind: 'snap' }], /script\[0\]\.kind must be one of smooth, frozen, first-frame, immediate/],
    ['an unknown curve', [{ at: 0, fadeTo: 'B', curve: 'quadratic' }], /script\[0\]\.curve must be "linear", "cubic"/],
    ['speed above 2', [{ at: 0, speed: 2.5 }], /script\[0\]\.speed must be a number in \[0, 2\]/],
    ['move not a pair', [{ at: 0, move: [1] }], /script\[0\]\.move must be \[x, z\]/],
    ['run not a boolean', [{ at: 0, move: [1, 0], run: 'yes' }], /script\[0\]\.run must be true or false/],
    ['stop not true', [{ at: 0, stop: false }], /script\[0\]\.stop must be true/],
    ['a facing that is not a heading', [{ at: 0, face: 'north' }], /script\[0\]\.face must be a heading in radians or null, got "north"/],
    ['an unknown action', [{ at: 0, play: 'A' }, { at: 0, action: 'Fly' }], /script\[1\]\.action: no action "Fly" \(actions: Jump\)/],
  ];
  for (const [what, json, message] of BAD) {
    it(`rejects ${what}`, () => {
      expect(() => parseScript(json, rt)).toThrow(message);
    });
  }

  it('rejects locomotion commands when the config has no locomotion, and actions when it has none', () => {
    expect(() => parseScript([{ at: 0, speed: 1 }], plain)).toThrow(/script\[0\]: "speed" needs a "locomotion" section/);
    expect(() => parseScript([{ at: 0, play: 'A' }, { at: 1, stop: true }], plain)).toThrow(/script\[1\]: "stop" needs a "locomotion" section/);
    expect(() => parseScript([{ at: 0, face: 0 }], plain)).toThrow(/script\[0\]: "face" needs a "locomotion" section/);
    expect(() => parseScript([{ at: 0, action: 'Jump' }], plain)).toThrow(/script\[0\]\.action: no action "Jump" \(actions: none\)/);
  });
});

describe('simulate', () => {
  const rt = syntheticRuntime(WITH_LOCOMOTION);

  it('gives round(lastAt * fps) + 1 frames at t = k / fps, each with exactly t, state, base, layers, additive, events', () => {
    for (const [lastAt, fps] of [[1, 10], [1.25, 30], [0.7, 60], [2, 7]]) {
      const frames = simulate(rt, parseScript([{ at: 0, play: 'A' }, { at: lastAt, fadeTo: 'B' }], rt), fps);
      expect(frames, `${lastAt} s at ${fps} fps`).toHaveLength(Math.round(lastAt * fps) + 1);
      frames.forEach((f, k) => {
        expect(Object.keys(f)).toEqual(['t', 'state', 'base', 'layers', 'additive', 'events']);
        expect(f.events).toEqual([]); // the config has no events
        expect(f.t).toBe(k / fps);
        expect(Object.keys(f.base).sort()).toEqual(['clip', 'time']);
        expect(f.additive).toEqual([]);
      });
    }
    expect(simulate(rt, [], 60)).toHaveLength(1);
    expect(simulate(rt, [], 60)[0]).toEqual({ t: 0, state: 'locomotion', base: { clip: 'Idle', time: 0 }, layers: [], additive: [], events: [] });
  });

  it('applies each entry on the first frame at or after its time, before that frame\'s step', () => {
    // play B at 0.25 s at 10 fps: applied on the frame at t = 0.3, then advanced 0.1 s.
    const frames = simulate(rt, parseScript([{ at: 0, play: 'A' }, { at: 0.25, play: 'B' }, { at: 0.5, play: 'B' }], rt), 10);
    expectAlone(frames[2], 'A', 0.2);
    expectAlone(frames[3], 'B', 0.1);
    expectAlone(frames[4], 'B', 0.2);
    expectAlone(frames[5], 'B', 0.1); // play always restarts the clip (fadeTo to the clip shown would be ignored)
    // Entries at the same time apply in order.
    const same = simulate(rt, parseScript([{ at: 0, play: 'A' }, { at: 0.3, play: 'C' }, { at: 0.3, play: 'B' }], rt), 10);
    expectAlone(same[3], 'B', 0.1);
  });

  it('is deterministic: the same script gives the same frames', () => {
    const script = [{ at: 0, move: [0.3, 1] }, { at: 0.5, action: 'Jump' }, { at: 1, fadeTo: 'C' }, { at: 1.4, stop: true }, { at: 2, speed: 2 }];
    expect(simulate(rt, parseScript(script, rt), 30)).toEqual(simulate(rt, parseScript(script, rt), 30));
  });

  it('rejects an fps that is not a positive number', () => {
    for (const fps of [0, -10, NaN, Infinity]) expect(() => simulate(rt, [], fps)).toThrow(/fps must be a number > 0/);
  });
});
