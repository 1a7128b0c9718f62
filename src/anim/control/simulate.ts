import type { AdditiveLayerInit, ClipTimeInit, LayerInit } from '../layer-stack';
import type { MaskSpec } from '../masks';
import type { StandaloneLayerStack } from '../stack-json';
import { checkCurve } from './curves';
import { AnimationController, type ControllerRuntime } from './controller';
import { TRANSITION_KINDS, type TransitionKind } from './crossfader';
import { configEventTable, ControllerEvents } from './events';

/**
 * Headless runs of one controller through a script of timed inputs: how users debug a state
 * machine and how tests pin its behaviour. Script entries (times in seconds, names as in the API):
 *
 *   {"at": 0, "play": "Survey"}
 *   {"at": 1, "fadeTo": "Walk", "seconds": 0.4, "kind": "smooth", "curve": "cubic"}
 *   {"at": 2, "speed": 1.5}                      locomotion speed parameter (0 idle, 1 walk, 2 run)
 *   {"at": 2, "move": [0, 1], "run": true}        locomotion in a world direction (x, z)
 *   {"at": 2, "face": 0}                          keep facing a heading (radians) while moving; null: face the movement
 *   {"at": 3, "action": "Jump"}
 *   {"at": 5, "stop": true}
 *
 * Each frame k (t = k / fps, up to the last entry's time) applies the entries due by t, advances
 * the controller by 1 / fps (nothing on frame 0) and records the stack in the pose dump's
 * --layers shape, and the clip events the step fired (the config's "events"), in firing order.
 */
export interface ScriptEntry {
  at: number;
  play?: string;
  fadeTo?: string;
  seconds?: number;
  kind?: TransitionKind;
  curve?: 'linear' | 'cubic';
  speed?: number;
  move?: [number, number];
  run?: boolean;
  stop?: boolean;
  action?: string;
  face?: number | null;
}

/** A clip event fired in a simulation frame's step. */
export interface SimulationEvent {
  /** The event's name. */
  name: string;
  /** The clip's name. */
  clip: string;
  /** The event's time in the clip, seconds. */
  time: number;
}

/** A frame: its stack is a StandaloneLayerStack (what the pose dump takes) with clips named and every time given. */
export interface SimulationFrame extends Required<StandaloneLayerStack> {
  base: ClipTimeInit & { clip: string; time: number };
  layers: (LayerInit<MaskSpec> & { clip: string; time: number })[];
  additive: AdditiveLayerInit<MaskSpec>[];
  t: number;
  state: string;
  /** The clip events fired in this frame's step, in firing order (empty when none). */
  events: SimulationEvent[];
}

const COMMANDS = ['play', 'fadeTo', 'speed', 'move', 'stop', 'action', 'face'] as const;
const OPTIONS: Record<string, readonly string[]> = { fadeTo: ['seconds', 'kind', 'curve'], move: ['run'] };

/** Validates a script (an array of entries in time order); errors name the entry and field. */
export function parseScript(json: unknown, runtime: ControllerRuntime): ScriptEntry[] {
  if (!Array.isArray(json)) throw new TypeError('script must be a JSON array of {"at": seconds, <command>: ...} entries');
  let previous = 0;
  return json.map((entry, i) => {
    const where = `script[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new TypeError(`${where} must be an object`);
    const e = entry as Record<string, unknown>;
    if (typeof e.at !== 'number' || !Number.isFinite(e.at) || e.at < 0) throw new RangeError(`${where}.at must be a number of seconds >= 0, got ${JSON.stringify(e.at)}`);
    if (e.at < previous) throw new RangeError(`${where}.at ${e.at} comes before the previous entry's ${previous}; entries must be in time order`);
    previous = e.at;
    const commands = COMMANDS.filter((c) => e[c] !== undefined);
    if (commands.length !== 1) throw new RangeError(`${where} must have exactly one of ${COMMANDS.join(', ')}, has ${commands.length ? commands.join(', ') : 'none'}`);
    const command = commands[0];
    const allowed = ['at', command, ...(OPTIONS[command] ?? [])];
    for (const key of Object.keys(e)) if (!allowed.includes(key)) throw new RangeError(`${where}: field "${key}" does not go with "${command}" (fields: ${allowed.join(', ')})`);
    const clip = (value: unknown, field: string) => {
      if (typeof value !== 'string') throw new TypeError(`${where}.${field} must be a clip name`);
      try {
        runtime.clipIndex(value);
      } catch (e) {
        throw new RangeError(`${where}.${field}: ${(e as Error).message}`);
      }
    };
    if (command === 'play' || command === 'fadeTo') clip(e[command], command);
    if (e.seconds !== undefined && !(typeof e.seconds === 'number' && e.seconds >= 0)) throw new RangeError(`${where}.seconds must be a number >= 0`);
    if (e.kind !== undefined && !TRANSITION_KINDS.includes(e.kind as TransitionKind)) throw new RangeError(`${where}.kind must be one of ${TRANSITION_KINDS.join(', ')}`);
    if (e.curve !== undefined) checkCurve(e.curve, `${where}.curve`);
    if (command === 'speed' && !(typeof e.speed === 'number' && e.speed >= 0 && e.speed <= 2)) throw new RangeError(`${where}.speed must be a number in [0, 2] (0 idle, 1 walk, 2 run)`);
    if (command === 'move' && !(Array.isArray(e.move) && e.move.length === 2 && e.move.every(Number.isFinite))) throw new RangeError(`${where}.move must be [x, z]`);
    if (e.run !== undefined && typeof e.run !== 'boolean') throw new TypeError(`${where}.run must be true or false`);
    if (command === 'stop' && e.stop !== true) throw new RangeError(`${where}.stop must be true`);
    if (command === 'face' && !(e.face === null || (typeof e.face === 'number' && Number.isFinite(e.face)))) {
      throw new RangeError(`${where}.face must be a heading in radians or null, got ${JSON.stringify(e.face)}`);
    }
    if (command === 'action' && (typeof e.action !== 'string' || !runtime.actionIndex.has(e.action))) {
      throw new RangeError(`${where}.action: no action ${JSON.stringify(e.action)} (actions: ${runtime.config.actions.map((a) => a.name).join(', ') || 'none'})`);
    }
    if ((command === 'speed' || command === 'move' || command === 'stop' || command === 'face') && !runtime.locomotion) {
      throw new RangeError(`${where}: "${command}" needs a "locomotion" section in the model's controller config`);
    }
    return e as unknown as ScriptEntry;
  });
}

