import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseControllerConfig } from '../../../src/anim/control/config';
import { ACTION_IN, ACTION_NONE, ACTION_OUT, ACTION_PLAY, AnimationController, ControllerRuntime } from '../../../src/anim/control/controller';
import { parseScript, simulate, type SimulationFrame } from '../../../src/anim/control/simulate';
import { expectAlone, frameAt, runScript, syntheticRuntime } from '../../helpers/control';
import { BUNDLED_MODELS, loadModel } from '../../helpers/models';

async function robotRuntime(): Promise<{ runtime: ControllerRuntime; durations: Map<string, number> }> {
  const { rig } = await loadModel('RobotExpressive');
  const json: unknown = JSON.parse(readFileSync(`${BUNDLED_MODELS}/RobotExpressive/RobotExpressive.controller.json`, 'utf8'));
  const runtime = new ControllerRuntime(parseControllerConfig(json, rig.clips.map((c) => c.name)), rig.clips.map((c) => c.duration));
  return { runtime, durations: new Map(rig.clips.map((c) => [c.name, c.duration])) };
}

/**
 * The action state machine (src/anim/control/controller.ts): locomotion -> to-action (the action
 * clip fades in over fadeIn) -> action (plays once) -> to-locomotion (fades out over the clip's
 * last fadeOut seconds) -> locomotion; requests not in the transitions table, or arriving while
 * an action plays, are ignored. Synthetic clips (A 1 s, B 2 s, C 0.5 s, D 4 s, Idle 2 s, ...) at
 * 10 fps, then RobotExpressive's config and clips.
 */

const ACTIONS = {
  fade: { seconds: 0.5, curve: 'linear' },
  locomotion: { idle: 'Idle', directions: { any: { walk: 'Walk', run: 'Run' } }, walkSpeed: 1 },
  actions: {
    Jump: { clip: 'A', fadeIn: 0.2, fadeOut: 0.3, curve: 'linear' },
    Wave: { clip: 'B', fadeIn: 0.2, fadeOut: 0.3, curve: 'linear', mask: { root: 'Torso' } },
    Taunt: { clip: 'D', fadeIn: 0.2, fadeOut: 0.2 },
    C: { fadeIn: 0, fadeOut: 0 }, // clip: the clip named like the action
  },
  transitions: [['locomotion', 'Jump'], ['locomotion', 'Wave'], ['Wave', 'Jump'], ['locomotion', 'C']],
};

/** The action layer (the top layer, whose clip is `clip`) of a frame, as [time, weight]. */
function actionLayer(frame: SimulationFrame, clip: string): [number, number] | undefined {
  const top = frame.layers[frame.layers.length - 1];
  return top && top.clip === clip ? [+top.time.toFixed(9), +top.weight.toFixed(9)] : undefined;
}

