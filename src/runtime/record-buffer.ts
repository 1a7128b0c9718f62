import { phaseTurns, writeRate } from './clip-clock';
import { checkF32, F32_HOLDS, F32_MAX, F32_WHY, WORLD, WORLD_WHY } from '../math/float32';
import { show } from '../math/show';
import { wrapTime } from '../math/time';
import type { RecordBufferLike, RecordQueue } from './record-device';

/**
 * CPU mirror of a GPU buffer of fixed-size records, with the range changed since the last
 * upload. Subclasses give the records meaning; this class owns the memory, grows when its owner
 * (InstanceStore) says, never per frame, and uploads the changed range in one writeBuffer.
 * `exactPerRecord` float64 values per record ride along (CPU only: moved, swapped and grown with
 * their record), for values the GPU gets as float32 but the CPU must keep exactly (phases and
 * speeds, so that float32 rounding does not accumulate over clock rebases).
 */
export class RecordBuffer {
  protected data: ArrayBuffer;
  protected f32: Float32Array;
  protected u32: Uint32Array;
  /** The float64 values of each record, exactStride per record. */
  protected exact: Float64Array;
  /** 4-byte words per record. */
  protected readonly stride: number;
  private dirtyStart = Infinity;
  private dirtyEnd = 0;

  constructor(readonly recordBytes: number, capacity: number, protected readonly clipDurations: ArrayLike<number>, protected readonly exactStride = 0) {
    this.stride = recordBytes / 4;
    this.data = new ArrayBuffer(Math.max(1, capacity) * recordBytes);
    this.f32 = new Float32Array(this.data);
    this.u32 = new Uint32Array(this.data);
    this.exact = new Float64Array(Math.max(1, capacity) * exactStride);
  }

  get capacity(): number {
    return this.data.byteLength / this.recordBytes;
  }

  get bytes(): ArrayBuffer {
    return this.data;
  }

  /** Grows to exactly `capacity` records (when larger), keeping the contents; the caller picks the growth policy. */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    const grown = new ArrayBuffer(capacity * this.recordBytes);
    new Uint8Array(grown).set(new Uint8Array(this.data));
    this.data = grown;
    this.f32 = new Float32Array(grown);
    this.u32 = new Uint32Array(grown);
    const exact = new Float64Array(capacity * this.exactStride);
    exact.set(this.exact);
    this.exact = exact;
  }

  /** Copies record `from` over record `to` (fills the hole left by a removal). */
  move(from: number, to: number): void {
    this.u32.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    const e = this.exactStride;
    if (e > 0) this.exact.copyWithin(to * e, from * e, (from + 1) * e);
    this.touch(to);
  }

  /** Exchanges records `a` and `b`. */
  swap(a: number, b: number): void {
    if (a === b) return;
    this.scratch ??= new Uint32Array(this.stride);
    const u = this.u32;
    this.scratch.set(u.subarray(a * this.stride, (a + 1) * this.stride));
    u.copyWithin(a * this.stride, b * this.stride, (b + 1) * this.stride);
    u.set(this.scratch, b * this.stride);
    const e = this.exactStride;
    for (let i = 0; i < e; i++) {
      const x = this.exact[a * e + i];
      this.exact[a * e + i] = this.exact[b * e + i];
      this.exact[b * e + i] = x;
    }
    this.touch(a);
    this.touch(b);
  }

  private scratch: Uint32Array | undefined;

  /** Sends the records changed since the last call to `buffer` in one writeBuffer; returns bytes sent. */
  upload<B extends RecordBufferLike>(queue: RecordQueue<B>, buffer: B): number {
    if (this.dirtyEnd <= this.dirtyStart) return 0;
    const start = this.dirtyStart * this.recordBytes;
    const bytes = (this.dirtyEnd - this.dirtyStart) * this.recordBytes;
    queue.writeBuffer(buffer, start, this.data, start, bytes);
    this.dirtyStart = Infinity;
    this.dirtyEnd = 0;
    return bytes;
  }

  /** Marks records [0, count) as changed (after the GPU buffer was replaced). */
  markAllDirty(count: number): void {
    if (count > 0) { this.touch(0); this.touch(count - 1); }
  }

  protected touch(slot: number): void {
    if (slot < this.dirtyStart) this.dirtyStart = slot;
    if (slot + 1 > this.dirtyEnd) this.dirtyEnd = slot + 1;
  }

  /** Throws a RangeError naming `what` unless `clip` is a clip index of the model. */
  checkClipIndex(clip: number, what: string): void {
    this.checkClip(clip, what);
  }

  protected checkClip(clip: number, what: string): void {
    const clips = this.clipDurations.length;
    if (!Number.isInteger(clip) || clip < 0 || clip >= clips) throw new RangeError(`${what} ${show(clip)} does not exist (the model has ${clips} clips)`);
  }

  /** Phase (time at clock 0, wrapped) that puts `clip` at `time` at `clock` when playing at `speed`. */
  protected phase(clip: number, time: number, speed: number, clock: number): number {
    return wrapTime(time - speed * clock, this.clipDurations[clip]);
  }

  /**
   * Writes one clip playback as the GPU reads it (src/runtime/clip-clock.ts): `clip` at `phase`
   * seconds at clock 0 playing at `speed`, as the phase word at u32 index `phaseWord`, the
   * float32 speed at `speedWord` and the rate's low and high words at `rateWord`, `rateWord + 1`.
   */
  protected writePlayback(clip: number, phase: number, speed: number, phaseWord: number, speedWord: number, rateWord: number): void {
    const duration = this.clipDurations[clip];
    this.u32[phaseWord] = phaseTurns(phase, duration);
    this.f32[speedWord] = speed;
    writeRate(speed, duration, this.u32, rateWord, rateWord + 1);
  }

  /** Time now of a clip stored as (phase, speed), wrapped into the clip. */
  protected timeAt(clip: number, phase: number, speed: number, clock: number): number {
    return wrapTime(phase + speed * clock, this.clipDurations[clip]);
  }
}

/**
 * Throws a RangeError naming `what` unless `value` is a finite number (a numeric string is not)
 * that float32 holds (|value| <= F32_MAX: the GPU gets it as float32, where 1e39 is Infinity).
 */
export function checkFinite(value: number, what: string): void {
  if (!Number.isFinite(value)) throw new RangeError(`${what} must be a finite number, got ${show(value)}`);
  if (Math.abs(value) > F32_MAX) checkF32(value, what, F32_HOLDS, F32_WHY);
}

/** checkFinite, and within WORLD (src/math/float32.ts, +-1e12): a world coordinate the cull pass squares. */
export function checkWorldNumber(value: number, what: string): void {
  if (!Number.isFinite(value)) throw new RangeError(`${what} must be a finite number, got ${show(value)}`);
  checkF32(value, what, WORLD, WORLD_WHY);
}

/** Throws a RangeError naming `what` unless `value` is a number in [0, 1] (a numeric string is not). */
export function checkUnit(value: number, what: string): void {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new RangeError(`${what} must be in [0, 1], got ${show(value)}`);
}

/** Throws an error naming `what` unless `value` holds `length` finite numbers (an array or typed array). */
export function checkNumbers(value: ArrayLike<number>, length: number, what: string): void {
  if (value?.length !== length) throw new RangeError(`${what} must have ${length} numbers, got ${typeof value === 'object' && value !== null ? show(value.length) : show(value)}`);
  for (let i = 0; i < length; i++) checkFinite(value[i], `${what} element ${i}`);
}
