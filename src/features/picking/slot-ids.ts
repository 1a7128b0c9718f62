import type { InstanceId } from '../../runtime/crowd-types';
import type { SlotData } from '../../runtime/instance-store';

/**
 * The id of the instance in each slot, as the crowd reported it (CrowdFeature.added), kept beside
 * the store's records: the store moves, swaps and grows it with them (SlotData), so that a slot a
 * pass read back names its instance. CPU only (nothing to upload). Ids are opaque numbers here.
 */
export class SlotIds implements SlotData {
  private ids: Float64Array;

  constructor(capacity: number) {
    this.ids = new Float64Array(capacity);
  }

  /** Instance `id` is now in `slot`. */
  set(slot: number, id: InstanceId): void {
    this.ids[slot] = id;
  }

  /** The id of the instance in `slot`. */
  get(slot: number): InstanceId {
    return this.ids[slot];
  }

  /** A copy of slots [0, count): what a pass encoded now will name when read back frames later. */
  snapshot(count: number): Float64Array {
    return this.ids.slice(0, count);
  }

  checkCapacity(): void {}

  grow(capacity: number, count: number): void {
    const ids = new Float64Array(capacity);
    ids.set(this.ids.subarray(0, count));
    this.ids = ids;
  }

  move(from: number, to: number): void {
    this.ids[to] = this.ids[from];
  }

  swap(a: number, b: number): void {
    const id = this.ids[a];
    this.ids[a] = this.ids[b];
    this.ids[b] = id;
  }

  reset(slot: number): void {
    this.ids[slot] = -1;
  }

  upload(): number {
    return 0;
  }

  restore(): void {}

  destroy(): void {}
}
