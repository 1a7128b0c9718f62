import type { Character } from '../character/character';
import type { AppearanceSource } from './appearance-groups';
import type { CrowdOptions } from './crowd-types';
import type { Visibility } from './culling/visibility';
import type { InstanceStore } from './instance-store';
import type { SkinningMethod } from './layout';
import { copyLights, lightOptionsOf, resolveLights, type LightOptions } from './lights';
import { MeshBuffers } from './mesh-buffers';
import { PosePass } from './pose-pass';
import { SkinPass } from './skin-pass';

/**
 * The kernel's GPU objects over the store: the mesh buffers, the pose and skin passes, and the
 * Visibility's cull, stats and shadow passes. Made together and re-made together (restore, a new
 * skinning method, a feature that changes what they bind), so that a failure while making them (a
 * device limit) frees those already made and leaves nothing behind. Owned by the Crowd.
 */
export class KernelPasses {
  mesh!: MeshBuffers;
  pose!: PosePass;
  skin!: SkinPass;
  /** Store generation the skin pass is bound to (-1: never). */
  private skinGeneration = -1;
  /** The lights last set by setLights (undefined: CrowdOptions.lights), which re-made passes keep. */
  private lights: LightOptions | undefined;

  constructor(private readonly character: Character, private readonly options: CrowdOptions, private readonly view: Visibility) {}

  /**
   * Replaces every light (CrowdOptions.lights' rules: omitted parts take their defaults). Checks
   * `options` first and throws naming the wrong field, changing nothing; otherwise the skin pass
   * shades with them from its next update() and the shadow map follows the new sun. A new
   * environment is prefiltered here (an event), not per frame.
   */
  setLights(options: LightOptions): void {
    const resolved = resolveLights(options);
    // The same image at the same intensity keeps its prefiltered map: a sun moved every frame
    // must not prefilter the environment every frame (a new image object does prefilter).
    const current = this.skin.lights.environment;
    if (resolved.environment?.image === current?.image && resolved.environment?.intensity === current?.intensity) resolved.environment = current;
    else this.skin.setEnvironment(resolved.environment);
    copyLights(resolved, this.skin.lights);
    this.lights = lightOptionsOf(resolved);
  }

  /**
   * Makes every pass on `device`. `withMorph`: the mesh keeps its morph deltas (a feature provides
   * the per-slot weights that scale them); otherwise it is drawn undeformed. `appearance`: a
   * feature's per-instance appearance (CrowdFeature.appearance), drawn through skin.wgsl's group 3.
   */
  create(device: GPUDevice, skinning: SkinningMethod, withMorph: boolean, appearance?: AppearanceSource): void {
    const { gpu, rig, textures, baked } = this.character;
    const made: { destroy(): void }[] = [];
    const own = <T extends { destroy(): void }>(object: T): T => {
      made.push(object);
      return object;
    };
    try {
      this.mesh = own(new MeshBuffers(device, rig.primitives, gpu.skinSlotOffset, this.character.lods?.indices, withMorph ? baked.morph : undefined, this.character.drawOrder));
      this.pose = own(new PosePass(device, gpu, { skinning }));
      this.skin = own(new SkinPass(device, this.mesh, gpu.slotCount, textures, { ...this.options, lights: this.lights ?? this.options.lights, skinning, appearance }));
      this.view.create(device, this.mesh, this.skin, own);
    } catch (error) {
      for (let i = made.length - 1; i >= 0; i--) made[i].destroy();
      throw error;
    }
    this.skinGeneration = -1;
  }

  /** Frees what create made (a no-op for objects of a lost device). */
  destroy(): void {
    this.pose.destroy();
    this.skin.destroy();
    this.view.destroy();
    this.mesh.destroy();
  }

  /** Points the skin pass at the store's buffers when they were replaced (growth, restore) since it was last bound. */
  bindSkin(store: InstanceStore, vertexWeights: GPUBuffer | undefined): void {
    if (this.skinGeneration === store.generation) return;
    this.skin.bind(store, vertexWeights);
    this.skinGeneration = store.generation;
  }
}
