import { buildMask, type MaskSpec } from './anim/masks';
import type { Character } from './character';
import { InstanceRecords, type InstanceAnimation } from './gpu/instance-records';
import { LayerStackRecords, MaskTable, type GpuAdditiveLayer, type GpuLayer } from './gpu/layer-records';
import { INSTANCE, LAYER_STACK, LAYERS_NONE, MASK_NONE, MAX_OVERRIDE_LAYERS } from './gpu/layout';
import { checkStorageBinding } from './gpu/limits';
import { PosePass } from './gpu/pose-pass';
import { SkinPass, type SkinPassOptions } from './gpu/skin-pass';

/** Handle of an instance of a Crowd (from Crowd.add); stays valid until removed, then may be reused. */
export type InstanceId = number;

/** Animation of an instance as the API takes it: clips by name or index, times in seconds. */
export interface AnimationState {
  /** The base clip: a name of Character.clipNames or an index into it. */
  clipA: string | number;
  /** The clip blended over clip A by `blend`: a name or an index. */
  clipB: string | number;
  /** Current time in clip A, seconds (wrapped into the clip). */
  timeA: number;
  /** Current time in clip B, seconds (wrapped into the clip). */
  timeB: number;
  /** Playback rate of clip A: 1 = real time, 0 = frozen, negative = backwards. */
  speedA: number;
  /** Playback rate of clip B: 1 = real time, 0 = frozen, negative = backwards. */
  speedB: number;
  /** Weight of clip B in [0, 1]: 0 shows A only, 1 shows B only. */
  blend: number;
}

/** A new instance: any subset of its animation (clip 0, time 0, speed 1, blend 0 otherwise) and its transform. */
export interface InstanceInit extends Partial<AnimationState> {
  /** Model-to-world transform, 16 numbers column-major (default identity). */
  transform?: ArrayLike<number>;
}

/** Index of a blend mask made by Crowd.createMask. */
export type MaskId = number;

/** An override layer: blends a clip over the pose below it with `weight` (times a mask). */
export interface LayerInit {
  /** The layer's clip: a name of Character.clipNames or an index into it. */
  clip: string | number;
  /** Current time in the clip, seconds (default 0). */
  time?: number;
  /** Playback rate (default 1). */
  speed?: number;
  /** In [0, 1]. */
  weight: number;
  /** Per-joint weights from createMask; none means every joint. */
  mask?: MaskId;
}

/** An additive layer: adds (clip at time) minus `reference`, scaled by weight (times a mask). */
export interface AdditiveLayerInit extends LayerInit {
  /**
   * The pose the difference is taken from: a clip at a time, or 'rest'. Omitted for a
   * difference clip (LoadOptions.additiveClips), which already holds the difference.
   */
  reference?: 'rest' | {
    /** The reference clip: a name or an index. */
    clip: string | number;
    /** Seconds into it (default 0). */
    time?: number;
    /** Its playback rate (default 0: a fixed reference pose). */
    speed?: number;
  };
}

/** Layers on top of an instance's clip A / clip B blend (semantics: src/anim/layers.ts). */
export interface LayersInit {
  /** Up to 4 override layers, applied in order. */
  layers?: LayerInit[];
  /** Up to 2 additive layers, applied after the override layers. */
  additive?: AdditiveLayerInit[];
}

/** How a Crowd draws (the formats of the render pass it draws into) and how many instances it starts with room for. */
export interface CrowdOptions extends SkinPassOptions {
  /** Instances to allocate for up front (default 1024); the crowd grows by doubling past it. */
  capacity?: number;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
/** The GPU clock restarts from 0 past this many seconds, keeping float32 time precise. */
const CLOCK_REBASE_SECONDS = 600;

/**
 * Every instance of one Character on one device: a pose pass and a skin pass over shared
 * instance and joint-matrix buffers. Per frame: update(dt), encode(encoder), draw(pass, vp).
 * Nothing in that loop allocates; instance records are uploaded only when they change. Bad
 * input throws an error naming it (`no clip "Jog" in Fox.glb (clips: ...)`, `blend must be in
 * [0, 1], got 1.5`) and leaves the crowd as it was.
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
  private readonly records: InstanceRecords;
  private readonly stacks: LayerStackRecords;
  private readonly masks: MaskTable;
  private instanceBuffer!: GPUBuffer;
  private stackBuffer!: GPUBuffer;
  private maskBuffer!: GPUBuffer;
  private jointBuffer!: GPUBuffer;
  /** Slot of each live handle (-1 when free), and handle of each slot. */
  private slotOf = new Int32Array(0);
  private handleOf = new Int32Array(0);
  private readonly freeHandles: number[] = [];
  private liveCount = 0;
  /** Instances with a layer stack: they occupy the last `layeredCount` slots (see PosePass). */
  private layeredCount = 0;
  private readonly maskScratch = new Uint32Array(MAX_OVERRIDE_LAYERS);
  private clockSeconds = 0;