describe('action state machine through the simulation', () => {
  const rt = syntheticRuntime(ACTIONS);

  it('locomotion -> to-action -> action -> to-locomotion -> locomotion, with the action layer fading in and out over locomotion', () => {
    const frames = runScript(rt, [{ at: 0, action: 'Jump' }], 10, 1.3);
    expect(frames.map((f) => f.state)).toEqual([
      'to-action:Jump', 'to-action:Jump', // fadeIn 0.2 s
      'action:Jump', 'action:Jump', 'action:Jump', 'action:Jump', 'action:Jump', // until 0.3 s of the clip are left
      'to-locomotion:Jump', 'to-locomotion:Jump', 'to-locomotion:Jump', // fadeOut 0.3 s
      'locomotion', 'locomotion', 'locomotion',
    ]);
    // Jump plays clip A (1 s) once from 0: weight 0 (not drawn), 0.5, 1 ... 1, then 1, 2/3, 1/3.
    expect(frames.map((f) => actionLayer(f, 'A'))).toEqual([
      undefined, [0.1, 0.5], [0.2, 1], [0.3, 1], [0.4, 1], [0.5, 1], [0.6, 1], [0.7, 1], [0.8, +(2 / 3).toFixed(9)], [0.9, +(1 / 3).toFixed(9)],
      undefined, undefined, undefined,
    ]);
    for (const f of frames) {
      expect(f.base).toEqual({ clip: 'Idle', time: expect.closeTo(f.t, 9) }); // locomotion (idle) goes on underneath
      expect(f.layers.length).toBeLessThanOrEqual(1);
    }
  });

  it('requests that arrive while the action plays are ignored, whatever the table says', () => {
    const base = [{ at: 0, action: 'Wave' }];
    const without = runScript(rt, base, 10, 2.5);
    expect(frameAt(without, 1).state).toBe('action:Wave');
    for (const action of ['Jump', 'Wave', 'Taunt', 'C']) {
      expect(runScript(rt, [...base, { at: 1, action }], 10, 2.5), action).toEqual(without);
    }
  });

  it('requests not in the transitions table are ignored', () => {
    const idle = runScript(rt, [], 10, 1);
    expect(runScript(rt, [{ at: 0.3, action: 'Taunt' }], 10, 1)).toEqual(idle); // no (locomotion, Taunt)
    // During Jump's fades: no (Jump, Wave) pair.
    const jump = runScript(rt, [{ at: 0, action: 'Jump' }], 10, 1.3);
    expect(runScript(rt, [{ at: 0, action: 'Jump' }, { at: 0.1, action: 'Wave' }], 10, 1.3)).toEqual(jump);
    expect(runScript(rt, [{ at: 0, action: 'Jump' }, { at: 0.8, action: 'Wave' }], 10, 1.3)).toEqual(jump);
  });

  it('during its fades an action hands over to an action the table allows from it', () => {
    // Wave (clip B, 2 s): to-action 0..0.1, action 0.2..1.6, to-locomotion from 1.7. Jump at 1.8
    // (entered at 1.7): (Wave, Jump) is allowed.
    const frames = runScript(rt, [{ at: 0, action: 'Wave' }, { at: 1.8, action: 'Jump' }], 10, 2.5);
    expect(frameAt(frames, 1.7).state).toBe('to-locomotion:Wave');
    expect(frameAt(frames, 1.8).state).toBe('to-action:Jump');
    expect(actionLayer(frameAt(frames, 1.8), 'A')).toEqual([0.1, 0.5]);
    expect(frameAt(frames, 1.9).state).toBe('action:Jump');
    // Wave does not vanish at the handover: it fades out under Jump over Jump's fade-in.
    const waveBefore = frameAt(frames, 1.7).layers.find((l) => l.clip === 'B')!.weight;
    const during = frameAt(frames, 1.8).layers;
    expect(during.length).toBeLessThanOrEqual(4);
    const waveDuring = during.find((l) => l.clip === 'B');
    expect(waveDuring).toBeDefined();
    expect(waveDuring!.weight).toBeGreaterThan(0);
    expect(waveDuring!.weight).toBeLessThan(waveBefore);
    expect(during[during.length - 2].clip).toBe('B'); // under the new action's layer
    expect(frameAt(frames, 1.9).layers.some((l) => l.clip === 'B')).toBe(false);
    // During Wave's fade-in too.
    const early = runScript(rt, [{ at: 0, action: 'Wave' }, { at: 0.1, action: 'Jump' }], 10, 0.5);
    expect(early.map((f) => f.state)).toEqual(['to-action:Wave', 'to-action:Jump', 'action:Jump', 'action:Jump', 'action:Jump']);
  });

  it('after the action the state machine takes requests from locomotion again', () => {
    const frames = runScript(rt, [{ at: 0, action: 'Jump' }, { at: 1.1, action: 'Jump' }], 10, 1.5);
    expect(frameAt(frames, 1).state).toBe('locomotion');
    expect(frameAt(frames, 1.1).state).toBe('to-action:Jump');
    expect(actionLayer(frameAt(frames, 1.1), 'A')).toEqual([0.1, 0.5]); // from the clip's start
  });

  it('a masked action carries its mask into the frame\'s layer', () => {
    const frames = runScript(rt, [{ at: 0, action: 'Wave' }], 10, 0.5);
    expect(frames[3].layers).toEqual([{ clip: 'B', time: expect.closeTo(0.3, 9), weight: 1, mask: { root: 'Torso' } }]);
  });

  it('actions play once, clamped, even on a looping clip; fadeIn/fadeOut 0 switch the layer on and off at once', () => {
    const frames = runScript(rt, [{ at: 0, action: 'C' }], 10, 1);
    // C (0.5 s, looping in the config's clips): weight 1 at once, ends when the clip reaches its end.
    expect(frames.map((f) => f.state)).toEqual(['action:C', 'action:C', 'action:C', 'action:C', 'action:C', 'locomotion', 'locomotion', 'locomotion', 'locomotion', 'locomotion']);
    expect(frames.slice(0, 5).map((f) => actionLayer(f, 'C'))).toEqual([[0, 1], [0.1, 1], [0.2, 1], [0.3, 1], [0.4, 1]]);
    for (const f of frames.slice(5)) expectAlone(f, 'Idle');
  });

  it('the action layer goes on top of a crossfade in flight', () => {
    const frames = runScript(rt, [{ at: 0, play: 'D' }, { at: 0, fadeTo: 'B' }, { at: 0, action: 'Jump' }], 10, 0.4);
    expect(frames[1].state).toBe('to-action:Jump');
    expect(frames[1].base.clip).toBe('D');
    expect(frames[1].layers.map((l) => [l.clip, +l.weight.toFixed(9)])).toEqual([['B', 0.2], ['A', 0.5]]);
  });
});

