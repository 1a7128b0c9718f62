import { CrowdControllers, type Character, type ControllerConfig, type Crowd, type CrowdPicking, type GLCrowd, type MaskId, type AppearanceImage } from '../src/index';
import { AppearanceSpread } from './appearance';
import type { SceneSource } from './scene';

/** A crowd of either backend: Crowd (WebGPU) or GLCrowd (WebGL 2), the same instance API (CrowdInstances). */
export type AnyCrowd = Crowd | GLCrowd;

/**
 * What the layers, locomotion and steering scenes use of a loaded model, on either backend: its
 * character and crowd, picking (made with the crowd), the controller config, blend masks by root
 * joint (the crowd keeps masks for its life, so each is made once), the animation controllers
 * (made on first use: CPU-driven on WebGL 2, GPU-driven by default on WebGPU) and the appearance
 * control. The WebGPU demo's Scene extends it with what needs WebGPU (props, several bodies drawn
 * in one render pass); the WebGL 2 demo (gl-app.ts) makes one over its GLCrowd.
 */
export class SceneModel<C extends AnyCrowd = AnyCrowd> {
  /** The appearance control's spread of tints, variants and parts (its CrowdAppearance is made when first used). */
  readonly appearance: AppearanceSpread;
  private readonly masks = new Map<string, MaskId>();
  private controllersValue: CrowdControllers | undefined;

  constructor(
    readonly label: string, readonly source: SceneSource, readonly character: Character, readonly crowd: C, readonly picking: CrowdPicking,
    /** The model's controller config, or one derived from its clip names. */
    readonly controllerConfig: ControllerConfig,
    /** Why the model's controller config file was not used, if it was not. */
    readonly configProblem = '',
    /** Base-colour variant images for the appearance control (ModelEntry.variants). */
    variants: readonly AppearanceImage[] = [],
  ) {
    this.appearance = new AppearanceSpread(crowd, character, variants);
  }

  /** Which backend the crowd runs on ('webgl2': no GPU-driven controllers, props or steering's locomotion channel; docs/webgl2.md). */
  get backend(): 'webgpu' | 'webgl2' {
    return this.crowd.backend;
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

  /** The crowd's animation controllers (one set per crowd: their masks live as long as it). */
  get controllers(): CrowdControllers {
    this.controllersValue ??= new CrowdControllers(this.crowd, this.controllerConfig);
    return this.controllersValue;
  }
}
