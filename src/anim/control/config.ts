import { resolveClip } from '../../bake/clip-names';
import { checkClipEvents, type ClipEvent } from '../events/clip-events';
import type { MaskSpec } from '../masks';
import { checkCurve, type BlendCurve } from './curves';
import { TRANSITION_KINDS, type TransitionKind } from './crossfader';

/**
 * Per-model controller settings, as JSON (loaded, validated and saved with these functions):
 *
 * {
 *   "clips": { "Walk": { "speed": 1, "loop": true }, "Jump": { "loop": false } },
 *   "fade": { "seconds": 0.3, "kind": "smooth", "curve": "cubic" },
 *   "locomotion": {
 *     "idle": "Survey",
 *     "blendSpace": "sectors",
 *     "directions": { "any": { "walk": "Walk", "run": "Run" }, "back": "none" },
 *     "walkSpeed": 1.5, "maxAcceleration": 4, "maxDeceleration": 6, "minSpeed": 0.05,
 *     "turnRate": 6, "fadeSeconds": 0.3, "slowestWalkRate": 1
 *   },
 *   "actions": { "Jump": { "clip": "Jump", "fadeIn": 0.15, "fadeOut": 0.25, "mask": { "root": "Spine" } } },
 *   "transitions": [["locomotion", "Jump"], ["Wave", "Jump"]],
 *   "events": { "Walk": [{ "time": 0.31, "name": "footstep" }, { "time": 0.84, "name": "footstep" }] }
 * }
 *
 * - clips: playback rate (negative plays backwards) and loop (true) or clamp (false) per clip;
 *   clips not listed play at rate 1 and loop.
 * - fade: the default for fadeTo when the caller gives no seconds/kind/curve.
 * - locomotion: idle/walk/run blended by speed (parameter = speed / walkSpeed: 0..1 idle to
 *   walk, 1..2 walk to run; running doubles the maximum speed). Directions (forward, back,
 *   left, right, forward-left, forward-right, back-left, back-right, relative to the heading)
 *   pick a clip set; a direction not listed uses "any"; "none" shows the idle clip while moving
 *   that way. blendSpace says how the clip sets meet: "sectors" (the default) uses the set of
 *   the 45-degree sector the movement falls in, blended by speed alone; "2d" places every set in
 *   one 2D blend space over the velocity relative to the heading (directional-space.ts), so
 *   strafing and diagonals blend neighbouring directions. Speeds in model units per second,
 *   accelerations in units per second squared, turnRate in radians per second. slowestWalkRate
 *   (in (0, 1], default 1), with rate matching only (root motion): below walkSpeed the walk
 *   clips play alone, slowed to speed / walkSpeed, down to this rate; only slower than
 *   slowestWalkRate x walkSpeed do they blend with idle (a blend of idle and walk slides the feet;
 *   a slowed walk keeps them planted).
 * - actions: a clip played over locomotion (optionally masked), faded in and out.
 * - transitions: allowed (from, to) pairs; from is "locomotion" or an action, to an action.
 * - events: named times per clip (seconds, in [0, the clip's duration]), fired to the crowd's
 *   CrowdEvents listeners as the controllers play the clip (docs/clip-events.md); they become its
 *   event tables when CrowdControllers is made (a crowd without CrowdEvents checks them only).
 */
export const DIRECTIONS = ['forward', 'forward-right', 'right', 'back-right', 'back', 'back-left', 'left', 'forward-left'] as const;
/** A movement direction relative to the character's heading: one of DIRECTIONS. */
export type Direction = (typeof DIRECTIONS)[number];

/** Playback settings of one clip. */
export interface ClipSettings {
  /** Playback rate (1 = as authored; negative plays backwards). */
  speed: number;
  /** True: the clip wraps at its end; false: it holds its last frame. */
  loop: boolean;
}
/** The clips of one locomotion direction, as clip indices into ControllerConfig.clipNames. */
export interface ClipSet {
  /** Clip index shown at walkSpeed. */
  walk: number;
  /** Clip index shown at twice walkSpeed (running). */
  run: number;
}
export const BLEND_SPACES = ['sectors', '2d'] as const;
export type LocomotionBlendSpace = (typeof BLEND_SPACES)[number];

