import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../../src/anim/evaluate';
import { sampleClip } from '../../../src/bake/sampler';
import { loadCharacter, type Character } from '../../../src/character/character';
import { modelPath } from '../../helpers/models';
import { parseControllerConfig } from '../../../src/anim/control/config';
import { AnimationController, ControllerRuntime } from '../../../src/anim/control/controller';
import type { SimulationFrame } from '../../../src/anim/control/simulate';
import { CLIP_DURATIONS, CLIP_NAMES, clipShares, durationOf, expectAlone, frameAt, runScript, syntheticRuntime } from '../../helpers/control';

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

describe('slowed walks (slowestWalkRate, with rate matching)', () => {
  // Root motion of the synthetic clips: Walk travels 1 m a cycle along +z (1 m/s), Run 1 m (2 m/s), WalkBack and RunBack back; the rest stand.
  const cycles = new Float32Array(CLIP_NAMES.length * 4);
  const speeds = new Float32Array(CLIP_NAMES.length);
  ([['Walk', 1], ['Run', 1], ['WalkBack', -1], ['RunBack', -1]] as const).forEach(([clip, z]) => {
    const c = CLIP_NAMES.indexOf(clip);
    cycles[c * 4 + 2] = z;
    speeds[c] = 1 / CLIP_DURATIONS[c];
  });
  const runtime = (slowestWalkRate: number, matched = true) =>
    new ControllerRuntime(parseControllerConfig(config({ slowestWalkRate }), CLIP_NAMES), CLIP_DURATIONS, matched ? { cycle: cycles, speed: speeds } : null);

  it('from slowestWalkRate x walkSpeed up, the walk plays alone at speed / walkSpeed; below, it blends with idle over [0, slowestWalkRate x walkSpeed]', () => {
    // Speed 0.4, then 0.6 (max acceleration 4 per s, 10 fps); slowestWalkRate 0.5.
    const frames = runScript(runtime(0.5), [{ at: 0, speed: 0.6 }], 10, 0.6);
    expect(shares(frames[1])).toEqual({ Idle: 0.2, Walk: 0.8 }); // 0.4 / 0.5
    expect(shares(frames[3])).toEqual({ Walk: 1 });
    expect(shares(frames[5])).toEqual({ Walk: 1 });
    // The walk alone at rate 0.6: its time moves 0.06 s a frame, as fast as the feet must.
    expect(frames[5].base.time - frames[4].base.time).toBeCloseTo(0.06, 9);
    // slowestWalkRate 1 (the default), or no rate matching: the plain idle-to-walk blend.
    expect(shares(runScript(runtime(1), [{ at: 0, speed: 0.6 }], 10, 0.6)[5])).toEqual({ Idle: 0.4, Walk: 0.6 });
    expect(shares(runScript(runtime(0.5, false), [{ at: 0, speed: 0.6 }], 10, 0.6)[5])).toEqual({ Idle: 0.4, Walk: 0.6 });
  });
});

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

