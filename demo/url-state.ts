import type { SkinningMethod } from '../src/index';
import { DEFAULT_LIGHTS, readLights, writeLights, type LightState } from './lights';
import { DEFAULT_MODEL, MODEL_NAMES } from './models';
import { writeSceneParams, type SceneState } from './scene-state';

export type Mode = 'crowd' | 'uniform';

/** Everything the panel controls; mirrored in the page URL. */
export interface DemoState {
  /** A name from MODELS. */
  model: string;
  /** A .glb/.gltf URL to load instead of `model` (hidden option for testing other files). */
  modelUrl: string;
  /** Live instances, 1 to MAX_INSTANCES. */
  instances: number;
  /** crowd: every instance its own random clips, phase, blend and speed; uniform: the panel's. */
  mode: Mode;
  clipA: string;
  clipB: string;
  /** Weight of clip B in uniform mode, [0, 1]. */
  blend: number;
  /** Playback rate of the whole crowd (scales the clock), [0, 4]. */
  speed: number;
  paused: boolean;
  /** Uniform mode: random phase per instance (off: the crowd moves in lockstep). */
  randomPhases: boolean;
  /** Crowd mode: share of instances playing some other clip of the model, [0, 1]. */
  variety: number;
  /** Draw the ground grid. */
  grid: boolean;
  /** Frustum culling of the crowd (off: every instance posed and drawn, for comparison). */
  culling: boolean;
  /** Mesh LOD by screen-space error. */
  lod: boolean;
  /** Far instances posed every 2nd / 4th frame. */
  animationLod: boolean;
  /** The crowd's shadow map (characters and ground). */
  shadows: boolean;
  /** Far characters as impostors (CrowdImpostors) where the scene uses them: the stadium, the crowd scene past 100,000. */
  impostors: boolean;
  /** Crowd scene: spread tints, base-colour variants and parts over the crowd (CrowdAppearance). */
  appearance: boolean;
  /** How the crowd skins its vertices (Crowd.skinning): in the URL only when not 'linear'. */
  skinning: SkinningMethod;
  /** The light panel (demo/lights.ts): in the URL only where it differs from the crowd's default lights. */
  lights: LightState;
  /** Which backend draws (?backend=): 'auto' (WebGPU where it works, else WebGL 2), or one forced; in the URL only when not 'auto'. */
  backend: 'auto' | 'webgpu' | 'webgl2';
}

export const MAX_INSTANCES = 1_000_000;

export const DEFAULT_STATE: Readonly<DemoState> = {
  model: DEFAULT_MODEL, modelUrl: '', instances: 1000, mode: 'crowd', clipA: '', clipB: '',
  blend: 0.5, speed: 1, paused: false, randomPhases: true, variety: 0.15, grid: true,
  culling: true, lod: true, animationLod: true, shadows: true, impostors: true, appearance: false, skinning: 'linear',
  lights: DEFAULT_LIGHTS, backend: 'auto',
};

/** The values of the skinning menu. */
export const SKINNING_METHODS: readonly SkinningMethod[] = ['linear', 'dual-quaternion'];

/** The on/off switches of the crowd's GPU features, each in the URL only when off (`culling=0`). */
const SWITCHES = ['culling', 'lod', 'animationLod', 'shadows', 'impostors'] as const;

/**
 * Reads the state from a query string. Values that do not parse fall back to the defaults and
 * add a sentence to `problems` (clip names are checked later, against the loaded model).
 */
