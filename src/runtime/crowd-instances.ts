import { buildMask, type MaskSpec } from '../anim/masks';
import type { Character } from '../character/character';
import { IDENTITY_MATRIX } from '../math/affine';
import { show } from '../math/show';
import { isLayerStackArrays, type LayerStackArrays, type LayerStackInit, type MaskId } from '../anim/layer-stack';
import type { AnimationState, InstanceId, InstanceInit } from './crowd-types';
import { FeatureList } from './feature';
import { ANIMATION_FIELDS, checkFields, checkObject, clipOf, INIT_FIELDS, resolveAnimation, stripUndefined } from './input';
import { checkLayerStackArrays, requireLayerStackArrays, resolveLayers, writeLayerStackArrays } from './layer-input';
import type { InstanceAnimation } from './instance-records';
import type { InstanceStore } from './instance-store';
import { addMany, type BulkInit } from './bulk-add';
import { LAYERS_NONE } from './layout';
import { checkFinite } from './record-buffer';
import type { RecordBufferLike } from './record-device';

/**
 * The GPU clock restarts from 0 past this many seconds: it keeps the passes' tick count well
 * inside an i32 (MAX_GPU_CLOCK_SECONDS, src/runtime/clip-clock.ts; clip times themselves are
 * exact at any clock) and the features' float32 times since their anchors short.
 */
const CLOCK_REBASE_SECONDS = 600;

/**
 * The instance half of a crowd's public surface, one copy for both backends: Crowd (WebGPU,
 * src/runtime/crowd.ts) and GLCrowd (WebGL 2, src/webgl2/gl-crowd.ts) extend it. It resolves
 * clip names and validates (input.ts, layer-input.ts), then writes the InstanceStore's records
 * and calls the features' per-instance hooks; the crowd clock and its rebase are here too. What
 * differs between the backends (the passes, the frame, the device) is the subclass's. A refused
 * call throws an error naming the input (`no clip "Jog" in Fox.glb (clips: ...)`, `blend must
 * be in [0, 1], got 1.5`) and leaves the crowd as it was. `B` is the store's buffer type
 * (GPUBuffer on WebGPU, a record texture on WebGL 2).
 */
export abstract class CrowdInstances<B extends RecordBufferLike = GPUBuffer> {
  /** The loaded character every instance shows (not copied; share it between crowds). */
  abstract readonly character: Character;
  /** Records, stacks, masks, ids and slots (the subclass makes it on its device). */
  protected abstract readonly store: InstanceStore<B>;
  /** The installed features, called through their hooks in install order. */
  protected readonly features = new FeatureList();
  /** Crowd clock in seconds since the last rebase. */
  protected clockSeconds = 0;
  /** Whether advance() has checked that the features the character needs are installed (a subclass that checks them itself sets it). */
  protected needsChecked = false;
  /** setPlacement's world, read back for the features that follow placements. */
  private readonly placed = new Float32Array(16);

  /** Adds an instance; unspecified fields default to clip 0, time 0, speed 1, blend 0. Everything is checked before the crowd changes (or grows). */
  add(init: InstanceInit = {}): InstanceId {
    checkObject(init, 'init', '{ clipA, clipB, timeA, timeB, speedA, speedB, blend, transform }');
    checkFields(init, INIT_FIELDS, 'add');
    const { transform, ...animation } = init;
    const resolved = resolveAnimation(this.character, {
      clipA: 0, clipB: animation.clipA ?? 0, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0, ...stripUndefined(animation),
    });
    const world = transform === undefined ? IDENTITY_MATRIX : transform;
    this.store.records.checkWorld(world);
    this.store.records.checkAnimation(resolved);
    const handle = this.store.add(), slot = this.store.slot(handle);
    this.store.records.setWorld(slot, world);
    this.store.records.setAnimation(slot, resolved, this.clockSeconds);
    this.features.added(handle, slot, world);
    return this.store.idOf(handle);
  }

