import type { Character } from '../../character/character';
import type { Crowd } from '../../runtime/crowd';
import type { InstanceId, MorphWeights } from '../../runtime/crowd-types';
import type { CrowdFeature, FeatureStage, CrowdKernel } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import { MESH_ONLY_MORPH, MORPH_ANIMATED } from '../../runtime/layout';
import { MorphPass } from './morph-pass';
import { MorphStore } from './morph-store';

/**
 * Morph targets, a crowd feature: `const morph = new CrowdMorph(crowd)` for a character with morph
 * targets (Character.morphTargets). From then on the morph pass writes every instance's weights
 * each frame, from its clips' weight channels (the same blend and layers as its joints) and its
 * overrides, and the skin and shadow passes deform the mesh by them (skin.wgsl `morph`). Without
 * it the crowd draws the mesh undeformed. This class resolves target names, validates every
 * weight before anything changes, and writes the overrides into the MorphStore it attaches to the
 * instance store (morph-store.ts), which keeps them slot by slot with the records.
 */
export class CrowdMorph implements CrowdFeature {
  readonly featureName = 'morph';
  /** @internal The overrides and weights, slot by slot beside the instance records. */
  readonly store: MorphStore;
  /** Padded weight index of each target, in Character.morphTargets order. */
  private readonly indices: Uint32Array;
  private readonly byName = new Map<string, number[]>();
  /** Scratch of a whole instance's overrides: validated values go here before they are written. */
  private readonly scratch: Float32Array;
  private readonly kernel: CrowdKernel;
  private readonly character: Character;
  private readonly instances: InstanceStore;
  private pass: MorphPass | undefined;

  /** Installs morph targets on `crowd`; a RangeError when its character has none. */
  constructor(crowd: Crowd) {
    const character = crowd.character;
    const morph = character.baked.morph;
    if (!morph) throw new RangeError(`${character.name} has no morph targets`);
    this.character = character;
    const rig = character.rig;
    this.indices = Uint32Array.from(rig.morphs.flatMap((set, m) => set.targetNames.map((_, t) => morph.setBase[m] + t)));
    character.morphTargets.forEach(({ mesh, name }, i) => {
      for (const key of [name, `${mesh}/${name}`]) this.byName.set(key, [...(this.byName.get(key) ?? []), i]);
    });
    this.scratch = new Float32Array(morph.weightCount);
    this.kernel = crowd.install(this);
    this.instances = this.kernel.store;
    this.store = new MorphStore(this.kernel.device, morph.weightCount, this.instances.capacity);
    this.instances.attach(this.store);
    // The kernel's mesh gets its morph buffers, and its skin and shadow passes the weights.
    this.kernel.rebuildPasses();
  }

  /** CrowdFeature: the weights the skin and shadow passes read (weightCount f32 per slot; replaced on growth). */
  get vertexWeights(): GPUBuffer {
    return this.store.weightBuffer;
  }

  /** CrowdFeature: the morph pass on the kernel's device (construction, restore, skinning change). */
  passesCreated(device: GPUDevice): void {
    this.pass?.destroy();
    this.pass = new MorphPass(device, this.character.baked, this.character.gpu.nodeCount);
  }

