import type { SlotData } from '../../runtime/instance-store';
import { checkStorageBinding } from '../../runtime/limits';
import { RecordBuffer } from '../../runtime/record-buffer';
import { BUFFER_USAGE, type RecordBufferLike, type RecordDevice, type RecordQueue } from '../../runtime/record-device';
import { APPEARANCE } from './appearance-layout';

/** Distinct looks countLooks counts in its table before it falls back to a Map. */
const LOOK_TABLE = 32;

/**
 * Per-instance appearance records (APPEARANCE, 32 bytes a slot), kept slot by slot beside the
 * InstanceStore's records: the store moves, resets, grows, uploads and restores them (SlotData).
 * CPU mirror + one GPU buffer (the skin and shadow passes read it as skin.wgsl `appearances`;
 * on WebGL 2 a record texture on the crowd's record device, which the GL draw fetches); the
 * changed range goes up in one writeBuffer per update. Owns the GPU buffer, which is replaced on
 * growth and restore. Nothing here allocates per frame.
 */
export class AppearanceStore implements SlotData<RecordBufferLike> {
  private readonly records: AppearanceRecords;
  private gpu!: RecordBufferLike;
  /** Bumped by every change that may change a slot's (variant, parts) (AppearanceLooks.version). */
  private looks = 0;
  /** countLooks's table: the first distinct looks' keys and counts. */
  private readonly lookKeys = new Float64Array(LOOK_TABLE);
  private readonly lookCounts = new Float64Array(LOOK_TABLE);

  /** `device`: the crowd's record device (CrowdKernel.recordDevice). `allParts`: the parts mask of a new instance (every primitive drawn). */
  constructor(private device: RecordDevice<RecordBufferLike>, capacity: number, allParts: number, private readonly label = 'Crowd') {
    this.checkCapacity(capacity);
    this.records = new AppearanceRecords(capacity, allParts);
    this.createBuffer(capacity);
    this.records.markAllDirty(capacity);
  }

  /** One record per slot (skin.wgsl `appearances`; a record texture on WebGL 2). Owned by the store; replaced on growth and restore. */
  get buffer(): GPUBuffer {
    return this.gpu as GPUBuffer;
  }

  get capacity(): number {
    return this.records.capacity;
  }

  /** Writes `slot`'s tint (linear RGB, already checked). */
  setTint(slot: number, r: number, g: number, b: number): void {
    this.records.setTint(slot, r, g, b);
  }

  setVariant(slot: number, variant: number): void {
    this.records.setWord(slot, APPEARANCE.variant, variant);
    this.looks++;
  }

  setParts(slot: number, parts: number): void {
    this.records.setWord(slot, APPEARANCE.parts, parts);
    this.looks++;
  }

  /** Changes whenever a slot's variant or parts may have changed (AppearanceLooks.version). */
  get looksVersion(): number {
    return this.looks;
  }

  /**
   * Adds to `out` the slots of each look among [0, `count`): key variant x 2^32 + parts, the
   * variant 0 where `parts & varied` is 0 (AppearanceLooks.count). O(count), reads the CPU mirror.
   */
  countLooks(count: number, varied: number, out: Map<number, number>): void {
    const u32 = this.records.words;
    const stride = APPEARANCE.size / 4;
    // The first LOOK_TABLE distinct looks are counted in a small table searched from the last hit
    // (a crowd has few; a Map lookup a slot took 194 ms over a million slots), the rest in `out`.
    const keys = this.lookKeys, counts = this.lookCounts;
    let used = 0, last = 0;
    for (let slot = 0, o = 0; slot < count; slot++, o += stride) {
      const parts = u32[o + APPEARANCE.parts / 4];
      const key = ((parts & varied) !== 0 ? u32[o + APPEARANCE.variant / 4] : 0) * 2 ** 32 + parts;
      if (used > 0 && keys[last] === key) {
        counts[last]++;
        continue;
      }
      let i = 0;
      while (i < used && keys[i] !== key) i++;
      if (i < used) {
        counts[i]++;
        last = i;
      } else if (used < keys.length) {
        keys[used] = key;
        counts[used] = 1;
        last = used++;
      } else out.set(key, (out.get(key) ?? 0) + 1);
    }
    for (let i = 0; i < used; i++) out.set(keys[i], (out.get(keys[i]) ?? 0) + counts[i]);
  }

