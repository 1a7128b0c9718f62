import { SLOT_MESH_ONLY } from './layout';
import { RecordBuffer } from './record-buffer';

/**
 * CPU mirror of the per-slot stamps (one u32 per slot): a slot's stamp changes whenever an
 * instance is put into it (add, or a move when another instance is removed or changes group).
 * The cull pass compares it with the stamp of the pose the joint buffer holds for the slot, so
 * an instance that moved is posed in its new slot on the next frame even when animation LOD
 * would skip it. Stamps start at 1: a zeroed (fresh) pose-state buffer never matches. The top
 * bit (SLOT_MESH_ONLY) rides along: set, the instance in the slot is never drawn as an impostor
 * (InstanceStore.setMeshOnly: a prop set without an atlas layer, morph weights of its own); the count takes the 31 bits below it.
 */
export class SlotStamps extends RecordBuffer {
  private next = 1;

  constructor(capacity: number) {
    super(4, capacity, []);
  }

  /** Gives `slot` a new stamp, with the mesh-only bit of the instance now in it. */
  renew(slot: number, meshOnly = false): void {
    this.u32[slot] = (this.next | (meshOnly ? SLOT_MESH_ONLY : 0)) >>> 0;
    this.next = this.next === SLOT_MESH_ONLY - 1 ? 1 : this.next + 1;
    this.touch(slot);
  }
}