describe('rate matching (root motion): the blend plays so that its root speed is the movement speed', () => {
  /** Root motion of the synthetic clips: Walk 1 m per 1 s cycle, Run 1 m per 0.5 s, WalkBack/RunBack 1.25 m back, A creeps 0.05 m/s, the rest stand. */
  function rootMotion(): { cycle: Float32Array; speed: Float32Array } {
    const cycle = new Float32Array(CLIP_NAMES.length * 4);
    const set = (clip: string, z: number) => { cycle[CLIP_NAMES.indexOf(clip as never) * 4 + 2] = z; };
    set('Walk', 1); set('Run', 1); set('WalkBack', -1.25); set('RunBack', -1.25); set('A', 0.05);
    const speed = Float32Array.from(CLIP_NAMES, (_, c) => Math.abs(cycle[c * 4 + 2]) / CLIP_DURATIONS[c]);
    return { cycle, speed };
  }
  const runtime = (json: object, matched = true) => new ControllerRuntime(parseControllerConfig(json, CLIP_NAMES), CLIP_DURATIONS, matched ? rootMotion() : null);
  /** rateScale after reaching speed parameter p (acceleration high enough for one step). */
  const rateAt = (r: ControllerRuntime, p: number) => {
    const c = new AnimationController(r);
    c.setSpeed(p);
    c.update(0.1);
    c.update(0.1);
    return c.locomotion!.rateScale;
  };

  it('rate = speed x D / |sum w_i c_i|: walk 1, walk/run 1.125 (not 1), idle/walk at walk cadence 1.6; idle alone keeps its configured rate', () => {
    const fast = config({ maxAcceleration: 100, maxDeceleration: 100 });
    expect(rateAt(runtime(fast), 1)).toBeCloseTo(1, 12);
    // Walk 0.5, Run 0.5: D = 0.75 s, 1 m per cycle, moving at 1.5 m/s.
    expect(rateAt(runtime(fast), 1.5)).toBeCloseTo(1.5 * 0.75 / 1, 12);
    expect(rateAt(runtime(fast, false), 1.5)).toBeCloseTo(1, 12);
    // Idle 0.6, Walk 0.4: D = 1.6 s, 0.4 m per cycle, moving at 0.4 m/s.
    expect(rateAt(runtime(fast), 0.4)).toBeCloseTo(0.4 * 1.6 / 0.4, 12);
    expect(rateAt(runtime(fast), 0)).toBe(1);
    // The phase advances at rateScale / D: 0.1 s at walk/run is 0.1 x 1.125 / 0.75 of a cycle.
    const c = new AnimationController(runtime(fast));
    c.setSpeed(1.5);
    c.update(0.1);
    const phase = c.locomotion!.phase;
    c.update(0.1);
    expect(c.locomotion!.phase - phase).toBeCloseTo((0.1 * 1.125) / 0.75, 12);
  });

  it('keeps the sign of the configured rates; clips creeping under a tenth of walkSpeed count as standing; backwards sets use their own travel', () => {
    const fast = config({ maxAcceleration: 100, maxDeceleration: 100 });
    expect(rateAt(runtime({ ...fast, clips: { Walk: { speed: -1 }, Run: { speed: -1 } } }), 1.5)).toBeCloseTo(-1.125, 12);
    // A (0.05 m/s) as the walk: no clip travels, so the configured rate stays.
    expect(rateAt(runtime(config({ maxAcceleration: 100, directions: { any: { walk: 'A', run: 'Run' } } })), 0.5)).toBe(1);
    const r = runtime(fast);
    expect(Array.from(r.locomotion!.rootCycles!.subarray(0, 2))).toEqual([0, 0]);
    // Walking back at speed 1: WalkBack travels 1.25 m per 1.25 s cycle, so rate 1; at 1.5 m/s with RunBack (1.25 m per 0.625 s): D = 0.9375, rate 1.125.
    const back = runtime(config({ maxAcceleration: 100, directions: { any: { walk: 'Walk', run: 'Run' }, back: { walk: 'WalkBack', run: 'RunBack' } } }));
    const c = new AnimationController(back);
    c.move(0, -1, true);
    for (let i = 0; i < 40; i++) c.update(0.1); // turns to face the movement (forward again)
    c.face(0);
    c.move(0, -0.75, true);
    for (let i = 0; i < 40; i++) c.update(0.1);
    expect(c.locomotion!.direction).toBe('back');
    expect(c.locomotion!.rateScale).toBeCloseTo(1.5 * 0.9375 / 1.25, 9);
    expect(() => new ControllerRuntime(parseControllerConfig(fast, CLIP_NAMES), CLIP_DURATIONS, { cycle: new Float32Array(4), speed: new Float32Array(1) }))
      .toThrow(/rootMotion has 1 clips, the controller config 9/);
  });
});