/** Idle/walk/run blending and movement limits (the JSON's "locomotion", clips resolved to indices). */
export interface LocomotionConfig {
  /** Clip index shown standing still (and while moving in a "none" direction). */
  idle: number;
  /** How the direction sets blend: by sector (1D in speed) or one 2D space over the velocity. */
  blendSpace: LocomotionBlendSpace;
  /** Per direction: a clip set, or null for "none" (idle while moving that way). */
  directions: Record<Direction, ClipSet | null>;
  /** Speed at which the walk clips play alone, model units per second (> 0); running doubles the maximum speed. */
  walkSpeed: number;
  /** Largest speed gain, model units per second squared (> 0). */
  maxAcceleration: number;
  /** Largest speed loss, model units per second squared (> 0). */
  maxDeceleration: number;
  /** Below this speed (model units per second, >= 0) the character counts as standing. */
  minSpeed: number;
  /** Largest turn of the heading, radians per second (> 0). */
  turnRate: number;
  /** Fade length in seconds (>= 0) when the character goes back to locomotion. */
  fadeSeconds: number;
  /**
   * With rate matching (root motion) only, in (0, 1]: the slowest rate the walk clips play at
   * alone, blended with idle only below it (DEFAULT_SLOWEST_WALK_RATE when absent). See Locomotion.
   */
  slowestWalkRate?: number;
}
/** LocomotionConfig.slowestWalkRate when absent: 1, the plain idle-to-walk blend. */
export const DEFAULT_SLOWEST_WALK_RATE = 1;
/** One action (the JSON's "actions" entry, its clip resolved to an index). */
export interface ActionConfig {
  /** The action's name, as requestAction takes it. */
  name: string;
  /** Clip index into ControllerConfig.clipNames. */
  clip: number;
  /** Seconds (>= 0) the action takes to fade in over locomotion. */
  fadeIn: number;
  /** Seconds (>= 0) it takes to fade out at its end. */
  fadeOut: number;
  /** Shape of both fades: 'linear', 'cubic', or a function of progress u in [0, 1]. */
  curve: BlendCurve;
  /** Index into ControllerConfig.masks, or -1. */
  mask: number;
}
/**
 * A validated controller config (the JSON above with clips resolved to indices), made by
 * parseControllerConfig or defaultControllerConfig for one model. Treat it as immutable.
 */
export interface ControllerConfig {
  /** The model's clip names, in clip order: the config is valid for this model only. */
  clipNames: readonly string[];
  /** Playback settings per clip index: `speed` (rate, negative plays backwards) and `loop` (false clamps at the end). */
  clips: ClipSettings[];
  /** Defaults of fadeTo: seconds (>= 0), kind and curve. */
  fade: {
    /** Fade length in seconds, >= 0. */
    seconds: number;
    /** 'smooth', 'frozen', 'first-frame' or 'immediate' (see AnimationController.fadeTo). */
    kind: TransitionKind;
    /** 'linear', 'cubic', or a function of progress u in [0, 1]. */
    curve: BlendCurve;
  };
  /** Idle/walk/run blending and movement limits, or null: the characters cannot walk. */
  locomotion: LocomotionConfig | null;
  /** Actions by index (requestAction takes their names). */
  actions: ActionConfig[];
  /** Mask specs used by actions (built into weights by whoever renders). */
  masks: MaskSpec[];
  /** Allowed "from->to" pairs. */
  transitions: Set<string>;
  /** Clip events per clip index, in time order (empty for a clip without any). */
  events: ClipEvent[][];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function field<T>(obj: Json, key: string, where: string, check: (v: unknown, w: string) => T, fallback?: T): T {
  if (obj[key] === undefined) {
    if (fallback === undefined) throw new RangeError(`${where}.${key} is required`);
    return fallback;
  }
  return check(obj[key], `${where}.${key}`);
}

const number = (min: number, exclusiveMin = false) => (v: unknown, where: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || (exclusiveMin ? v <= min : v < min)) {
    throw new RangeError(`${where} must be a number ${exclusiveMin ? '>' : '>='} ${min}, got ${typeof v === 'number' ? v : JSON.stringify(v)}`);
  }
  return v;
};
/** A playback rate in (0, 1]. */
const rate = (v: unknown, where: string): number => {
  if (typeof v !== 'number' || !(v > 0 && v <= 1)) throw new RangeError(`${where} must be a number in (0, 1], got ${typeof v === 'number' ? v : JSON.stringify(v)}`);
  return v;
};
const finite = (v: unknown, where: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`${where} must be a finite number, got ${JSON.stringify(v)}`);
  return v;
};
const boolean = (v: unknown, where: string): boolean => {
  if (typeof v !== 'boolean') throw new TypeError(`${where} must be true or false, got ${JSON.stringify(v)}`);
  return v;
};

