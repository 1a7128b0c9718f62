import {
  Crowd, CrowdControllers, CrowdMorph, CrowdPicking, CrowdProps, CrowdRootMotion, defaultControllerConfig, loadCharacter, parseControllerConfig,
  type AppearanceImage, type Character, type ControllerConfig, type CrowdOptions, type MaskId,
} from '../src/index';
import { AppearanceSpread, loadVariantImages } from './appearance';
import { MODELS } from './models';
import { Population } from './population';

/** Where a scene's model came from: a name from MODELS, or a URL (then `model` is ''). */
export interface SceneSource {
  model: string;
  url: string;
}

/**
 * One loaded character, its crowd on the device and what the scenes share on that crowd: the
 * crowd scene's placement of instances, blend masks by root joint (the crowd keeps masks for
 * its life, so each is made once), the animation controllers and the props (each made on first
 * use), the features the character needs (morph targets and root motion) and picking (click and
 * box selection), made with the crowd.
 */
export class Scene {
  readonly population: Population;
  /** The appearance control's spread of tints, variants and parts (its CrowdAppearance is made when first turned on). */
  readonly appearance: AppearanceSpread;
  private readonly masks = new Map<string, MaskId>();
  private controllersValue: CrowdControllers | undefined;
  private propsValue: CrowdProps | undefined;

  constructor(
    readonly label: string, readonly source: SceneSource, readonly character: Character, readonly crowd: Crowd, readonly picking: CrowdPicking,
    /** The model's controller config, or one derived from its clip names. */
    readonly controllerConfig: ControllerConfig,
    /** Why the model's controller config file was not used, if it was not. */
    readonly configProblem = '',
    variants: readonly AppearanceImage[] = [],
  ) {
    this.population = new Population(crowd, character);
    this.appearance = new AppearanceSpread(crowd, character, variants);
  }

  /** Bytes of the baked lookup tables (the same figure BENCHMARKS.md reports). */
  get bakedBytes(): number {
    return this.character.bakedBytes;
  }

  /** The mask of `joint` and every joint below it (made on the first call for that joint). */
  mask(joint: string): MaskId {
    let id = this.masks.get(joint);
    if (id === undefined) {
      id = this.crowd.createMask({ root: joint });
      this.masks.set(joint, id);
    }
    return id;
  }

  /** Props on the crowd's joints (the held sword). */
  get props(): CrowdProps {
    this.propsValue ??= new CrowdProps(this.crowd);
    return this.propsValue;
  }

  /** The crowd's animation controllers (one set per crowd: their masks live as long as it). */
  get controllers(): CrowdControllers {
    this.controllersValue ??= new CrowdControllers(this.crowd, this.controllerConfig);
    return this.controllersValue;
  }

  destroy(): void {
    this.crowd.destroy();
  }
}

export interface SceneLoadOptions {
  crowd: CrowdOptions;
  onProgress: (loaded: number, total: number) => void;
  signal: AbortSignal;
}

/**
 * Downloads, bakes and uploads a character, and fetches its controller config where MODELS
 * names one. Throws with a readable reason when the file is missing or not a usable glTF, or
 * when creating its GPU objects raises a validation or out-of-memory error (caught with error
 * scopes, so a bad model never reaches the frame loop). A bad controller config is not fatal:
 * the scene gets a config derived from the clip names and says why in `configProblem`.
 */
export async function loadScene(device: GPUDevice, label: string, source: SceneSource, options: SceneLoadOptions): Promise<Scene> {
  const character = await loadCharacter(source.url, { ...MODELS[source.model]?.load, onProgress: options.onProgress, signal: options.signal });
  const { config, problem } = await loadControllerConfig(MODELS[source.model]?.controllerUrl, character.clipNames, options.signal);
  const variants = await loadVariantImages(MODELS[source.model]?.variants ?? [], options.signal);
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  let crowd: Crowd | undefined;
  let picking: CrowdPicking | undefined;
  let thrown: unknown;
  try {
    crowd = new Crowd(device, character, options.crowd);
    if (character.morphTargets.length > 0) new CrowdMorph(crowd);
    if (character.rootMotion?.mode === 'apply') new CrowdRootMotion(crowd);
    picking = new CrowdPicking(crowd);
  } catch (error) {
    thrown = error;
  }
  // Both pops are issued before awaiting, so no other work lands in these scopes.
  const [memory, validation] = await Promise.all([device.popErrorScope(), device.popErrorScope()]);
  const gpuError = memory ?? validation;
  if (thrown || gpuError || !crowd || !picking) {
    crowd?.destroy();
    if (thrown) throw thrown;
    throw new Error(`the GPU rejected the model's buffers or pipelines: ${gpuError?.message ?? 'unknown error'}`);
  }
  return new Scene(label, source, character, crowd, picking, config, problem, variants);
}

async function loadControllerConfig(url: string | undefined, clipNames: readonly string[], signal: AbortSignal): Promise<{ config: ControllerConfig; problem: string }> {
  if (url) {
    try {
      const response = await fetch(url, { signal });
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      return { config: parseControllerConfig(await response.json(), clipNames, url.split('/').pop()), problem: '' };
    } catch (error) {
      if (signal.aborted) throw error;
      return { config: derivedConfig(clipNames), problem: `${url}: ${(error as Error).message}; using a config derived from the clip names` };
    }
  }
  return { config: derivedConfig(clipNames), problem: '' };
}

/** A config from the clip names; an empty one (no locomotion, no actions) for names it cannot take. */
function derivedConfig(clipNames: readonly string[]): ControllerConfig {
  try {
    return defaultControllerConfig(clipNames);
  } catch {
    return parseControllerConfig({}, clipNames);
  }
}
