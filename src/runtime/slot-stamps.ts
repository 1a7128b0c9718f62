import { RecordBuffer } from './record-buffer';

/**
 * CPU mirror of the per-slot stamps (one u32 per slot): a slot's stamp changes whenever an
 * instance is put into it (add, or a move when another instance is removed or changes group).
 * The cull pass compares it with the stamp of the pose the joint buffer holds for the slot, so
 * an instance that moved is posed in its new slot on the next frame even when animation LOD
 * would skip it. Stamps start at 1: a zeroed (fresh) pose-state buffer never matches.
 */
export class SlotStamps extends RecordBuffer {
  private next = 1;

  constructor(capacity: number) {
    super(4, capacity, []);
  }

  /** Gives `slot` a new stamp. */
  renew(slot: number): void {
    this.u32[slot] = this.next;
    this.next = this.next === 0xffffffff ? 1 : this.next + 1;
    this.touch(slot);
  }
}
