import { buildMask, type MaskSpec } from './anim/masks';
import type { Character } from './character';
import type {
  AdditiveLayerInit, AnimationState, CrowdOptions, InstanceId, InstanceInit, LayerInit, LayersInit, MaskId,
} from './crowd-types';
import type { InstanceAnimation } from './gpu/instance-records';
import { InstanceStore } from './gpu/instance-store';
import type { GpuAdditiveLayer, GpuLayer, LayerStackArrays } from './gpu/layer-records';
import { LAYERS_NONE, MASK_NONE } from './gpu/layout';
import { PosePass } from './gpu/pose-pass';
import { checkFinite } from './gpu/record-buffer';
import { SkinPass } from './gpu/skin-pass';
import { IDENTITY_MATRIX } from './math/affine';

export type * from './crowd-types';

/**
 * A pass that runs before the pose pass in a crowd's frame (the GPU controllers' control pass).
 * @internal
 */
export interface CrowdPrepass {
  /** After the crowd's uploads in update(dt); `crowdClock` is the clock the pose records use. */
  prepare(crowdClock: number): void;
  /** In encode(), before the pose pass. */
  encode(encoder: GPUCommandEncoder): void;
}

/** The GPU clock restarts from 0 past this many seconds, keeping float32 time precise. */
const CLOCK_REBASE_SECONDS = 600;

/**
 * Every instance of one Character on one device: a facade that resolves clip names and
 * validates, over an InstanceStore (records, stacks, masks, buffers, growth, handle <-> slot:
 * src/gpu/instance-store.ts), a pose pass and a skin pass that read from it. Per frame:
 * update(dt), encode(encoder), draw(pass, vp). Nothing in that loop allocates; instance records
 * are uploaded only when they change. Bad input throws an error naming it (`no clip "Jog" in
 * Fox.glb (clips: ...)`, `blend must be in [0, 1], got 1.5`) and leaves the crowd as it was.
 *
 * @example
 * ```ts
 * const crowd = new Crowd(device, character, { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' });
 * const id = crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.3, timeA: 0.2, transform });
 * crowd.setAnimation(id, { speedA: 1.5 });   // change any subset; the rest keeps playing
 * crowd.setBlend(id, 0.8);                   // allocation-free, for per-frame fades
 * // each frame (dt in seconds):
 * crowd.update(dt);
 * const encoder = device.createCommandEncoder();
 * crowd.encode(encoder);                     // the pose compute pass
 * const pass = encoder.beginRenderPass(yourPassDescriptor);
 * crowd.draw(pass, viewProjection);          // one draw per primitive, all instances
 * pass.end();
 * device.queue.submit([encoder.finish()]);
 * ```
 */
export class Crowd {
  private readonly posePass: PosePass;
  private readonly skinPass: SkinPass;
  private readonly store: InstanceStore;
  /** Store generation the skin pass is bound to (-1: never). */
  private skinGeneration = -1;
  private clockSeconds = 0;
  private readonly prepasses: CrowdPrepass[] = [];
  private uploaded = 0;

  /**
   * Creates the crowd's pipelines and buffers on `device` (the crowd owns them: destroy() frees
   * them). Throws a RangeError naming the device limit when the character needs more than it has.
   *
   * @param device The GPUDevice the crowd creates its resources on and draws with (not owned).
   * @param character The loaded character every instance shows (not copied; share it between crowds).
   */
  constructor(readonly device: GPUDevice, readonly character: Character, options: CrowdOptions) {
    const { gpu, rig, textures } = character;
    this.store = new InstanceStore(device, {
      nodeCount: gpu.nodeCount, slotCount: gpu.slotCount, clipDurations: character.clipDurations, capacity: options.capacity ?? 1024, label: 'Crowd',
    });
    this.posePass = new PosePass(device, gpu);
    this.skinPass = new SkinPass(device, rig.primitives, gpu.skinSlotOffset, gpu.slotCount, textures, options);
  }

  /** Live instances. */
  get count(): number {
    return this.store.count;
  }

  /** @internal The instance store, for the passes that CrowdControllers adds. */
  get instanceStore(): InstanceStore {
    return this.store;
  }

  /** @internal Runs `prepass` in every frame from now on, before the pose pass. */
  addPrepass(prepass: CrowdPrepass): void {
    this.prepasses.push(prepass);
  }

  /** Bytes the last update() wrote into the crowd's GPU buffers (records, stacks, masks, handle slots). */
  get uploadedBytes(): number {
    return this.uploaded;
  }

