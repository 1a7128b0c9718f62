import { BlendSpace1D } from '../blend-space-1d';
import type { BlendSpace2D } from '../blend-space-2d';
import type { BakedRootMotion } from '../../bake/root-motion';
import { advancePhase, createBlendWeights, type BlendWeights } from '../blend-weights';
import { DEFAULT_SLOWEST_WALK_RATE, DIRECTIONS, type ControllerConfig, type Direction, type LocomotionConfig } from './config';
import { directionalBlendSpace } from './directional-space';
import { checkF32, F32_HOLDS, F32_WHY } from '../../math/float32';
import { show } from '../../math/show';

/** Throws a RangeError unless `parameter` is a speed parameter: a number in [0, 2]. */
export function checkSpeedParameter(parameter: number): void {
  if (typeof parameter !== 'number' || !(parameter >= 0 && parameter <= 2)) throw new RangeError(`speed must be in [0, 2] (0 idle, 1 walk, 2 run), got ${show(parameter)}`);
}

/** Throws unless (x, z) are finite numbers and `run` is a boolean. */
export function checkMove(x: number, z: number, run: boolean): void {
  if (!Number.isFinite(x) || !Number.isFinite(z)) throw new RangeError(`move direction must be finite numbers, got (${show(x)}, ${show(z)})`);
  if (typeof run !== 'boolean') throw new TypeError(`run must be true or false, got ${show(run)}`);
}

/** Throws a RangeError unless `heading` is a finite number (radians) that float32 holds (the GPU controllers take it so), or null. */
export function checkFacing(heading: number | null): void {
  if (heading !== null && !Number.isFinite(heading)) throw new RangeError(`facing must be a finite heading in radians or null, got ${show(heading)}`);
  if (heading !== null) checkF32(heading, 'facing', F32_HOLDS, F32_WHY);
}

/**
 * Acceleration-based movement and the idle/walk/run blend of one character.
 *
 * Movement: the velocity (model units per second, in the ground plane x/z) moves toward the
 * desired velocity by at most maxAcceleration * dt (maxDeceleration * dt when slowing down);
 * the maximum speed is walkSpeed, doubled when running; with no input the character decelerates
 * and stops below minSpeed. The heading (radians about +y; 0 faces +z) turns toward the
 * velocity at turnRate, or toward the facing set by face() (strafing and backpedalling).
 *
 * Blend ("sectors"): the speed parameter p = speed / walkSpeed places the pose on a line from
 * idle (0) to walk (1) to run (2); the clip set comes from the direction of the velocity relative
 * to the heading. ("2d"): the velocity relative to the heading, in walkSpeed units, is looked up
 * in one 2D blend space of every set (directional-space.ts). Either way the blend's clips stay
 * in phase (one normalised phase, see blend-weights.ts).
 *
 * Playback rate ("rate matching"). Without root motion the blend plays at the clips' configured
 * rates, weighted (rateScale). With root motion (LocomotionRuntime.rootCycles: the character was
 * loaded with LoadOptions.rootMotion), the rate makes the clips' feet keep pace with the movement
 * instead: in one blend cycle of D / rateScale seconds the blend's root travels
 * |sum_i w_i c_i| (c_i the horizontal displacement of one cycle of clip i), so
 *
 *     rateScale = sign(configured) * speed * D / |sum_i w_i c_i|,
 *
 * i.e. movement speed / the blend's root speed at rate 1. Clips whose root speed is below
 * ROOT_TRAVEL_FRACTION of walkSpeed (idles, clips that walk on the spot) count as not
 * travelling (c_i = 0); a blend of none of them keeps the configured rates.
 *
 * Slowed walks (rate matching only). With slowestWalkRate s < 1 the blend is looked up at the
 * speed parameter p' = min(p / s, 1) for p = speed / walkSpeed < 1 (the 2D space at the relative
 * velocity scaled by p' / p), so from s x walkSpeed to walkSpeed the walk clips play alone at the
 * rate p (feet planted, as in the clip), and only below s x walkSpeed blend with idle.
 */
/** Relative tolerance under which a desired speed counts as equal to the current one. */
export const SPEED_TIE = 1e-5;
/** A clip travels (its root speed sets the locomotion rate) when its root speed is at least this fraction of walkSpeed. */
export const ROOT_TRAVEL_FRACTION = 0.1;

/** The input modes of Locomotion, in the order saved. */
const INPUT_MODES = ['none', 'speed', 'direction'] as const;
/** Entries the locomotion blend holds (2 by sector, 3 in the 2D space); the control pass's Blend holds as many. */
export const BLEND_ENTRIES = 3;
/** Float64 words Locomotion.save writes. */
export const LOCOMOTION_WORDS = 18 + BLEND_ENTRIES * 5;

