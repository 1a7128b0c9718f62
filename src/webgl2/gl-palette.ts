import { clockTicks } from '../runtime/clip-clock';
import { PaletteTwin } from '../runtime/culling/palette-twin';
import { InstanceRecords } from '../runtime/instance-records';
import type { InstanceStore } from '../runtime/instance-store';
import { LAYERS_NONE, PALETTE_BUCKETS, PALETTE_INDEX_MASK } from '../runtime/layout';
import type { GLCull } from './gl-cull';
import type { GLJointTarget } from './gl-joints';
import type { GLPoseInputs, GLPosePass } from './gl-pose-pass';
import type { GLStoreBuffer } from './gl-record-device';
import type { GLDrawLists } from './gl-skin-pass';
import { GLRecordTexture } from './record-texture';

/** The camera's and the shadow casters' lists a frame draws: GLCull's, or GLPalette's with their joint sets. */
export interface GLFrameLists {
  readonly camera: GLDrawLists;
  readonly casters: GLDrawLists;
}

/**
 * The joint-matrix palette on WebGL 2 (docs/palette.md): while the store's palette is active
 * (capacity past CrowdOptions.paletteSize, JointPalette), the joint target holds the budget's
 * sets and then clipCount x PALETTE_BUCKETS shared poses, and each frame, after GLCull, this
 * hands sets to the drawn instances with PaletteTwin (the CPU twin of the WebGPU palette pass:
 * kept while drawn, given back when not, nearest levels first, a shared pose of clip A's time
 * bucket when none is free). The pose pass then poses each listed slot into its entry and skips
 * the shared ones (GLPosePass.encode's `entries`); the draw reads each listed slot's set from
 * `camera.jointSets` / `casters.jointSets`, parallel to GLCull's lists (4 bytes a drawn
 * instance uploaded). The shared poses (held clip c at bucket b's middle) are posed whenever the
 * joint target is made again. Owns its shared records' texture and its arrays (grown with the
 * lists, never per frame).
 */
export class GLPalette implements GLFrameLists {
  private readonly twin = new PaletteTwin();
  /** GLCull's lists with each slot's joint set (the draw's and the shadow pass's). */
  readonly camera: GLDrawLists;
  readonly casters: GLDrawLists;
  private cameraSets = new Uint32Array(0);
  private casterSets = new Uint32Array(0);
  private shared: GLRecordTexture;
  private readonly sharedInputs: { -readonly [K in keyof GLPoseInputs]: GLPoseInputs[K] };
  /** The shared poses' slot list [0, n) and their entries (sharedBase + i). */
  private readonly sharedSlots: Uint32Array;
  private readonly sharedEntries: Uint32Array;
  private records = new Uint32Array(0);
  private generation = -1;
  /** The joint target the shared poses were last posed into. */
  private posedInto: GLJointTarget | undefined;
  private readonly stale: (slot: number) => void;

  constructor(private readonly gl: WebGL2RenderingContext, private readonly cull: GLCull, private readonly clipDurations: ArrayLike<number>) {
    const self = this;
    this.camera = { get slots() { return cull.slots; }, offsets: cull.offsets, counts: cull.counts, levels: cull.levels, get jointSets() { return self.cameraSets; } };
    const c = cull.casters;
    this.casters = { get slots() { return c.slots; }, offsets: c.offsets, counts: c.counts, levels: c.levels, get jointSets() { return self.casterSets; } };
    const count = Math.max(1, clipDurations.length) * PALETTE_BUCKETS;
    this.shared = this.sharedRecords();
    this.sharedInputs = { instanceBuffer: this.shared, layerStackBuffer: this.shared, masksBuffer: this.shared, plainCount: count, layeredCount: 0 };
    this.sharedSlots = Uint32Array.from({ length: count }, (_, i) => i);
    this.sharedEntries = new Uint32Array(count);
    this.stale = (slot) => cull.makeStale(slot);
  }

  /** Own sets held and slots drawing a shared pose after the last assign (for tests and stats). */
  get held(): number { return this.twin.held; }
  get sharedCount(): number { return this.twin.shared; }
  /** Per slot: its entry after the last assign (PALETTE_* in layout.ts). Read only. */
  get entries(): Uint32Array { return this.twin.entries; }

