import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ControllerConfigStore,
  DIRECTIONS,
  defaultControllerConfig,
  parseControllerConfig,
  serializeControllerConfig,
  type ControllerConfig,
} from '../../../src/anim/control/config';
import { CLIP_NAMES } from '../../helpers/control';
import { BUNDLED_MODELS, loadModel } from '../../helpers/models';

/**
 * Controller configs as JSON (src/anim/control/config.ts): the bundled configs parse against
 * their models, every bad field is rejected with a message naming it, a store keeps its config
 * when a load fails, and serialize -> JSON -> parse gives an equivalent config.
 */

const bundled = (name: string): unknown => JSON.parse(readFileSync(`${BUNDLED_MODELS}/${name}/${name}.controller.json`, 'utf8'));

/** serialize -> JSON text -> parse. */
const roundTrip = (config: ControllerConfig): ControllerConfig =>
  parseControllerConfig(JSON.parse(JSON.stringify(serializeControllerConfig(config))), config.clipNames);

const FULL = {
  clips: { A: { speed: -1.5, loop: false }, B: { speed: 0.5 }, C: { loop: false } },
  fade: { seconds: 0.4, kind: 'frozen', curve: 'linear' },
  locomotion: {
    idle: 'Idle',
    blendSpace: '2d',
    directions: { any: { walk: 'Walk', run: 'Run' }, back: { walk: 'WalkBack', run: 'RunBack' }, left: 'none', right: 'any' },
    walkSpeed: 1.5, maxAcceleration: 3, maxDeceleration: 5, minSpeed: 0.1, turnRate: 4, fadeSeconds: 0.25, slowestWalkRate: 0.5,
  },
  actions: {
    Jump: { clip: 'A', fadeIn: 0.1, fadeOut: 0.2, curve: 'cubic' },
    Wave: { clip: 'B', fadeIn: 0.3, fadeOut: 0.3, mask: { root: 'Torso' } },
    C: {},
  },
  transitions: [['locomotion', 'Jump'], ['locomotion', 'Wave'], ['Wave', 'Jump'], ['Jump', 'C']],
};

