import { ROOT_ANCHOR } from '../../runtime/layout';
import { RecordBuffer } from '../../runtime/record-buffer';

/** Float64 numbers per anchor in the CPU's own copy (CrowdRootMotion): world (16), clock, timeA, timeB, moves. */
export const ANCHOR_NUMBERS = 20;

/**
 * CPU mirror of the root-motion pass's anchor buffer: one ROOT_ANCHOR record per instance
 * handle (src/runtime/layout.ts), the float32 image of the float64 anchors that CrowdRootMotion keeps.
 * Written on events only (add, setTransform, setAnimation, setBlend, a clock rebase); uploaded as
 * one changed range per frame. Indexed by handle, so records never move when instances change slots.
 */
export class RootAnchorRecords extends RecordBuffer {
  constructor(capacity: number) {
    super(ROOT_ANCHOR.size, capacity, []);
  }

  /** Writes record `handle` from ANCHOR_NUMBERS float64 numbers at `source[offset]`. */
  write(handle: number, source: Float64Array, offset: number): void {
    const o = handle * this.stride;
    for (let i = 0; i < 16; i++) this.f32[o + ROOT_ANCHOR.world / 4 + i] = source[offset + i];
    this.f32[o + ROOT_ANCHOR.clock / 4] = source[offset + 16];
    this.f32[o + ROOT_ANCHOR.timeA / 4] = source[offset + 17];
    this.f32[o + ROOT_ANCHOR.timeB / 4] = source[offset + 18];
    this.u32[o + ROOT_ANCHOR.moves / 4] = source[offset + 19] ? 1 : 0;
    this.touch(handle);
  }
}