describe('AnimationController.requestAction', () => {
  it('returns true when the action starts, false when it is not allowed or an action plays; unknown names throw', () => {
    const c = new AnimationController(syntheticRuntime(ACTIONS));
    expect(c.state).toBe('locomotion');
    expect(c.requestAction('Taunt')).toBe(false);
    expect(c.actionPhase).toBe(ACTION_NONE);
    expect(c.requestAction('Jump')).toBe(true);
    expect([c.actionPhase, c.state]).toEqual([ACTION_IN, 'to-action:Jump']);
    expect(c.requestAction('Wave')).toBe(false); // no (Jump, Wave)
    expect(c.requestAction('Jump')).toBe(false); // no (Jump, Jump)
    c.update(0.25);
    expect([c.actionPhase, c.state]).toEqual([ACTION_PLAY, 'action:Jump']);
    for (const name of ['Jump', 'Wave', 'Taunt', 'C']) expect(c.requestAction(name), name).toBe(false);
    expect(c.state).toBe('action:Jump');
    c.update(0.5); // clip time 0.75: 0.25 s left <= fadeOut 0.3
    expect([c.actionPhase, c.state]).toEqual([ACTION_OUT, 'to-locomotion:Jump']);
    expect(c.requestAction('Wave')).toBe(false);
    c.update(0.3);
    expect([c.actionPhase, c.state, c.action, c.actionWeight]).toEqual([ACTION_NONE, 'locomotion', -1, 0]);
    expect(c.requestAction('Wave')).toBe(true);
    c.update(0.1);
    expect(c.requestAction('Jump')).toBe(true); // (Wave, Jump) during Wave's fade-in
    expect(c.state).toBe('to-action:Jump');
    expect(() => c.requestAction('Fly')).toThrow(/no action "Fly" \(actions: "Jump", "Wave", "Taunt", "C"\)/);
    expect(() => c.update(-0.1)).toThrow(/dt must be/);
  });
});

describe('RobotExpressive controller', () => {
  it('states through a script: play, fade, locomotion and an action, with the phases lasting fadeIn, the clip less fadeIn and fadeOut, and fadeOut', async () => {
    const { runtime, durations } = await robotRuntime();
    const fps = 60;
    const frames = simulate(runtime, parseScript([
      { at: 0, play: 'Idle' }, { at: 0.5, fadeTo: 'Walking' }, { at: 1.5, speed: 1 }, { at: 2.5, action: 'Jump' }, { at: 4, action: 'Wave' },
    ], runtime), fps);
    const first = (state: string) => frames.find((f) => f.state === state)?.t;
    const last = (state: string) => frames.filter((f) => f.state === state).pop()?.t;
    expect(frames[0].state).toBe('play:Idle');
    expect(first('fade:Idle->Walking')).toBeCloseTo(0.5, 9);
    expect(first('play:Walking')).toBeCloseTo(0.5 - 1 / fps + 0.3, 9); // fade.seconds 0.3, entered one step before 0.5
    expect(first('fade:Walking->locomotion')).toBeCloseTo(1.5, 9);
    expect(first('locomotion')).toBeCloseTo(1.5 - 1 / fps + 0.3, 9);
    const jump = durations.get('Jump')!;
    const start = 2.5 - 1 / fps;
    const frame = 1 / fps + 1e-9;
    expect(first('to-action:Jump')).toBeCloseTo(2.5, 9);
    expect(Math.abs(first('action:Jump')! - (start + 0.1))).toBeLessThanOrEqual(frame);
    expect(Math.abs(first('to-locomotion:Jump')! - (start + jump - 0.2))).toBeLessThanOrEqual(frame);
    expect(Math.abs(last('to-locomotion:Jump')! - (start + jump))).toBeLessThanOrEqual(frame);
    const states = [...new Set(frames.map((f) => f.state))];
    expect(states).toEqual(['play:Idle', 'fade:Idle->Walking', 'play:Walking', 'fade:Walking->locomotion', 'locomotion', 'to-action:Jump', 'action:Jump', 'to-locomotion:Jump', 'to-action:Wave']);
    // Wave is masked to the torso.
    expect(frames[frames.length - 1].layers.pop()).toMatchObject({ clip: 'Wave', mask: { root: 'Torso' } });
  });

  it('the transitions table: (Punch, Jump) hands over, (Wave, Jump) is not allowed', async () => {
    const { runtime } = await robotRuntime();
    const c = new AnimationController(runtime);
    expect(c.requestAction('Punch')).toBe(true);
    expect(c.requestAction('Jump')).toBe(true);
    expect(c.state).toBe('to-action:Jump');
    const d = new AnimationController(runtime);
    expect(d.requestAction('Wave')).toBe(true);
    expect(d.requestAction('Jump')).toBe(false);
    expect(d.requestAction('ThumbsUp')).toBe(true);
    expect(d.requestAction('Yes')).toBe(false);
    expect(d.state).toBe('to-action:ThumbsUp');
    expect(() => d.requestAction('Walking')).toThrow(/no action "Walking"/);
  });
});