  /**
   * Creates the crowd's pipelines and buffers on `device` (the crowd owns them: destroy() frees
   * them). Throws a RangeError naming the device limit when the character needs more than it has.
   *
   * @param character The loaded character every instance shows (not copied; share it between crowds).
   */
  constructor(private readonly device: GPUDevice, readonly character: Character, options: CrowdOptions) {
    const capacity = options.capacity ?? 1024;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    const { gpu, rig, textures } = character;
    this.posePass = new PosePass(device, gpu);
    this.skinPass = new SkinPass(device, rig.primitives, gpu.skinSlotOffset, gpu.slotCount, textures, options);
    this.records = new InstanceRecords(capacity, character.clipDurations);
    this.masks = new MaskTable(gpu.nodeCount);
    this.stacks = new LayerStackRecords(capacity, character.clipDurations, () => this.masks.count);
    this.maskBuffer = this.createMaskBuffer();
    this.allocate(capacity);
  }

  /** Live instances. */
  get count(): number {
    return this.liveCount;
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
   * rows, 48 bytes). Valid until the next add, remove or setLayers, which may move instances.
   */
  jointMatrixIndex(id: InstanceId): number {
    return this.slot(id) * this.character.gpu.slotCount;
  }

  /** The joint-matrix buffer (3 vec4f rows per joint, see src/gpu/layout.ts); owned by the crowd. */
  get jointMatrices(): GPUBuffer {
    return this.jointBuffer;
  }

  /** Adds an instance; unspecified fields default to clip 0, time 0, speed 1, blend 0. */
  add(init: InstanceInit = {}): InstanceId {
    if (this.liveCount === this.records.capacity) this.grow(this.growthCapacity());
    // New instances are plain: the first layered instance moves to the end to make room.
    const slot = this.plainEnd;
    if (this.layeredCount > 0) this.moveSlot(slot, this.liveCount);
    this.liveCount++;
    const handle = this.freeHandles.pop() ?? this.newHandle();
    this.slotOf[handle] = slot;
    this.handleOf[slot] = handle;
    const { transform, ...animation } = init;
    try {
      this.records.clearLayers(slot);
      this.records.setWorld(slot, transform ?? IDENTITY);
      this.records.setAnimation(slot, this.resolve({
        clipA: 0, clipB: animation.clipA ?? 0, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0, ...stripUndefined(animation),
      }), this.clockSeconds);
    } catch (error) {
      this.remove(handle);
      throw error;
    }
    return handle;
  }

  /** Removes an instance; its id may be reused by a later add. */
  remove(id: InstanceId): void {
    const slot = this.slot(id);
    if (slot >= this.plainEnd) {
      this.moveSlot(this.liveCount - 1, slot);
      this.layeredCount--;
    } else {
      const lastPlain = this.plainEnd - 1;
      this.moveSlot(lastPlain, slot);
      this.moveSlot(this.liveCount - 1, lastPlain);
    }
    this.liveCount--;
    this.slotOf[id] = -1;
    this.freeHandles.push(id);
  }

  /** Removes every instance. */
  clear(): void {
    for (let slot = 0; slot < this.liveCount; slot++) {
      this.slotOf[this.handleOf[slot]] = -1;
      this.freeHandles.push(this.handleOf[slot]);
    }
    this.liveCount = 0;
    this.layeredCount = 0;
  }

  /** Sets an instance's model-to-world transform: 16 numbers, column-major. */
  setTransform(id: InstanceId, transform: ArrayLike<number>): void {
    this.records.setWorld(this.slot(id), transform);
  }

  /** Changes any subset of an instance's animation; the rest keeps playing as it was. */
  setAnimation(id: InstanceId, change: Partial<AnimationState>): void {
    const slot = this.slot(id);
    const current = this.records.getAnimation(slot, this.clockSeconds);
    this.records.setAnimation(slot, this.resolve({ ...current, ...stripUndefined(change) }), this.clockSeconds);
  }

  /** Sets the weight of clip B in [0, 1]; cheaper than setAnimation and allocation-free, for per-frame fades. */
  setBlend(id: InstanceId, blend: number): void {
    this.records.setBlend(this.slot(id), blend);
  }

  /**
   * Makes a blend mask shared by any instance's layers: `{ root: 'Spine' }` (that joint and all
   * below it) or `{ weights: { Head: 1 }, default: 0 }`. Masks are kept for the crowd's life.
   */
  createMask(spec: MaskSpec): MaskId {
    return this.masks.add(buildMask(this.character.rig.nodes, spec));
  }

