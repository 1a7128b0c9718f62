import { phaseTurns } from './clip-clock';
import { INSTANCE, LAYERS_NONE } from './layout';
import { checkFinite, checkUnit, checkWorldNumber, RecordBuffer } from './record-buffer';
import { show } from '../math/show';
import { WORLD } from '../math/float32';

/** Animation state of one instance, as the pose pass reads it. Times in seconds. */
export interface InstanceAnimation {
  /** Clip A: an index into Character.clipNames, in [0, clip count). */
  clipA: number;
  /** Clip B, blended over clip A by `blend`: an index in [0, clip count). */
  clipB: number;
  /** Clip A time now (seconds; any value, wrapped on the GPU). */
  timeA: number;
  /** Clip B time now (seconds; any value, wrapped on the GPU). */
  timeB: number;
  /** Playback rate of clip A (1 = real time, 0 = frozen, negative = backwards). */
  speedA: number;
  /** Playback rate of clip B (1 = real time, 0 = frozen, negative = backwards). */
  speedB: number;
  /** Weight of clip B in [0, 1]. */
  blend: number;
}

/**
 * CPU mirror of the instance buffer: INSTANCE records (src/runtime/layout.ts). Setters validate
 * their input and only touch the record's bytes; times are stored as phase + speed so that
 * they advance on the GPU (in the exact integer maths of src/runtime/clip-clock.ts). The phases and
 * speeds are also kept in float64 (EXACT_*): reads, clock rebases and the GPU words are worked
 * out from those, so a record's times stay exact however many rebases pass (the float32 speed
 * alone drifted 2e-4 s an hour at speed 1.14).
 */
export class InstanceRecords extends RecordBuffer {
  constructor(capacity: number, clipDurations: ArrayLike<number>) {
    super(INSTANCE.size, capacity, clipDurations, EXACT_WORDS);
  }

  /**
   * Throws an error naming the problem unless `world` is 16 finite numbers (an array or typed
   * array), each within WORLD (+-1e12, src/math/float32.ts: the cull pass squares world distances).
   */
  checkWorld(world: ArrayLike<number>): void {
    if (typeof world !== 'object' || world === null) throw new TypeError(`transform must be 16 numbers (an array or Float32Array, column-major 4x4), got ${show(world)}`);
    if (world.length !== 16) throw new RangeError(`transform must have 16 numbers (column-major 4x4), got ${show(world.length)}`);
    for (let i = 0; i < 16; i++) checkWorldNumber(world[i], `transform element ${i}`);
  }

  /** Throws a RangeError naming the field unless `a` is a valid animation (clips of the model, finite times and speeds, blend in [0, 1]). */
  checkAnimation(a: InstanceAnimation): void {
    this.checkClip(a.clipA, 'clipA');
    this.checkClip(a.clipB, 'clipB');
    for (const key of ['timeA', 'timeB', 'speedA', 'speedB'] as const) checkFinite(a[key], key);
    checkUnit(a.blend, 'blend');
  }

  /** Writes the model-to-world transform (16 numbers, column-major) of record `slot`. */
  setWorld(slot: number, world: ArrayLike<number>): void {
    this.checkWorld(world);
    this.f32.set(world, slot * this.stride + INSTANCE.world / 4);
    this.touch(slot);
  }

  /** Reads the model-to-world transform of record `slot` into `out` (16 numbers). */
  getWorld(slot: number, out: Float32Array): Float32Array {
    out.set(this.f32.subarray(slot * this.stride + INSTANCE.world / 4, slot * this.stride + INSTANCE.world / 4 + 16));
    return out;
  }

  /**
   * Writes the animation of record `slot` so that at crowd clock `clock` (seconds) clip A is at
   * timeA and clip B at timeB; both then advance at their speeds.
   */
  setAnimation(slot: number, a: InstanceAnimation, clock: number): void {
    this.checkAnimation(a);
    const o = slot * this.stride;
    this.u32[o + INSTANCE.clipA / 4] = a.clipA;
    this.u32[o + INSTANCE.clipB / 4] = a.clipB;
    this.setClip(slot, 0, a.clipA, this.phase(a.clipA, a.timeA, a.speedA, clock), a.speedA);
    this.setClip(slot, 1, a.clipB, this.phase(a.clipB, a.timeB, a.speedB, clock), a.speedB);
    this.f32[o + INSTANCE.blend / 4] = a.blend;
    this.touch(slot);
  }

