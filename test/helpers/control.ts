import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { parseControllerConfig, type ControllerConfig } from '../../src/anim/control/config';
import { ControllerRuntime } from '../../src/anim/control/controller';
import { parseScript, simulate, type SimulationFrame } from '../../src/anim/control/simulate';
import type { Character } from '../../src/character/character';
import { modelPath } from './models';

/**
 * Synthetic clips for hand-computed controller tests (src/anim/control): names and durations
 * chosen so that expected clip times and weights are easy to work out. No model is needed, since
 * a controller only sees clip names and durations.
 */
export const CLIP_NAMES = ['A', 'B', 'C', 'D', 'Idle', 'Walk', 'Run', 'WalkBack', 'RunBack'] as const;
export const CLIP_DURATIONS = [1, 2, 0.5, 4, 2, 1, 0.5, 1.25, 0.625];

export function durationOf(clip: string): number {
  return CLIP_DURATIONS[CLIP_NAMES.indexOf(clip as (typeof CLIP_NAMES)[number])];
}

/** A runtime from a JSON config over the synthetic clips. */
export function syntheticRuntime(json: unknown): ControllerRuntime {
  return new ControllerRuntime(parseControllerConfig(json, CLIP_NAMES), CLIP_DURATIONS);
}

/**
 * Simulates `script` (JSON entries) at `fps` through parseScript + simulate. With `until`, an
 * entry {"at": until, "play": "D"} is appended to make the run that long, and its frame (the
 * last) is dropped, so every frame returned comes from `script` alone.
 */
export function runScript(runtime: ControllerRuntime, script: object[], fps = 10, until?: number): SimulationFrame[] {
  const entries = until === undefined ? script : [...script, { at: until, play: 'D' }];
  const frames = simulate(runtime, parseScript(entries, runtime), fps);
  return until === undefined ? frames : frames.slice(0, -1);
}

/** The frame at time t (within 1e-9). */
export function frameAt(frames: SimulationFrame[], t: number): SimulationFrame {
  const frame = frames.find((f) => Math.abs(f.t - t) < 1e-9);
  if (!frame) throw new Error(`no frame at t = ${t} (frames ${frames[0]?.t} .. ${frames[frames.length - 1]?.t})`);
  return frame;
}

/** Layer of `clip` in a frame (the first one, or undefined). */
export function layerOf(frame: SimulationFrame, clip: string): SimulationFrame['layers'][number] | undefined {
  return frame.layers.find((l) => l.clip === clip);
}

/**
 * Share of each clip in the weighted average a frame's unmasked layers encode (override layers
 * with progressive weights: the top layer keeps its weight w_n, each one below it is scaled by
 * (1 - w) of every layer above, the base gets the rest). Masked layers are left out.
 */
export function clipShares(frame: SimulationFrame): Record<string, number> {
  const shares: Record<string, number> = {};
  const layers = frame.layers.filter((l) => !('mask' in l && l.mask));
  let rest = 1;
  for (let i = layers.length - 1; i >= 0; i--) {
    const l = layers[i];
    shares[String(l.clip)] = (shares[String(l.clip)] ?? 0) + l.weight * rest;
    rest *= 1 - l.weight;
  }
  shares[String(frame.base.clip)] = (shares[String(frame.base.clip)] ?? 0) + rest;
  return shares;
}

/** Expects `frame` to be base `clip` at `time` alone (no layers). */
export function expectAlone(frame: SimulationFrame, clip: string, time?: number): void {
  expect(frame.base.clip, `base at t = ${frame.t}`).toBe(clip);
  if (time !== undefined) expect(frame.base.time, `base time at t = ${frame.t}`).toBeCloseTo(time, 9);
  expect(frame.layers, `layers at t = ${frame.t}`).toEqual([]);
}

/** Cubic fade-in weight 3u^2 - 2u^3. */
export const cubic = (u: number): number => 3 * u * u - 2 * u * u * u;

/** RobotExpressive's bundled controller config (public/models/RobotExpressive/RobotExpressive.controller.json), parsed for `character`. */
export function robotControllerConfig(character: Character): ControllerConfig {
  const text = readFileSync(modelPath('RobotExpressive').replace(/\.glb$/, '.controller.json'), 'utf8');
  return parseControllerConfig(JSON.parse(text), character.clipNames);
}

/** A script of commands by frame (several at one frame run in the order given). */
export function commandsAt<C>(entries: [number, C][]): Map<number, C[]> {
  const map = new Map<number, C[]>();
  for (const [frame, command] of entries) map.set(frame, [...(map.get(frame) ?? []), command]);
  return map;
}