/** Applies one script entry to a controller. */
export function applyEntry(controller: AnimationController, entry: ScriptEntry): void {
  if (entry.play !== undefined) controller.play(entry.play);
  else if (entry.fadeTo !== undefined) controller.fadeTo(entry.fadeTo, { seconds: entry.seconds, kind: entry.kind, curve: entry.curve });
  else if (entry.speed !== undefined) controller.setSpeed(entry.speed);
  else if (entry.move !== undefined) controller.move(entry.move[0], entry.move[1], entry.run ?? false);
  else if (entry.stop) controller.stop();
  else if (entry.action !== undefined) controller.requestAction(entry.action);
  else if (entry.face !== undefined) controller.face(entry.face);
}

/** The controller's current output in the pose dump's --layers shape, with the events given. */
export function frameOf(controller: AnimationController, t: number, events: SimulationEvent[] = []): SimulationFrame {
  const out = controller.output;
  const { clipNames, masks } = controller.runtime.config;
  const layers = [];
  for (let i = 0; i < out.layerCount; i++) {
    const mask = out.layerMask[i] >= 0 ? { mask: masks[out.layerMask[i]] } : {};
    layers.push({ clip: clipNames[out.layerClip[i]], time: out.layerTime[i], weight: out.layerWeight[i], ...mask });
  }
  return { t, state: controller.state, base: { clip: clipNames[out.baseClip], time: out.baseTime }, layers, additive: [], events };
}

/**
 * Runs `script` at `fps` frames per second; returns one frame per step from t = 0 to the last
 * entry's time. Events fire from clips whose weight at the crossing is at least
 * `eventWeightThreshold` (Crowd's default, 0.5).
 */
export function simulate(runtime: ControllerRuntime, script: ScriptEntry[], fps = 60, eventWeightThreshold = 0.5): SimulationFrame[] {
  if (!(fps > 0) || !Number.isFinite(fps)) throw new RangeError(`fps must be a number > 0, got ${fps}`);
  const controller = new AnimationController(runtime);
  const tables = configEventTable(runtime.config, runtime.clipDurations);
  const events = new ControllerEvents(tables, () => eventWeightThreshold);
  let fired: SimulationEvent[] = [];
  events.sink = { event: (_tau, _source, clip, index) => { fired.push({ name: tables.name(clip, index), clip: tables.clipNames[clip], time: tables.time(clip, index) }); } };
  const end = script.length ? script[script.length - 1].at : 0;
  const frames: SimulationFrame[] = [];
  let next = 0;
  for (let k = 0; k <= Math.round(end * fps + 1e-9); k++) {
    const t = k / fps;
    while (next < script.length && script[next].at <= t + 1e-9) applyEntry(controller, script[next++]);
    fired = [];
    controller.update(k === 0 ? 0 : 1 / fps, events);
    frames.push(frameOf(controller, t, fired));
  }
  return frames;
}
