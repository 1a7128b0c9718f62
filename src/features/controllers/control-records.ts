import { ACTION_NONE, type AnimationController, type ControllerRuntime } from '../../anim/control/controller';
import { evaluateCurve, type BlendCurve } from '../../anim/control/curves';
import { SOURCE_LOCOMOTION, type Source } from '../../anim/control/crossfader';
import type { ClipPlayback } from '../../anim/control/playback';
import { DEFAULT_SLOWEST_WALK_RATE, DIRECTIONS } from '../../anim/control/config';
import type { BlendSpace2D } from '../../anim/blend-space-2d';
import type { ControlModel } from './control-pass';
import { CONTROL, CONTROL_ACTION_NEVER, CONTROL_FADE, CONTROL_INPUT, CONTROL_SOURCE, CONTROL_UPDATE, MASK_NONE } from '../../runtime/layout';

/**
 * The bridge between CPU controllers and the control pass (shaders/controllers/control.wgsl): the model
 * tables (clip facts, actions, locomotion config, curve tables) and the ControlInput records
 * that carry one controller's discrete state as of a control-clock time. Written only on events.
 */

/** Custom blend curves sampled into tables the GPU reads: one per distinct function, at most `limit`. */
export class CurveTables {
  private readonly index = new Map<(u: number) => number, number>();
  private samples = new Float32Array(0);

  constructor(readonly limit = 64) {}

  get count(): number {
    return this.index.size;
  }

  /** The sampled weights, CURVE_SAMPLES per table. */
  get data(): Float32Array {
    return this.samples;
  }

  /**
   * The record value of `curve`: CURVE_LINEAR, CURVE_CUBIC, or CURVE_TABLE + a table sampled on
   * first sight. Throws a RangeError naming `where` for a function that throws, returns a
   * non-finite number, or would pass the table limit; nothing changes then.
   */
  id(curve: BlendCurve, where: string): number {
    if (curve === 'linear') return CONTROL.CURVE_LINEAR;
    if (curve === 'cubic') return CONTROL.CURVE_CUBIC;
    const known = this.index.get(curve);
    if (known !== undefined) return CONTROL.CURVE_TABLE + known;
    if (this.index.size >= this.limit) throw new RangeError(`${where}: the GPU holds at most ${this.limit} custom curves; reuse a function instead of making a new one per fade`);
    const n = CONTROL.CURVE_SAMPLES;
    const table = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      try {
        table[i] = evaluateCurve(curve, i / (n - 1));
      } catch (error) {
        throw new RangeError(`${where} cannot be evaluated on the GPU: ${(error as Error).message}`);
      }
    }
    const grown = new Float32Array(this.samples.length + n);
    grown.set(this.samples);
    grown.set(table, this.samples.length);
    this.samples = grown;
    this.index.set(curve, this.index.size);
    return CONTROL.CURVE_TABLE + this.index.size - 1;
  }
}

/**
 * Word offsets in the control pass's model table (shaders/controllers/control.wgsl `model`: f32
 * words, u32 fields as their bits): strides of its records and offsets of their fields. The one
 * source of these numbers: buildControlModel writes with them, the shader reads with them
 * (they reach it through its generated block, control-wgsl.ts).
 */