  /**
   * Writes a record as a single clip (no clip B): the controllers' per-frame path, checked
   * only for the clip index (the controller validated the rest) and allocation-free.
   */
  setSingleClip(slot: number, clip: number, time: number, speed: number, clock: number): void {
    this.checkClip(clip, 'clip');
    const o = slot * this.stride;
    this.u32[o + INSTANCE.clipA / 4] = clip;
    this.u32[o + INSTANCE.clipB / 4] = clip;
    this.setClip(slot, 0, clip, this.phase(clip, time, speed, clock), speed);
    this.setClip(slot, 1, clip, 0, 0);
    this.f32[o + INSTANCE.blend / 4] = 0;
    this.touch(slot);
  }

  /**
   * Writes clip B of record `slot` at `time` (seconds, at crowd clock `clock`) playing at `speed`,
   * weighted by `blend` in (0, 1]: after setSingleClip, the controllers' per-frame path for an
   * output of two clips (layer-input.ts writeLayerStackArrays). Checked only for the clip index
   * (the controller validated the rest); allocation-free.
   */
  setClipB(slot: number, clip: number, time: number, speed: number, blend: number, clock: number): void {
    this.checkClip(clip, 'clip');
    const o = slot * this.stride;
    this.u32[o + INSTANCE.clipB / 4] = clip;
    this.setClip(slot, 1, clip, this.phase(clip, time, speed, clock), speed);
    this.f32[o + INSTANCE.blend / 4] = blend;
    this.touch(slot);
  }

