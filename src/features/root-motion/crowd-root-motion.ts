import { rootMotionBetween } from '../../anim/root-motion';
import type { BakedRootMotion } from '../../bake/root-motion';
import type { Crowd } from '../../runtime/crowd';
import type { InstanceId } from '../../runtime/crowd-types';
import type { CrowdFeature, CrowdKernel, FeatureStage } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import { ANCHOR_NUMBERS, RootAnchorRecords } from './root-anchor-records';
import { RootMotionPass, rootMotionTables, type RootMotionTables } from './root-motion-pass';

/** Offsets in one float64 anchor (ANCHOR_NUMBERS numbers): world 0..15, then these. */
const CLOCK = 16;
const TIME_A = 17;
const TIME_B = 18;
const MOVES = 19;

/**
 * Root motion applied to a crowd, a crowd feature: `new CrowdRootMotion(crowd)` for a character
 * loaded with LoadOptions.rootMotion mode 'apply' (the crowd refuses to update without it). Each instance that
 * moves by it has an anchor, the world transform it had at a crowd-clock time together with its
 * two clip times then, and its world now is
 *
 *     world(now) = anchor * M,   M = (1 - blend) M_A(tA0 -> tA) + blend M_B(tB0 -> tB),
 *
 * M_X the closed-form root motion of clip X between its time at the anchor and now (whole cycles
 * plus the partial one; src/anim/root-motion.ts), the blend mixing the (x, z, yaw) of the two.
 * The GPU evaluates it every frame for every instance (RootMotionPass); the CPU keeps the
 * anchors in float64 and touches one only on an event that changes how the instance moves
 * (setAnimation, setBlend, setLayers, setTransform, setPlacement: the kernel's changing /
 * changed / placed hooks), folding the motion so far into the anchor in O(1) (`reanchor`), so a
 * blend that changes mid-walk bends the path without a jump. Every CLOCK_REBASE_SECONDS the crowd clock restarts and every anchor is folded (O(n)
 * once per period, like the records' own rebase), which keeps float32 clip times and distances
 * since the anchor short on the GPU.
 *
 * Instances moved by something else do not move by root motion: `setMoves(id, false)`
 * (CrowdControllers does it for every instance it controls: locomotion moves those).
 * Layered instances move by their base clips (clip A / clip B blend); their layers do not add
 * motion.
 */
export class CrowdRootMotion implements CrowdFeature {
  readonly featureName = 'root-motion';
  private pass: RootMotionPass;

  /** Bytes of root motion's GPU buffers (Crowd.gpuBytes). */
  get gpuBytes(): number {
    return this.pass.gpuBytes;
  }
  private readonly tables: RootMotionTables;
  private readonly records: RootAnchorRecords;
  private anchors: Float64Array;
  /** Views of the store's instance records (re-made when the store's CPU mirror is replaced). */
  private readonly motionA = new Float64Array(3);
  private readonly motionB = new Float64Array(3);
  private readonly scratch = new Float64Array(16);
  private readonly scratchWorld = new Float32Array(16);
  private readonly kernel: CrowdKernel;
  /** The crowd's instance store (its records give clips, speeds and blend). */
  private readonly store: InstanceStore;
  private readonly motion: BakedRootMotion;

  /**
   * Installs root motion on `crowd`: every instance in it, and every one added later, moves by its
   * clips from its transform now. A RangeError when the character was not loaded with rootMotion
   * mode 'apply'.
   */
  constructor(crowd: Crowd) {
    const motion = crowd.character.rootMotion;
    if (motion?.mode !== 'apply') throw new RangeError(`${crowd.character.name} was not loaded with rootMotion mode 'apply' (LoadOptions.rootMotion): its clips carry no motion to apply`);
    this.motion = motion;
    this.tables = rootMotionTables(motion);
    this.records = new RootAnchorRecords(64);
    this.anchors = new Float64Array(64 * ANCHOR_NUMBERS);
    // Installed before any GPU object exists, as the other features are: a refusal leaves nothing to free.
    this.kernel = crowd.install(this);
    this.pass = new RootMotionPass(crowd.device, this.tables);
    this.store = this.kernel.store;
    const world = new Float32Array(16);
    for (let handle = 0; handle < this.store.handleCount; handle++) {
      if (!this.store.has(handle)) continue;
      const slot = this.store.slot(handle);
      this.startAt(handle, slot, this.store.records.getWorld(slot, world), this.kernel.clock);
    }
  }

