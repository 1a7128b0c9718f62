import type { PropSetSource } from '../../runtime/held-props';
import type { SlotData } from '../../runtime/instance-store';
import { checkStorageBinding } from '../../runtime/limits';
import { RecordBuffer } from '../../runtime/record-buffer';

/**
 * Which props of chosen instances each slot's instance holds (CrowdProps `attach` with
 * `instances`): a u32 per slot, bit i set when it holds the i-th such attachment in attach order
 * (bit PROP_SET_OTHERS: one past the 31st). Kept beside the store's records: the store moves,
 * swaps, resets and grows it with them (SlotData), so the word follows its instance between the
 * rebuilds CrowdProps makes when a selection changes. The impostor feature reads it: an atlas
 * layer a prop set (impostor.wgsl `propSets`). A RecordBuffer of one word a slot (the CPU mirror,
 * the changed range uploaded once per update) and one GPU buffer, made at the first upload after
 * a slot first held a set and replaced on growth and restore. Nothing here allocates per frame.
 */
export class PropSets implements SlotData, PropSetSource {
  private readonly records: PropSetRecords;
  private gpu: GPUBuffer | undefined;
  /** Whether any slot ever held a prop set: until then no GPU buffer is made (a crowd whose props every instance holds pays nothing). */
  private used = false;

  constructor(private device: GPUDevice, capacity: number) {
    this.records = new PropSetRecords(capacity);
  }

  /** The GPU copy (u32 per slot), made at the first upload after a slot first held a set; replaced on growth and restore. */
  get buffer(): GPUBuffer | undefined {
    return this.gpu;
  }

  /** `slot`'s prop set (bit i: the i-th chosen-instance attachment). */
  setOf(slot: number): number {
    return this.records.word(slot);
  }

  /** Every slot of [0, `count`) set again: `sets[slot]`, from a rebuild of every selection. */
  assign(sets: Uint32Array, count: number): void {
    for (let slot = 0; slot < count; slot++) if (this.records.set(slot, sets[slot])) this.used = true;
  }

  checkCapacity(capacity: number): void {
    checkStorageBinding(this.device, 'Crowd.propSets', capacity * 4);
  }

  grow(capacity: number, count: number): void {
    if (capacity <= this.records.capacity) return;
    this.records.reserve(capacity);
    this.gpu?.destroy();
    this.gpu = undefined;
    this.records.markAllDirty(count);
  }

  move(from: number, to: number): void {
    this.records.move(from, to);
  }

  swap(a: number, b: number): void {
    this.records.swap(a, b);
  }

  reset(slot: number): void {
    this.records.set(slot, 0);
  }

  upload(queue: GPUQueue): number {
    if (!this.used) return 0;
    if (!this.gpu) {
      this.gpu = this.device.createBuffer({ label: 'Crowd.propSets', size: Math.max(16, this.records.capacity * 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      this.records.markAllDirty(this.records.capacity);
    }
    return this.records.upload(queue, this.gpu);
  }

  restore(device: GPUDevice, count: number): void {
    this.device = device;
    this.gpu = undefined;
    this.records.markAllDirty(count);
  }

  destroy(): void {
    this.gpu?.destroy();
    this.gpu = undefined;
  }

  gpuBytes(): number {
    return this.gpu?.size ?? 0;
  }
}

/** One u32 record a slot (RecordBuffer: grown, moved, swapped and uploaded by its changed range). */
class PropSetRecords extends RecordBuffer {
  constructor(capacity: number) {
    super(4, capacity, []);
  }

  word(slot: number): number {
    return this.u32[slot];
  }

  /** Writes `slot`'s word; whether it changed. */
  set(slot: number, word: number): boolean {
    if (this.u32[slot] === word >>> 0) return false;
    this.u32[slot] = word;
    this.touch(slot);
    return true;
  }
}
