import type { Character } from '../../character/character';
import type { InstanceStore } from '../../runtime/instance-store';
import { MORPH_ANIMATED } from '../../runtime/layout';
import { MorphStore } from './morph-store';

/**
 * Per-instance morph weights as a Crowd's API takes them: by target name, as "mesh/target", or
 * as one number per target in Character.morphTargets order. A weight in [0, 1] replaces the
 * animated one; null, undefined (or NaN in the array form) gives the target back to the animation.
 */
export type MorphWeights = Readonly<Record<string, number | null | undefined>> | ArrayLike<number>;

/**
 * The morph side of a Crowd (the facade keeps one when its character has morph targets): resolves
 * target names, validates every weight before anything changes, and writes the overrides of the
 * MorphStore it attaches to the instance store (src/features/morph/morph-store.ts).
 */
export class CrowdMorph {
  readonly store: MorphStore;
  /** Padded weight index of each target, in Character.morphTargets order. */
  private readonly indices: Uint32Array;
  private readonly byName = new Map<string, number[]>();
  /** Scratch of a whole instance's overrides: validated values go here before they are written. */
  private readonly scratch: Float32Array;

  constructor(private readonly character: Character, private readonly instances: InstanceStore, device: GPUDevice) {
    const morph = character.baked.morph!;
    const rig = character.rig;
    this.indices = Uint32Array.from(rig.morphs.flatMap((set, m) => set.targetNames.map((_, t) => morph.setBase[m] + t)));
    character.morphTargets.forEach(({ mesh, name }, i) => {
      for (const key of [name, `${mesh}/${name}`]) this.byName.set(key, [...(this.byName.get(key) ?? []), i]);
    });
    this.scratch = new Float32Array(morph.weightCount);
    this.store = new MorphStore(device, morph.weightCount, instances.capacity);
    instances.attach(this.store);
  }

  /** Applies `weights` to instance `id` (see MorphWeights; null: every target animated). Throws, changing nothing, on a bad entry. */
  set(id: number, weights: MorphWeights | null): void {
    const slot = this.instances.slot(id);
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
  }

  /** Sets one target's weight (null: animated) of instance `id`. Allocation-free. */
  setOne(id: number, target: string | number, weight: number | null): void {
    const slot = this.instances.slot(id);
    const i = this.target(target);
    const t = this.character.morphTargets[i];
    const value = weight === null || Number.isNaN(weight) ? MORPH_ANIMATED : checkWeight(weight, `${t.mesh}/${t.name}`);
    this.store.setOverride(slot, this.indices[i], value);
  }

  /** Instance `id`'s overrides in Character.morphTargets order (NaN where animated) into `out`. */
  get(id: number, out: Float32Array): Float32Array {
    const overrides = this.store.overridesOf(this.instances.slot(id));
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