export const CONTROL_MODEL = {
  /** Per clip, from clipBase: duration s, configured speed, loop (0 or 1), blend-space duration max(duration, 1e-3). */
  CLIP_WORDS: 4,
  CLIP_DURATION: 0,
  CLIP_SPEED: 1,
  CLIP_LOOP: 2,
  CLIP_CYCLE: 3,
  /** Per action, from actionBase: clip, fadeIn s, fadeOut s, curve, mask (u32 bits); 3 words unused. */
  ACTION_WORDS: 8,
  ACTION_CLIP: 0,
  ACTION_FADE_IN: 1,
  ACTION_FADE_OUT: 2,
  ACTION_CURVE: 3,
  ACTION_MASK: 4,
  /** The locomotion block at locoBase: idle clip, walkSpeed, maxAcceleration, maxDeceleration, minSpeed, turnRate, slowestWalkRate, then per direction (walk clip, run clip). */
  LOCO_IDLE: 0,
  LOCO_WALK_SPEED: 1,
  LOCO_MAX_ACCELERATION: 2,
  LOCO_MAX_DECELERATION: 3,
  LOCO_MIN_SPEED: 4,
  LOCO_TURN_RATE: 5,
  LOCO_SLOWEST_WALK_RATE: 6,
  LOCO_DIRECTIONS: 7,
  DIRECTION_WORDS: 2,
  DIRECTION_COUNT: DIRECTIONS.length,
  LOCO_WORDS: 7 + 2 * DIRECTIONS.length,
  /** The 2D blend space at planeBase: triangle, hull-edge and entry counts, then the entries, triangles and hull edges. */
  PLANE_TRIANGLES: 0,
  PLANE_HULL: 1,
  PLANE_ENTRIES: 2,
  PLANE_HEADER_WORDS: 3,
  /** Per entry: clip (u32 bits), duration s. */
  ENTRY_WORDS: 2,
  ENTRY_DURATION: 1,
  /** Per triangle: its three entries (u32 bits), origin (x, y), then the 2x2 barycentric matrix (m00, m01, m10, m11) as BlendSpace2D keeps them. */
  TRIANGLE_WORDS: 9,
  TRIANGLE_ORIGIN: 3,
  TRIANGLE_MATRIX: 5,
  /** Per hull edge: its two entries (u32 bits), origin (x, y), edge vector (x, y), 1 / |edge|^2. */
  EDGE_WORDS: 7,
  EDGE_ORIGIN: 2,
  EDGE_VECTOR: 4,
  EDGE_INVERSE_LENGTH2: 6,
  /** Per clip, from rootBase: the root displacement (x, z) of one cycle (LocomotionRuntime.rootCycles). */
  ROOT_WORDS: 2,
} as const;

const M = CONTROL_MODEL;

/**
 * The control pass's model table for controllers of `runtime` (shaders/controllers/control.wgsl `model`).
 * `maskIds` maps the config's masks to crowd masks; `curves` holds the custom curves (the
 * config's are registered here, so a bad one is refused naming its field).
 */