  /**
   * Starts (on) or stops moving instance `id` by root motion. Stopping leaves the instance where
   * root motion has brought it; starting anchors it at its transform now (after a GPU-driven
   * controller, whose placement the CPU does not see, call setTransform or setPlacement first). O(1).
   */
  setMoves(id: InstanceId, on: boolean): void {
    const handle = this.store.handle(id);
    this.setMovesAt(handle, this.store.slot(handle), on === true, this.kernel.clock);
  }

  /** Whether instance `id` moves by its clips' root motion. */
  moves(id: InstanceId): boolean {
    return this.movesAt(this.store.handle(id));
  }

  /** CrowdFeature: a new instance moves from its transform. */
  added(handle: number, slot: number, world: ArrayLike<number>): void {
    this.startAt(handle, slot, world, this.kernel.clock);
  }

  /** CrowdFeature: its animation is about to change: the motion so far goes into the anchor. */
  changing(handle: number, slot: number): void {
    this.reanchor(handle, slot, this.kernel.clock);
  }

  /** CrowdFeature: its animation changed: the anchor takes the new clip times. */
  changed(handle: number, slot: number): void {
    this.retime(handle, slot, this.kernel.clock);
  }

  /** CrowdFeature: placed: a moving instance walks on from `world`. */
  placed(handle: number, slot: number, world: ArrayLike<number>): void {
    if (this.movesAt(handle)) this.place(handle, slot, world, this.kernel.clock);
  }

  /** A new instance: anchored at `world` (16 numbers, column-major) and its record's clip times at `clock`; it moves. */
  private startAt(handle: number, slot: number, world: ArrayLike<number>, clock: number): void {
    this.reserve(handle + 1);
    const o = handle * ANCHOR_NUMBERS;
    this.anchors[o + MOVES] = 1;
    this.place(handle, slot, world, clock);
  }

  /** Sets the anchor of `handle` to `world` at `clock` with its record's clip times then (setTransform, setPlacement). */
  private place(handle: number, slot: number, world: ArrayLike<number>, clock: number): void {
    const o = handle * ANCHOR_NUMBERS;
    for (let i = 0; i < 16; i++) this.anchors[o + i] = world[i];
    this.retime(handle, slot, clock);
  }

  /**
   * Folds the motion since the anchor into the anchor (world now, clock now, clip times now),
   * reading how the instance moved from its record as it still is: call it before a change to
   * the record's clips, times, speeds or blend. O(1), allocation-free.
   */
  private reanchor(handle: number, slot: number, clock: number): void {
    this.fold(handle, slot, clock, clock);
  }

  /** Takes the clip times of the anchor from the record at `clock` (call after a change to the record). */
  private retime(handle: number, slot: number, clock: number): void {
    const o = handle * ANCHOR_NUMBERS;
    if (!this.anchors[o + MOVES]) return;
    const records = this.store.records;
    this.anchors[o + CLOCK] = clock;
    // The clip times the pose pass shows then (it evaluates the float64 phases and speeds exactly: src/runtime/clip-clock.ts).
    this.anchors[o + TIME_A] = records.clipTime(slot, 0, clock);
    this.anchors[o + TIME_B] = records.clipTime(slot, 1, clock);
    this.records.write(handle, this.anchors, o);
  }

  /** Whether instance `handle` moves by its root motion. */
  private movesAt(handle: number): boolean {
    return this.anchors[handle * ANCHOR_NUMBERS + MOVES] === 1;
  }

  /**
   * Starts (on) or stops moving `handle` by root motion at `clock`. Stopping leaves the
   * instance where root motion has brought it (its record's world is set to that); starting
   * anchors it at its record's world.
   */
  private setMovesAt(handle: number, slot: number, on: boolean, clock: number): void {
    const o = handle * ANCHOR_NUMBERS;
    if (on === this.movesAt(handle)) return;
    if (on) {
      this.reserve(handle + 1);
      this.anchors[o + MOVES] = 1;
      this.place(handle, slot, this.store.records.getWorld(slot, this.scratchWorld), clock);
      return;
    }
    this.transformAt(handle, slot, clock, this.scratch);
    this.store.records.setWorld(slot, this.scratch);
    this.anchors[o + MOVES] = 0;
    this.records.write(handle, this.anchors, o);
  }

