import { describe, expect, it } from 'vitest';
import { AnimationController } from '../../../src/anim/control/controller';
import type { SimulationFrame } from '../../../src/anim/control/simulate';
import { clipShares, durationOf, expectAlone, frameAt, runScript, syntheticRuntime } from '../../helpers/control';

/**
 * Locomotion (src/anim/control/locomotion.ts) through the simulation at 10 fps, on synthetic
 * clips Idle (2 s), Walk (1 s), Run (0.5 s), WalkBack (1.25 s), RunBack (0.625 s), with
 * walkSpeed 1 so that the speed parameter equals the speed. The speed changes by at most
 * maxAcceleration * dt per step (maxDeceleration * dt when slowing down).
 */

const LOCOMOTION = {
  idle: 'Idle', directions: { any: { walk: 'Walk', run: 'Run' } },
  walkSpeed: 1, maxAcceleration: 4, maxDeceleration: 2, minSpeed: 0.25, turnRate: 6, fadeSeconds: 0.5,
};
const config = (locomotion: object = {}, rest: object = {}) => ({ fade: { seconds: 0.5, curve: 'linear' }, locomotion: { ...LOCOMOTION, ...locomotion }, ...rest });

/** Clip share of each clip in the frame, to 9 digits, without zero entries. */
function shares(frame: SimulationFrame): Record<string, number> {
  return Object.fromEntries(Object.entries(clipShares(frame)).filter(([, w]) => w > 1e-9).map(([c, w]) => [c, +w.toFixed(9)]));
}

/** Every clip of the frame (base and layers) sits at the same normalised phase time / duration. */
function expectInPhase(frame: SimulationFrame): number {
  const phase = frame.base.time / durationOf(String(frame.base.clip));
  for (const l of frame.layers) expect(l.time / durationOf(String(l.clip)), `${l.clip} at t = ${frame.t}`).toBeCloseTo(phase, 9);
  return phase;
}