export function buildControlModel(runtime: ControllerRuntime, maskIds: ArrayLike<number>, curves: CurveTables): ControlModel {
  const { config, clipDurations } = runtime;
  const actionCurves = config.actions.map((a, i) => curves.id(a.curve, `config.actions[${i}] (${a.name}).curve`));
  curves.id(config.fade.curve, 'config.fade.curve');
  const clipBase = 0;
  const actionBase = clipBase + clipDurations.length * M.CLIP_WORDS;
  const locoBase = actionBase + config.actions.length * M.ACTION_WORDS;
  const plane = runtime.locomotion?.plane ?? null;
  const planeBase = plane ? locoBase + M.LOCO_WORDS : CONTROL.NO_INDEX;
  const planeWords = plane ? M.PLANE_HEADER_WORDS + plane.count * M.ENTRY_WORDS + (plane.triangles.length / 3) * M.TRIANGLE_WORDS + plane.hull.length * M.EDGE_WORDS : 0;
  const rootCycles = runtime.locomotion?.rootCycles ?? null;
  const rootBase = rootCycles ? locoBase + M.LOCO_WORDS + planeWords : CONTROL.NO_INDEX;
  const curveBase = locoBase + M.LOCO_WORDS + planeWords + (rootCycles?.length ?? 0);
  const words = new Float32Array(curveBase + curves.data.length);
  const bits = new Uint32Array(words.buffer);
  for (let c = 0; c < clipDurations.length; c++) {
    const o = clipBase + c * M.CLIP_WORDS;
    words[o + M.CLIP_DURATION] = clipDurations[c];
    words[o + M.CLIP_SPEED] = config.clips[c].speed;
    words[o + M.CLIP_LOOP] = config.clips[c].loop ? 1 : 0;
    words[o + M.CLIP_CYCLE] = Math.max(clipDurations[c], 1e-3); // the blend spaces' duration (locomotion.ts)
  }
  config.actions.forEach((a, i) => {
    const o = actionBase + i * M.ACTION_WORDS;
    bits[o + M.ACTION_CLIP] = a.clip;
    words[o + M.ACTION_FADE_IN] = a.fadeIn;
    words[o + M.ACTION_FADE_OUT] = a.fadeOut;
    bits[o + M.ACTION_CURVE] = actionCurves[i];
    bits[o + M.ACTION_MASK] = a.mask < 0 ? MASK_NONE : maskIds[a.mask];
  });
  const loco = config.locomotion;
  if (loco) {
    bits[locoBase + M.LOCO_IDLE] = loco.idle;
    words[locoBase + M.LOCO_WALK_SPEED] = loco.walkSpeed;
    words[locoBase + M.LOCO_MAX_ACCELERATION] = loco.maxAcceleration;
    words[locoBase + M.LOCO_MAX_DECELERATION] = loco.maxDeceleration;
    words[locoBase + M.LOCO_MIN_SPEED] = loco.minSpeed;
    words[locoBase + M.LOCO_TURN_RATE] = loco.turnRate;
    words[locoBase + M.LOCO_SLOWEST_WALK_RATE] = loco.slowestWalkRate ?? DEFAULT_SLOWEST_WALK_RATE;
    DIRECTIONS.forEach((d, k) => {
      const set = loco.directions[d];
      const o = locoBase + M.LOCO_DIRECTIONS + k * M.DIRECTION_WORDS;
      bits[o] = set ? set.walk : CONTROL.NO_INDEX;
      bits[o + 1] = set ? set.run : CONTROL.NO_INDEX;
    });
  }
  if (plane) writePlane(plane, words, bits, planeBase);
  // Root displacement of one cycle per clip (x, z: ROOT_WORDS), for rate matching (LocomotionRuntime.rootCycles).
  if (rootCycles) words.set(rootCycles, rootBase);
  words.set(curves.data, curveBase);
  return { words, clipBase, actionBase, curveBase, locoBase, planeBase, rootBase };
}

/**
 * The 2D locomotion blend space's tables at `base` (shaders/controllers/control.wgsl planeBlend): triangle,
 * hull-edge and entry counts; per entry (clip, duration s); per triangle (a, b, c, ax, ay, m00,
 * m01, m10, m11) as BlendSpace2D keeps them; per hull edge (a, b, ax, ay, ex, ey, 1/|e|^2).
 */
function writePlane(plane: BlendSpace2D, words: Float32Array, bits: Uint32Array, base: number): void {
  const triangles = plane.triangles.length / 3;
  bits[base + M.PLANE_TRIANGLES] = triangles;
  bits[base + M.PLANE_HULL] = plane.hull.length;
  bits[base + M.PLANE_ENTRIES] = plane.count;
  let o = base + M.PLANE_HEADER_WORDS;
  for (let i = 0; i < plane.count; i++, o += M.ENTRY_WORDS) {
    bits[o] = plane.clips[i];
    words[o + M.ENTRY_DURATION] = plane.durations[i];
  }
  for (let t = 0; t < triangles; t++, o += M.TRIANGLE_WORDS) {
    for (let k = 0; k < 3; k++) bits[o + k] = plane.triangles[t * 3 + k];
    for (let k = 0; k < 6; k++) words[o + M.TRIANGLE_ORIGIN + k] = plane.barycentric[t * 6 + k];
  }
  for (let e = 0; e < plane.hull.length; e++, o += M.EDGE_WORDS) {
    bits[o] = plane.hull[e];
    bits[o + 1] = plane.hull[(e + 1) % plane.hull.length];
    for (let k = 0; k < 5; k++) words[o + M.EDGE_ORIGIN + k] = plane.edges[e * 5 + k];
  }
}