  /**
   * Gives an instance layers on top of its clip A / clip B blend (null removes them). The stack
   * is replaced whole; times are the layers' times now.
   */
  setLayers(id: InstanceId, init: LayersInit | null): void {
    if (init === null) {
      this.makePlain(id);
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
    const stack = { layers: (init.layers ?? []).map(layer), additive: (init.additive ?? []).map(additive) };
    this.stacks.validate(stack);
    this.stacks.set(this.makeLayered(id), stack, this.clockSeconds);
  }

  /** Sets one layer's weight (allocation-free, for per-frame fades). */
  setLayerWeight(id: InstanceId, index: number, weight: number, kind: 'override' | 'additive' = 'override'): void {
    const slot = this.slot(id);
    if (this.records.layerStack(slot) === LAYERS_NONE) throw new RangeError(`instance ${id} has no layers (setLayers first)`);
    this.stacks.setWeight(slot, kind === 'additive', index, weight);
  }

  /**
   * Writes a layer stack given as parallel arrays, the per-frame path of animation controllers
   * (see CrowdControllers): the base clip at `baseTime`/`baseSpeed`, then `count` override
   * layers. `masks` holds crowd mask ids, or -1 for none. The times hold `ahead` seconds after
   * the current clock (CrowdControllers passes the dt of the update that follows). Allocation-free.
   */
  setStackArrays(id: InstanceId, baseClip: number, baseTime: number, baseSpeed: number, count: number,
    clips: ArrayLike<number>, times: ArrayLike<number>, speeds: ArrayLike<number>, weights: ArrayLike<number>, masks: ArrayLike<number>,
    ahead = 0): void {
    const clock = this.clockSeconds + ahead;
    this.records.setSingleClip(this.slot(id), baseClip, baseTime, baseSpeed, clock);
    if (count === 0) {
      this.makePlain(id);
      return;
    }
    for (let i = 0; i < count; i++) this.maskScratch[i] = masks[i] < 0 ? MASK_NONE : masks[i];
    this.stacks.setOverrides(this.makeLayered(id), count, clips, times, speeds, weights, this.maskScratch, clock);
  }

  /** Places an instance at (x, y, z) turned `yaw` radians about +y (0 faces +z), uniformly scaled. Allocation-free. */
  setPlacement(id: InstanceId, x: number, y: number, z: number, yaw: number, scale = 1): void {
    this.records.setPlacement(this.slot(id), x, y, z, yaw, scale);
  }

  /** The instance's animation now, clips as indices and times wrapped into their clips. */
  getAnimation(id: InstanceId): InstanceAnimation {
    return this.records.getAnimation(this.slot(id), this.clockSeconds);
  }

  /**
   * Advances the clock by dt seconds (animations play at their speeds) and uploads the
   * instance records changed since the last update, in one writeBuffer.
   */
  update(dt: number): void {
    if (!Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds, got ${dt}`);
    this.clockSeconds += dt;
    if (Math.abs(this.clockSeconds) > CLOCK_REBASE_SECONDS) {
      this.records.rebase(this.liveCount, this.clockSeconds);
      this.stacks.rebase(this.liveCount, this.clockSeconds);
      this.clockSeconds = 0;
    }
    if (this.masks.byteLength > this.maskBuffer.size) {
      this.maskBuffer.destroy();
      this.maskBuffer = this.createMaskBuffer();
      this.posePass.bind(this.instanceBuffer, this.stackBuffer, this.maskBuffer, this.jointBuffer);
    }
    this.masks.upload(this.device.queue, this.maskBuffer);
    this.records.upload(this.device.queue, this.instanceBuffer);
    this.stacks.upload(this.device.queue, this.stackBuffer);
    this.posePass.update(this.plainEnd, this.layeredCount, this.clockSeconds);
  }

  /** Records the pose compute pass (call after update, before the render pass that draws). */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    this.posePass.encode(encoder, timestampWrites);
  }

  /**
   * Records the draws of every instance into the caller's render pass, one per mesh primitive.
   * `viewProjection` (column-major 4x4, world to clip space) is written to a uniform buffer, so
   * one crowd draws with one camera per submitted frame.
   */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    this.skinPass.update(viewProjection);
    this.skinPass.draw(pass, this.liveCount);
  }

  /** Frees the crowd's GPU buffers and pipelines; the crowd cannot be used afterwards. The device stays the caller's. */
  destroy(): void {
    this.posePass.destroy();
    this.skinPass.destroy();
    this.instanceBuffer.destroy();
    this.stackBuffer.destroy();
    this.maskBuffer.destroy();
    this.jointBuffer.destroy();
  }

  private resolve(state: Omit<AnimationState, 'clipA' | 'clipB'> & { clipA: string | number; clipB: string | number }): InstanceAnimation {
    return { ...state, clipA: this.character.clipIndex(state.clipA), clipB: this.character.clipIndex(state.clipB) };
  }

  /** First layered slot: plain instances occupy [0, plainEnd). */
  private get plainEnd(): number {
    return this.liveCount - this.layeredCount;
  }

  /** Moves the instance in slot `from` (record, stack, handle) to slot `to`, which is free or being vacated. */
  private moveSlot(from: number, to: number): void {
    if (from === to) return;
    this.records.move(from, to);
    if (this.records.layerStack(to) !== LAYERS_NONE) {
      this.stacks.move(from, to);
      this.records.setLayerStack(to, to);
    }
    const handle = this.handleOf[from];
    this.handleOf[to] = handle;
    this.slotOf[handle] = to;
  }

  /** Exchanges the instances in slots a and b (records, stacks, handles). */
  private swapSlots(a: number, b: number): void {
    if (a === b) return;
    this.records.swap(a, b);
    this.stacks.swap(a, b);
    for (const s of [a, b]) if (this.records.layerStack(s) !== LAYERS_NONE) this.records.setLayerStack(s, s);
    const ha = this.handleOf[a];
    const hb = this.handleOf[b];
    this.handleOf[a] = hb;
    this.handleOf[b] = ha;
    this.slotOf[hb] = a;
    this.slotOf[ha] = b;
  }

  /** Makes instance `id` layered (moving it into the layered range if needed); returns its slot. */
  private makeLayered(id: InstanceId): number {
    let slot = this.slot(id);
    if (slot < this.plainEnd) {
      this.swapSlots(slot, this.plainEnd - 1);
      slot = this.plainEnd - 1;
      this.layeredCount++;
    }
    this.records.setLayerStack(slot, slot);
    return slot;
  }

  /** Makes instance `id` plain (moving it out of the layered range if needed). */
  private makePlain(id: InstanceId): void {
    let slot = this.slot(id);
    if (slot >= this.plainEnd) {
      this.swapSlots(slot, this.plainEnd);
      slot = this.plainEnd;
      this.layeredCount--;
    }
    this.records.setLayerStack(slot, LAYERS_NONE);
  }

  private slot(id: InstanceId): number {
    const slot = Number.isInteger(id) && id >= 0 && id < this.slotOf.length ? this.slotOf[id] : -1;
    if (slot < 0) throw new RangeError(`instance ${id} does not exist (removed, or never added)`);
    return slot;
  }

  private newHandle(): number {
    const handle = this.slotOf.length;
    const grown = new Int32Array(Math.max(16, handle * 2)).fill(-1);
    grown.set(this.slotOf);
    this.slotOf = grown;
    for (let h = this.slotOf.length - 1; h > handle; h--) this.freeHandles.push(h);
    return handle;
  }

  /** Double the capacity, or as much as the device's limits allow (at least one more). */
  private growthCapacity(): number {
    const limits = this.device.limits;
    const perInstance = Math.max(this.posePass.jointBytes(1), INSTANCE.size, LAYER_STACK.size);
    const byLimits = Math.floor(Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize) / perInstance);
    return Math.max(this.liveCount + 1, Math.min(this.liveCount * 2, byLimits));
  }

  private grow(capacity: number): void {
    // Check the limits before giving up the old buffers, so a failed growth leaves a working crowd.
    checkStorageBinding(this.device, 'Crowd.jointMatrices', this.posePass.jointBytes(capacity));
    checkStorageBinding(this.device, 'Crowd.instances', capacity * INSTANCE.size);
    this.records.reserve(capacity);
    this.stacks.reserve(capacity);
    this.instanceBuffer.destroy();
    this.stackBuffer.destroy();
    this.jointBuffer.destroy();
    this.allocate(this.records.capacity);
    this.records.markAllDirty(this.liveCount);
    this.stacks.markAllDirty(this.liveCount);
  }

  private createMaskBuffer(): GPUBuffer {
    this.masks.markDirty();
    return this.device.createBuffer({ label: 'Crowd.masks', size: this.masks.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  }

  private allocate(capacity: number): void {
    const handles = new Int32Array(capacity);
    handles.set(this.handleOf.subarray(0, Math.min(this.handleOf.length, capacity)));
    this.handleOf = handles;
    this.instanceBuffer = this.device.createBuffer({
      label: 'Crowd.instances', size: capacity * INSTANCE.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    this.stackBuffer = this.device.createBuffer({
      label: 'Crowd.layerStacks', size: capacity * LAYER_STACK.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    this.jointBuffer = this.device.createBuffer({
      label: 'Crowd.jointMatrices', size: Math.max(16, this.posePass.jointBytes(capacity)),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    });
    this.posePass.bind(this.instanceBuffer, this.stackBuffer, this.maskBuffer, this.jointBuffer);
    this.skinPass.bind(this.jointBuffer);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
