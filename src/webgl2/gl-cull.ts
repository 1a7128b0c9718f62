import type { CullFrame } from '../runtime/culling/cull-pass';
import { CULL_ANIMATION_LOD, CULL_FRUSTUM, CULL_LOD, CULL_SHADOWS, INSTANCE, LOD_NOT_FORCED, PALETTE_STALE_FRAMES } from '../runtime/layout';
import { PLANE_REACH_SCALE } from '../runtime/culling/cull-math';

/** The store fields the CPU cull reads each frame (InstanceStore satisfies it; the views are re-made only when the store grows). */
export interface GLCullInputs {
  /** Live instances, plain ones first: slots [0, plainCount) use `box`, [plainCount, count) `layeredBox`. */
  readonly count: number;
  readonly plainCount: number;
  /** The INSTANCE records' bytes (world at INSTANCE.world, column-major f32) and the per-slot stamps' (u32). */
  readonly records: { readonly bytes: ArrayBuffer };
  readonly stamps: { readonly bytes: ArrayBuffer };
}

/**
 * What the WebGL 2 crowd draws and poses in a frame, decided on the CPU from the records: the
 * TypeScript twin of shaders/culling/cull.wgsl's `cull` entry point (the arithmetic is
 * src/runtime/culling/cull-math.ts's, which test/webgl2/gl-cull.test.ts checks it against),
 * without compute. Per frame, for each live instance: its model-space box (the character's reach
 * box, the layered one past plainCount) under its world matrix against the six planes (with
 * PLANE_REACH_SCALE's margin), the far limit, the mesh LOD level by distance over scale (or the
 * forced one), and the animation step (pose every 1st, 2nd or 4th frame; always when another
 * instance moved into the slot or the pose is older than the step).
 *
 *   slots    the drawn slots, level by level: level L at [offsets[L], offsets[L] + counts[L])
 *            (the GLDrawLists the skin pass draws from: one instanced draw per primitive and level)
 *   casters  the shadow casters (CULL_SHADOWS: inside the light's planes), packed the same way,
 *            each at its level plus the frame's shadowLodBias; posed like the drawn ones
 *   poseList the slots to pose this frame, [0, poseCount)
 *
 * Without a camera every instance is drawn at level 0 and posed every frame. Owns its arrays,
 * grown with the store's capacity (never per frame); nothing in run() allocates.
 */
export class GLCull {
  /** GLDrawLists: drawn slots, levels packed. */
  slots = new Uint32Array(0);
  readonly offsets: Uint32Array;
  readonly counts: Uint32Array;
  /** Slots to pose this frame: [0, poseCount). */
  poseList = new Uint32Array(0);
  poseCount = 0;
  /** Instances drawn in the last frame (all levels). */
  visible = 0;
  /** The shadow casters of the last frame (GLDrawLists; empty without CULL_SHADOWS). */
  readonly casters: { slots: Uint32Array; readonly offsets: Uint32Array; readonly counts: Uint32Array; readonly levels: number };
  /** Per slot: the stamp and frame of the pose the joint target holds (the WebGPU poseState buffer's CPU twin). */
  private posedStamp = new Uint32Array(0);
  private posedFrame = new Uint32Array(0);
  private capacity = 0;
  /** The last run's frame counter (CullFrame.frame; 0 before a camera). */
  private tick = 0;
  private f32 = new Float32Array(0);
  private stamps = new Uint32Array(0);
  private readonly box = new Float64Array(12);
  /**
   * Per plane (6 camera, then 6 light) of the frame: 3 |n|^2 PLANE_REACH_SCALE^2 with a 1e-9
   * margin, so that distance^2 > that x radius^2 (radius^2: the sum of the box's squared
   * half-axes under the world matrix) proves the box's reach shorter than -distance: a slot that
   * far behind a plane is culled without its reach (the reach is at most sqrt(3) |n| radius).
   */
  private readonly farBehind = new Float64Array(12);

  /**
   * @param levels mesh LOD levels drawn (1..MAX_LOD_LEVELS)
   * @param box model-space box of a plain instance (min x, y, z, max x, y, z): the reach box
   * @param layeredBox that of a layered instance
   */
  constructor(readonly levels: number, box: ArrayLike<number>, layeredBox: ArrayLike<number>) {
    this.offsets = new Uint32Array(levels);
    this.counts = new Uint32Array(levels);
    this.casters = { slots: new Uint32Array(0), offsets: new Uint32Array(levels), counts: new Uint32Array(levels), levels };
    for (const [at, b] of [[0, box], [6, layeredBox]] as const) {
      for (let c = 0; c < 3; c++) {
        this.box[at + c] = (b[c] + b[c + 3]) / 2;
        // Rounded up as the cull pass's uniform is, so that float32 never shrinks the box.
        this.box[at + 3 + c] = Math.fround((b[c + 3] - b[c]) / 2) * (1 + 2 ** -22);
      }
    }
  }