  /**
   * The world transform of `handle` at crowd clock `clock` (seconds; the present, or ahead of it
   * if nothing changes) into `out` (16 numbers, column-major): anchor * M in float64, what the
   * GPU computes in float32. An instance that does not move gets its record's world.
   */
  transformAt<T extends Float32Array | Float64Array>(handle: number, slot: number, clock: number, out: T): T {
    const o = handle * ANCHOR_NUMBERS;
    const a = this.anchors;
    if (!a[o + MOVES]) {
      this.store.records.getWorld(slot, this.scratchWorld);
      for (let i = 0; i < 16; i++) out[i] = this.scratchWorld[i];
      return out;
    }
    const records = this.store.records;
    const elapsed = clock - a[o + CLOCK];
    const m = rootMotionBetween(this.motion, records.clip(slot, 0), a[o + TIME_A], a[o + TIME_A] + records.gpuSpeed(slot, 0) * elapsed, this.motionA);
    const blend = records.blend(slot);
    if (blend > 0) {
      const b = rootMotionBetween(this.motion, records.clip(slot, 1), a[o + TIME_B], a[o + TIME_B] + records.gpuSpeed(slot, 1) * elapsed, this.motionB);
      for (let i = 0; i < 3; i++) m[i] += (b[i] - m[i]) * blend;
    }
    // anchor * translate(x, 0, z) * rotateY(yaw), column by column.
    const cos = Math.cos(m[2]);
    const sin = Math.sin(m[2]);
    for (let i = 0; i < 4; i++) {
      const c0 = a[o + i];
      const c2 = a[o + 8 + i];
      out[i] = cos * c0 - sin * c2;
      out[4 + i] = a[o + 4 + i];
      out[8 + i] = sin * c0 + cos * c2;
      out[12 + i] = a[o + 12 + i] + m[0] * c0 + m[1] * c2;
    }
    return out;
  }

  /** CrowdFeature: uploads the changed anchors and the clock (after the crowd's own uploads); returns the bytes. */
  prepare(crowdClock: number): number {
    return this.pass.update(this.store, this.records, crowdClock);
  }

  /**
   * CrowdFeature: the root-motion dispatch, before the cull and pose passes, after the anchors
   * changed since update went up (the crowd sends the records changed since then with this
   * encode: a blend changed in between moves from its new anchor, not the old one). Closed form
   * in the clock: a second encode of one update writes the same worlds.
   */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage): void {
    if (stage !== 'before-pose') return;
    this.pass.update(this.store, this.records, this.kernel.clock);
    this.pass.encode(encoder);
  }

  /**
   * CrowdFeature: the crowd clock restarts at 0 from `clock`: every moving instance's anchor is
   * folded to the present (clock 0 of the new period), so anchors stay within one period.
   */
  rebase(clock: number): void {
    for (let h = 0; h < this.store.handleCount; h++) {
      if (this.store.has(h)) this.fold(h, this.store.slot(h), clock, 0);
    }
  }

  /** CrowdFeature: re-creates the pass on `device`; the next prepare uploads every anchor. */
  restore(device: GPUDevice): void {
    this.pass.destroy();
    this.pass = new RootMotionPass(device, this.tables);
    this.records.markAllDirty(this.records.capacity);
  }

  destroy(): void {
    this.pass.destroy();
  }

  /** Room for `handles` anchors (CPU copies; the pass grows the GPU buffer). */
  private reserve(handles: number): void {
    if (handles * ANCHOR_NUMBERS <= this.anchors.length) return;
    const capacity = Math.max(handles, (2 * this.anchors.length) / ANCHOR_NUMBERS);
    const grown = new Float64Array(capacity * ANCHOR_NUMBERS);
    grown.set(this.anchors);
    this.anchors = grown;
    this.records.reserve(capacity);
  }

  /**
   * Moves the anchor of `handle` to crowd clock `clock` (world, clip times then), to be known from
   * now on as clock `newClock` (the same, or 0 after a clock rebase). No-op unless it moves.
   */
  private fold(handle: number, slot: number, clock: number, newClock: number): void {
    const o = handle * ANCHOR_NUMBERS;
    const a = this.anchors;
    if (!a[o + MOVES]) return;
    this.transformAt(handle, slot, clock, this.scratch);
    a.set(this.scratch, o);
    a[o + CLOCK] = newClock;
    // The clip times the pose shows now (after a rebase the records already count from newClock):
    // taken from the float64 records, not advanced by the float32 speeds, so that the root's clip
    // times cannot drift from the pose's over many rebases.
    const records = this.store.records;
    a[o + TIME_A] = records.clipTime(slot, 0, newClock);
    a[o + TIME_B] = records.clipTime(slot, 1, newClock);
    this.records.write(handle, a, o);
  }
}