  /** Crowd clock in seconds since the last rebase (advanced by update). */
  get clock(): number {
    return this.clockSeconds;
  }

  /** Draw calls that draw() records: one per mesh primitive. */
  get drawCallCount(): number {
    return this.skinPass.drawCount;
  }

  /** Joint matrices per instance. */
  get jointsPerInstance(): number {
    return this.character.gpu.slotCount;
  }

  /**
   * Where instance `id`'s joint matrices start in `jointMatrices`, in matrices (each 3 vec4f
   * rows, 48 bytes). Valid until the next add, remove, setLayers or setStack, which may move instances.
   */
  jointMatrixIndex(id: InstanceId): number {
    return this.store.slot(id) * this.character.gpu.slotCount;
  }

  /** The joint-matrix buffer (3 vec4f rows per joint, see src/gpu/layout.ts); owned by the crowd, replaced when it grows. */
  get jointMatrices(): GPUBuffer {
    return this.store.jointBuffer;
  }

  /** Adds an instance; unspecified fields default to clip 0, time 0, speed 1, blend 0. */
  add(init: InstanceInit = {}): InstanceId {
    const { transform, ...animation } = init;
    const resolved = this.resolve({
      clipA: 0, clipB: animation.clipA ?? 0, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0, ...stripUndefined(animation),
    });
    const handle = this.store.add();
    try {
      const slot = this.store.slot(handle);
      this.store.records.setWorld(slot, transform ?? IDENTITY_MATRIX);
      this.store.records.setAnimation(slot, resolved, this.clockSeconds);
    } catch (error) {
      this.store.remove(handle);
      throw error;
    }
    return handle;
  }

  /** Removes an instance; its id may be reused by a later add. */
  remove(id: InstanceId): void {
    this.store.remove(id);
  }

  /** Removes every instance. */
  clear(): void {
    this.store.clear();
  }

  /** Sets an instance's model-to-world transform: 16 numbers, column-major. */
  setTransform(id: InstanceId, transform: ArrayLike<number>): void {
    this.store.records.setWorld(this.store.slot(id), transform);
  }

  /** Changes any subset of an instance's animation; the rest keeps playing as it was. */
  setAnimation(id: InstanceId, change: Partial<AnimationState>): void {
    const slot = this.store.slot(id);
    const current = this.store.records.getAnimation(slot, this.clockSeconds);
    this.store.records.setAnimation(slot, this.resolve({ ...current, ...stripUndefined(change) }), this.clockSeconds);
  }

  /** Sets the weight of clip B in [0, 1]; cheaper than setAnimation and allocation-free, for per-frame fades. */
  setBlend(id: InstanceId, blend: number): void {
    this.store.records.setBlend(this.store.slot(id), blend);
  }

  /**
   * Makes a blend mask shared by any instance's layers: `{ root: 'Spine' }` (that joint and all
   * below it) or `{ weights: { Head: 1 }, default: 0 }`. Masks are kept for the crowd's life.
   */
  createMask(spec: MaskSpec): MaskId {
    return this.store.masks.add(buildMask(this.character.rig.nodes, spec));
  }

  /**
   * Gives an instance layers on top of its clip A / clip B blend (null removes them). The stack
   * is replaced whole; times are the layers' times now.
   */
  setLayers(id: InstanceId, init: LayersInit | null): void {
    this.store.slot(id);
    if (init === null) {
      this.store.makePlain(id);
      return;
    }
    const layer = (l: LayerInit): GpuLayer => ({
      clip: this.character.clipIndex(l.clip), time: l.time ?? 0, speed: l.speed ?? 1, weight: l.weight, mask: l.mask ?? MASK_NONE,
    });
    const additive = (l: AdditiveLayerInit): GpuAdditiveLayer => {
      const resolved = layer(l);
      const ref = l.reference;
      if (this.character.baked.clipIsDifference[resolved.clip]) {
        if (ref !== undefined) throw new TypeError(`clip ${JSON.stringify(l.clip)} is a difference clip (it already subtracts its reference): give it no reference`);
        return { ...resolved, reference: 'identity' };
      }
      if (ref !== 'rest' && (typeof ref !== 'object' || ref === null)) throw new TypeError(`additive layer reference must be 'rest' or { clip, time }`);
      return { ...resolved, reference: ref === 'rest' ? 'rest' : { clip: this.character.clipIndex(ref.clip), time: ref.time ?? 0, speed: ref.speed ?? 0 } };
    };
    const stack = { layers: list(init.layers, 'layers').map(layer), additive: list(init.additive, 'additive').map(additive) };
    this.store.stacks.validate(stack);
    this.store.stacks.set(this.store.makeLayered(id), stack, this.clockSeconds);
  }

