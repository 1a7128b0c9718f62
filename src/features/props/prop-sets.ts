import type { PropSetSource } from '../../runtime/held-props';
import type { SlotData } from '../../runtime/instance-store';
import { checkStorageBinding } from '../../runtime/limits';

/**
 * Which props of chosen instances each slot's instance holds (CrowdProps `attach` with
 * `instances`): a u32 per slot, bit i set when it holds the i-th such attachment in attach order
 * (bit PROP_SET_OTHERS: one past the 31st). Kept beside the store's records: the store moves,
 * swaps, resets and grows it with them (SlotData), so the word follows its instance between the
 * rebuilds CrowdProps makes when a selection changes. The impostor feature reads it: an atlas
 * layer a prop set (impostor.wgsl `propSets`). CPU mirror + one GPU buffer, the changed range
 * uploaded once per update; the buffer is made at the first upload and replaced on growth and
 * restore. Nothing here allocates per frame.
 */
export class PropSets implements SlotData, PropSetSource {
  private words: Uint32Array<ArrayBuffer>;
  private gpu: GPUBuffer | undefined;
  private dirtyFrom = Infinity;
  private dirtyTo = 0;
  /** Whether any slot ever held a prop set: until then no GPU buffer is made (a crowd whose props every instance holds pays nothing). */
  private used = false;

  constructor(private device: GPUDevice, capacity: number) {
    this.words = new Uint32Array(capacity);
  }

  /** The GPU copy (u32 per slot), made at the first upload; replaced on growth and restore. */
  get buffer(): GPUBuffer | undefined {
    return this.gpu;
  }

  /** `slot`'s prop set (bit i: the i-th chosen-instance attachment). */
  setOf(slot: number): number {
    return this.words[slot];
  }

  /** Every slot of [0, `count`) set again: `sets[slot]`, from a rebuild of every selection. */
  assign(sets: Uint32Array, count: number): void {
    for (let slot = 0; slot < count; slot++) {
      if (this.words[slot] === sets[slot]) continue;
      this.words[slot] = sets[slot];
      this.mark(slot);
      this.used = true;
    }
  }

  checkCapacity(capacity: number): void {
    checkStorageBinding(this.device, 'Crowd.propSets', capacity * 4);
  }

  grow(capacity: number, count: number): void {
    if (capacity <= this.words.length) return;
    const words = new Uint32Array(capacity);
    words.set(this.words.subarray(0, count));
    this.words = words;
    this.gpu?.destroy();
    this.gpu = undefined;
    this.markAll(count);
  }

  move(from: number, to: number): void {
    if (this.words[to] === this.words[from]) return;
    this.words[to] = this.words[from];
    this.mark(to);
  }

  swap(a: number, b: number): void {
    const w = this.words[a];
    if (w === this.words[b]) return;
    this.words[a] = this.words[b];
    this.words[b] = w;
    this.mark(a);
    this.mark(b);
  }

  reset(slot: number): void {
    if (this.words[slot] === 0) return;
    this.words[slot] = 0;
    this.mark(slot);
  }

  upload(queue: GPUQueue): number {
    if (!this.used) return 0;
    if (!this.gpu) {
      this.gpu = this.device.createBuffer({ label: 'Crowd.propSets', size: Math.max(16, this.words.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      this.markAll(this.words.length);
    }
    if (this.dirtyFrom >= this.dirtyTo) return 0;
    const bytes = (this.dirtyTo - this.dirtyFrom) * 4;
    queue.writeBuffer(this.gpu, this.dirtyFrom * 4, this.words, this.dirtyFrom, this.dirtyTo - this.dirtyFrom);
    this.dirtyFrom = Infinity;
    this.dirtyTo = 0;
    return bytes;
  }

  restore(device: GPUDevice, count: number): void {
    this.device = device;
    this.gpu = undefined;
    this.markAll(count);
  }

  destroy(): void {
    this.gpu?.destroy();
    this.gpu = undefined;
  }

  gpuBytes(): number {
    return this.gpu?.size ?? 0;
  }

  private mark(slot: number): void {
    if (slot < this.dirtyFrom) this.dirtyFrom = slot;
    if (slot + 1 > this.dirtyTo) this.dirtyTo = slot + 1;
  }

  private markAll(count: number): void {
    this.dirtyFrom = 0;
    this.dirtyTo = Math.max(this.dirtyTo, count);
  }
}
