import type { SlotData } from '../../runtime/instance-store';
import { MORPH_ANIMATED } from '../../runtime/layout';
import { checkStorageBinding } from '../../runtime/limits';
import { RecordBuffer } from '../../runtime/record-buffer';

/**
 * Per instance morph data of a crowd whose character has morph targets, kept slot by slot beside
 * the InstanceStore's records (it moves, grows, uploads and restores with them: SlotData):
 *   overrides  weightCount f32 per slot: a weight in [0, 1] set by CrowdMorph.set, or
 *              MORPH_ANIMATED; CPU mirror + GPU buffer, the changed range uploaded in one writeBuffer
 *   weights    weightCount f32 per slot, written by the morph pass each frame, read by the skin
 *              pass's morph entry points (GPU only)
 * Owns both GPU buffers; they are replaced on growth and restore (the store's generation
 * changes, so passes rebind). Nothing here allocates per frame.
 */
export class MorphStore implements SlotData {
  private readonly overrides: OverrideRecords;
  private overrideGpu!: GPUBuffer;
  private weightGpu!: GPUBuffer;

  /** `weightCount`: padded weights per instance (BakedMorph.weightCount, a multiple of 4). */
  constructor(private device: GPUDevice, readonly weightCount: number, capacity: number, private readonly label = 'Crowd') {
    this.checkCapacity(capacity);
    this.overrides = new OverrideRecords(weightCount, capacity);
    this.createBuffers(capacity);
  }

  /** Overrides per slot (MORPH_ANIMATED where not set). Owned by the store; replaced on growth. */
  get overrideBuffer(): GPUBuffer {
    return this.overrideGpu;
  }

  /** The weights the vertex shader reads, weightCount f32 per slot. Owned by the store; replaced on growth. */
  get weightBuffer(): GPUBuffer {
    return this.weightGpu;
  }

  /** Slots the buffers hold. */
  get capacity(): number {
    return this.overrides.capacity;
  }

  /** The overrides of `slot` (a view: valid until the next growth; do not keep). */
  overridesOf(slot: number): Float32Array {
    return this.overrides.of(slot);
  }

  /** Writes `values` (weightCount numbers, already checked: [0, 1] or MORPH_ANIMATED) as the overrides of `slot`. */
  setOverrides(slot: number, values: ArrayLike<number>): void {
    this.overrides.set(slot, values);
  }

  /** Whether `slot` overrides any weight. Allocation-free. */
  hasOverrides(slot: number): boolean {
    return this.overrides.any(slot);
  }

  /** Sets one override (weight index `index` of `slot`). Allocation-free. */
  setOverride(slot: number, index: number, value: number): void {
    this.overrides.setOne(slot, index, value);
  }

  checkCapacity(capacity: number): void {
    checkStorageBinding(this.device, `${this.label}.morphWeights`, capacity * this.weightCount * 4);
  }

  grow(capacity: number, count: number): void {
    if (capacity <= this.capacity) return;
    this.overrides.reserve(capacity);
    this.overrideGpu.destroy();
    this.weightGpu.destroy();
    this.createBuffers(capacity);
    this.overrides.markAllDirty(count);
  }

  move(from: number, to: number): void {
    if (from !== to) this.overrides.move(from, to);
  }

  swap(a: number, b: number): void {
    this.overrides.swap(a, b);
  }

  reset(slot: number): void {
    this.overrides.reset(slot);
  }

  upload(queue: GPUQueue): number {
    return this.overrides.upload(queue, this.overrideGpu);
  }

  restore(device: GPUDevice, count: number): void {
    this.destroy();
    this.device = device;
    this.createBuffers(this.capacity);
    this.overrides.markAllDirty(count);
  }

  destroy(): void {
    this.overrideGpu.destroy();
    this.weightGpu.destroy();
  }

  /** Bytes of the per-slot GPU buffers (SlotData.gpuBytes). */
  gpuBytes(): number {
    return this.overrideGpu.size + this.weightGpu.size;
  }

  private createBuffers(capacity: number): void {
    const size = Math.max(16, capacity * this.weightCount * 4);
    this.overrideGpu = this.device.createBuffer({ label: `${this.label}.morphOverrides`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    // COPY_SRC: tests read back what the morph pass wrote.
    this.weightGpu = this.device.createBuffer({ label: `${this.label}.morphWeights`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  }
}

/** weightCount f32 overrides per slot: a RecordBuffer (moves, swaps, growth and the changed range in one writeBuffer). */
class OverrideRecords extends RecordBuffer {
  constructor(private readonly weightCount: number, capacity: number) {
    super(weightCount * 4, capacity, []);
    this.f32.fill(MORPH_ANIMATED);
  }

  of(slot: number): Float32Array {
    return this.f32.subarray(slot * this.weightCount, (slot + 1) * this.weightCount);
  }

  set(slot: number, values: ArrayLike<number>): void {
    this.f32.set(values, slot * this.weightCount);
    this.touch(slot);
  }

  setOne(slot: number, index: number, value: number): void {
    this.f32[slot * this.weightCount + index] = value;
    this.touch(slot);
  }

  any(slot: number): boolean {
    for (let i = slot * this.weightCount, end = i + this.weightCount; i < end; i++) if (this.f32[i] !== MORPH_ANIMATED) return true;
    return false;
  }

  /** An added instance's overrides: every weight animated. */
  reset(slot: number): void {
    this.f32.fill(MORPH_ANIMATED, slot * this.weightCount, (slot + 1) * this.weightCount);
    this.touch(slot);
  }
}