describe('locomotion blend', () => {
  it('starts in "locomotion" with the idle clip alone, playing on its own clock', () => {
    const frames = runScript(syntheticRuntime(config()), [], 10, 1.5);
    for (const f of frames) {
      expect(f.state).toBe('locomotion');
      expectAlone(f, 'Idle', f.t);
    }
  });

  it('speed parameter 0..1 blends idle to walk: acceleration-limited, clips in phase (phase += dt / (sum w_i d_i))', () => {
    const frames = runScript(syntheticRuntime(config()), [{ at: 0, speed: 1 }], 10, 0.6);
    expectAlone(frames[0], 'Idle', 0);
    // Speed 0.4, 0.8, then 1 (max acceleration 4 per s, 0.4 per step).
    expect(shares(frames[1])).toEqual({ Idle: 0.6, Walk: 0.4 });
    expect(shares(frames[2])).toEqual({ Idle: 0.2, Walk: 0.8 });
    expect(shares(frames[3])).toEqual({ Walk: 1 });
    // Cycle lengths D = 0.6 * 2 + 0.4 * 1 = 1.6 s, then 0.2 * 2 + 0.8 * 1 = 1.2 s, then 1 s.
    const phases = [0.1 / 1.6, 0.1 / 1.6 + 0.1 / 1.2, 0.1 / 1.6 + 0.1 / 1.2 + 0.1, 0.1 / 1.6 + 0.1 / 1.2 + 0.2];
    phases.forEach((phase, i) => expect(expectInPhase(frames[i + 1]), `t = ${frames[i + 1].t}`).toBeCloseTo(phase, 9));
    expect(frames[1].base).toEqual({ clip: 'Idle', time: expect.closeTo(phases[0] * 2, 9) });
    expect(frames[1].layers).toEqual([{ clip: 'Walk', time: expect.closeTo(phases[0], 9), weight: expect.closeTo(0.4, 9) }]);
    for (const f of frames) expect(f.state).toBe('locomotion');
  });

  it('speed parameter 1..2 blends walk to run with the footsteps in phase (time_i / duration_i equal)', () => {
    const frames = runScript(syntheticRuntime(config({ maxAcceleration: 100 })), [{ at: 0, speed: 1.5 }, { at: 1.1, speed: 2 }], 10, 1.6);
    // From t = 0.1: Walk 0.5, Run 0.5, cycle 0.5 * 1 + 0.5 * 0.5 = 0.75 s.
    for (const t of [0.1, 0.2, 0.5, 0.9]) {
      const f = frameAt(frames, t);
      expect(shares(f)).toEqual({ Walk: 0.5, Run: 0.5 });
      expect(f.base.clip).toBe('Walk');
      expect(f.layers.map((l) => [l.clip, +l.weight.toFixed(9)])).toEqual([['Run', 0.5]]);
      expect(expectInPhase(f)).toBeCloseTo((t / 0.75) % 1, 9);
    }
    // Speed 2 from t = 1.1 (entered at 1.0): Run alone.
    expect(shares(frameAt(frames, 1.1))).toEqual({ Run: 1 });
    expect(frameAt(frames, 1.5).layers).toEqual([]);
  });

  it('walk/run phase sync holds on every frame while the speed changes', () => {
    const frames = runScript(syntheticRuntime(config({ maxAcceleration: 1.5, maxDeceleration: 1 })), [
      { at: 0, speed: 2 }, { at: 1.5, speed: 0.7 }, { at: 3, speed: 1.6 },
    ], 10, 4);
    let blended = 0;
    for (const f of frames) {
      expectInPhase(f);
      if (f.layers.length === 1 && f.base.clip === 'Walk' && f.layers[0].clip === 'Run') blended++;
    }
    expect(blended).toBeGreaterThan(10);
  });

  it('no input decelerates at maxDeceleration and stops dead below minSpeed', () => {
    const frames = runScript(syntheticRuntime(config()), [{ at: 0, speed: 1 }, { at: 0.5, stop: true }], 10, 1.2);
    expect(shares(frameAt(frames, 0.4))).toEqual({ Walk: 1 });
    // 2 per s: 0.8, 0.6, 0.4, then 0.2 < minSpeed 0.25: stopped.
    expect(shares(frameAt(frames, 0.5))).toEqual({ Idle: 0.2, Walk: 0.8 });
    expect(shares(frameAt(frames, 0.6))).toEqual({ Idle: 0.4, Walk: 0.6 });
    expect(shares(frameAt(frames, 0.7))).toEqual({ Idle: 0.6, Walk: 0.4 });
    for (const t of [0.8, 0.9, 1.1]) expect(frameAt(frames, t).layers, `t = ${t}`).toEqual([]);
    expect(frameAt(frames, 0.8).base.clip).toBe('Idle');

    const c = new AnimationController(syntheticRuntime(config()));
    c.setSpeed(1);
    for (let i = 0; i < 5; i++) c.update(0.1);
    c.stop();
    const speeds = [];
    for (let i = 0; i < 5; i++) { c.update(0.1); speeds.push(+c.locomotion!.speed.toFixed(9)); }
    expect(speeds).toEqual([0.8, 0.6, 0.4, 0, 0]);
  });

  it('movement: max acceleration per step, walkSpeed the maximum, doubled when running; input length scales the speed', () => {
    const c = new AnimationController(syntheticRuntime(config({ walkSpeed: 1.5 })));
    c.move(0, 1);
    c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(0.4, 12);
    for (let i = 0; i < 20; i++) c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(1.5, 12);
    expect(c.locomotion!.parameter).toBeCloseTo(1, 12);
    c.move(0, 1, true);
    c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(1.9, 12);
    for (let i = 0; i < 20; i++) c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(3, 12);
    expect(c.locomotion!.parameter).toBeCloseTo(2, 12);
    expect(c.locomotion!.positionZ).toBeGreaterThan(0);
    c.move(0, 5, true); // longer than 1: still the maximum
    c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(3, 12);
    c.move(0, 0.5); // half the walking speed, slowing down at maxDeceleration (2 per s)
    c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(2.8, 12);
    for (let i = 0; i < 20; i++) c.update(0.1);
    expect(c.locomotion!.speed).toBeCloseTo(0.75, 12);
  });

  it('walking input caps the blend at walk; running input reaches run', () => {
    const rt = syntheticRuntime(config());
    const walk = runScript(rt, [{ at: 0, move: [0, 1] }], 10, 1);
    for (const f of walk) expect(f.layers.some((l) => l.clip === 'Run') || f.base.clip === 'Run').toBe(false);
    expect(shares(walk[walk.length - 1])).toEqual({ Walk: 1 });
    const run = runScript(rt, [{ at: 0, move: [0, 1], run: true }], 10, 1);
    expect(shares(run[run.length - 1])).toEqual({ Run: 1 });
    const half = runScript(rt, [{ at: 0, move: [0, 0.5] }], 10, 1);
    expect(shares(half[half.length - 1])).toEqual({ Idle: 0.5, Walk: 0.5 });
  });

  it('clip speeds scale the blend\'s playback rate', () => {
    const frames = runScript(syntheticRuntime(config({ maxAcceleration: 100 }, { clips: { Walk: { speed: 2 } } })), [{ at: 0, speed: 1 }], 10, 0.5);
    // Walk alone from t = 0.1, cycle 1 s at rate 2: phase 0.2 per step.
    expect(frames.slice(1).map((f) => +f.base.time.toFixed(9))).toEqual([0.2, 0.4, 0.6, 0.8]);
  });
});

