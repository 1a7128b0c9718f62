import type { SlotData } from './instance-store';
import { MORPH_ANIMATED } from './layout';
import { checkStorageBinding } from './limits';

/**
 * Per instance morph data of a crowd whose character has morph targets, kept slot by slot beside
 * the InstanceStore's records (it moves, grows, uploads and restores with them: SlotData):
 *   overrides  weightCount f32 per slot: a weight in [0, 1] set by Crowd.setMorphWeights, or
 *              MORPH_ANIMATED; CPU mirror + GPU buffer, the changed range uploaded in one writeBuffer
 *   weights    weightCount f32 per slot, written by the morph pass each frame, read by the skin
 *              pass's morph entry points (GPU only)
 * Owns both GPU buffers; they are replaced on growth and restore (the store's generation
 * changes, so passes rebind). Nothing here allocates per frame.
 */
export class MorphStore implements SlotData {
  private overrides: Float32Array;
  private overrideGpu!: GPUBuffer;
  private weightGpu!: GPUBuffer;
  private dirtyStart = Infinity;
  private dirtyEnd = 0;

  /** `weightCount`: padded weights per instance (BakedMorph.weightCount, a multiple of 4). */
  constructor(private device: GPUDevice, readonly weightCount: number, capacity: number, private readonly label = 'Crowd') {
    this.checkCapacity(capacity);
    this.overrides = new Float32Array(capacity * weightCount).fill(MORPH_ANIMATED);
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
    return this.overrides.length / this.weightCount;
  }

  /** The overrides of `slot` (a view: valid until the next growth; do not keep). */
  overridesOf(slot: number): Float32Array {
    return this.overrides.subarray(slot * this.weightCount, (slot + 1) * this.weightCount);
  }

  /** Writes `values` (weightCount numbers, already checked: [0, 1] or MORPH_ANIMATED) as the overrides of `slot`. */
  setOverrides(slot: number, values: ArrayLike<number>): void {
    this.overrides.set(values, slot * this.weightCount);
    this.touch(slot);
  }

  /** Sets one override (weight index `index` of `slot`). Allocation-free. */
  setOverride(slot: number, index: number, value: number): void {
    this.overrides[slot * this.weightCount + index] = value;
    this.touch(slot);
  }

  checkCapacity(capacity: number): void {
    checkStorageBinding(this.device, `${this.label}.morphWeights`, capacity * this.weightCount * 4);
  }

  grow(capacity: number, count: number): void {
    if (capacity <= this.capacity) return;
    const grown = new Float32Array(capacity * this.weightCount).fill(MORPH_ANIMATED);
    grown.set(this.overrides.subarray(0, count * this.weightCount));
    this.overrides = grown;
    this.overrideGpu.destroy();
    this.weightGpu.destroy();
    this.createBuffers(capacity);
    this.markAll(count);
  }

  move(from: number, to: number): void {
    if (from === to) return;
    const n = this.weightCount;
    this.overrides.copyWithin(to * n, from * n, (from + 1) * n);
    this.touch(to);
  }

  swap(a: number, b: number): void {
    if (a === b) return;
    const n = this.weightCount;
    for (let i = 0; i < n; i++) {
      const t = this.overrides[a * n + i];
      this.overrides[a * n + i] = this.overrides[b * n + i];
      this.overrides[b * n + i] = t;
    }
    this.touch(a);
    this.touch(b);
  }

  reset(slot: number): void {
    this.overrides.fill(MORPH_ANIMATED, slot * this.weightCount, (slot + 1) * this.weightCount);
    this.touch(slot);
  }

  upload(queue: GPUQueue): number {
    if (this.dirtyEnd <= this.dirtyStart) return 0;
    const n = this.weightCount;
    const bytes = (this.dirtyEnd - this.dirtyStart) * n * 4;
    queue.writeBuffer(this.overrideGpu, this.dirtyStart * n * 4, this.overrides.buffer, this.overrides.byteOffset + this.dirtyStart * n * 4, bytes);
    this.dirtyStart = Infinity;
    this.dirtyEnd = 0;
    return bytes;
  }

  restore(device: GPUDevice, count: number): void {
    this.destroy();
    this.device = device;
    this.createBuffers(this.capacity);
    this.markAll(count);
  }

  destroy(): void {
    this.overrideGpu.destroy();
    this.weightGpu.destroy();
  }

  private markAll(count: number): void {
    if (count > 0) { this.touch(0); this.touch(count - 1); }
  }

  private touch(slot: number): void {
    if (slot < this.dirtyStart) this.dirtyStart = slot;
    if (slot + 1 > this.dirtyEnd) this.dirtyEnd = slot + 1;
  }

  private createBuffers(capacity: number): void {
    const size = Math.max(16, capacity * this.weightCount * 4);
    this.overrideGpu = this.device.createBuffer({ label: `${this.label}.morphOverrides`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    // COPY_SRC: tests read back what the morph pass wrote.
    this.weightGpu = this.device.createBuffer({ label: `${this.label}.morphWeights`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  }
}