/** Movement and locomotion blend of one character (see above); made by its AnimationController. */
export class Locomotion {
  /** Position on the ground plane, model units (x). */
  positionX = 0;
  /** Position on the ground plane, model units (z). */
  positionZ = 0;
  /** Velocity, model units per second (x). */
  velocityX = 0;
  /** Velocity, model units per second (z). */
  velocityZ = 0;
  /** Facing, radians about +y (0 faces +z). */
  heading = 0;
  /** Normalised phase of the blend cycle, [0, 1). */
  phase = 0;
  /** Up to 2 clips by sector, 3 in the 2D space. */
  readonly blend: BlendWeights = createBlendWeights(BLEND_ENTRIES);
  /** Playback-rate multiplier of the blend (the clips' configured speeds, weighted). */
  rateScale = 1;
  /** Direction sector of the current motion relative to the heading. */
  direction: Direction = 'forward';
  /** Where the blend was last evaluated (NaN: never): the speed parameter (sectors) or the relative velocity (2D). */
  private blendAt0 = NaN;
  private blendAt1 = NaN;
  /** Heading to keep while moving (radians), or NaN to face the movement. */
  private facing = NaN;

  /** The input being followed (set by setSpeed / move / stop; read by the GPU control records). */
  inputMode: 'none' | 'speed' | 'direction' = 'none';
  /** Speed parameter in [0, 2] of the 'speed' input. */
  desiredParameter = 0;
  /** World direction of the 'direction' input, length <= 1 (x). */
  inputX = 0;
  /** World direction of the 'direction' input, length <= 1 (z). */
  inputZ = 0;
  /** Whether the 'direction' input runs (maximum speed 2 * walkSpeed) rather than walks. */
  running = false;

  constructor(private readonly runtime: LocomotionRuntime) {
    this.updateBlend();
  }

  /** Writes the whole state (movement, input, blend) into out[o .. o + LOCOMOTION_WORDS) (see AnimationController.saveState). @internal */
  save(out: Float64Array, o: number): void {
    out[o] = this.positionX;
    out[o + 1] = this.positionZ;
    out[o + 2] = this.velocityX;
    out[o + 3] = this.velocityZ;
    out[o + 4] = this.heading;
    out[o + 5] = this.phase;
    out[o + 6] = this.rateScale;
    out[o + 7] = DIRECTIONS.indexOf(this.direction);
    out[o + 8] = this.blendAt0;
    out[o + 9] = this.blendAt1;
    out[o + 10] = this.facing;
    out[o + 11] = INPUT_MODES.indexOf(this.inputMode);
    out[o + 12] = this.desiredParameter;
    out[o + 13] = this.inputX;
    out[o + 14] = this.inputZ;
    out[o + 15] = this.running ? 1 : 0;
    const b = this.blend;
    out[o + 16] = b.count;
    out[o + 17] = b.cycleDuration;
    for (let i = 0; i < b.count; i++) {
      const e = o + 18 + i * 5;
      out[e] = b.clips[i]; out[e + 1] = b.entries[i]; out[e + 2] = b.weights[i]; out[e + 3] = b.durations[i]; out[e + 4] = b.rates[i];
    }
  }

  /** Reads what save wrote. @internal */
  load(words: Float64Array, o: number): void {
    this.positionX = words[o];
    this.positionZ = words[o + 1];
    this.velocityX = words[o + 2];
    this.velocityZ = words[o + 3];
    this.heading = words[o + 4];
    this.phase = words[o + 5];
    this.rateScale = words[o + 6];
    this.direction = DIRECTIONS[words[o + 7]];
    this.blendAt0 = words[o + 8];
    this.blendAt1 = words[o + 9];
    this.facing = words[o + 10];
    this.inputMode = INPUT_MODES[words[o + 11]];
    this.desiredParameter = words[o + 12];
    this.inputX = words[o + 13];
    this.inputZ = words[o + 14];
    this.running = words[o + 15] === 1;
    const b = this.blend;
    b.count = words[o + 16];
    b.cycleDuration = words[o + 17];
    for (let i = 0; i < b.count; i++) {
      const e = o + 18 + i * 5;
      b.clips[i] = words[e]; b.entries[i] = words[e + 1]; b.weights[i] = words[e + 2]; b.durations[i] = words[e + 3]; b.rates[i] = words[e + 4];
    }
  }

  /** Move along the heading at speed parameter p in [0, 2] (0 idle, 1 walk, 2 run). */
  setSpeed(parameter: number): void {
    checkSpeedParameter(parameter);
    this.inputMode = 'speed';
    this.desiredParameter = parameter;
  }