  /** Adds `init.count` instances from typed arrays (BulkInit), checked whole first; their ids go into `out` (made when absent), which it returns. */
  addMany(init: BulkInit, out?: Float64Array): Float64Array { return addMany(this.store, this.character, this.features, this.clockSeconds, init, out); }

  /** Removes an instance; its id is refused from then on (a later add gets another id, even where it reuses the instance's room). */
  remove(id: InstanceId): void {
    const handle = this.store.handle(id);
    this.store.remove(handle);
    this.features.removed(handle);
  }

  /** Removes every instance (their ids are refused from then on). */
  clear(): void {
    const live = this.features.removesOneByOne ? this.store.liveHandles() : [];
    this.store.clear();
    this.features.cleared(live);
  }

  /**
   * The instance's model-to-world transform now (16 numbers, column-major) into `out`. An
   * instance that a feature moves (root motion) is where it has carried it, rounded to float32.
   */
  getTransform(id: InstanceId, out: Float32Array = new Float32Array(16)): Float32Array {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    if (!(out instanceof Float32Array) || out.length < 16) {
      throw new TypeError(`out must be a Float32Array of at least 16 numbers, got ${out instanceof Float32Array ? out.length : show(out)}`);
    }
    return this.features.transformAt(handle, slot, this.clockSeconds, out) ?? this.store.records.getWorld(slot, out);
  }

  /** Sets an instance's model-to-world transform: 16 numbers, column-major. An instance that moves by root motion walks on from there. */
  setTransform(id: InstanceId, transform: ArrayLike<number>): void {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    this.store.records.setWorld(slot, transform);
    this.features.placed(handle, slot, transform);
  }

  /**
   * Instance `id`'s model-to-world transform in float64 (16 numbers, column-major) into `out`,
   * `ahead` seconds from now (default 0) if nothing changes it: for gameplay queries (where is it,
   * where will it be). An instance that a feature moves answers in closed form (root motion).
   */
  worldTransform(id: InstanceId, out: Float64Array = new Float64Array(16), ahead = 0): Float64Array {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    checkFinite(ahead, 'ahead');
    if (this.features.transformAt(handle, slot, this.clockSeconds + ahead, out)) return out;
    out.set(this.store.records.getWorld(slot, this.placed));
    return out;
  }

  /** Places an instance at (x, y, z) turned `yaw` radians about +y (0 faces +z), uniformly scaled. Allocation-free. */
  setPlacement(id: InstanceId, x: number, y: number, z: number, yaw: number, scale = 1): void {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    this.store.records.setPlacement(slot, x, y, z, yaw, scale);
    if (this.features.followsPlacement) this.features.placed(handle, slot, this.store.records.getWorld(slot, this.placed));
  }

  /** Changes any subset of an instance's animation; the rest keeps playing as it was. */
  setAnimation(id: InstanceId, change: Partial<AnimationState>): void {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    checkObject(change, 'change', '{ clipA, clipB, timeA, timeB, speedA, speedB, blend } (any subset)');
    checkFields(change, ANIMATION_FIELDS, 'setAnimation');
    const current = this.store.records.getAnimation(slot, this.clockSeconds);
    const resolved = resolveAnimation(this.character, { ...current, ...stripUndefined(change) });
    this.features.changing(handle, slot);
    this.store.records.setAnimation(slot, resolved, this.clockSeconds);
    this.features.changed(handle, slot);
  }

  /** Sets the weight of clip B in [0, 1]; cheaper than setAnimation and allocation-free, for per-frame fades. */
  setBlend(id: InstanceId, blend: number): void {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    this.features.changing(handle, slot);
    this.store.records.setBlend(slot, blend);
    this.features.changed(handle, slot);
  }

  /** The instance's animation now, clips as indices and times wrapped into their clips. */
  getAnimation(id: InstanceId): InstanceAnimation {
    return this.store.records.getAnimation(this.store.slotOfId(id), this.clockSeconds);
  }