const INPUT_MODES = { none: CONTROL.INPUT_NONE, speed: CONTROL.INPUT_SPEED, direction: CONTROL.INPUT_DIRECTION } as const;

/**
 * ControlInput records waiting for the next frame: a compact list of (handle, record) entries
 * that the control pass copies into place (CONTROL_UPDATE layout). The caller keeps one entry per
 * handle a frame (GpuControllers notes each handle's entry in its state row, so that no lookup
 * by handle touches another cache line). Grows by doubling, never shrinks; nothing allocates per
 * write.
 */
export class ControlUpdates {
  private data = new ArrayBuffer(16 * CONTROL_UPDATE.size);
  private f32 = new Float32Array(this.data);
  private u32 = new Uint32Array(this.data);
  count = 0;

  get bytes(): ArrayBuffer {
    return this.data;
  }

  /** Forgets the frame's entries (after they were uploaded). */
  clear(): void {
    this.count = 0;
  }

  /** A new entry for `handle` (write its record next); returns its index. */
  append(handle: number): number {
    const entry = this.count++;
    if (this.count * CONTROL_UPDATE.size > this.data.byteLength) this.grow();
    this.u32[(entry * CONTROL_UPDATE.size) / 4] = handle;
    return entry;
  }

  /** Drops entry `entry` (its controller was removed) by moving the last entry into its place; returns the handle of the moved entry, -1 when none moved. */
  drop(entry: number): number {
    const last = --this.count;
    if (entry === last) return -1;
    const stride = CONTROL_UPDATE.size / 4;
    this.u32.copyWithin(entry * stride, last * stride, (last + 1) * stride);
    return this.u32[entry * stride];
  }