export function readState(search: string): { state: DemoState; problems: string[] } {
  const params = new URLSearchParams(search);
  const problems: string[] = [];
  const state: DemoState = { ...DEFAULT_STATE, lights: readLights(params, problems) };
  const number = (key: string, min: number, max: number, integer = false): number | undefined => {
    const raw = params.get(key);
    if (raw === null) return undefined;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      problems.push(`URL parameter ${key}=${raw} is not ${integer ? 'an integer' : 'a number'}; using the default`);
      return undefined;
    }
    if (value < min || value > max) problems.push(`URL parameter ${key}=${raw} is outside [${min}, ${max}]; clamped`);
    return Math.min(max, Math.max(min, value));
  };
  const flag = (key: string): boolean | undefined => {
    const raw = params.get(key);
    return raw === null ? undefined : raw === '' || raw === '1' || raw === 'true';
  };

  const model = params.get('model');
  if (model !== null) {
    if (MODEL_NAMES.includes(model)) state.model = model;
    else problems.push(`unknown model "${model}" (models: ${MODEL_NAMES.join(', ')}); showing ${DEFAULT_MODEL}`);
  }
  state.modelUrl = params.get('modelUrl') ?? '';
  state.instances = number('instances', 1, MAX_INSTANCES, true) ?? state.instances;
  const mode = params.get('mode');
  if (mode === 'crowd' || mode === 'uniform') state.mode = mode;
  else if (mode !== null) problems.push(`URL parameter mode=${mode} must be crowd or uniform`);
  state.clipA = params.get('clipA') ?? '';
  state.clipB = params.get('clipB') ?? '';
  state.blend = number('blend', 0, 1) ?? state.blend;
  state.speed = number('speed', 0, 4) ?? state.speed;
  state.variety = number('variety', 0, 1) ?? state.variety;
  state.paused = flag('paused') ?? state.paused;
  state.randomPhases = flag('randomPhases') ?? state.randomPhases;
  state.grid = flag('grid') ?? state.grid;
  state.appearance = flag('appearance') ?? state.appearance;
  for (const key of SWITCHES) state[key] = flag(key) ?? state[key];
  const backend = params.get('backend');
  if (backend === 'auto' || backend === 'webgpu' || backend === 'webgl2') state.backend = backend;
  else if (backend !== null) problems.push(`URL parameter backend=${backend} must be auto, webgpu or webgl2`);
  const skinning = params.get('skinning');
  if (skinning !== null) {
    if ((SKINNING_METHODS as readonly string[]).includes(skinning)) state.skinning = skinning as SkinningMethod;
    else problems.push(`URL parameter skinning=${skinning} must be ${SKINNING_METHODS.join(' or ')}`);
  }
  return { state, problems };
}

let pendingWrite: ReturnType<typeof setTimeout> | undefined;

/**
 * Writes the state (and the scene settings, when given) into the page URL soon
 * (history.replaceState: no new history entries). Coalesced over 150 ms: a dragged slider
 * changes the state every event, and browsers throttle (and warn about) hundreds of
 * replaceState calls.
 */
export function writeState(state: DemoState, scene?: SceneState): void {
  pendingState = state;
  pendingScene = scene;
  if (pendingWrite === undefined) {
    pendingWrite = setTimeout(() => {
      pendingWrite = undefined;
      writeStateNow(pendingState!, pendingScene);
    }, 150);
  }
}

let pendingState: DemoState | undefined;
let pendingScene: SceneState | undefined;

/** Writes the state into the page URL now. */
export function writeStateNow(state: DemoState, scene?: SceneState): void {
  const params = new URLSearchParams();
  if (scene) writeSceneParams(params, scene);
  if (state.modelUrl) params.set('modelUrl', state.modelUrl);
  else params.set('model', state.model);
  params.set('instances', String(state.instances));
  params.set('mode', state.mode);
  if (state.clipA) params.set('clipA', state.clipA);
  if (state.clipB) params.set('clipB', state.clipB);
  params.set('blend', String(round(state.blend)));
  params.set('speed', String(round(state.speed)));
  if (state.paused) params.set('paused', '1');
  if (!state.randomPhases) params.set('randomPhases', '0');
  if (state.variety !== DEFAULT_STATE.variety) params.set('variety', String(round(state.variety)));
  if (!state.grid) params.set('grid', '0');
  if (state.appearance) params.set('appearance', '1');
  for (const key of SWITCHES) if (!state[key]) params.set(key, '0');
  if (state.skinning !== DEFAULT_STATE.skinning) params.set('skinning', state.skinning);
  if (state.backend !== 'auto') params.set('backend', state.backend);
  writeLights(params, state.lights);
  history.replaceState(history.state, '', `${location.pathname}?${params}${location.hash}`);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