describe('parseControllerConfig', () => {
  it('the bundled RobotExpressive and Fox configs parse against their models\' clips', async () => {
    const robot = (await loadModel('RobotExpressive')).rig.clips.map((c) => c.name);
    const r = parseControllerConfig(bundled('RobotExpressive'), robot);
    expect(r.locomotion!.idle).toBe(robot.indexOf('Idle'));
    expect(r.locomotion!.directions.back).toEqual({ walk: robot.indexOf('Walking'), run: robot.indexOf('Running') });
    expect(r.actions.map((a) => a.name)).toEqual(['Jump', 'Punch', 'Wave', 'ThumbsUp', 'Yes', 'No', 'Dance', 'Death']);
    expect(r.transitions.size).toBe(12);
    expect(r.transitions.has('Punch->Jump')).toBe(true);
    expect(r.clips[robot.indexOf('Jump')]).toEqual({ speed: 1, loop: false });
    expect(r.clips[robot.indexOf('Idle')]).toEqual({ speed: 1, loop: true }); // not listed: defaults
    expect(r.masks).toEqual([{ root: 'Torso' }, { root: 'Torso' }, { root: 'Neck' }, { root: 'Neck' }]);
    expect(r.fade).toEqual({ seconds: 0.3, kind: 'smooth', curve: 'cubic' });

    const fox = (await loadModel('Fox')).rig.clips.map((c) => c.name);
    const f = parseControllerConfig(bundled('Fox'), fox);
    expect(f.locomotion!.walkSpeed).toBe(40);
    expect(f.actions).toEqual([{ name: 'Look', clip: fox.indexOf('Survey'), fadeIn: 0.3, fadeOut: 0.4, curve: 'cubic', mask: 0 }]);
  });

  it('the bundled Walker config: a 2D blend space of a walk and a run in each of the eight directions, Wave on the upper body', async () => {
    const walker = (await loadModel('Walker')).rig.clips.map((c) => c.name);
    const w = parseControllerConfig(bundled('Walker'), walker);
    const l = w.locomotion!;
    expect(l.blendSpace).toBe('2d');
    expect(walker[l.idle]).toBe('Idle');
    const name = (d: string) => d.split('-').map((p) => p[0].toUpperCase() + p.slice(1)).join('');
    for (const d of DIRECTIONS) expect(l.directions[d], d).toEqual({ walk: walker.indexOf(`Walk${name(d)}`), run: walker.indexOf(`Run${name(d)}`) });
    expect(w.actions.map((a) => a.name)).toEqual(['Wave', 'Jump']);
    expect(w.masks).toEqual([{ root: 'Chest' }]);
    expect(w.clips[walker.indexOf('Jump')]).toEqual({ speed: 1, loop: false });
  });

  it('fills defaults: clips speed 1 and loop, fade 0.3 s smooth cubic, fadeSeconds and action fades from fade.seconds, "any" for unlisted directions', () => {
    const c = parseControllerConfig({
      fade: { seconds: 0.2 },
      locomotion: { idle: 'Idle', directions: { any: { walk: 'Walk', run: 'Run' }, back: 'none' } },
      actions: { C: {} },
    }, CLIP_NAMES);
    expect(c.clips.every((s) => s.speed === 1 && s.loop)).toBe(true);
    expect(c.fade).toEqual({ seconds: 0.2, kind: 'smooth', curve: 'cubic' });
    const l = c.locomotion!;
    expect([l.walkSpeed, l.maxAcceleration, l.maxDeceleration, l.minSpeed, l.turnRate, l.fadeSeconds]).toEqual([1, 4, 6, 0.05, 6, 0.2]);
    expect(l.blendSpace).toBe('sectors');
    for (const d of DIRECTIONS) expect(l.directions[d], d).toEqual(d === 'back' ? null : { walk: 5, run: 6 });
    expect(c.actions).toEqual([{ name: 'C', clip: 2, fadeIn: 0.2, fadeOut: 0.2, curve: 'cubic', mask: -1 }]);
    expect(c.transitions.size).toBe(0);
    expect(parseControllerConfig({}, CLIP_NAMES).fade).toEqual({ seconds: 0.3, kind: 'smooth', curve: 'cubic' });
  });

  const BAD: [string, unknown, RegExp][] = [
    ['not an object', [], /config must be a JSON object/],
    ['unknown top-level field', { fades: {} }, /config: unknown field "fades"/],
    ['clip speed not a number', { clips: { A: { speed: 'fast' } } }, /config\.clips\.A\.speed must be a finite number, got "fast"/],
    ['clip loop not a boolean', { clips: { B: { loop: 1 } } }, /config\.clips\.B\.loop must be true or false, got 1/],
    ['unknown clip in clips', { clips: { Nope: { speed: 1 } } }, /config\.clips: no clip named "Nope"/],
    ['unknown clip setting', { clips: { A: { rate: 2 } } }, /config\.clips\.A: unknown field "rate"/],
    ['negative fade seconds', { fade: { seconds: -1 } }, /config\.fade\.seconds must be a number >= 0, got -1/],
    ['unknown fade kind', { fade: { kind: 'blend' } }, /config\.fade\.kind must be one of smooth, frozen, first-frame, immediate, got "blend"/],
    ['unknown curve', { fade: { curve: 'quadratic' } }, /config\.fade\.curve must be "linear", "cubic" or a function/],
    ['locomotion without idle', { locomotion: { directions: {} } }, /config\.locomotion\.idle is required/],
    ['locomotion without directions', { locomotion: { idle: 'Idle' } }, /config\.locomotion\.directions is required/],
    ['unknown idle clip', { locomotion: { idle: 'Stand', directions: {} } }, /config\.locomotion\.idle: no clip named "Stand"/],
    ['walkSpeed 0', { locomotion: { idle: 'Idle', directions: {}, walkSpeed: 0 } }, /config\.locomotion\.walkSpeed must be a number > 0, got 0/],
    ['negative maxAcceleration', { locomotion: { idle: 'Idle', directions: {}, maxAcceleration: -2 } }, /config\.locomotion\.maxAcceleration must be a number > 0/],
    ['negative minSpeed', { locomotion: { idle: 'Idle', directions: {}, minSpeed: -0.1 } }, /config\.locomotion\.minSpeed must be a number >= 0/],
    ['slowestWalkRate 0', { locomotion: { idle: 'Idle', directions: {}, slowestWalkRate: 0 } }, /config\.locomotion\.slowestWalkRate must be a number in \(0, 1\], got 0/],
    ['slowestWalkRate over 1', { locomotion: { idle: 'Idle', directions: {}, slowestWalkRate: 1.5 } }, /config\.locomotion\.slowestWalkRate must be a number in \(0, 1\], got 1.5/],
    ['slowestWalkRate not a number', { locomotion: { idle: 'Idle', directions: {}, slowestWalkRate: '0.5' } }, /config\.locomotion\.slowestWalkRate must be a number in \(0, 1\], got "0.5"/],
    ['unknown locomotion field', { locomotion: { idle: 'Idle', directions: {}, speed: 2 } }, /config\.locomotion: unknown field "speed"/],
    ['unknown blend space', { locomotion: { idle: 'Idle', directions: {}, blendSpace: '3d' } }, /config\.locomotion\.blendSpace must be one of sectors, 2d, got "3d"/],
    ['unknown direction', { locomotion: { idle: 'Idle', directions: { up: 'none' } } }, /config\.locomotion\.directions: unknown direction "up"/],
    ['bad direction value', { locomotion: { idle: 'Idle', directions: { back: 'Walk' } } }, /config\.locomotion\.directions\.back must be \{ "walk": clip, "run": clip \}, "any" or "none"/],
    ['direction set without run', { locomotion: { idle: 'Idle', directions: { any: { walk: 'Walk' } } } }, /config\.locomotion\.directions\.any\.run is required/],
    ['direction set with an unknown clip', { locomotion: { idle: 'Idle', directions: { left: { walk: 'Walk', run: 'Sprint' } } } }, /config\.locomotion\.directions\.left\.run: no clip named "Sprint"/],
    ['action named locomotion', { actions: { locomotion: { clip: 'A' } } }, /config\.actions\.locomotion: "locomotion" is reserved/],
    ['an action name with "->" (which transitions use, so it would not survive a save)', { actions: { 'Wave->Jump': { clip: 'A' } } }, /config\.actions\.Wave->Jump: action names cannot contain "->"/],
    ['action without a clip, not named like one', { actions: { Jump: {} } }, /config\.actions\.Jump\.clip is required/],
    ['action with an unknown clip', { actions: { Jump: { clip: 'Leap' } } }, /config\.actions\.Jump\.clip: no clip named "Leap"/],
    ['action with a negative fadeOut', { actions: { Jump: { clip: 'A', fadeOut: -0.1 } } }, /config\.actions\.Jump\.fadeOut must be a number >= 0/],
    ['action with a bad mask', { actions: { Jump: { clip: 'A', mask: 'Torso' } } }, /config\.actions\.Jump\.mask must be/],
    ['action with an unknown field', { actions: { Jump: { clip: 'A', loop: true } } }, /config\.actions\.Jump: unknown field "loop"/],
    ['transitions not an array', { transitions: {} }, /config\.transitions must be an array of \[from, to\] pairs/],
    ['transition not a pair', { actions: { C: {} }, transitions: [['locomotion', 'C'], ['C']] }, /config\.transitions\[1\] must be a \[from, to\] pair/],
    ['transition from an unknown state', { actions: { C: {} }, transitions: [['Idle', 'C']] }, /config\.transitions\[0\]: from "Idle" is not "locomotion" or an action/],
    ['transition to a non-action', { actions: { C: {} }, transitions: [['C', 'locomotion']] }, /config\.transitions\[0\]: to "locomotion" is not an action/],
  ];
  for (const [what, json, message] of BAD) {
    it(`rejects ${what}, naming the field`, () => {
      expect(() => parseControllerConfig(json, CLIP_NAMES)).toThrow(message);
    });
  }

  it('custom curves are set in code, not JSON: a function in the parsed object is refused, and one set in code saves as "linear"', () => {
    expect(() => parseControllerConfig({ fade: { curve: (u: number) => u } }, CLIP_NAMES)).toThrow(/config\.fade\.curve: custom curves are set in code, not JSON/);
    const c = parseControllerConfig(FULL, CLIP_NAMES);
    c.fade.curve = (u) => u * u;
    expect(serializeControllerConfig(c).fade).toEqual({ seconds: 0.4, kind: 'frozen', curve: 'linear' });
  });

  it('names the file given as `where`', () => {
    expect(() => parseControllerConfig({ fade: { seconds: 'x' } }, CLIP_NAMES, 'Fox.controller.json')).toThrow(/^Fox\.controller\.json\.fade\.seconds must be/);
  });
});