  /**
   * Writes only the translation and yaw of the world transform (uniform scale `scale` > 0: zero
   * would collapse the mesh, a negative one mirror it and turn its faces inside out): no allocation.
   * x, y, z and scale within WORLD (+-1e12: the cull pass squares world distances).
   */
  setPlacement(slot: number, x: number, y: number, z: number, yaw: number, scale: number): void {
    if (!(inWorld(x) && inWorld(y) && inWorld(z) && Number.isFinite(yaw) && inWorld(scale) && scale > 0)) {
      for (const [name, v] of [['x', x], ['y', y], ['z', z]] as const) checkWorldNumber(v, name);
      checkFinite(yaw, 'yaw');
      if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`scale must be a positive finite number, got ${show(scale)}`);
      checkWorldNumber(scale, 'scale');
    }
    const o = slot * this.stride + INSTANCE.world / 4;
    const c = Math.cos(yaw) * scale;
    const s = Math.sin(yaw) * scale;
    const f = this.f32;
    f[o] = c; f[o + 1] = 0; f[o + 2] = -s; f[o + 3] = 0;
    f[o + 4] = 0; f[o + 5] = scale; f[o + 6] = 0; f[o + 7] = 0;
    f[o + 8] = s; f[o + 9] = 0; f[o + 10] = c; f[o + 11] = 0;
    f[o + 12] = x; f[o + 13] = y; f[o + 14] = z; f[o + 15] = 1;
    this.touch(slot);
  }

  /** Sets only the blend weight of record `slot` (the per-frame crossfade path: no allocation). */
  setBlend(slot: number, blend: number): void {
    checkUnit(blend, 'blend');
    this.f32[slot * this.stride + INSTANCE.blend / 4] = blend;
    this.touch(slot);
  }

  /** Points record `slot` at layer stack `stack`, or LAYERS_NONE. */
  setLayerStack(slot: number, stack: number): void {
    this.u32[slot * this.stride + INSTANCE.layers / 4] = stack;
    this.touch(slot);
  }

  layerStack(slot: number): number {
    return this.u32[slot * this.stride + INSTANCE.layers / 4];
  }

  /** Reads back the animation of record `slot` at `clock` (times wrapped into each clip). */
  getAnimation(slot: number, clock: number): InstanceAnimation {
    const o = slot * this.stride;
    const e = slot * EXACT_WORDS;
    const clipA = this.u32[o + INSTANCE.clipA / 4];
    const clipB = this.u32[o + INSTANCE.clipB / 4];
    const speedA = this.exact[e + EXACT_SPEED];
    const speedB = this.exact[e + 2 + EXACT_SPEED];
    return {
      clipA, clipB, speedA, speedB, blend: this.f32[o + INSTANCE.blend / 4],
      timeA: this.timeAt(clipA, this.exact[e + EXACT_PHASE], speedA, clock),
      timeB: this.timeAt(clipB, this.exact[e + 2 + EXACT_PHASE], speedB, clock),
    };
  }

  /**
   * Re-expresses the first `count` records' phases for a clock restarted at 0 from `clock`, so
   * the GPU's tick count stays small. Times are unchanged (worked out from the float64 phases and
   * speeds, so nothing accumulates from one rebase to the next); only the phase words change.
   */
  rebase(count: number, clock: number): void {
    for (let slot = 0; slot < count; slot++) {
      const o = slot * this.stride;
      const e = slot * EXACT_WORDS;
      for (let k = 0; k < 2; k++) {
        const clip = this.u32[o + (k === 0 ? INSTANCE.clipA : INSTANCE.clipB) / 4];
        const phase = this.timeAt(clip, this.exact[e + 2 * k + EXACT_PHASE], this.exact[e + 2 * k + EXACT_SPEED], clock);
        this.exact[e + 2 * k + EXACT_PHASE] = phase;
        this.u32[o + (k === 0 ? INSTANCE.phaseA : INSTANCE.phaseB) / 4] = phaseTurns(phase, this.clipDurations[clip]);
      }
    }
    this.markAllDirty(count);
  }

  /** Initialises record `slot` as having no layer stack. */
  clearLayers(slot: number): void {
    this.setLayerStack(slot, LAYERS_NONE);
  }

  /** Clip k's (0: A, 1: B) phase (seconds at clock 0) of record `slot`, float64 (clip events schedule from it). */
  exactPhase(slot: number, k: 0 | 1): number {
    return this.exact[slot * EXACT_WORDS + 2 * k + EXACT_PHASE];
  }

  /** Clip k's (0: A, 1: B) index in record `slot`. */
  clip(slot: number, k: 0 | 1): number {
    return this.u32[slot * this.stride + (k === 0 ? INSTANCE.clipA : INSTANCE.clipB) / 4];
  }

  /** Clip k's (0: A, 1: B) time (seconds, wrapped into the clip) of record `slot` at crowd clock `clock`, from the float64 phase and speed. */
  clipTime(slot: number, k: 0 | 1, clock: number): number {
    const e = slot * EXACT_WORDS + 2 * k;
    return this.timeAt(this.clip(slot, k), this.exact[e + EXACT_PHASE], this.exact[e + EXACT_SPEED], clock);
  }

  /** The weight of clip B in record `slot`. */
  blend(slot: number): number {
    return this.f32[slot * this.stride + INSTANCE.blend / 4];
  }

  /** Clip k's (0: A, 1: B) speed of record `slot` as the GPU holds it (float32): for CPU twins of GPU passes. */
  gpuSpeed(slot: number, k: 0 | 1): number {
    return this.f32[slot * this.stride + (k === 0 ? INSTANCE.speedA : INSTANCE.speedB) / 4];
  }

  /** Clip k's (0: A, 1: B) speed of record `slot`, float64. */
  exactSpeed(slot: number, k: 0 | 1): number {
    return this.exact[slot * EXACT_WORDS + 2 * k + EXACT_SPEED];
  }

  /** Writes clip k's (0: A, 1: B) phase and speed of `clip`: float64 into the exact copy, the GPU words into the record. */
  private setClip(slot: number, k: 0 | 1, clip: number, phase: number, speed: number): void {
    const o = slot * this.stride;
    const e = slot * EXACT_WORDS + 2 * k;
    this.exact[e + EXACT_PHASE] = phase;
    this.exact[e + EXACT_SPEED] = speed;
    this.writePlayback(clip, phase, speed, o + (k === 0 ? INSTANCE.phaseA : INSTANCE.phaseB) / 4,
      o + (k === 0 ? INSTANCE.speedA : INSTANCE.speedB) / 4, o + (k === 0 ? INSTANCE.rateLoA : INSTANCE.rateLoB) / 4);
  }
}

/** Float64 values per record: (phase, speed) of clip A, then of clip B. */
const EXACT_WORDS = 4;
const EXACT_PHASE = 0;
const EXACT_SPEED = 1;

/** Whether `value` is a number within WORLD (+-1e12; a numeric string is not). */
function inWorld(value: number): boolean {
  return typeof value === 'number' && value >= WORLD.min && value <= WORLD.max;
}