  /** CrowdFeature: the weights of this frame, before the pose pass. */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage): void {
    if (stage !== 'before-pose') return;
    this.pass ??= new MorphPass(this.kernel.device, this.character.baked, this.character.gpu.nodeCount);
    this.pass.update(this.instances, this.store, this.kernel.clock);
    this.pass.encode(encoder);
  }

  /** CrowdFeature: frees the morph pass (the store's weights go with the instance store). */
  destroy(): void {
    this.pass?.destroy();
  }

  /**
   * Overrides instance `id`'s morph weights: `{ Angry: 1, Sad: 0.3 }` (target names, or
   * "mesh/target" where two meshes share a name) sets those targets and keeps the others as they
   * were; an array sets every target in Character.morphTargets order. A weight in [0, 1] replaces
   * the animated one until changed; null (or undefined; NaN in an array) gives the target back to
   * its clips; `null` for the whole argument gives every target back. A weight outside [0, 1], an
   * unknown target or an array of the wrong length throws a RangeError naming it, and nothing changes.
   */
  set(id: InstanceId, weights: MorphWeights | null): void {
    const slot = this.instances.slotOfId(id);
    const out = this.scratch;
    const targets = this.character.morphTargets;
    if (weights === null) {
      out.fill(MORPH_ANIMATED);
    } else if (isArrayLike(weights)) {
      if (weights.length !== targets.length) {
        throw new RangeError(`morph weights must have ${targets.length} numbers (one per Character.morphTargets: ${this.names()}), got ${weights.length}`);
      }
      out.fill(MORPH_ANIMATED);
      for (let i = 0; i < targets.length; i++) {
        const w = weights[i];
        out[this.indices[i]] = Number.isNaN(w) ? MORPH_ANIMATED : checkWeight(w, `${targets[i].mesh}/${targets[i].name}`);
      }
    } else if (typeof weights === 'object') {
      out.set(this.store.overridesOf(slot));
      for (const [key, w] of Object.entries(weights)) out[this.indices[this.target(key)]] = w === null || w === undefined ? MORPH_ANIMATED : checkWeight(w, key);
    } else {
      throw new TypeError(`morph weights must be an object of target names, an array of ${targets.length} numbers, or null, got ${typeof weights}`);
    }
    this.store.setOverrides(slot, out);
    this.markOverridden(id, slot);
  }

  /** Sets one target's weight (null: animated) of instance `id`. Allocation-free. */
  setOne(id: InstanceId, target: string | number, weight: number | null): void {
    const slot = this.instances.slotOfId(id);
    const i = this.target(target);
    const t = this.character.morphTargets[i];
    const value = weight === null || Number.isNaN(weight) ? MORPH_ANIMATED : checkWeight(weight, `${t.mesh}/${t.name}`);
    this.store.setOverride(slot, this.indices[i], value);
    this.markOverridden(id, slot);
  }

  /**
   * An instance with weights of its own is drawn only as a mesh (InstanceStore.setMeshOnly): the
   * impostor atlas holds the clips' weights (docs/impostors.md, Morph targets), so its impostor
   * would show them instead. Given back to its clips, it may be an impostor again.
   */
  private markOverridden(id: InstanceId, slot: number): void {
    this.instances.setMeshOnly(this.instances.handle(id), MESH_ONLY_MORPH, this.store.hasOverrides(slot));
  }

  /** Instance `id`'s overrides in Character.morphTargets order (NaN where its clips set the weight) into `out`. */
  get(id: InstanceId, out: Float32Array = new Float32Array(this.character.morphTargets.length)): Float32Array {
    const overrides = this.store.overridesOf(this.instances.slotOfId(id));
    for (let i = 0; i < this.indices.length; i++) {
      const w = overrides[this.indices[i]];
      out[i] = w === MORPH_ANIMATED ? NaN : w;
    }
    return out;
  }

  /** Index in Character.morphTargets of a target name, "mesh/target", or index; a RangeError naming the targets otherwise. */
  target(target: string | number): number {
    const count = this.character.morphTargets.length;
    if (typeof target === 'number') {
      if (Number.isInteger(target) && target >= 0 && target < count) return target;
      throw new RangeError(`morph target ${target} does not exist (the character has ${count}: ${this.names()})`);
    }
    const found = this.byName.get(target);
    if (!found) throw new RangeError(`no morph target ${JSON.stringify(target)} in ${this.character.name} (morph targets: ${this.names()})`);
    if (found.length > 1) {
      const t = this.character.morphTargets;
      throw new RangeError(`morph target name ${JSON.stringify(target)} is used by several meshes: write ${found.map((i) => JSON.stringify(`${t[i].mesh}/${t[i].name}`)).join(' or ')}`);
    }
    return found[0];
  }

  private names(): string {
    return this.character.morphTargets.map((t) => `${t.mesh}/${t.name}`).join(', ');
  }
}

function isArrayLike(value: unknown): value is ArrayLike<number> {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

/** `w` when it is a number in [0, 1]; else a RangeError naming the target. */
function checkWeight(w: unknown, target: string): number {
  if (typeof w !== 'number' || !(w >= 0 && w <= 1)) {
    throw new RangeError(`morph weight ${JSON.stringify(target)} must be in [0, 1] (or null to follow the animation), got ${typeof w === 'number' ? w : JSON.stringify(w)}`);
  }
  return w;
}