  /** Sets one layer's weight (allocation-free, for per-frame fades). */
  setLayerWeight(id: InstanceId, index: number, weight: number, kind: 'override' | 'additive' = 'override'): void {
    const stack = this.store.stackOf(id);
    if (stack === LAYERS_NONE) throw new RangeError(`instance ${id} has no layers (setLayers first)`);
    this.store.stacks.setWeight(stack, kind === 'additive', index, weight);
  }

  /**
   * Replaces an instance's clips and layers with an override-only stack in arrays, the form an
   * animation controller produces each frame (see CrowdControllers, and StackOutput in
   * src/anim/control/output.ts): the base clip, then stack.layerCount override layers. Mask
   * values index `maskIds` (crowd mask ids from createMask) when given, else are mask ids; -1
   * means none. Times hold `ahead` seconds after the current clock (CrowdControllers passes the
   * dt of the update that follows). Allocation-free; everything is checked before anything changes.
   */
  setStack(id: InstanceId, stack: LayerStackArrays, maskIds?: ArrayLike<MaskId>, ahead = 0): void {
    this.store.slot(id);
    checkFinite(stack.baseTime, 'baseTime');
    checkFinite(stack.baseSpeed, 'baseSpeed');
    checkFinite(ahead, 'ahead');
    this.store.stacks.checkArrays(stack, maskIds);
    this.store.records.checkClipIndex(stack.baseClip, 'baseClip');
    const clock = this.clockSeconds + ahead;
    if (stack.layerCount === 0) {
      this.store.makePlain(id);
    } else {
      this.store.stacks.setArrays(this.store.makeLayered(id), stack, maskIds, clock);
    }
    this.store.records.setSingleClip(this.store.slot(id), stack.baseClip, stack.baseTime, stack.baseSpeed, clock);
  }

  /** Places an instance at (x, y, z) turned `yaw` radians about +y (0 faces +z), uniformly scaled. Allocation-free. */
  setPlacement(id: InstanceId, x: number, y: number, z: number, yaw: number, scale = 1): void {
    this.store.records.setPlacement(this.store.slot(id), x, y, z, yaw, scale);
  }

  /** The instance's animation now, clips as indices and times wrapped into their clips. */
  getAnimation(id: InstanceId): InstanceAnimation {
    return this.store.records.getAnimation(this.store.slot(id), this.clockSeconds);
  }

  /**
   * Advances the clock by dt seconds (animations play at their speeds) and uploads the
   * instance records changed since the last update, in one writeBuffer per buffer.
   */
  update(dt: number): void {
    if (!Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds, got ${dt}`);
    this.clockSeconds += dt;
    if (Math.abs(this.clockSeconds) > CLOCK_REBASE_SECONDS) {
      this.store.rebase(this.clockSeconds);
      this.clockSeconds = 0;
    }
    this.uploaded = this.store.upload(this.device.queue);
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].prepare(this.clockSeconds);
    this.posePass.update(this.store, this.clockSeconds);
  }

  /** Records the pose compute pass (call after update, before the render pass that draws). */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].encode(encoder);
    this.posePass.encode(encoder, timestampWrites);
  }

  /**
   * Records the draws of every instance into the caller's render pass, one per mesh primitive.
   * `viewProjection` (column-major 4x4, world to clip space) is written to a uniform buffer, so
   * one crowd draws with one camera per submitted frame.
   */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    if (this.skinGeneration !== this.store.generation) {
      this.skinPass.bind(this.store.jointBuffer);
      this.skinGeneration = this.store.generation;
    }
    this.skinPass.update(viewProjection);
    this.skinPass.draw(pass, this.store.count);
  }

  /** Frees the crowd's GPU buffers and pipelines; the crowd cannot be used afterwards. The device stays the caller's. */
  destroy(): void {
    this.posePass.destroy();
    this.skinPass.destroy();
    this.store.destroy();
  }

  private resolve(state: Omit<AnimationState, 'clipA' | 'clipB'> & { clipA: string | number; clipB: string | number }): InstanceAnimation {
    return { ...state, clipA: this.character.clipIndex(state.clipA), clipB: this.character.clipIndex(state.clipB) };
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `value` as an array (undefined: empty); a TypeError naming `field` otherwise. */
function list<T>(value: T[] | undefined, field: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array, got ${value === null ? 'null' : typeof value}`);
  return value;
}