  /**
   * Writes `controller`'s discrete state into entry `entry` (from append) as of `clock` seconds
   * into the control clock's period of parity `basis`. `epoch` changes when the locomotion state
   * must restart from start[s .. s + 6): x, z (model units), heading (radians), velocity x, z
   * (units per second) and blend phase; `curves` gives the curve ids.
   */
  write(entry: number, controller: AnimationController, clock: number, basis: number, epoch: number, start: Float64Array, s: number, curves: CurveTables): void {
    const base = entry * CONTROL_UPDATE.size;
    const o = (base + CONTROL_UPDATE.input) / 4;
    const f = this.f32;
    const u = this.u32;
    const fader = controller.crossfader;
    f[o + CONTROL_INPUT.clock / 4] = clock;
    u[o + CONTROL_INPUT.basis / 4] = basis;
    u[o + CONTROL_INPUT.epoch / 4] = epoch;
    const loco = controller.locomotion;
    u[o + CONTROL_INPUT.hasLocomotion / 4] = loco ? 1 : 0;
    u[o + CONTROL_INPUT.fadeCount / 4] = fader.fadeCount;
    this.source(o + CONTROL_INPUT.current / 4, fader.current);
    for (let i = 0; i < fader.fadeCount; i++) {
      const fade = fader.fades[i];
      const fo = o + (CONTROL_INPUT.fades + i * CONTROL_FADE.size) / 4;
      this.source(fo + CONTROL_FADE.source / 4, fade.target);
      f[fo + CONTROL_FADE.elapsed / 4] = fade.elapsed;
      f[fo + CONTROL_FADE.duration / 4] = fade.duration;
      u[fo + CONTROL_FADE.curve / 4] = curves.id(fade.curve, 'fade curve');
      u[fo + CONTROL_FADE.reversing / 4] = fade.reversing ? 1 : 0;
    }
    u[o + CONTROL_INPUT.actionPhase / 4] = controller.actionPhase;
    u[o + CONTROL_INPUT.action / 4] = controller.action < 0 ? CONTROL.NO_INDEX : controller.action;
    f[o + CONTROL_INPUT.actionTime / 4] = controller.actionTime;
    f[o + CONTROL_INPUT.actionOutTime / 4] = Math.min(controller.actionOutTime, CONTROL_ACTION_NEVER);
    // An action's playbacks are written only while they mean something (zeros otherwise), so the record is a function of the state.
    if (controller.actionPhase !== ACTION_NONE) this.playback(o + CONTROL_INPUT.actionPlay / 4, controller.actionPlayback, CONTROL.SOURCE_CLIP);
    else this.u32.fill(0, o + CONTROL_INPUT.actionPlay / 4, o + (CONTROL_INPUT.actionPlay + CONTROL_SOURCE.size) / 4);
    u[o + CONTROL_INPUT.previousAction / 4] = controller.previousAction < 0 ? CONTROL.NO_INDEX : controller.previousAction;
    f[o + CONTROL_INPUT.previousStartWeight / 4] = controller.previousStartWeight;
    if (controller.previousAction >= 0) this.playback(o + CONTROL_INPUT.previousPlay / 4, controller.previousPlayback, CONTROL.SOURCE_CLIP);
    else this.u32.fill(0, o + CONTROL_INPUT.previousPlay / 4, o + (CONTROL_INPUT.previousPlay + CONTROL_SOURCE.size) / 4);
    u[o + CONTROL_INPUT.inputMode / 4] = loco ? INPUT_MODES[loco.inputMode] : CONTROL.INPUT_NONE;
    f[o + CONTROL_INPUT.desiredParameter / 4] = loco ? loco.desiredParameter : 0;
    f[o + CONTROL_INPUT.inputX / 4] = loco ? loco.inputX : 0;
    f[o + CONTROL_INPUT.inputZ / 4] = loco ? loco.inputZ : 0;
    u[o + CONTROL_INPUT.running / 4] = loco?.running ? 1 : 0;
    f[o + CONTROL_INPUT.startX / 4] = start[s];
    f[o + CONTROL_INPUT.startZ / 4] = start[s + 1];
    f[o + CONTROL_INPUT.startHeading / 4] = start[s + 2];
    f[o + CONTROL_INPUT.startVelocityX / 4] = start[s + 3];
    f[o + CONTROL_INPUT.startVelocityZ / 4] = start[s + 4];
    f[o + CONTROL_INPUT.startPhase / 4] = start[s + 5];
    const facing = loco ? loco.facingHeading : null;
    u[o + CONTROL_INPUT.hasFacing / 4] = facing === null ? 0 : 1;
    f[o + CONTROL_INPUT.facing / 4] = facing ?? 0;
  }

  private source(o: number, source: Source): void {
    this.playback(o, source.playback, source.kind === SOURCE_LOCOMOTION ? CONTROL.SOURCE_LOCOMOTION : CONTROL.SOURCE_CLIP);
  }

  private playback(o: number, p: ClipPlayback, kind: number): void {
    this.u32[o + CONTROL_SOURCE.kind / 4] = kind;
    this.u32[o + CONTROL_SOURCE.clip / 4] = p.clip;
    this.f32[o + CONTROL_SOURCE.time / 4] = p.time;
    this.f32[o + CONTROL_SOURCE.speed / 4] = p.speed;
    this.u32[o + CONTROL_SOURCE.flags / 4] = (p.loop ? CONTROL.PLAY_LOOP : 0) | (p.holdFirstFrame ? CONTROL.PLAY_HOLD : 0) | (p.frozen ? CONTROL.PLAY_FROZEN : 0);
  }

  private grow(): void {
    const grown = new ArrayBuffer(this.data.byteLength * 2);
    new Uint8Array(grown).set(new Uint8Array(this.data));
    this.data = grown;
    this.f32 = new Float32Array(grown);
    this.u32 = new Uint32Array(grown);
  }
}
