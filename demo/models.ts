import type { LoadOptions } from '../src/index';

/** The models the demo offers, where they are served from and the clips shown first. */
export interface ModelEntry {
  url: string;
  /** Load options the model needs (the Walker's clips carry root motion, taken out to walk in place). */
  load?: Pick<LoadOptions, 'rootMotion'>;
  /** Default clip pair: walking and running where the model has them. */
  clipA: string;
  clipB: string;
  /** The model's animation-controller config (public/models/<Name>/<Name>.controller.json), if it has one. */
  controllerUrl?: string;
  /** What the layers scene shows first (see LayerDefaults). */
  layers?: LayerDefaults;
  /** The joint the locomotion scene's characters hold a sword in (CrowdProps.attach), if any. */
  hand?: string;
  /** Clips files read once with loadClips; the one library is bound to this body and to every body `beside` (docs/clips.md). */
  clips?: string[];
  /**
   * Other MODELS loaded beside this one, each with its own crowd in the same view, bound to this
   * entry's clip library. In the clips scene the last one is the body picked (CLIPS_BODIES) and the
   * library the clip set picked (CLIP_SETS).
   */
  beside?: string[];
  /** Base-colour variant images for the appearance control (CrowdAppearance options.variants), if any. */
  variants?: string[];
}

/**
 * The layers scene's stack for a model: a walk, an override layer on the upper body and an
 * additive layer (a clip playing minus that clip frozen at time 0, so the motion of the clip
 * is added on top of whatever the lower layers do) on the head.
 */
export interface LayerDefaults {
  base: string;
  overlay: string;
  overlayJoint: string;
  additive: string;
  additiveJoint: string;
}

const base = import.meta.env.BASE_URL;

export const MODELS: Record<string, ModelEntry> = {
  Fox: {
    url: `${base}models/Fox/Fox.glb`, clipA: 'Walk', clipB: 'Run', controllerUrl: `${base}models/Fox/Fox.controller.json`,
    layers: { base: 'Walk', overlay: 'Survey', overlayJoint: 'b_Neck_04', additive: 'Run', additiveJoint: 'b_Neck_04' },
  },
  CesiumMan: { url: `${base}models/CesiumMan/CesiumMan.glb`, clipA: 'clip0', clipB: 'clip0' },
  RobotExpressive: {
    url: `${base}models/RobotExpressive/RobotExpressive.glb`, clipA: 'Walking', clipB: 'Running',
    controllerUrl: `${base}models/RobotExpressive/RobotExpressive.controller.json`,
    layers: { base: 'Walking', overlay: 'Wave', overlayJoint: 'Torso', additive: 'Yes', additiveJoint: 'Neck' },
    hand: 'Palm2.R',
  },
  // Only the walks' mean travel taken out: moved at their speed (controllers, steering), they plant their feet.
  Walker: {
    url: `${base}models/Walker/Walker.glb`, clipA: 'WalkForward', clipB: 'RunForward', load: { rootMotion: { mode: 'in-place', translation: 'mean-velocity' } },
    controllerUrl: `${base}models/Walker/Walker.controller.json`,
    layers: { base: 'WalkForward', overlay: 'Wave', overlayJoint: 'Chest', additive: 'RunForward', additiveJoint: 'Neck' },
    hand: 'Hand.R',
  },
  // The Walker's body and a stocky body (other proportions, the same joint names), both without
  // clips of their own: one library of WalkerClips.glb is bound to both (the stocky body's clips
  // retargeted). Loading WalkerBody brings beside it a second WalkerBody (the same skeleton, so it
  // shares the first one's tables) and WalkerStocky (its own, retargeted): the clips scene.
  WalkerBody: {
    url: `${base}models/Walker/WalkerBody.glb`, clipA: 'WalkForward', clipB: 'RunForward', load: { rootMotion: { mode: 'in-place' } },
    controllerUrl: `${base}models/Walker/Walker.controller.json`, clips: [`${base}models/Walker/WalkerClips.glb`], beside: ['WalkerBody', 'WalkerStocky'],
    layers: { base: 'WalkForward', overlay: 'Wave', overlayJoint: 'Chest', additive: 'RunForward', additiveJoint: 'Neck' },
    hand: 'Hand.R',
  },
  WalkerStocky: {
    url: `${base}models/Walker/WalkerStocky.glb`, clipA: 'WalkForward', clipB: 'RunForward', load: { rootMotion: { mode: 'in-place' } },
    controllerUrl: `${base}models/Walker/Walker.controller.json`, clips: [`${base}models/Walker/WalkerClips.glb`],
    layers: { base: 'WalkForward', overlay: 'Wave', overlayJoint: 'Chest', additive: 'RunForward', additiveJoint: 'Neck' },
    hand: 'Hand.R',
  },
  Mannequin: {
    url: `${base}models/Mannequin/Mannequin.glb`, clipA: 'WalkForward', clipB: 'RunForward', load: { rootMotion: { mode: 'in-place' } },
    variants: [`${base}models/Mannequin/Mannequin.variant1.png`, `${base}models/Mannequin/Mannequin.variant2.png`],
  },
};

export const MODEL_NAMES = Object.keys(MODELS);

/** A body the clips scene's body picker offers: where it is served from and how it loads. */
export interface ClipsBody {
  url: string;
  /** Load options (root motion taken out, so the bodies walk in place side by side). */
  load: Pick<LoadOptions, 'rootMotion'>;
}

const inPlace: ClipsBody['load'] = { rootMotion: { mode: 'in-place' } };
const walker = (file: string): ClipsBody => ({ url: `${base}models/Walker/${file}`, load: inPlace });

/**
 * The clips scene's bodies (docs/demo.md): the humanoid bodies the project has, none with clips
 * of its own but the Mannequin (npm run make-walker writes the Walker's; docs/retargeting.md), and
 * the Fox, which has no humanoid: a humanoid clip set is refused on it, naming both skeletons.
 */
export const CLIPS_BODIES: Record<string, ClipsBody> = {
  WalkerStocky: walker('WalkerStocky.glb'),
  WalkerVRoid: walker('WalkerVRoid.glb'),
  WalkerMixamo: walker('WalkerMixamo.glb'),
  WalkerSpine: walker('WalkerSpine.glb'),
  WalkerLegs: walker('WalkerLegs.glb'),
  WalkerBack: walker('WalkerBack.glb'),
  Mannequin: { url: `${base}models/Mannequin/Mannequin.glb`, load: inPlace },
  Fox: { url: `${base}models/Fox/Fox.glb`, load: {} },
};

/**
 * The clips scene's clip sets: clips files of public/models read with loadClips, bound to every
 * body of the scene with no options. Walker.glb and Mannequin.glb are bodies with clips (read for
 * their clips only); Fox.glb's clips match no humanoid and are refused on the Walker's bodies.
 */
export const CLIP_SETS: Record<string, string> = {
  'WalkerClips.glb': `${base}models/Walker/WalkerClips.glb`,
  'WalkerClipsMixamo.glb': `${base}models/Walker/WalkerClipsMixamo.glb`,
  'Walker.glb': `${base}models/Walker/Walker.glb`,
  'Mannequin.glb': `${base}models/Mannequin/Mannequin.glb`,
  'Fox.glb': `${base}models/Fox/Fox.glb`,
};
export const DEFAULT_MODEL = 'Fox';