  /**
   * The frame's assignment for `store` (its palette active) after `cull.run`: resets every entry
   * when the store's buffers were replaced (growth, restore: GLCull forgot its poses then),
   * assigns with the crowd clock `clock` (seconds), poses the shared poses with `pose` when its
   * target is new (growing it to the palette's sets; `inputs`: the store's, whose stacks and masks
   * it binds), and fills the lists' joint sets. The caller's pose.update for the frame comes after.
   */
  assign(store: InstanceStore<GLStoreBuffer>, clock: number, pose: GLPosePass, inputs: GLPoseInputs): void {
    const palette = store.palette, cull = this.cull;
    if (store.generation !== this.generation) {
      this.twin.reset(store.capacity, palette.size, palette.size);
      cull.forgetPoses();
      this.generation = store.generation;
      this.posedInto = undefined;
    }
    if (this.posedInto !== pose.joints) this.poseShared(pose, inputs, palette.size);
    if (this.records.buffer !== store.records.bytes) this.records = new Uint32Array(store.records.bytes);
    this.twin.assign(this.camera, cull.casters, store.count, this.records, clockTicks(clock), this.stale);
    this.cameraSets = fill(this.cameraSets, cull.slots, cull.visible, this.twin.entries);
    let casters = 0;
    for (let l = 0; l < cull.casters.levels; l++) casters += cull.casters.counts[l];
    this.casterSets = fill(this.casterSets, cull.casters.slots, casters, this.twin.entries);
  }

  /** Makes the shared records' texture again on the (restored) context. */
  restore(): void {
    this.shared.destroy();
    this.shared = this.sharedRecords();
    this.sharedInputs.instanceBuffer = this.shared;
    this.generation = -1;
  }

  destroy(): void {
    this.shared.destroy();
  }

  /** Poses the shared poses into sets [sharedBase, sharedBase + n) of `pose`'s target (grown to hold them). */
  private poseShared(pose: GLPosePass, inputs: GLPoseInputs, sharedBase: number): void {
    const n = this.sharedSlots.length, s = this.sharedInputs;
    for (let i = 0; i < n; i++) this.sharedEntries[i] = sharedBase + i;
    s.layerStackBuffer = inputs.layerStackBuffer;
    s.masksBuffer = inputs.masksBuffer;
    pose.update(s, 0, sharedBase + n);
    pose.encode(this.sharedSlots, n, this.sharedEntries);
    this.posedInto = pose.joints;
  }

  /** The shared poses' records: clip c's bucket b held (speed 0) at the middle of its span, as PalettePass makes them. */
  private sharedRecords(): GLRecordTexture {
    const durations = this.clipDurations, count = Math.max(1, durations.length) * PALETTE_BUCKETS;
    const data = new InstanceRecords(count, durations);
    for (let c = 0; c < durations.length; c++) {
      for (let b = 0; b < PALETTE_BUCKETS; b++) {
        const slot = c * PALETTE_BUCKETS + b, time = ((b + 0.5) / PALETTE_BUCKETS) * durations[c];
        data.setWorld(slot, IDENTITY);
        data.setAnimation(slot, { clipA: c, clipB: c, timeA: time, timeB: time, speedA: 0, speedB: 0, blend: 0 }, 0);
        data.setLayerStack(slot, LAYERS_NONE);
      }
    }
    const texture = new GLRecordTexture(this.gl, 'GLPalette.sharedRecords', data.bytes.byteLength);
    texture.write(0, data.bytes);
    return texture;
  }
}

/** `sets` (grown to `slots`' length) with the joint set of slots[0, count): entries[slot] less PALETTE_SHARED. */
function fill(sets: Uint32Array<ArrayBuffer>, slots: Uint32Array, count: number, entries: Uint32Array): Uint32Array<ArrayBuffer> {
  if (sets.length !== slots.length) sets = new Uint32Array(slots.length);
  for (let i = 0; i < count; i++) sets[i] = entries[slots[i]] & PALETTE_INDEX_MASK;
  return sets;
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