  /** `slot`'s look key (countLooks's): variant x 2^32 + parts, the variant 0 where `parts & varied` is 0. */
  lookKey(slot: number, varied: number): number {
    const parts = this.records.word(slot, APPEARANCE.parts);
    return ((parts & varied) !== 0 ? this.records.word(slot, APPEARANCE.variant) : 0) * 2 ** 32 + parts;
  }

  /** `slot`'s tint into `out` (3 numbers). */
  tintOf(slot: number, out: Float32Array | number[]): void {
    this.records.tintOf(slot, out);
  }

  variantOf(slot: number): number {
    return this.records.word(slot, APPEARANCE.variant);
  }

  partsOf(slot: number): number {
    return this.records.word(slot, APPEARANCE.parts);
  }

  checkCapacity(capacity: number): void {
    checkStorageBinding(this.device, `${this.label}.appearances`, capacity * APPEARANCE.size);
  }

  grow(capacity: number, count: number): void {
    if (capacity <= this.capacity) return;
    this.looks++;
    const old = this.capacity;
    this.records.reserve(capacity);
    for (let slot = old; slot < capacity; slot++) this.records.reset(slot);
    this.gpu.destroy();
    this.createBuffer(capacity);
    this.records.markAllDirty(Math.max(count, 1));
  }

  move(from: number, to: number): void {
    if (from !== to) this.records.move(from, to);
    this.looks++;
  }

  swap(a: number, b: number): void {
    this.records.swap(a, b);
  }

  reset(slot: number): void {
    this.records.reset(slot);
    this.looks++;
  }

  upload(queue: RecordQueue<RecordBufferLike>): number {
    return this.records.upload(queue as GPUQueue, this.gpu as GPUBuffer);
  }

  restore(device: RecordDevice<RecordBufferLike>, count: number): void {
    this.destroy();
    this.device = device;
    this.createBuffer(this.capacity);
    this.records.markAllDirty(Math.max(count, 1));
  }

  destroy(): void {
    this.gpu.destroy();
  }

  gpuBytes(): number {
    return this.gpu.size;
  }

  private createBuffer(capacity: number): void {
    // COPY_SRC: tests read back what was uploaded.
    this.gpu = this.device.createBuffer({ label: `${this.label}.appearances`, size: Math.max(1, capacity) * APPEARANCE.size, usage: BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST | BUFFER_USAGE.COPY_SRC });
  }
}

/** The records: a RecordBuffer (moves, swaps, growth and the changed range in one writeBuffer). */
class AppearanceRecords extends RecordBuffer {
  constructor(capacity: number, private readonly allParts: number) {
    super(APPEARANCE.size, capacity, []);
    for (let slot = 0; slot < this.capacity; slot++) this.reset(slot);
  }

  setTint(slot: number, r: number, g: number, b: number): void {
    const o = slot * this.stride + APPEARANCE.tint / 4;
    this.f32[o] = r;
    this.f32[o + 1] = g;
    this.f32[o + 2] = b;
    this.f32[o + 3] = 1;
    this.touch(slot);
  }

  tintOf(slot: number, out: Float32Array | number[]): void {
    const o = slot * this.stride + APPEARANCE.tint / 4;
    for (let i = 0; i < 3; i++) out[i] = this.f32[o + i];
  }

  setWord(slot: number, offset: number, value: number): void {
    this.u32[slot * this.stride + offset / 4] = value;
    this.touch(slot);
  }

  /** The records as u32 words (APPEARANCE.size / 4 a slot); replaced on growth. */
  get words(): Uint32Array {
    return this.u32;
  }

  word(slot: number, offset: number): number {
    return this.u32[slot * this.stride + offset / 4];
  }

  /** A new instance's appearance: no tint (white), its own textures, every part. */
  reset(slot: number): void {
    this.u32.fill(0, slot * this.stride, (slot + 1) * this.stride);
    this.setTint(slot, 1, 1, 1);
    this.setWord(slot, APPEARANCE.parts, this.allParts);
  }
}
