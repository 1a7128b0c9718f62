import type { Character } from './character';
import { InstanceRecords, type InstanceAnimation } from './gpu/instance-records';
import { INSTANCE } from './gpu/layout';
import { checkStorageBinding } from './gpu/limits';
import { PosePass } from './gpu/pose-pass';
import { SkinPass, type SkinPassOptions } from './gpu/skin-pass';

export type InstanceId = number;

/** Animation of an instance as the API takes it: clips by name or index, times in seconds. */
export interface AnimationState {
  clipA: string | number;
  clipB: string | number;
  /** Current time in clip A, seconds (wrapped into the clip). */
  timeA: number;
  timeB: number;
  /** Playback rates: 1 = real time, 0 = frozen, negative = backwards. */
  speedA: number;
  speedB: number;
  /** Weight of clip B in [0, 1]: 0 shows A only, 1 shows B only. */
  blend: number;
}

export interface InstanceInit extends Partial<AnimationState> {
  /** Model-to-world transform, 16 numbers column-major (default identity). */
  transform?: ArrayLike<number>;
}

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
 * Nothing in that loop allocates; instance records are uploaded only when they change.
 */
export class Crowd {
  private readonly posePass: PosePass;
  private readonly skinPass: SkinPass;
  private readonly records: InstanceRecords;
  private instanceBuffer!: GPUBuffer;
  private jointBuffer!: GPUBuffer;
  /** Slot of each live handle (-1 when free), and handle of each slot. */
  private slotOf = new Int32Array(0);
  private handleOf = new Int32Array(0);
  private readonly freeHandles: number[] = [];
  private liveCount = 0;
  private clockSeconds = 0;

  constructor(private readonly device: GPUDevice, readonly character: Character, options: CrowdOptions) {
    const capacity = options.capacity ?? 1024;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    const { gpu, rig, textures } = character;
    this.posePass = new PosePass(device, gpu);
    this.skinPass = new SkinPass(device, rig.primitives, gpu.skinSlotOffset, gpu.slotCount, textures, options);
    this.records = new InstanceRecords(capacity, character.clipDurations);
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

  /** The joint-matrix buffer (3 vec4f rows per joint, see src/gpu/layout.ts); owned by the crowd. */
  get jointMatrices(): GPUBuffer {
    return this.jointBuffer;
  }

  /** Adds an instance; unspecified fields default to clip 0, time 0, speed 1, blend 0. */
  add(init: InstanceInit = {}): InstanceId {
    if (this.liveCount === this.records.capacity) this.grow(this.liveCount * 2);
    const slot = this.liveCount++;
    const handle = this.freeHandles.pop() ?? this.newHandle();
    this.slotOf[handle] = slot;
    this.handleOf[slot] = handle;
    const { transform, ...animation } = init;
    try {
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
    const last = --this.liveCount;
    if (slot !== last) {
      this.records.move(last, slot);
      const moved = this.handleOf[last];
      this.handleOf[slot] = moved;
      this.slotOf[moved] = slot;
    }
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
  }

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
      this.clockSeconds = 0;
    }
    this.records.upload(this.device.queue, this.instanceBuffer);
    this.posePass.update(this.liveCount, this.clockSeconds);
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

  destroy(): void {
    this.posePass.destroy();
    this.skinPass.destroy();
    this.instanceBuffer.destroy();
    this.jointBuffer.destroy();
  }

  private resolve(state: Omit<AnimationState, 'clipA' | 'clipB'> & { clipA: string | number; clipB: string | number }): InstanceAnimation {
    return { ...state, clipA: this.character.clipIndex(state.clipA), clipB: this.character.clipIndex(state.clipB) };
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

  private grow(capacity: number): void {
    // Check the limits before giving up the old buffers, so a failed growth leaves a working crowd.
    checkStorageBinding(this.device, 'Crowd.jointMatrices', this.posePass.jointBytes(capacity));
    checkStorageBinding(this.device, 'Crowd.instances', capacity * INSTANCE.size);
    this.records.reserve(capacity);
    this.instanceBuffer.destroy();
    this.jointBuffer.destroy();
    this.allocate(this.records.capacity);
    this.records.markAllDirty(this.liveCount);
  }

  private allocate(capacity: number): void {
    const handles = new Int32Array(capacity);
    handles.set(this.handleOf.subarray(0, Math.min(this.handleOf.length, capacity)));
    this.handleOf = handles;
    this.instanceBuffer = this.device.createBuffer({
      label: 'Crowd.instances', size: capacity * INSTANCE.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    this.jointBuffer = this.device.createBuffer({
      label: 'Crowd.jointMatrices', size: Math.max(16, this.posePass.jointBytes(capacity)),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    });
    this.posePass.bind(this.instanceBuffer, this.jointBuffer);
    this.skinPass.bind(this.jointBuffer);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