  /** Forgets every slot's pose (after the joint target was re-made: restore, growth): all are posed next frame. */
  forgetPoses(): void {
    this.posedStamp.fill(0);
  }

  /** Makes `slot`'s pose due on the next run whatever its animation-LOD step (the palette gave its joint set away: palette.wgsl's makeStale). */
  makeStale(slot: number): void {
    this.posedFrame[slot] = (this.tick - PALETTE_STALE_FRAMES) >>> 0;
  }

  /**
   * Fills the lists for `store`'s live instances: with `frame` (CullSettings.fill()'s, a camera
   * set) culled and levelled as the cull pass would, else every instance at level 0, all posed.
   */
  run(store: GLCullInputs, frame: CullFrame | undefined): void {
    const count = store.count;
    this.reserve(count, store);
    const { offsets, counts, levels, casters } = this;
    counts.fill(0);
    casters.counts.fill(0);
    casters.offsets.fill(0);
    if (!frame) {
      for (let s = 0; s < count; s++) this.slots[s] = this.poseList[s] = s;
      offsets.fill(count);
      offsets[0] = 0;
      counts[0] = count;
      this.poseCount = this.visible = count;
      return;
    }
    const stride = this.capacity, slots = this.slots, f = this.f32, stampOf = this.stamps;
    const { planes, cameraPosition: eye, lodDistances, animationDistances } = frame;
    const shadows = (frame.flags & CULL_SHADOWS) !== 0, lightPlanes = frame.lightPlanes, casterSlots = casters.slots, casterCounts = casters.counts;
    const shadowLodBias = frame.shadowLodBias;
    const frustum = (frame.flags & CULL_FRUSTUM) !== 0, lod = (frame.flags & CULL_LOD) !== 0, animationLod = (frame.flags & CULL_ANIMATION_LOD) !== 0;
    const forced = frame.forcedLevel === LOD_NOT_FORCED ? -1 : Math.min(frame.forcedLevel, levels - 1);
    const maxDistance = frame.maxDistance, tick = this.tick = frame.frame >>> 0;
    const box = this.box, recordWords = INSTANCE.size / 4, worldWord = INSTANCE.world / 4;
    const plainCount = store.plainCount, posedStamp = this.posedStamp, posedFrame = this.posedFrame, poseList = this.poseList;
    const farBehind = this.farBehind;
    for (let i = 0; i < 24; i += 4) {
      farBehind[i >> 2] = 3 * (planes[i] ** 2 + planes[i + 1] ** 2 + planes[i + 2] ** 2) * PLANE_REACH_SCALE ** 2 * (1 + 1e-9);
      farBehind[6 + (i >> 2)] = 3 * (lightPlanes[i] ** 2 + lightPlanes[i + 1] ** 2 + lightPlanes[i + 2] ** 2) * PLANE_REACH_SCALE ** 2 * (1 + 1e-9);
    }
    let posed = 0;
    for (let slot = 0; slot < count; slot++) {
      const b = slot >= plainCount ? 6 : 0;
      const w = slot * recordWords + worldWord;
      const hx = box[b + 3], hy = box[b + 4], hz = box[b + 5], mx = box[b], my = box[b + 1], mz = box[b + 2];
      const m0 = f[w], m1 = f[w + 1], m2 = f[w + 2], m4 = f[w + 4], m5 = f[w + 5], m6 = f[w + 6], m8 = f[w + 8], m9 = f[w + 9], m10 = f[w + 10];
      const cx = m0 * mx + m4 * my + m8 * mz + f[w + 12], cy = m1 * mx + m5 * my + m9 * mz + f[w + 13], cz = m2 * mx + m6 * my + m10 * mz + f[w + 14];
      const e0x = m0 * hx, e0y = m1 * hx, e0z = m2 * hx, e1x = m4 * hy, e1y = m5 * hy, e1z = m6 * hy, e2x = m8 * hz, e2y = m9 * hz, e2z = m10 * hz;
      const radius2 = e0x * e0x + e0y * e0y + e0z * e0z + e1x * e1x + e1y * e1y + e1z * e1z + e2x * e2x + e2y * e2y + e2z * e2z;
      // The planes first: they need no square root, and most culled instances fail one. A slot in
      // front of a plane passes it, and one far behind it (farBehind) fails it, without the box's
      // reach: the same answers as the reach test (cull-math's), for 1 multiply-add where it was
      // 9 more and 3 absolutes. (Written out twice rather than called: a call here costs about
      // twice the loop, measured.)
      let visible = true, caster = false;
      if (frustum) {
        for (let i = 0; i < 24; i += 4) {
          const nx = planes[i], ny = planes[i + 1], nz = planes[i + 2];
          const distance = nx * cx + ny * cy + nz * cz + planes[i + 3];
          if (distance >= 0) continue;
          if (distance * distance > farBehind[i >> 2] * radius2) { visible = false; break; }
          const reach = Math.abs(nx * e0x + ny * e0y + nz * e0z) + Math.abs(nx * e1x + ny * e1y + nz * e1z) + Math.abs(nx * e2x + ny * e2y + nz * e2z);
          if (distance < -reach * PLANE_REACH_SCALE) { visible = false; break; }
        }
      }
      if (shadows) {
        caster = true;
        for (let i = 0; i < 24; i += 4) {
          const nx = lightPlanes[i], ny = lightPlanes[i + 1], nz = lightPlanes[i + 2];
          const distance = nx * cx + ny * cy + nz * cz + lightPlanes[i + 3];
          if (distance >= 0) continue;
          if (distance * distance > farBehind[6 + (i >> 2)] * radius2) { caster = false; break; }
          const reach = Math.abs(nx * e0x + ny * e0y + nz * e0z) + Math.abs(nx * e1x + ny * e1y + nz * e1z) + Math.abs(nx * e2x + ny * e2y + nz * e2z);
          if (distance < -reach * PLANE_REACH_SCALE) { caster = false; break; }
        }
      }
      if (!visible && !caster) continue;
      const radius = Math.sqrt(radius2);
      const dx = cx - eye[0], dy = cy - eye[1], dz = cz - eye[2];
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz) - radius, distance = d > 0 ? d : 0;
      if (frustum && !(distance <= maxDistance)) visible = false;
      if (!visible && !caster) continue;
      const s0 = m0 * m0 + m1 * m1 + m2 * m2, s1 = m4 * m4 + m5 * m5 + m6 * m6, s2 = m8 * m8 + m9 * m9 + m10 * m10;
      const scale = Math.sqrt(s0 > s1 ? (s0 > s2 ? s0 : s2) : (s1 > s2 ? s1 : s2));
      const scaled = distance / (scale > 1e-30 ? scale : 1e-30);
      let level = 0;
      if (forced >= 0) level = forced;
      else if (lod) for (let i = 0; i + 1 < levels; i++) if (scaled >= lodDistances[i]) level = i + 1;
      if (visible) slots[level * stride + counts[level]++] = slot;
      if (caster) {
        const shadowLevel = Math.min(level + shadowLodBias, levels - 1);
        casterSlots[shadowLevel * stride + casterCounts[shadowLevel]++] = slot;
      }
      const step = !animationLod ? 1 : scaled >= animationDistances[1] ? 4 : scaled >= animationDistances[0] ? 2 : 1;
      const stamp = stampOf[slot];
      if (posedStamp[slot] !== stamp || ((tick - posedFrame[slot]) >>> 0) >= step || ((tick + slot) >>> 0) % step === 0) {
        posedStamp[slot] = stamp;
        posedFrame[slot] = tick;
        poseList[posed++] = slot;
      }
    }
    this.visible = pack(slots, offsets, counts, levels, stride);
    if (shadows) pack(casterSlots, casters.offsets, casterCounts, levels, stride);
    this.poseCount = posed;
  }

  /** Grows the arrays to the store's capacity (at growth only) and re-makes the record views when the store replaced its memory. */
  private reserve(count: number, store: GLCullInputs): void {
    if (this.f32.buffer !== store.records.bytes) this.f32 = new Float32Array(store.records.bytes);
    if (this.stamps.buffer !== store.stamps.bytes) this.stamps = new Uint32Array(store.stamps.bytes);
    if (count <= this.capacity) return;
    const capacity = Math.max(count, this.f32.length / (INSTANCE.size / 4));
    this.slots = new Uint32Array(capacity * this.levels);
    this.casters.slots = new Uint32Array(capacity * this.levels);
    this.poseList = new Uint32Array(capacity);
    const stamp = new Uint32Array(capacity), posed = new Uint32Array(capacity);
    stamp.set(this.posedStamp);
    posed.set(this.posedFrame);
    this.posedStamp = stamp;
    this.posedFrame = posed;
    this.capacity = capacity;
  }
}

/** Packs per-level lists written at level x stride into one run, level after level; fills `offsets`; returns the total. */
function pack(slots: Uint32Array, offsets: Uint32Array, counts: Uint32Array, levels: number, stride: number): number {
  let at = 0;
  for (let level = 0; level < levels; level++) {
    offsets[level] = at;
    if (level > 0 && counts[level] > 0) slots.copyWithin(at, level * stride, level * stride + counts[level]);
    at += counts[level];
  }
  return at;
}
