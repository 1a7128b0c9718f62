import { wrapTime } from '../bake/sampler';
import { INSTANCE, LAYERS_NONE } from './layout';

/** Animation state of one instance, as the pose pass reads it. Times in seconds. */
export interface InstanceAnimation {
  clipA: number;
  clipB: number;
  /** Clip A time now (seconds; any value, wrapped on the GPU). */
  timeA: number;
  timeB: number;
  /** Playback rates (1 = real time, 0 = frozen, negative = backwards). */
  speedA: number;
  speedB: number;
  /** Weight of clip B in [0, 1]. */
  blend: number;
}

/**
 * CPU mirror of the instance buffer: INSTANCE records (src/gpu/layout.ts) in one ArrayBuffer,
 * with the range changed since the last upload. Setters validate their input and only touch
 * the record's bytes; `upload` sends the changed range in one writeBuffer. Owns its memory;
 * grows by doubling (never per frame).
 */
export class InstanceRecords {
  private data: ArrayBuffer;
  private f32: Float32Array;
  private u32: Uint32Array;
  private dirtyStart = Infinity;
  private dirtyEnd = 0;
  private readonly stride = INSTANCE.size / 4;

  constructor(capacity: number, private readonly clipDurations: ArrayLike<number>) {
    this.data = new ArrayBuffer(Math.max(1, capacity) * INSTANCE.size);
    this.f32 = new Float32Array(this.data);
    this.u32 = new Uint32Array(this.data);
  }

  get capacity(): number {
    return this.data.byteLength / INSTANCE.size;
  }

  get bytes(): ArrayBuffer {
    return this.data;
  }

  /** Grows to at least `capacity` records, keeping the contents. */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    const grown = new ArrayBuffer(Math.max(capacity, this.capacity * 2) * INSTANCE.size);
    new Uint8Array(grown).set(new Uint8Array(this.data));
    this.data = grown;
    this.f32 = new Float32Array(grown);
    this.u32 = new Uint32Array(grown);
  }

  /** Writes the model-to-world transform (16 numbers, column-major) of record `slot`. */
  setWorld(slot: number, world: ArrayLike<number>): void {
    if (world.length !== 16) throw new RangeError(`transform must have 16 numbers (column-major 4x4), got ${world.length}`);
    for (let i = 0; i < 16; i++) {
      if (!Number.isFinite(world[i])) throw new RangeError(`transform element ${i} is ${world[i]}, not a finite number`);
    }
    this.f32.set(world, slot * this.stride + INSTANCE.world / 4);
    this.touch(slot);
  }

  /**
   * Writes the animation of record `slot` so that at crowd clock `clock` (seconds) clip A is at
   * timeA and clip B at timeB; both then advance at their speeds.
   */
  setAnimation(slot: number, a: InstanceAnimation, clock: number): void {
    const clips = this.clipDurations.length;
    for (const key of ['clipA', 'clipB'] as const) {
      if (!Number.isInteger(a[key]) || a[key] < 0 || a[key] >= clips) throw new RangeError(`${key} ${a[key]} does not exist (the model has ${clips} clips)`);
    }
    for (const key of ['timeA', 'timeB', 'speedA', 'speedB', 'blend'] as const) {
      if (!Number.isFinite(a[key])) throw new RangeError(`${key} must be a finite number, got ${a[key]}`);
    }
    if (a.blend < 0 || a.blend > 1) throw new RangeError(`blend must be in [0, 1], got ${a.blend}`);
    const o = slot * this.stride;
    this.u32[o + INSTANCE.clipA / 4] = a.clipA;
    this.u32[o + INSTANCE.clipB / 4] = a.clipB;
    this.f32[o + INSTANCE.phaseA / 4] = this.phase(a.clipA, a.timeA, a.speedA, clock);
    this.f32[o + INSTANCE.phaseB / 4] = this.phase(a.clipB, a.timeB, a.speedB, clock);
    this.f32[o + INSTANCE.speedA / 4] = a.speedA;
    this.f32[o + INSTANCE.speedB / 4] = a.speedB;
    this.f32[o + INSTANCE.blend / 4] = a.blend;
    this.u32[o + INSTANCE.layers / 4] = LAYERS_NONE;
    this.touch(slot);
  }

  /** Sets only the blend weight of record `slot` (the per-frame crossfade path: no allocation). */
  setBlend(slot: number, blend: number): void {
    if (!(blend >= 0 && blend <= 1)) throw new RangeError(`blend must be in [0, 1], got ${blend}`);
    this.f32[slot * this.stride + INSTANCE.blend / 4] = blend;
    this.touch(slot);
  }

  /** Reads back the animation of record `slot` at `clock` (times wrapped into each clip). */
  getAnimation(slot: number, clock: number): InstanceAnimation {
    const o = slot * this.stride;
    const clipA = this.u32[o + INSTANCE.clipA / 4];
    const clipB = this.u32[o + INSTANCE.clipB / 4];
    const speedA = this.f32[o + INSTANCE.speedA / 4];
    const speedB = this.f32[o + INSTANCE.speedB / 4];
    return {
      clipA, clipB, speedA, speedB, blend: this.f32[o + INSTANCE.blend / 4],
      timeA: this.wrap(clipA, this.f32[o + INSTANCE.phaseA / 4] + speedA * clock),
      timeB: this.wrap(clipB, this.f32[o + INSTANCE.phaseB / 4] + speedB * clock),
    };
  }

  /** Copies record `from` over record `to` (used to fill the hole left by a removal). */
  move(from: number, to: number): void {
    this.u32.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    this.touch(to);
  }

  /**
   * Re-expresses the first `count` records' phases for a clock restarted at 0 from `clock`, so
   * the float32 clock on the GPU never loses precision. Times are unchanged.
   */
  rebase(count: number, clock: number): void {
    for (let slot = 0; slot < count; slot++) {
      const o = slot * this.stride;
      for (const [clip, phase, speed] of [[INSTANCE.clipA, INSTANCE.phaseA, INSTANCE.speedA], [INSTANCE.clipB, INSTANCE.phaseB, INSTANCE.speedB]]) {
        const time = this.f32[o + phase / 4] + this.f32[o + speed / 4] * clock;
        this.f32[o + phase / 4] = this.wrap(this.u32[o + clip / 4], time);
      }
    }
    if (count > 0) { this.touch(0); this.touch(count - 1); }
  }

  /** Sends the records changed since the last call to `buffer` in one writeBuffer; returns bytes sent. */
  upload(queue: GPUQueue, buffer: GPUBuffer): number {
    if (this.dirtyEnd <= this.dirtyStart) return 0;
    const start = this.dirtyStart * INSTANCE.size;
    const bytes = (this.dirtyEnd - this.dirtyStart) * INSTANCE.size;
    queue.writeBuffer(buffer, start, this.data, start, bytes);
    this.dirtyStart = Infinity;
    this.dirtyEnd = 0;
    return bytes;
  }

  /** Marks every record below `count` as changed (after the GPU buffer was replaced). */
  markAllDirty(count: number): void {
    if (count > 0) { this.touch(0); this.touch(count - 1); }
  }

  private touch(slot: number): void {
    this.dirtyStart = Math.min(this.dirtyStart, slot);
    this.dirtyEnd = Math.max(this.dirtyEnd, slot + 1);
  }

  private phase(clip: number, time: number, speed: number, clock: number): number {
    return this.wrap(clip, time - speed * clock);
  }

  private wrap(clip: number, t: number): number {
    return wrapTime(t, this.clipDurations[clip]);
  }
}