function unknownKeys(obj: Json, allowed: string[], where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw new RangeError(`${where}: unknown field "${key}" (fields: ${allowed.join(', ')})`);
  }
}

/**
 * Parses and validates a controller config; every problem names the field. With
 * `clipDurations` (seconds per clip) event times are checked against their clip's duration
 * here; ControllerRuntime checks them otherwise.
 */
export function parseControllerConfig(json: unknown, clipNames: readonly string[], where = 'config', clipDurations?: ArrayLike<number>): ControllerConfig {
  if (!isObject(json)) throw new TypeError(`${where} must be a JSON object`);
  unknownKeys(json, ['clips', 'fade', 'locomotion', 'actions', 'transitions', 'events'], where);
  const clip = (v: unknown, w: string): number => resolveClip(clipNames, v, { where: w, accepts: 'name', noun: 'named' });

  const clips: ClipSettings[] = clipNames.map(() => ({ speed: 1, loop: true }));
  if (json.clips !== undefined) {
    if (!isObject(json.clips)) throw new TypeError(`${where}.clips must be an object of clip name -> { speed, loop }`);
    for (const [name, value] of Object.entries(json.clips)) {
      const w = `${where}.clips.${name}`;
      const index = clip(name, `${where}.clips`);
      if (!isObject(value)) throw new TypeError(`${w} must be an object { speed, loop }`);
      unknownKeys(value, ['speed', 'loop'], w);
      clips[index] = { speed: field(value, 'speed', w, finite, 1), loop: field(value, 'loop', w, boolean, true) };
    }
  }

  const fadeJson = json.fade === undefined ? {} : json.fade;
  if (!isObject(fadeJson)) throw new TypeError(`${where}.fade must be an object { seconds, kind, curve }`);
  unknownKeys(fadeJson, ['seconds', 'kind', 'curve'], `${where}.fade`);
  const fade = {
    seconds: field(fadeJson, 'seconds', `${where}.fade`, number(0), 0.3),
    kind: field(fadeJson, 'kind', `${where}.fade`, transitionKind, 'smooth' as TransitionKind),
    curve: field(fadeJson, 'curve', `${where}.fade`, jsonCurve, 'cubic' as BlendCurve),
  };

  let locomotion: LocomotionConfig | null = null;
  if (json.locomotion !== undefined) {
    const l = json.locomotion;
    const w = `${where}.locomotion`;
    if (!isObject(l)) throw new TypeError(`${w} must be an object`);
    unknownKeys(l, ['idle', 'blendSpace', 'directions', 'walkSpeed', 'maxAcceleration', 'maxDeceleration', 'minSpeed', 'turnRate', 'fadeSeconds', 'slowestWalkRate'], w);
    const directionsJson = field(l, 'directions', w, (v, dw) => { if (!isObject(v)) throw new TypeError(`${dw} must be an object`); return v; });
    const set = (v: unknown, sw: string): ClipSet | null => {
      if (v === 'none') return null;
      if (!isObject(v)) throw new TypeError(`${sw} must be { "walk": clip, "run": clip }, "any" or "none"`);
      unknownKeys(v, ['walk', 'run'], sw);
      return { walk: field(v, 'walk', sw, clip), run: field(v, 'run', sw, clip) };
    };
    for (const key of Object.keys(directionsJson)) {
      if (key !== 'any' && !(DIRECTIONS as readonly string[]).includes(key)) throw new RangeError(`${w}.directions: unknown direction "${key}" (directions: any, ${DIRECTIONS.join(', ')})`);
    }
    const any = directionsJson.any === undefined ? null : set(directionsJson.any, `${w}.directions.any`);
    const directions = {} as Record<Direction, ClipSet | null>;
    for (const d of DIRECTIONS) {
      const v = directionsJson[d];
      directions[d] = v === undefined || v === 'any' ? any : set(v, `${w}.directions.${d}`);
    }
    locomotion = {
      idle: field(l, 'idle', w, clip),
      blendSpace: field(l, 'blendSpace', w, blendSpace, 'sectors' as LocomotionBlendSpace),
      directions,
      walkSpeed: field(l, 'walkSpeed', w, number(0, true), 1),
      maxAcceleration: field(l, 'maxAcceleration', w, number(0, true), 4),
      maxDeceleration: field(l, 'maxDeceleration', w, number(0, true), 6),
      minSpeed: field(l, 'minSpeed', w, number(0), 0.05),
      turnRate: field(l, 'turnRate', w, number(0, true), 6),
      fadeSeconds: field(l, 'fadeSeconds', w, number(0), fade.seconds),
      slowestWalkRate: field(l, 'slowestWalkRate', w, rate, DEFAULT_SLOWEST_WALK_RATE),
    };
  }

  const masks: MaskSpec[] = [];
  const actions: ActionConfig[] = [];
  if (json.actions !== undefined) {
    if (!isObject(json.actions)) throw new TypeError(`${where}.actions must be an object of action name -> { clip, fadeIn, fadeOut, mask }`);
    for (const [name, value] of Object.entries(json.actions)) {
      const w = `${where}.actions.${name}`;
      if (name === 'locomotion') throw new RangeError(`${w}: "locomotion" is reserved for the locomotion state`);
      if (name.includes('->')) throw new RangeError(`${w}: action names cannot contain "->" (it separates the states of a transition)`);
      if (!isObject(value)) throw new TypeError(`${w} must be an object { clip, fadeIn, fadeOut, curve, mask }`);
      unknownKeys(value, ['clip', 'fadeIn', 'fadeOut', 'curve', 'mask'], w);
      let mask = -1;
      if (value.mask !== undefined) {
        if (!isObject(value.mask)) throw new TypeError(`${w}.mask must be {"root": JOINT} or {"weights": {...}, "default": d}`);
        mask = masks.push(value.mask as MaskSpec) - 1;
      }
      actions.push({
        name, clip: field(value, 'clip', w, clip, clipNames.indexOf(name) >= 0 ? clipNames.indexOf(name) : undefined),
        fadeIn: field(value, 'fadeIn', w, number(0), fade.seconds),
        fadeOut: field(value, 'fadeOut', w, number(0), fade.seconds),
        curve: field(value, 'curve', w, jsonCurve, fade.curve),
        mask,
      });
    }
  }

  const transitions = new Set<string>();
  if (json.transitions !== undefined) {
    if (!Array.isArray(json.transitions)) throw new TypeError(`${where}.transitions must be an array of [from, to] pairs`);
    const states = ['locomotion', ...actions.map((a) => a.name)];
    json.transitions.forEach((pair, i) => {
      const w = `${where}.transitions[${i}]`;
      if (!Array.isArray(pair) || pair.length !== 2) throw new TypeError(`${w} must be a [from, to] pair`);
      const [from, to] = pair;
      if (!states.includes(from)) throw new RangeError(`${w}: from ${JSON.stringify(from)} is not "locomotion" or an action (actions: ${actions.map((a) => a.name).join(', ') || 'none'})`);
      if (!actions.some((a) => a.name === to)) throw new RangeError(`${w}: to ${JSON.stringify(to)} is not an action (actions: ${actions.map((a) => a.name).join(', ') || 'none'})`);
      transitions.add(`${from}->${to}`);
    });
  }

  const events: ClipEvent[][] = clipNames.map(() => []);
  if (json.events !== undefined) {
    if (!isObject(json.events)) throw new TypeError(`${where}.events must be an object of clip name -> [{ "time": seconds, "name": string }]`);
    for (const [name, list] of Object.entries(json.events)) {
      const index = clip(name, `${where}.events`);
      events[index] = checkClipEvents(list, clipDurations ? clipDurations[index] : Infinity, `${where}.events.${name}`);
    }
  }
  return { clipNames, clips, fade, locomotion, actions, masks, transitions, events };
}

