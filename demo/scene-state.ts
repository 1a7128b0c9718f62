import { CLIP_SETS, CLIPS_BODIES } from './models';
import type { DemoState } from './url-state';

/**
 * The demo's scenes: today's crowd, the layered-blending showcase, controllers wandering,
 * three bodies bound to one clip library side by side (the crowd scene on WalkerBody and the bodies beside it),
 * two groups steered across a plaza (CrowdSteering), and a stadium of up to a million with a wave
 * running round the stands (the far crowd as impostors).
 */
export const SCENE_KINDS = ['crowd', 'layers', 'locomotion', 'clips', 'steering', 'stadium'] as const;
export type SceneKind = (typeof SCENE_KINDS)[number];

/**
 * The stadium's spectators on WebGL 2 where the URL gave its WebGPU default (a million): there
 * every spectator is a mesh (CrowdImpostors needs WebGPU), posed on the GPU and culled on the CPU
 * (about 0.6 ms a frame for 10,000 Foxes all in view, docs/webgl2.md), so the GL demo seats the 10k
 * stress test's count; the panel's presets seat more.
 */
export const GL_STADIUM_INSTANCES = 10_000;

/** The instances scene `scene` seats on WebGL 2 when given `instances`: GL_STADIUM_INSTANCES for the stadium given its WebGPU default (SCENE_DEFAULTS), else `instances`. */
export function glInstances(scene: SceneKind, instances: number): number {
  return scene === 'stadium' && instances === SCENE_DEFAULTS.stadium.instances ? GL_STADIUM_INSTANCES : instances;
}

/** What a scene starts with when the URL (or the panel's scene switch) does not say. */
export const SCENE_DEFAULTS: Record<SceneKind, { model: string; instances: number }> = {
  crowd: { model: 'Fox', instances: 1000 },
  layers: { model: 'Fox', instances: 64 },
  locomotion: { model: 'Walker', instances: 80 },
  clips: { model: 'WalkerBody', instances: 200 },
  steering: { model: 'Walker', instances: 120 },
  stadium: { model: 'Fox', instances: 1_000_000 },
};

/** The stadium scene's first view: the whole bowl, or the front row seen from the field. */
export const STADIUM_VIEWS = ['bowl', 'front'] as const;
export type StadiumView = (typeof STADIUM_VIEWS)[number];

/**
 * The scene and the settings of the scenes other than the crowd; kept apart from DemoState
 * (the crowd's settings) and mirrored in the URL beside it.
 */
export interface SceneState {
  scene: SceneKind;
  /** Layers scene: clip of the override layer ('' = the model's default). */
  layerClip: string;
  /** Layers scene: root joint of the override layer's mask ('' = the model's default). */
  layerJoint: string;
  /** Layers scene: override layer weight, [0, 1]. */
  layerWeight: number;
  /** Layers scene: additive layer weight, [0, 1]. */
  additiveWeight: number;
  /** Clips scene: the body beside the two WalkerBody ones, a name of CLIPS_BODIES or of a file dropped on the page. */
  clipsBody: string;
  /** Clips scene: the clip set bound to every body, a name of CLIP_SETS or of a dropped clips file. */
  clipSet: string;
  /** Clips scene: solve the legs of bodies whose leg proportions differ from the clips' (LoadOptions.legSolve). */
  legSolve: boolean;
  /** Stadium scene: where the camera starts (and returns to on "reset camera"). */
  view: StadiumView;
  /** Stadium scene: one spectator in five waves a flag (CrowdProps of chosen instances; the impostors sized for two looks). */
  flags: boolean;
}

export const DEFAULT_SCENE_STATE: Readonly<SceneState> = {
  scene: 'crowd', layerClip: '', layerJoint: '', layerWeight: 0.8, additiveWeight: 0.6,
  clipsBody: 'WalkerStocky', clipSet: 'WalkerClips.glb', legSolve: true, view: 'bowl', flags: false,
};

