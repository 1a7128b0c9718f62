import type { PaletteState } from './crowd-types';
import { PALETTE_BUCKETS, PALETTE_FREE, PALETTE_NONE } from './layout';
import { storageLimit } from './limits';
import { BUFFER_USAGE, type RecordBufferLike, type RecordDevice } from './record-device';
import { show } from '../math/show';

/**
 * The default budget (CrowdOptions.paletteSize), in joint sets: a fixed number, so that memory
 * follows what is seen rather than the crowd. Every instance of a crowd of up to 65,536 has a set
 * of its own (exact poses, `jointMatrixIndex` works); past that, 65,536 drawn instances do (more
 * than a 4K screen shows in detail: 3,840 x 2,160 / 65,536 is 127 pixels each) and the rest of
 * the drawn ones show shared poses. A million Foxes (1,152 bytes a set) then hold 75 MB of joint
 * sets instead of 1.15 GB; a RobotExpressive set (4,704 bytes) makes it 308 MB, and on a device
 * whose storage binding is smaller (WebGPU's default 128 MiB: 28,532 sets) the budget is cut to it.
 */
export const DEFAULT_PALETTE_SIZE = 65_536;

/**
 * How many joint sets an instance store's joint buffer holds, and the palette's per-slot buffers
 * when it holds fewer than one per instance (InstanceStore owns one; the palette pass,
 * src/runtime/culling/palette-pass.ts, hands the sets out each frame).
 *
 *   full     capacity <= budget: one joint set per slot, set = slot (the entries are the store's
 *            identity list): exactly the crowd without a palette
 *   palette  capacity > budget: `budget` sets of their own, then clipCount x PALETTE_BUCKETS
 *            shared sets (one pose per clip and time bucket) for the drawn instances the budget
 *            leaves without one; per slot an entry (u32, PALETTE_* in layout.ts) and the frame it
 *            was last drawn, and a stack of the free sets
 *
 * The budget is CrowdOptions.paletteSize (default DEFAULT_PALETTE_SIZE; Infinity: as many as the
 * device's storage limit allows), cut to what that limit allows for the joint buffer. Nothing
 * here allocates per frame.
 */
export class JointPalette<B extends RecordBufferLike = GPUBuffer> implements PaletteState {
  /** Shared sets in palette mode: clipCount x PALETTE_BUCKETS. */
  readonly sharedSets: number;
  /** Bytes of one joint set (joints x bytes per joint); the store changes it with the skinning method. */
  setBytes: number;
  /** The budget asked for: CrowdOptions.paletteSize or DEFAULT_PALETTE_SIZE (Infinity: as many as fit). */
  private readonly paletteSize: number;
  private buffers: { entries: B; seen: B; free: B } | undefined;
  private ownSets = 0;

  /**
   * `paletteSize`: the user's budget (undefined: DEFAULT_PALETTE_SIZE; Infinity: as many as fit).
   * Throws a RangeError naming paletteSize when it is neither a positive integer nor Infinity;
   * one larger than the device allows is cut to what fits.
   */
  constructor(/** The store's device (restore replaces it). */ public device: RecordDevice<B>, setBytes: number, clipCount: number, paletteSize: number | undefined) {
    if (paletteSize !== undefined && paletteSize !== Infinity && (!Number.isInteger(paletteSize) || paletteSize < 1)) {
      throw new RangeError(`paletteSize must be a positive integer or Infinity (joint sets of instances being drawn), got ${show(paletteSize)}`);
    }
    this.sharedSets = Math.max(1, clipCount) * PALETTE_BUCKETS;
    this.setBytes = setBytes;
    this.paletteSize = paletteSize ?? DEFAULT_PALETTE_SIZE;
  }

  /** Joint sets the device's storage limit allows in one buffer. */
  private get fit(): number {
    return Math.floor(storageLimit(this.device).bytes / Math.max(1, this.setBytes));
  }

  /** Sets of their own in palette mode: CrowdOptions.paletteSize cut to what the device's storage limit leaves beside the shared sets (>= 1). */
  get budget(): number {
    return Math.max(1, Math.min(this.paletteSize, this.fit - this.sharedSets));
  }

  /** The largest capacity with a joint set per slot: the budget asked for, cut to every set that fits (then the palette takes over with the same buffer size). */
  get fullUpTo(): number {
    return Math.min(this.paletteSize, this.fit);
  }

  /**
   * Joint sets the joint buffer holds for `capacity` slots: the capacity up to fullUpTo, else the
   * budget and the shared sets (never fewer: budget + sharedSets >= fullUpTo, so the buffer's
   * size does not shrink as the capacity grows).
   */
  setsFor(capacity: number): number {
    return capacity <= this.fullUpTo ? capacity : this.budget + this.sharedSets;
  }

  /** Whether the buffers were made for more slots than joint sets of their own (the palette pass runs). */
  get active(): boolean {
    return this.buffers !== undefined;
  }

  /** Joint sets of their own: the capacity in full mode, the budget in palette mode. */
  get size(): number {
    return this.ownSets;
  }

  /** Per slot the joint set entry (u32), or undefined in full mode (the identity list serves). Owned here; replaced with the store's buffers. */
  get entryBuffer(): B | undefined {
    return this.buffers?.entries;
  }

  /** Per slot the last frame it was drawn (u32, the palette pass's). */
  get seenBuffer(): B | undefined {
    return this.buffers?.seen;
  }

  /** The free-set stack (PALETTE_FREE). */
  get freeBuffer(): B | undefined {
    return this.buffers?.free;
  }

  /** Bytes of the palette's own buffers (0 in full mode). */
  get gpuBytes(): number {
    const b = this.buffers;
    return b ? b.entries.size + b.seen.size + b.free.size : 0;
  }

  /**
   * Makes the buffers for `capacity` slots (`stride` list entries; the old ones are the caller's
   * to destroy through the returned function, after it swapped): in palette mode every entry
   * none, nothing seen, every set free.
   */
  create(device: RecordDevice<B>, label: string, capacity: number, stride: number): () => void {
    const old = this.buffers;
    const budget = this.budget;
    const palette = capacity > this.fullUpTo;
    this.ownSets = palette ? budget : capacity;
    this.buffers = undefined;
    if (palette) {
      const buffer = (name: string, words: number, usage = 0) =>
        device.createBuffer({ label: `${label}.${name}`, size: words * 4, usage: BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST | usage });
      const entries = buffer('paletteEntries', stride, BUFFER_USAGE.COPY_SRC);
      device.queue.writeBuffer(entries, 0, new Uint32Array(stride).fill(PALETTE_NONE));
      const free = buffer('paletteFree', PALETTE_FREE.stack + budget, BUFFER_USAGE.COPY_SRC);
      const words = new Uint32Array(PALETTE_FREE.stack + budget);
      words[PALETTE_FREE.count] = budget;
      for (let i = 0; i < budget; i++) words[PALETTE_FREE.stack + i] = i;
      device.queue.writeBuffer(free, 0, words);
      this.buffers = { entries, seen: buffer('paletteSeen', stride), free };
    }
    return () => {
      if (old) for (const b of Object.values(old)) b.destroy();
    };
  }

  destroy(): void {
    if (this.buffers) for (const b of Object.values(this.buffers)) b.destroy();
  }
}
