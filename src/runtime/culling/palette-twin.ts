import { INSTANCE, PALETTE_BUCKET_BITS, PALETTE_BUCKETS, PALETTE_NONE, PALETTE_SHARED } from '../layout';

/** Per-level lists of instance slots, levels packed (GLDrawLists's shape): level L at [offsets[L], offsets[L] + counts[L]). */
export interface PaletteLists {
  readonly slots: Uint32Array;
  readonly offsets: ArrayLike<number>;
  readonly counts: ArrayLike<number>;
  readonly levels: number;
}

/**
 * The top PALETTE_BUCKET_BITS of a clip position (its shared pose's time bucket, in
 * [0, PALETTE_BUCKETS)) at crowd clock `ticks` (i32) of a clip recorded as (phase, rateLo, rateHi):
 * the high word of phase x 2^32 + rate x ticks mod 2^64, formed from 16-bit halves as
 * shaders/culling/palette.wgsl's clipTurns does (exact; no BigInt, nothing allocated).
 */
export function paletteBucket(phase: number, rateLo: number, rateHi: number, ticks: number): number {
  const c = ticks >>> 0;
  const a0 = rateLo & 0xffff, a1 = rateLo >>> 16, b0 = c & 0xffff, b1 = c >>> 16;
  const p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const high = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16); // < 2^33: exact
  const word = (phase + high + Math.imul(rateHi, c) - (ticks < 0 ? rateLo : 0)) >>> 0;
  return word >>> (32 - PALETTE_BUCKET_BITS);
}

/**
 * The joint-matrix palette's assignment on the CPU: the TypeScript twin of
 * shaders/culling/palette.wgsl (mark, release, acquire; docs/palette.md), which the WebGL 2
 * crowd runs after GLCull each frame while its store's palette is active (JointPalette), and
 * which test/runtime/culling/palette-twin.test.ts holds to the WebGPU pass on the same lists.
 *
 *   mark     every slot in a camera or shadow list is seen this frame
 *   release  a slot holding an entry of its own it was not seen with (or past the live count)
 *            pushes it on the free stack and its pose is made stale (`stale`); a shared entry is
 *            dropped, to be retried
 *   acquire  camera levels near to far, then the shadow lists: a seen slot without an entry pops
 *            one; when the stack is empty it takes PALETTE_SHARED | (sharedBase + clipA x
 *            PALETTE_BUCKETS + bucket), its clip A's time bucket (paletteBucket), made stale
 *
 * The same invariants as the GPU pass, and the same choices where the GPU's are determined
 * (which lists are served first, which slots share, their buckets); within one list the GPU pops
 * in the order its atomics run, the twin in list order. Owns its arrays, grown with the capacity
 * (never per frame).
 */
export class PaletteTwin {
  /** Per slot: its entry (PALETTE_* in layout.ts), PALETTE_NONE for none. Read only outside. */
  entries = new Uint32Array(0);
  /** Own entries held by slots (the budget less the free ones). */
  held = 0;
  /** Slots given a shared pose in the last assign(). */
  shared = 0;
  private seen = new Uint32Array(0);
  private free = new Uint32Array(0);
  private freeCount = 0;
  private frame = 0;
  private budget = 0;
  private sharedBase = 0;

  /** Forgets every entry (all PALETTE_NONE) and frees the `budget` own entries [0, budget) (after the joint sets were re-made); `sharedBase`: the first shared one. */
  reset(capacity: number, budget: number, sharedBase: number): void {
    if (this.entries.length !== capacity) {
      this.entries = new Uint32Array(capacity);
      this.seen = new Uint32Array(capacity);
    }
    this.entries.fill(PALETTE_NONE);
    this.seen.fill(0);
    if (this.free.length !== budget) this.free = new Uint32Array(budget);
    for (let i = 0; i < budget; i++) this.free[i] = i; // JointPalette.create's order: the top is popped first
    this.freeCount = budget;
    this.budget = budget;
    this.sharedBase = sharedBase;
    this.held = this.shared = 0;
  }

  /**
   * One frame's assignment for `count` live slots drawn in `camera` and (when given) `casters`.
   * `records`: the INSTANCE records as u32 words (clipA, phaseA, rateLoA, rateHiA read for a
   * shared pose); `ticks`: the crowd clock in ticks (clockTicks); `stale(slot)`: makes a slot's
   * pose due on the next frame at any animation-LOD step (the twin of palette.wgsl's makeStale).
   */
  assign(camera: PaletteLists, casters: PaletteLists | undefined, count: number, records: Uint32Array, ticks: number, stale: (slot: number) => void): void {
    const frame = this.frame = (this.frame + 1) >>> 0 || 1; // 0 is "never seen"
    const { entries, seen, free } = this;
    markLists(camera, seen, frame);
    if (casters) markLists(casters, seen, frame);
    let freeCount = this.freeCount;
    for (let slot = 0; slot < entries.length; slot++) {
      const entry = entries[slot];
      if (entry === PALETTE_NONE) continue;
      if ((entry & PALETTE_SHARED) !== 0) {
        entries[slot] = PALETTE_NONE;
      } else if (slot >= count || seen[slot] !== frame) {
        free[freeCount++] = entry;
        entries[slot] = PALETTE_NONE;
        stale(slot);
      }
    }
    this.freeCount = freeCount;
    this.shared = this.acquire(camera, records, ticks, stale) + (casters ? this.acquire(casters, records, ticks, stale) : 0);
    this.held = this.budget - this.freeCount;
  }

  /** acquire over `lists`, level by level; returns the slots it gave a shared pose. */
  private acquire(lists: PaletteLists, records: Uint32Array, ticks: number, stale: (slot: number) => void): number {
    const { entries, free } = this, words = INSTANCE.size / 4, sharedBase = this.sharedBase;
    let shared = 0;
    for (let level = 0; level < lists.levels; level++) {
      const end = lists.offsets[level] + lists.counts[level];
      for (let i = lists.offsets[level]; i < end; i++) {
        const slot = lists.slots[i];
        if (entries[slot] !== PALETTE_NONE) continue;
        if (this.freeCount > 0) {
          entries[slot] = free[--this.freeCount];
          continue;
        }
        const w = slot * words;
        const bucket = paletteBucket(records[w + INSTANCE.phaseA / 4], records[w + INSTANCE.rateLoA / 4], records[w + INSTANCE.rateHiA / 4], ticks);
        entries[slot] = (PALETTE_SHARED | (sharedBase + records[w + INSTANCE.clipA / 4] * PALETTE_BUCKETS + bucket)) >>> 0;
        shared++;
        stale(slot);
      }
    }
    return shared;
  }
}

function markLists(lists: PaletteLists, seen: Uint32Array, frame: number): void {
  for (let level = 0; level < lists.levels; level++) {
    const end = lists.offsets[level] + lists.counts[level];
    for (let i = lists.offsets[level]; i < end; i++) seen[lists.slots[i]] = frame;
  }
}