  /** Makes a blend mask shared by any instance's layers: `{ root: 'Spine' }` (that joint and all below it) or `{ weights: { Head: 1 }, default: 0 }`. Kept for the crowd's life. */
  createMask(spec: MaskSpec): MaskId {
    return this.store.masks.add(buildMask(this.character.rig.nodes, spec));
  }

  /**
   * Gives an instance a layer stack, in either form (src/anim/layer-stack.ts), replacing the one
   * it had: a LayerStackInit, `{ layers, additive }`, layers over its clip A / clip B blend at the
   * layers' times now (null removes them); or a LayerStackArrays, the packed form a controller
   * produces each frame (allocation-free): the base clip replaces the instance's clips, then
   * `layerCount` override layers, mask values indexing `maskIds` when given (-1: none), times
   * holding `ahead` seconds after the clock. Everything is checked before anything changes.
   */
  setLayers(id: InstanceId, stack: LayerStackInit | null): void;
  /** The packed form (a controller's output), allocation-free: see the first signature. */
  setLayers(id: InstanceId, stack: LayerStackArrays, maskIds?: ArrayLike<MaskId>, ahead?: number): void;
  setLayers(id: InstanceId, stack: LayerStackInit | LayerStackArrays | null, maskIds?: ArrayLike<MaskId>, ahead = 0): void {
    const handle = this.store.handle(id), slot = this.store.slot(handle);
    if (isLayerStackArrays(stack)) {
      checkLayerStackArrays(this.store, stack, maskIds, ahead);
      this.features.changing(handle, slot);
      writeLayerStackArrays(this.store, handle, stack, maskIds, this.clockSeconds + ahead);
    } else if (stack === null) {
      this.features.changing(handle, slot);
      this.store.makePlain(handle);
    } else {
      const resolved = resolveLayers(stack, (clip, field) => clipOf(this.character, clip, field), this.character.baked.clipIsDifference, this.store.stacks);
      this.features.changing(handle, slot);
      this.store.stacks.set(this.store.makeLayered(handle), resolved, this.clockSeconds);
    }
    this.features.changed(handle, this.store.slot(handle));
  }

  /** Sets one layer's weight (allocation-free, for per-frame fades). */
  setLayerWeight(id: InstanceId, index: number, weight: number, kind: 'override' | 'additive' = 'override'): void {
    const handle = this.store.handle(id);
    const stack = this.store.stackOf(handle);
    if (kind !== 'override' && kind !== 'additive') throw new RangeError(`kind must be 'override' or 'additive', got ${show(kind)}`);
    if (stack === LAYERS_NONE) throw new RangeError(`instance ${id} has no layers (setLayers first)`);
    const slot = this.store.slot(handle);
    this.store.stacks.checkWeight(stack, kind === 'additive', index, weight);
    this.features.changing(handle, slot);
    this.store.stacks.setWeight(stack, kind === 'additive', index, weight);
    this.features.changed(handle, slot);
  }

  /** @deprecated Use setLayers, which takes the same arguments. */
  setStack(id: InstanceId, stack: LayerStackArrays, maskIds?: ArrayLike<MaskId>, ahead = 0): void {
    this.setLayers(id, requireLayerStackArrays(stack), maskIds, ahead);
  }

  /**
   * The clock part of update(dt): checks dt, the first time checks that the features the
   * character needs are installed, advances the clock and restarts it from 0 past
   * CLOCK_REBASE_SECONDS (rebasing the records, then the features).
   */
  protected advance(dt: number): void {
    if (!Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds, got ${show(dt)}`);
    if (!this.needsChecked) {
      this.features.checkNeeds(this.character);
      this.needsChecked = true;
    }
    this.clockSeconds += dt;
    if (Math.abs(this.clockSeconds) > CLOCK_REBASE_SECONDS) {
      this.store.rebase(this.clockSeconds);
      this.features.rebase(this.clockSeconds);
      this.clockSeconds = 0;
    }
  }
}