  /** Move in world direction (x, z) (length up to 1 scales the speed), walking or running. */
  move(x: number, z: number, run: boolean): void {
    checkMove(x, z, run);
    const length = Math.hypot(x, z);
    if (length < 1e-9) { this.stop(); return; }
    const scale = length > 1 ? 1 / length : 1;
    this.inputMode = 'direction';
    this.inputX = x * scale;
    this.inputZ = z * scale;
    this.running = run;
  }

  /**
   * Keep facing `heading` (radians about +y, 0 faces +z) whatever the direction of movement,
   * turning toward it at turnRate, so that moving sideways strafes and moving back backpedals;
   * null faces the movement again (the default).
   */
  face(heading: number | null): void {
    checkFacing(heading);
    this.facing = heading ?? NaN;
  }

  /** The heading face() keeps (radians), or null when the character faces its movement. */
  get facingHeading(): number | null {
    return Number.isNaN(this.facing) ? null : this.facing;
  }

  /** No input: decelerate to a stop. */
  stop(): void {
    this.inputMode = 'none';
    this.desiredParameter = 0;
  }

  /** Current speed, model units per second (>= 0). */
  get speed(): number {
    return Math.sqrt(this.velocityX * this.velocityX + this.velocityZ * this.velocityZ);
  }

  /** Speed parameter: 0 idle, 1 walk, 2 run. */
  get parameter(): number {
    return this.speed / this.runtime.config.walkSpeed;
  }

  /** Advances movement and blend by `dt` seconds (>= 0). */
  update(dt: number): void {
    const c = this.runtime.config;
    let desiredX = 0;
    let desiredZ = 0;
    if (this.inputMode === 'speed') {
      desiredX = Math.sin(this.heading) * this.desiredParameter * c.walkSpeed;
      desiredZ = Math.cos(this.heading) * this.desiredParameter * c.walkSpeed;
    } else if (this.inputMode === 'direction') {
      const max = c.walkSpeed * (this.running ? 2 : 1);
      desiredX = this.inputX * max;
      desiredZ = this.inputZ * max;
    }
    const dx = desiredX - this.velocityX;
    const dz = desiredZ - this.velocityZ;
    const change = Math.sqrt(dx * dx + dz * dz);
    // Accelerating unless clearly slowing down: a desired speed equal to the current one (turning
    // at a steady pace) counts as speeding up, however its rounding falls (the GPU twin in
    // shaders/controllers/control.wgsl rounds in f32 and must decide the same way).
    const speeding = desiredX * desiredX + desiredZ * desiredZ >= (this.velocityX * this.velocityX + this.velocityZ * this.velocityZ) * (1 - SPEED_TIE);
    const limit = (speeding ? c.maxAcceleration : c.maxDeceleration) * dt;
    const k = change > limit && change > 0 ? limit / change : 1;
    this.velocityX += dx * k;
    this.velocityZ += dz * k;
    if (this.inputMode === 'none' && this.speed < c.minSpeed) this.velocityX = this.velocityZ = 0;
    this.positionX += this.velocityX * dt;
    this.positionZ += this.velocityZ * dt;
    // With the speed input the velocity follows the heading, so only direction input turns toward it.
    if (!Number.isNaN(this.facing)) this.turnToward(this.facing, c.turnRate * dt);
    else if (this.speed > c.minSpeed && this.inputMode !== 'speed') this.turnToward(Math.atan2(this.velocityX, this.velocityZ), c.turnRate * dt);
    this.updateBlend();
    this.phase = advancePhase(this.phase, dt * this.rateScale, this.blend);
  }

  private turnToward(target: number, maxStep: number): void {
    let delta = target - this.heading;
    delta -= Math.round(delta / (2 * Math.PI)) * 2 * Math.PI;
    this.heading += Math.max(-maxStep, Math.min(maxStep, delta));
  }

  /** The speed parameter the blend is looked up at (slowestWalkRate, with rate matching), for p = speed / walkSpeed. */
  private blendParameter(p: number): number {
    const slowest = this.runtime.config.slowestWalkRate ?? DEFAULT_SLOWEST_WALK_RATE;
    return this.runtime.rootCycles && p < 1 && slowest < 1 ? Math.min(p / slowest, 1) : p;
  }