/** Throws a RangeError naming the entry when an event time of `config` lies past its clip's duration (seconds per clip). */
export function checkConfigEvents(config: ControllerConfig, clipDurations: ArrayLike<number>, where = 'config'): void {
  config.events.forEach((list, clip) => {
    if (list.length) checkClipEvents(list, clipDurations[clip], `${where}.events.${config.clipNames[clip]}`);
  });
}

function blendSpace(v: unknown, where: string): LocomotionBlendSpace {
  if (!BLEND_SPACES.includes(v as LocomotionBlendSpace)) throw new RangeError(`${where} must be one of ${BLEND_SPACES.join(', ')}, got ${JSON.stringify(v)}`);
  return v as LocomotionBlendSpace;
}

function transitionKind(v: unknown, where: string): TransitionKind {
  if (!TRANSITION_KINDS.includes(v as TransitionKind)) throw new RangeError(`${where} must be one of ${TRANSITION_KINDS.join(', ')}, got ${JSON.stringify(v)}`);
  return v as TransitionKind;
}

function jsonCurve(v: unknown, where: string): BlendCurve {
  if (typeof v === 'function') throw new TypeError(`${where}: custom curves are set in code, not JSON`);
  return checkCurve(v, where);
}

/** The JSON form of a config (custom curve functions cannot be saved and are written as "linear"). */
export function serializeControllerConfig(config: ControllerConfig): Record<string, unknown> {
  const name = (i: number) => config.clipNames[i];
  const curve = (c: BlendCurve) => (typeof c === 'function' ? 'linear' : c);
  const out: Record<string, unknown> = {
    clips: Object.fromEntries(config.clips.map((c, i) => [name(i), { speed: c.speed, loop: c.loop }])),
    fade: { seconds: config.fade.seconds, kind: config.fade.kind, curve: curve(config.fade.curve) },
  };
  const l = config.locomotion;
  if (l) {
    out.locomotion = {
      idle: name(l.idle),
      blendSpace: l.blendSpace,
      directions: Object.fromEntries(DIRECTIONS.map((d) => [d, l.directions[d] ? { walk: name(l.directions[d]!.walk), run: name(l.directions[d]!.run) } : 'none'])),
      walkSpeed: l.walkSpeed, maxAcceleration: l.maxAcceleration, maxDeceleration: l.maxDeceleration,
      minSpeed: l.minSpeed, turnRate: l.turnRate, fadeSeconds: l.fadeSeconds, slowestWalkRate: l.slowestWalkRate ?? DEFAULT_SLOWEST_WALK_RATE,
    };
  }
  out.actions = Object.fromEntries(config.actions.map((a) => [a.name, {
    clip: name(a.clip), fadeIn: a.fadeIn, fadeOut: a.fadeOut, curve: curve(a.curve), ...(a.mask >= 0 ? { mask: config.masks[a.mask] } : {}),
  }]));
  out.transitions = [...config.transitions].map((t) => t.split('->'));
  const events = config.events.flatMap((list, clip) => (list.length ? [[name(clip), list.map((e) => ({ time: e.time, name: e.name }))]] : []));
  if (events.length) out.events = Object.fromEntries(events);
  return out;
}