/**
 * Reads the scene settings from a query string. `?scene=` also picks the model and instance
 * count of that scene unless the URL names them (`crowd` changes nothing). Values that do not
 * parse fall back to the defaults and add a sentence to `problems`.
 */
export function readSceneState(search: string, crowd: DemoState, problems: string[]): SceneState {
  const params = new URLSearchParams(search);
  const state: SceneState = { ...DEFAULT_SCENE_STATE };
  const scene = params.get('scene');
  if (scene !== null) {
    if ((SCENE_KINDS as readonly string[]).includes(scene)) state.scene = scene as SceneKind;
    else problems.push(`URL parameter scene=${scene} must be ${SCENE_KINDS.join(', ')}`);
  }
  if (!params.has('model') && !params.has('modelUrl')) crowd.model = SCENE_DEFAULTS[state.scene].model;
  if (!params.has('instances')) crowd.instances = SCENE_DEFAULTS[state.scene].instances;
  state.layerClip = params.get('layerClip') ?? '';
  state.layerJoint = params.get('layerJoint') ?? '';
  const unit = (key: 'layerWeight' | 'additiveWeight'): void => {
    const raw = params.get(key);
    if (raw === null) return;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) {
      problems.push(`URL parameter ${key}=${raw} is not a number; using the default`);
      return;
    }
    if (value < 0 || value > 1) problems.push(`URL parameter ${key}=${raw} is outside [0, 1]; clamped`);
    state[key] = Math.min(1, Math.max(0, value));
  };
  unit('layerWeight');
  unit('additiveWeight');
  const pick = (key: 'clipsBody' | 'clipSet', names: string[]): void => {
    const raw = params.get(key);
    if (raw === null) return;
    if (names.includes(raw)) state[key] = raw;
    else problems.push(`URL parameter ${key}=${raw} must be one of ${names.join(', ')}; showing ${state[key]}`);
  };
  pick('clipsBody', Object.keys(CLIPS_BODIES));
  pick('clipSet', Object.keys(CLIP_SETS));
  state.legSolve = params.get('legSolve') !== '0';
  const view = params.get('view');
  if (view !== null) {
    if ((STADIUM_VIEWS as readonly string[]).includes(view)) state.view = view as StadiumView;
    else problems.push(`URL parameter view=${view} must be ${STADIUM_VIEWS.join(' or ')}`);
  }
  const flags = params.get('flags');
  if (flags !== null) {
    if (flags === '1' || flags === '0') state.flags = flags === '1';
    else problems.push(`URL parameter flags=${flags} must be 1 or 0`);
  }
  return state;
}

/** Adds the scene settings to URL parameters (the layer settings only in the layers scene, the picks only in the clips scene, a dropped file's never; a stadium view but the bowl, and the flags when on, only in the stadium). */
export function writeSceneParams(params: URLSearchParams, state: SceneState): void {
  params.set('scene', state.scene);
  if (state.scene === 'clips') {
    if (state.clipsBody !== DEFAULT_SCENE_STATE.clipsBody && state.clipsBody in CLIPS_BODIES) params.set('clipsBody', state.clipsBody);
    if (state.clipSet !== DEFAULT_SCENE_STATE.clipSet && state.clipSet in CLIP_SETS) params.set('clipSet', state.clipSet);
    if (!state.legSolve) params.set('legSolve', '0');
  }
  if (state.scene === 'stadium' && state.view !== DEFAULT_SCENE_STATE.view) params.set('view', state.view);
  if (state.scene === 'stadium' && state.flags) params.set('flags', '1');
  if (state.scene !== 'layers') return;
  if (state.layerClip) params.set('layerClip', state.layerClip);
  if (state.layerJoint) params.set('layerJoint', state.layerJoint);
  params.set('layerWeight', String(Math.round(state.layerWeight * 1000) / 1000));
  params.set('additiveWeight', String(Math.round(state.additiveWeight * 1000) / 1000));
}