  private updateBlend(): void {
    const forwardX = Math.sin(this.heading);
    const forwardZ = Math.cos(this.heading);
    // Right of a character facing (sin h, cos h) with y up: (-cos h, sin h).
    const along = this.velocityX * forwardX + this.velocityZ * forwardZ;
    const across = -this.velocityX * forwardZ + this.velocityZ * forwardX;
    const sector = this.speed > 0 ? Math.round(Math.atan2(across, along) / (Math.PI / 4)) : 0;
    const direction = DIRECTIONS[((sector % 8) + 8) % 8];
    const parameter = Math.min(this.blendParameter(this.parameter), 2);
    const plane = this.runtime.plane;
    const at0 = plane ? across : parameter;
    const at1 = plane ? along : 0;
    // A steady gait (the common case in a crowd) keeps its blend: skip re-evaluating it.
    if (direction === this.direction && at0 === this.blendAt0 && at1 === this.blendAt1) return;
    this.direction = direction;
    this.blendAt0 = at0;
    this.blendAt1 = at1;
    if (plane) {
      const p = this.parameter;
      const scale = p > 0 ? this.blendParameter(p) / p : 1;
      plane.evaluate((across / this.runtime.config.walkSpeed) * scale, (along / this.runtime.config.walkSpeed) * scale, this.blend);
    }
    else this.runtime.spaces[direction].evaluate(parameter, this.blend);
    let scale = 0;
    for (let i = 0; i < this.blend.count; i++) scale += this.blend.weights[i] * this.runtime.clipSpeeds[this.blend.clips[i]];
    const cycles = this.runtime.rootCycles;
    if (cycles) {
      // Rate matching (see above): the blend's root displacement per cycle, weighted.
      let dx = 0;
      let dz = 0;
      for (let i = 0; i < this.blend.count; i++) {
        dx += this.blend.weights[i] * cycles[this.blend.clips[i] * 2];
        dz += this.blend.weights[i] * cycles[this.blend.clips[i] * 2 + 1];
      }
      const distance = Math.sqrt(dx * dx + dz * dz);
      if (distance > 0) scale = Math.sign(scale) * this.speed * this.blend.cycleDuration / distance;
    }
    this.rateScale = scale;
  }
}

/** What every controller of a model shares for locomotion: the config and one blend space per direction, or the 2D one. */
export class LocomotionRuntime {
  /** Idle/walk/run blend space (speed parameter 0..2) of each direction; "none" directions hold the idle clip alone. */
  readonly spaces: Record<Direction, BlendSpace1D>;
  /** The 2D blend space of every direction set (blendSpace "2d"), else null. */
  readonly plane: BlendSpace2D | null;
  /** Playback rate of each clip, by clip index (ControllerConfig.clips[i].speed). */
  readonly clipSpeeds: Float64Array;
  /**
   * Per clip index, the horizontal root displacement (x, z, model units) of one cycle of a clip
   * that travels (root speed >= ROOT_TRAVEL_FRACTION * walkSpeed), else (0, 0); null without
   * root motion. Locomotion sets its playback rate from them (rate matching, see Locomotion).
   */
  readonly rootCycles: Float64Array | null;

  /**
   * @param config The model's locomotion settings (kept, not copied).
   * @param controller The whole config, for the clips' playback rates.
   * @param durations Seconds per clip, by clip index.
   * @param rootMotion The character's root motion (Character.rootMotion: cycles and speeds by clip index), or null: no rate matching.
   */
  constructor(readonly config: LocomotionConfig, controller: ControllerConfig, durations: ArrayLike<number>, rootMotion: Pick<BakedRootMotion, 'cycle' | 'speed'> | null = null) {
    const duration = (clip: number) => Math.max(durations[clip], 1e-3);
    const idleOnly = new BlendSpace1D([{ clip: config.idle, position: 0, duration: duration(config.idle) }]);
    const bySet = new Map<string, BlendSpace1D>();
    this.spaces = {} as Record<Direction, BlendSpace1D>;
    for (const d of DIRECTIONS) {
      const set = config.directions[d];
      if (!set) { this.spaces[d] = idleOnly; continue; }
      const key = `${set.walk}/${set.run}`;
      if (!bySet.has(key)) {
        bySet.set(key, new BlendSpace1D([
          { clip: config.idle, position: 0, duration: duration(config.idle) },
          { clip: set.walk, position: 1, duration: duration(set.walk) },
          { clip: set.run, position: 2, duration: duration(set.run) },
        ]));
      }
      this.spaces[d] = bySet.get(key)!;
    }
    this.plane = config.blendSpace === '2d' ? directionalBlendSpace(config, duration) : null;
    this.clipSpeeds = Float64Array.from(controller.clips, (c) => c.speed);
    this.rootCycles = null;
    if (rootMotion) {
      if (rootMotion.speed.length !== controller.clips.length) throw new RangeError(`rootMotion has ${rootMotion.speed.length} clips, the controller config ${controller.clips.length}`);
      const cycles = new Float64Array(controller.clips.length * 2);
      for (let c = 0; c < controller.clips.length; c++) {
        if (!(rootMotion.speed[c] >= ROOT_TRAVEL_FRACTION * config.walkSpeed)) continue;
        cycles[c * 2] = rootMotion.cycle[c * 4];
        cycles[c * 2 + 1] = rootMotion.cycle[c * 4 + 2];
      }
      this.rootCycles = cycles;
    }
  }
}