/**
 * A config for a model that has none: idle/walk/run found by clip name (Idle/Survey, Walk,
 * Run), every other clip an action allowed from locomotion.
 */
export function defaultControllerConfig(clipNames: readonly string[]): ControllerConfig {
  const find = (...patterns: RegExp[]) => clipNames.find((n) => patterns.some((p) => p.test(n)));
  const idle = find(/^idle$/i, /idle/i, /survey/i, /stand/i);
  const walk = find(/^walk(ing)?$/i, /walk/i);
  const run = find(/^run(ning)?$/i, /run/i);
  const json: Record<string, unknown> = {};
  const used = new Set<string>();
  if (walk) {
    const i = idle ?? walk;
    json.locomotion = { idle: i, directions: { any: { walk, run: run ?? walk } } };
    [i, walk, run].forEach((n) => n && used.add(n));
  }
  const actions = clipNames.filter((n) => !used.has(n));
  json.actions = Object.fromEntries(actions.map((n) => [n, { clip: n }]));
  json.clips = Object.fromEntries(actions.map((n) => [n, { loop: false }]));
  json.transitions = actions.map((n) => ['locomotion', n]);
  return parseControllerConfig(json, clipNames, 'default config');
}

/**
 * Holds the current config of a model and replaces it only with one that parses: a bad file
 * is rejected with its message and nothing already loaded is lost.
 */
export class ControllerConfigStore {
  /**
   * @param current The config in force to begin with.
   * @param clipDurations Seconds per clip: when given, loaded event times are checked against them.
   */
  constructor(private current: ControllerConfig, private readonly clipDurations?: ArrayLike<number>) {}

  /** The config in force: the last one that parsed. */
  get config(): ControllerConfig {
    return this.current;
  }

  /** Loads JSON text; returns the new config or throws (keeping the current one). */
  load(text: string): ControllerConfig {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new SyntaxError(`config is not valid JSON: ${(e as Error).message}`);
    }
    this.current = parseControllerConfig(json, this.current.clipNames, 'config', this.clipDurations);
    return this.current;
  }

  /** The config in force as JSON text (2-space indented), as load() takes it. */
  save(): string {
    return JSON.stringify(serializeControllerConfig(this.current), null, 2);
  }
}