/** A controller's output stack (base, then the layers in use) as plain numbers. */
function stackOf(c: AnimationController): number[] {
  const o = c.output;
  const out = [o.baseClip, o.baseTime, o.baseSpeed, o.layerCount];
  for (let i = 0; i < o.layerCount; i++) out.push(o.layerClip[i], o.layerTime[i], o.layerSpeed[i], o.layerWeight[i], o.layerMask[i]);
  return out;
}

describe('saveState / loadState (how a driver keeps controllers in one typed array)', () => {
  it('a loaded state is the saved one bit for bit, and goes on exactly as the original through commands and steps of every kind', () => {
    const rt = syntheticRuntime({ ...ACTIONS, locomotion: { ...ACTIONS.locomotion, directions: { forward: { walk: 'Walk', run: 'Run' }, back: { walk: 'WalkBack', run: 'RunBack' } } } });
    const ease = (u: number) => u * u;
    const original = new AnimationController(rt);
    const words = new Float64Array(original.stateWords + 4);
    let seed = 11;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const commands: ((c: AnimationController) => unknown)[] = [
      (c) => c.fadeTo(['A', 'B', 'C', 'D'][Math.floor(random() * 4)], { seconds: 0.3 + random(), kind: (['smooth', 'frozen', 'first-frame'] as const)[Math.floor(random() * 3)], curve: random() < 0.3 ? ease : 'cubic' }),
      (c) => c.play('D'),
      (c) => c.setSpeed(random() * 2),
      (c) => c.move(random() - 0.5, random() - 0.5, random() < 0.5),
      (c) => c.face(random() < 0.5 ? null : random() * 6),
      (c) => c.stop(),
      (c) => c.requestAction(['Jump', 'Wave', 'Taunt', 'C'][Math.floor(random() * 4)]),
    ];
    let fades = 0;
    let actions = 0;
    for (let round = 0; round < 600; round++) {
      commands[random() < 0.4 ? 0 : Math.floor(random() * commands.length)](original);
      original.update(random() * 0.15);
      fades = Math.max(fades, original.crossfader.fadeCount);
      if (original.actionPhase !== ACTION_NONE) actions++;
      // Save at an offset, load into a fresh controller, save that again: the same words.
      // (Unused slots, such as fades not in flight, are left as they were: both start alike.)
      words.fill(-7);
      original.saveState(words, 3);
      const copy = new AnimationController(rt);
      copy.loadState(words, 3);
      const again = new Float64Array(words.length).fill(-7);
      copy.saveState(again, 3);
      expect(Array.from(again.subarray(3, 3 + original.stateWords)), `round ${round}`).toEqual(Array.from(words.subarray(3, 3 + original.stateWords)));
      // Both go on alike: one more command and step, compared through their outputs and states.
      const s = seed;
      const k = Math.floor(random() * commands.length);
      const dt = random() * 0.2;
      const a = commands[k](original);
      seed = s;
      random(); random();
      expect(commands[k](copy), `round ${round}`).toEqual(a);
      original.update(dt);
      copy.update(dt);
      expect(copy.state).toBe(original.state);
      expect(stackOf(copy), `round ${round}`).toEqual(stackOf(original));
      expect(copy.locomotion!.positionX).toBe(original.locomotion!.positionX);
    }
    // The script reached full fade lists and actions (it covers what the state holds).
    expect(fades).toBe(3);
    expect(actions).toBeGreaterThan(20);
  });
});