describe('serialize -> parse round trip', () => {
  it('gives an equivalent config for a config using every field', () => {
    const c = parseControllerConfig(FULL, CLIP_NAMES);
    expect(roundTrip(c)).toEqual(c);
    expect(roundTrip(roundTrip(c))).toEqual(c);
    expect(serializeControllerConfig(roundTrip(c))).toEqual(serializeControllerConfig(c));
  });

  it('gives an equivalent config for the bundled configs, the empty config and derived defaults', async () => {
    for (const name of ['RobotExpressive', 'Fox', 'Walker']) {
      const clips = (await loadModel(name)).rig.clips.map((c) => c.name);
      const c = parseControllerConfig(bundled(name), clips);
      expect(roundTrip(c), name).toEqual(c);
      const d = defaultControllerConfig(clips);
      expect(roundTrip(d), `${name} default`).toEqual(d);
    }
    const empty = parseControllerConfig({}, CLIP_NAMES);
    expect(roundTrip(empty)).toEqual(empty);
  });
});

describe('ControllerConfigStore', () => {
  it('load replaces the config only with one that parses; a bad file throws naming the field and the previous config stays', () => {
    const first = parseControllerConfig(FULL, CLIP_NAMES);
    const store = new ControllerConfigStore(first);
    expect(store.config).toBe(first);
    expect(() => store.load('{"fade": {"seconds": 0.5, "kind": "slow"}}')).toThrow(/config\.fade\.kind must be one of/);
    expect(store.config).toBe(first);
    expect(() => store.load('{"locomotion": {"idle": "Idle", "directions": {}, "walkSpeed": -1}}')).toThrow(/config\.locomotion\.walkSpeed must be a number > 0/);
    expect(store.config).toBe(first);
    expect(() => store.load('{"fade": ')).toThrow(SyntaxError);
    expect(() => store.load('{"fade": ')).toThrow(/config is not valid JSON/);
    expect(store.config).toBe(first);
    expect(store.config).toEqual(parseControllerConfig(FULL, CLIP_NAMES)); // and unchanged inside

    const next = store.load('{"fade": {"seconds": 0.5}}');
    expect(store.config).toBe(next);
    expect(next.fade.seconds).toBe(0.5);
    expect(next.clipNames).toEqual(CLIP_NAMES);
  });

  it('save writes JSON text that loads back to an equivalent config', () => {
    const store = new ControllerConfigStore(parseControllerConfig(FULL, CLIP_NAMES));
    const saved = store.save();
    const before = store.config;
    const other = new ControllerConfigStore(parseControllerConfig({}, CLIP_NAMES));
    expect(other.load(saved)).toEqual(before);
    expect(other.save()).toBe(saved);
  });
});
