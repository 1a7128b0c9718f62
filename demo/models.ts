/** The models the demo offers, where they are served from and the clips shown first. */
export interface ModelEntry {
  url: string;
  /** Default clip pair: walking and running where the model has them. */
  clipA: string;
  clipB: string;
}

const base = import.meta.env.BASE_URL;

export const MODELS: Record<string, ModelEntry> = {
  Fox: { url: `${base}models/Fox/Fox.glb`, clipA: 'Walk', clipB: 'Run' },
  CesiumMan: { url: `${base}models/CesiumMan/CesiumMan.glb`, clipA: 'clip0', clipB: 'clip0' },
  RobotExpressive: { url: `${base}models/RobotExpressive/RobotExpressive.glb`, clipA: 'Walking', clipB: 'Running' },
};

export const MODEL_NAMES = Object.keys(MODELS);
export const DEFAULT_MODEL = 'Fox';