describe('directions', () => {
  // Heading 0 faces +z; the character's right is -x. A tiny turn rate keeps the heading at 0.
  const DIRECTIONS = { any: { walk: 'Walk', run: 'Run' }, back: { walk: 'WalkBack', run: 'RunBack' }, left: 'none' };
  const rt = syntheticRuntime(config({ directions: DIRECTIONS, turnRate: 1e-6, maxAcceleration: 100 }));

  function after(move: [number, number], run = false): { frame: SimulationFrame; controller: AnimationController } {
    const c = new AnimationController(rt);
    c.move(move[0], move[1], run);
    c.update(0.1);
    c.update(0.1);
    const frames = runScript(rt, [{ at: 0, move, run }], 10, 0.3);
    return { frame: frames[2], controller: c };
  }

  it('a direction with its own clip set uses it (back: WalkBack / RunBack)', () => {
    const back = after([0, -1]);
    expect(back.controller.locomotion!.direction).toBe('back');
    expect(shares(back.frame)).toEqual({ WalkBack: 1 });
    expect(shares(after([0, -1], true).frame)).toEqual({ RunBack: 1 });
  });

  it('a direction not listed uses "any"', () => {
    const right = after([-1, 0]);
    expect(right.controller.locomotion!.direction).toBe('right');
    expect(shares(right.frame)).toEqual({ Walk: 1 });
    expect(shares(after([0, 1]).frame)).toEqual({ Walk: 1 });
    expect(after([-1, -1]).controller.locomotion!.direction).toBe('back-right');
    expect(shares(after([-1, -1], true).frame)).toEqual({ Run: 1 });
  });

  it('"none" shows the idle clip while moving that way', () => {
    const left = after([1, 0]);
    expect(left.controller.locomotion!.direction).toBe('left');
    expect(left.controller.locomotion!.speed).toBeCloseTo(1, 12);
    expect(shares(left.frame)).toEqual({ Idle: 1 });
    expect(left.frame.state).toBe('locomotion');
  });

  it('without "any", a direction not listed is "none" (idle)', () => {
    const only = syntheticRuntime(config({ directions: { forward: { walk: 'Walk', run: 'Run' } }, turnRate: 1e-6, maxAcceleration: 100 }));
    const frames = runScript(only, [{ at: 0, move: [0, -1] }], 10, 0.5);
    expect(shares(frames[3])).toEqual({ Idle: 1 });
    const forward = runScript(only, [{ at: 0, move: [0, 1] }], 10, 0.5);
    expect(shares(forward[3])).toEqual({ Walk: 1 });
  });

  it('the heading turns toward the velocity at turnRate, so moving backwards ends up facing forward', () => {
    const c = new AnimationController(syntheticRuntime(config({ directions: DIRECTIONS, maxAcceleration: 100 })));
    c.move(0, -1);
    c.update(0.1);
    expect(Math.abs(c.locomotion!.heading)).toBeCloseTo(0.6, 12);
    expect(['back-left', 'back-right']).toContain(c.locomotion!.direction); // 180 - 34 degrees off the heading
    for (let i = 0; i < 10; i++) c.update(0.1);
    expect(Math.abs(c.locomotion!.heading)).toBeCloseTo(Math.PI, 9);
    expect(c.locomotion!.direction).toBe('forward');
  });
});

describe('locomotion and clips', () => {
  it('a locomotion command while a clip plays fades the locomotion blend in over fadeSeconds', () => {
    const frames = runScript(syntheticRuntime(config()), [{ at: 0, play: 'A' }, { at: 0.5, speed: 1 }], 10, 1.2);
    for (const t of [0, 0.2, 0.4]) expect(frameAt(frames, t).state).toBe('play:A');
    for (const t of [0.5, 0.6, 0.7, 0.8]) expect(frameAt(frames, t).state).toBe('fade:A->locomotion');
    for (const t of [0.9, 1.1]) expect(frameAt(frames, t).state).toBe('locomotion');
    // t = 0.5: fade 0.1 / 0.5 in; locomotion at speed 0.4 (Idle 0.6, Walk 0.4).
    expect(shares(frameAt(frames, 0.5))).toEqual({ A: 0.8, Idle: 0.12, Walk: 0.08 });
    expect(shares(frameAt(frames, 1.1))).toEqual({ Walk: 1 });
  });

  it('locomotion commands need a locomotion section; speed must be in [0, 2]; move must be finite', () => {
    const none = new AnimationController(syntheticRuntime({}));
    expect(() => none.setSpeed(1)).toThrow(/no "locomotion" section/);
    expect(() => none.stop()).toThrow(/no "locomotion" section/);
    const c = new AnimationController(syntheticRuntime(config()));
    expect(() => c.setSpeed(2.5)).toThrow(/speed must be in \[0, 2\]/);
    expect(() => c.setSpeed(-0.1)).toThrow(/speed must be in \[0, 2\]/);
    expect(() => c.move(NaN, 0)).toThrow(/move direction must be finite/);
  });
});