describe('rate matching on the Walker (clips in place, moved by the controller)', () => {
  /**
   * Mean horizontal world speed of the left foot while it is planted (blend phase in [0, 0.35):
   * every Walker gait puts the left foot down at phase 0, and the run lifts it at 0.35), over 3 s
   * at 60 fps after 2 s of speeding up, as a fraction of the movement speed: its mean magnitude,
   * and its mean signed component along the movement, the net slide that a playback rate
   * cancels (what remains is the hips' sway within a cycle, which the controller's steady
   * movement does not make, and the leg bending that blending joint rotations adds).
   */
  async function plantedFoot(command: (c: AnimationController) => void, matched: boolean): Promise<{ total: number; along: number }> {
    const walker = await walkerInPlace();
    const text = readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8');
    const runtime = new ControllerRuntime(parseControllerConfig(JSON.parse(text), walker.clipNames), walker.clipDurations, matched ? walker.rootMotion : null);
    const c = new AnimationController(runtime);
    command(c);
    const dt = 1 / 60;
    for (let i = 0; i < 120; i++) c.update(dt);
    const poser = new CpuPoser(walker.rig, (clip, t, out) => sampleClip(walker.rig, clip, t, out));
    const foot = walker.rig.nodes.names.indexOf('Foot.L');
    let previous: number[] | null = null;
    let total = 0;
    let along = 0;
    let steps = 0;
    for (let i = 0; i < 180; i++) {
      c.update(dt);
      const o = c.output;
      const layers = Array.from({ length: o.layerCount }, (_, k) => ({ clip: o.layerClip[k], time: o.layerTime[k], weight: o.layerWeight[k] }));
      const model = poser.evaluateStack({ base: { clip: o.baseClip, time: o.baseTime }, layers, additive: [] });
      const loco = c.locomotion!;
      const [x, z] = [model[foot * 16 + 12], model[foot * 16 + 14]];
      const world = [Math.cos(loco.heading) * x + Math.sin(loco.heading) * z + loco.positionX, -Math.sin(loco.heading) * x + Math.cos(loco.heading) * z + loco.positionZ];
      const planted = loco.phase < 0.35;
      if (planted && previous) {
        const [vx, vz] = [(world[0] - previous[0]) / dt, (world[1] - previous[1]) / dt];
        total += Math.hypot(vx, vz) / loco.speed;
        along += (vx * loco.velocityX + vz * loco.velocityZ) / loco.speed ** 2;
        steps++;
      }
      previous = planted ? world : null;
    }
    expect(steps).toBeGreaterThan(40);
    return { total: total / steps, along: along / steps };
  }

  let cached: Promise<Character> | undefined;
  function walkerInPlace(): Promise<Character> {
    const bytes = readFileSync(modelPath('Walker'));
    cached ??= loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'in-place' } });
    return cached;
  }

  it('a planted foot keeps pace along the movement with rate matching (walk/run forward at 1.8 m/s, strafing forward-right)', async () => {
    const blend = (c: AnimationController) => c.setSpeed(1.5);
    const strafe = (c: AnimationController) => { c.face(0); c.move(-0.6, 0.5, true); };
    for (const [name, command] of [['walk/run forward at 1.8 m/s', blend], ['strafing forward-right at 1.87 m/s', strafe]] as const) {
      const [on, off] = [await plantedFoot(command, true), await plantedFoot(command, false)];
      console.log(`Walker, ${name}: planted foot at ${on.total.toFixed(4)} of the movement speed (net ${on.along.toFixed(4)} along it) with rate matching, `
        + `${off.total.toFixed(4)} (net ${off.along.toFixed(4)}) without`);
      // Forward, the blend's legs bend alike and the net slide all but vanishes; strafing, blending
      // three clips' leg rotations (forward-right walk and run, right walk) leaves 2% that no rate removes.
      expect(Math.abs(on.along), name).toBeLessThan(name.startsWith('walk') ? 0.006 : 0.025);
      expect(Math.abs(off.along), name).toBeGreaterThan(Math.max(0.05, 2.5 * Math.abs(on.along)));
      expect(on.total, name).toBeLessThan(0.6 * off.total);
    }
  });
});
