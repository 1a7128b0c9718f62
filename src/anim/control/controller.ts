import { resolveClip } from '../../bake/clip-names';
import type { BakedRootMotion } from '../../bake/root-motion';
import { show } from '../../math/show';
import { checkCurve, checkCurveValues, evaluateCurve, type BlendCurve } from './curves';
import { checkConfigEvents, type ActionConfig, type ControllerConfig } from './config';
import { Crossfader, SOURCE_CLIP, SOURCE_LOCOMOTION, Source, TIME_EPSILON, TRANSITION_KINDS, type TransitionKind } from './crossfader';
import { checkFacing, checkMove, checkSpeedParameter, Locomotion, LocomotionRuntime } from './locomotion';
import { MAX_BLEND, StackOutput, WeightedClips } from './output';
import { ClipPlayback } from './playback';

/**
 * What every controller of one model shares: the validated config, clip durations and the
 * locomotion blend spaces. Build once per model (and again when a new config is loaded).
 */
export class ControllerRuntime {
  /** The locomotion blend spaces and limits, or null when the config has no locomotion. */
  readonly locomotion: LocomotionRuntime | null;
  /** Action name -> index into config.actions. */
  readonly actionIndex: Map<string, number>;
  /** Scratch shared by every controller of the model (single-threaded, used within one call). @internal */
  readonly scratchClips = new WeightedClips();
  /** Scratch weights, as scratchClips. @internal */
  readonly scratchWeights = new Float64Array(8);
  /** Scratch source, as scratchClips. @internal */
  readonly scratchSource = new Source();
  /** allowed[(from + 1) * actions + to]: from -1 is locomotion, else an action index. */
  private readonly allowed: Uint8Array;
  /** Custom curves already found finite over [0, 1] (each function is sampled once). */
  private readonly checkedCurves = new WeakSet<(u: number) => number>();

  /**
   * @param config A validated config (parseControllerConfig or defaultControllerConfig); not copied, do not change it.
   * @param clipDurations Seconds per clip, in the config's clip order (Character.clipDurations).
   * @param rootMotion The character's root motion (Character.rootMotion), or null: with it, locomotion
   *   sets its clips' playback rate so their root speed matches the movement (see Locomotion).
   */
  constructor(readonly config: ControllerConfig, readonly clipDurations: ArrayLike<number>, rootMotion: Pick<BakedRootMotion, 'cycle' | 'speed'> | null = null) {
    checkConfigEvents(config, clipDurations);
    this.locomotion = config.locomotion ? new LocomotionRuntime(config.locomotion, config, clipDurations, rootMotion) : null;
    this.actionIndex = new Map(config.actions.map((a, i) => [a.name, i]));
    const n = config.actions.length;
    this.allowed = new Uint8Array((n + 1) * n);
    for (const pair of config.transitions) {
      const [from, to] = pair.split('->');
      this.allowed[((from === 'locomotion' ? -1 : this.actionIndex.get(from)!) + 1) * n + this.actionIndex.get(to)!] = 1;
    }
  }

  /** Whether the transitions table allows action `to` from action `from` (-1: from locomotion). */
  allows(from: number, to: number): boolean {
    return this.allowed[(from + 1) * this.config.actions.length + to] === 1;
  }

  /** Clip index of a clip name or index; throws a RangeError naming the clips when absent. */
  clipIndex(clip: string | number): number {
    return resolveClip(this.config.clipNames, clip);
  }

  /** Throws a RangeError naming `where` unless `curve` is a curve every fade can evaluate (see checkCurveValues). */
  checkCurve(curve: unknown, where: string): BlendCurve {
    const checked = checkCurve(curve, where);
    if (typeof checked === 'function' && !this.checkedCurves.has(checked)) {
      checkCurveValues(checked, where);
      this.checkedCurves.add(checked);
    }
    return checked;
  }
}

/**
 * What AnimationController.update hands each step to, for its clip events (ControllerEvents in
 * src/anim/control/events.ts; CrowdControllers passes one for its CPU-driven controllers).
 */
export interface StepEventScanner {
  /** Finds the clip events of the step of `dt` seconds `controller` is taking; `phaseBefore` is its locomotion phase before the step. */
  step(controller: AnimationController, dt: number, phaseBefore: number): void;
}

/** Phases of the action state machine. */
export const ACTION_NONE = 0;
export const ACTION_IN = 1; // transition from locomotion to the action (one crossfade)
export const ACTION_PLAY = 2;
export const ACTION_OUT = 3; // transition back to locomotion
const PHASE_NAMES = ['locomotion', 'to-action', 'action', 'to-locomotion'];

/** How AnimationController.fadeTo fades; each field defaults to the config's `fade`. */
export interface FadeOptions {
  /** Seconds (default: the config's fade.seconds). */
  seconds?: number;
  /** 'smooth' (both clips play), 'frozen' (the outgoing clip stops), 'first-frame' (the target holds its first pose until the fade ends) or 'immediate'. */
  kind?: TransitionKind;
  /** 'linear', 'cubic', or a function from fade progress u in [0, 1] to weight in [0, 1]. */
  curve?: BlendCurve;
}

/**
 * What evaluates a controller somewhere other than its own update() (the GPU control pass, see
 * CrowdControllers): told before each command, so it can bring the discrete state up to the
 * present, and after it, so it can rewrite what it evaluates from. checkCurve refuses a custom
 * curve it cannot evaluate, naming the field, before anything changes.
 */
export interface ControllerDriver {
  /** Called before a command changes `controller`: bring its state up to the present. */
  beforeCommand(controller: AnimationController): void;
  /** Called after the command: take the changed state as what to evaluate from. */
  afterCommand(controller: AnimationController): void;
  /** Throws, naming `where`, when the driver cannot evaluate `curve`. */
  checkCurve(curve: BlendCurve, where: string): void;
}

/**
 * One character's animation control: crossfades between clips and the locomotion blend, the
 * locomotion movement, and the action state machine, producing a layer stack every update.
 * Everything is allocated in the constructor; update() and the commands allocate nothing.
 *
 * Action state machine: locomotion -> (request allowed by the transitions table) to-action:
 * the action clip fades in over fadeIn seconds (the transition from locomotion and the one to
 * the action are this one crossfade) -> action: plays once (clamped) -> to-locomotion: fades
 * out over the action's last fadeOut seconds -> locomotion. Requests that are not allowed, or
 * that arrive while the action plays, are ignored; during its fades an action may hand over to
 * another action the table allows from it, and then keeps fading out (from the weight it had)
 * under the new one while that fades in.
 *
 * Usually made by {@link CrowdControllers.add}, which also writes its output into a crowd:
 *
 * @example
 * ```ts
 * const c = controllers.add(crowd.add(), 0, 0, Math.PI); // at x = 0, z = 0, facing -z
 * c.move(1, 0, false);            // walk toward +x (a world direction), turning to face it
 * c.requestAction('Wave');        // false when the transitions table does not allow it now
 * c.fadeTo('Dance', { seconds: 0.4, kind: 'frozen', curve: 'cubic' });
 * console.log(c.state);           // e.g. "fade:locomotion->Dance"
 * ```
 */
export class AnimationController {
  /** The crossfades between clips and the locomotion blend (read-only state; use play/fadeTo). */
  readonly crossfader = new Crossfader();
  /** Set by a driver that evaluates this controller (GPU-driven controllers); null when update() is stepped every frame. */
  driver: ControllerDriver | null = null;
  /** The driver's key for this controller (GpuControllers: the instance handle), so its hooks need no lookup; -1 without a driver. */
  driverKey = -1;
  /**
   * Movement state, or null when the config has no locomotion: positionX/positionZ (model units,
   * ground plane), heading (radians about +y, 0 faces +z), speed (model units per second),
   * direction of motion relative to the heading. Change it through move/setSpeed/stop.
   */
  readonly locomotion: Locomotion | null;
  /** The layer stack the last update produced (base clip plus up to 4 layers): what CrowdControllers writes into the crowd. */
  readonly output = new StackOutput();
  /** Phase of the action state machine: 0 locomotion (no action), 1 to-action, 2 action, 3 to-locomotion. */
  actionPhase = ACTION_NONE;
  /** Index into config.actions of the current action, -1 when none. */
  action = -1;
  /** Seconds since the current action phase began. */
  actionPhaseTime = 0;
  /** Seconds since the current action was requested (its phases are intervals of this clock, see updateAction). */
  actionTime = 0;
  /** actionTime at which the action starts fading out: its clip's last fadeOut seconds, but not before the fade-in ends (Infinity: a clip at speed 0 never ends). */
  actionOutTime = Infinity;
  /** Weight of the action layer, [0, 1]. */
  actionWeight = 0;
  /** The clock of the current action's clip (seconds, clamped at its end). */
  readonly actionPlayback = new ClipPlayback();
  /**
   * An action handed over mid-fade keeps fading out under the new one (over the new action's
   * fadeIn) instead of vanishing: its clock, mask, weight at the handover and current weight.
   */
  readonly previousPlayback = new ClipPlayback();
  /** Index into config.actions of the action fading out under the current one, -1 when none. */
  previousAction = -1;
  /** Weight of that action's layer, [0, 1]. */
  previousWeight = 0;
  /** The handed-over action's weight at the handover. */
  previousStartWeight = 0;


  /**
   * A controller showing the locomotion blend (idle), or clip 0 when the config has no locomotion.
   *
   * @param runtime What the controllers of one model share (one ControllerRuntime per model and config).
   */
  constructor(readonly runtime: ControllerRuntime) {
    this.locomotion = runtime.locomotion ? new Locomotion(runtime.locomotion) : null;
    const loco = runtime.config.locomotion;
    if (loco) {
      this.crossfader.play(this.locomotionSource());
    } else {
      this.crossfader.play(this.clipSource(0));
    }
    this.writeOutput();
  }

  /** Shows `clip` now (no fade), playing at its configured speed from time 0. */
  play(clip: string | number): void {
    const index = this.runtime.clipIndex(clip);
    this.driver?.beforeCommand(this);
    this.crossfader.play(this.clipSource(index));
    this.driver?.afterCommand(this);
  }

  /** Fades to `clip` (rules in crossfader.ts). Returns what happened. */
  fadeTo(clip: string | number, options: FadeOptions = {}): ReturnType<Crossfader['fadeTo']> {
    if (typeof options !== 'object' || options === null) throw new TypeError(`fadeTo options must be an object { seconds, kind, curve }, got ${show(options)}`);
    const fade = this.runtime.config.fade;
    const seconds = options.seconds ?? fade.seconds;
    if (typeof seconds !== 'number' || !(seconds >= 0 && seconds < Infinity)) throw new RangeError(`fade seconds must be >= 0 and finite, got ${show(seconds)}`);
    const kind = options.kind ?? fade.kind;
    if (!TRANSITION_KINDS.includes(kind)) throw new RangeError(`fade kind must be one of ${TRANSITION_KINDS.join(', ')}, got ${show(kind)}`);
    const index = this.runtime.clipIndex(clip);
    const curve = this.runtime.checkCurve(options.curve ?? fade.curve, 'fadeTo options.curve');
    this.driver?.checkCurve(curve, 'fadeTo options.curve');
    this.driver?.beforeCommand(this);
    const result = this.crossfader.fadeTo(this.clipSource(index), seconds, kind, curve);
    this.driver?.afterCommand(this);
    return result;
  }

  /** Locomotion at speed parameter p in [0, 2] along the heading; fades locomotion in if needed. */
  setSpeed(parameter: number): void {
    const locomotion = this.requireLocomotion();
    checkSpeedParameter(parameter); // before the driver brings the state up to the present
    this.driver?.beforeCommand(this);
    locomotion.setSpeed(parameter);
    this.showLocomotion();
    this.driver?.afterCommand(this);
  }

  /** Locomotion in world direction (x, z), walking or running; fades locomotion in if needed. */
  move(x: number, z: number, run = false): void {
    const locomotion = this.requireLocomotion();
    checkMove(x, z, run);
    this.driver?.beforeCommand(this);
    locomotion.move(x, z, run);
    this.showLocomotion();
    this.driver?.afterCommand(this);
  }

  /**
   * Keeps facing `heading` (radians about +y, 0 faces +z) while moving any way, so sideways is a
   * strafe and back a backpedal (with a config that has clips for them); null faces the movement.
   */
  face(heading: number | null): void {
    const locomotion = this.requireLocomotion();
    checkFacing(heading);
    this.driver?.beforeCommand(this);
    locomotion.face(heading);
    this.driver?.afterCommand(this);
  }

  /** Stops moving (decelerates to idle). */
  stop(): void {
    const locomotion = this.requireLocomotion();
    this.driver?.beforeCommand(this);
    locomotion.stop();
    this.showLocomotion();
    this.driver?.afterCommand(this);
  }

  /** Requests action `name`; returns whether it started (false: not allowed now, ignored). */
  requestAction(name: string): boolean {
    const index = this.runtime.actionIndex.get(name);
    if (index === undefined) {
      throw new RangeError(`no action ${JSON.stringify(name)} (actions: ${this.runtime.config.actions.map((a) => JSON.stringify(a.name)).join(', ') || 'none'})`);
    }
    // A driver brings the discrete state up to the present first: refusals depend on the phase now.
    this.driver?.beforeCommand(this);
    if (this.actionPhase === ACTION_PLAY) return false;
    if (!this.runtime.allows(this.actionPhase === ACTION_NONE ? -1 : this.action, index)) return false;
    const action = this.runtime.config.actions[index];
    const settings = this.runtime.config.clips[action.clip];
    if (this.actionPhase !== ACTION_NONE && this.actionWeight > 0) {
      this.previousPlayback.copy(this.actionPlayback);
      this.previousAction = this.action;
      this.previousStartWeight = this.previousWeight = this.actionWeight;
    }
    this.action = index;
    this.actionPhase = ACTION_IN;
    this.actionPhaseTime = 0;
    this.actionTime = 0;
    // Actions play once: clamped whatever the clip's loop setting.
    const p = this.actionPlayback.set(action.clip, this.runtime.clipDurations[action.clip], settings.speed, false, settings.speed < 0 ? Infinity : 0);
    const length = p.speed === 0 ? Infinity : (p.speed > 0 ? p.duration - p.time : p.time) / Math.abs(p.speed);
    this.actionOutTime = Math.max(action.fadeIn, length - action.fadeOut);
    this.driver?.afterCommand(this);
    return true;
  }

  /**
   * Advances everything by dt seconds (>= 0) and rewrites `output`. With `events`, the clip
   * events the step crosses go to events.sink (src/anim/control/events.ts): scanned after the
   * locomotion moved (its phase advances at the new blend's rate) and before the fades and the
   * action advance (their weights at each crossing come from the state before the step).
   */
  update(dt: number, events?: StepEventScanner): void {
    if (!(dt >= 0) || !Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds >= 0, got ${show(dt)}`);
    const phaseBefore = this.locomotion ? this.locomotion.phase : 0;
    this.locomotion?.update(dt);
    events?.step(this, dt, phaseBefore);
    this.crossfader.update(dt);
    this.updateAction(dt);
    this.writeOutput();
  }

  /**
   * Advances the discrete state only (crossfade clocks and fades, action phases) by dt seconds:
   * what a driver calls to bring a GPU-driven controller up to the present before an event. The
   * locomotion integration and `output` are the driver's (they are not advanced here).
   */
  advanceDiscrete(dt: number): void {
    if (!(dt >= 0) || !Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds >= 0, got ${show(dt)}`);
    this.crossfader.update(dt);
    this.updateAction(dt);
  }

  /** The state as a string: an action phase ("action:Jump"), a fade ("fade:Survey->Walk"), "locomotion" or "play:Survey". */
  get state(): string {
    if (this.actionPhase !== ACTION_NONE) return `${PHASE_NAMES[this.actionPhase]}:${this.runtime.config.actions[this.action].name}`;
    const f = this.crossfader;
    if (f.fadeCount > 0) return `fade:${this.sourceName(f.current)}->${this.sourceName(f.fades[f.fadeCount - 1].target)}`;
    return f.current.kind === SOURCE_LOCOMOTION ? 'locomotion' : `play:${this.sourceName(f.current)}`;
  }

  private sourceName(source: Source): string {
    return source.kind === SOURCE_LOCOMOTION ? 'locomotion' : this.runtime.config.clipNames[source.playback.clip];
  }

  /**
   * Advances the action state machine by dt. Its phases are intervals of actionTime (seconds
   * since the request), so they fall where they would at any frame rate: to-action [0, fadeIn),
   * action [fadeIn, actionOutTime), to-locomotion [actionOutTime, actionOutTime + fadeOut), then
   * none. (A boundary is passed TIME_EPSILON early, for sums of frame times that land a hair short.)
   * The GPU twin (shaders/control.wgsl) evaluates the same intervals from one record.
   */
  private updateAction(dt: number): void {
    if (this.actionPhase === ACTION_NONE) return;
    const action: ActionConfig = this.runtime.config.actions[this.action];
    this.actionPlayback.advance(dt);
    const t = (this.actionTime += dt);
    const fadingIn = t < action.fadeIn - TIME_EPSILON;
    if (this.previousAction >= 0) {
      // The handed-over action fades out while this one fades in.
      this.previousPlayback.advance(dt);
      this.previousWeight = fadingIn ? this.previousStartWeight * (1 - evaluateCurve(action.curve, t / action.fadeIn)) : 0;
      if (this.previousWeight <= 0) this.previousAction = -1;
    }
    const outAt = this.actionOutTime;
    if (fadingIn) {
      this.setAction(ACTION_IN, t, evaluateCurve(action.curve, t / action.fadeIn));
    } else if (t < outAt - TIME_EPSILON) {
      this.setAction(ACTION_PLAY, t - action.fadeIn, 1);
    } else if (t < outAt + action.fadeOut - TIME_EPSILON) {
      this.setAction(ACTION_OUT, t - outAt, 1 - evaluateCurve(action.curve, (t - outAt) / action.fadeOut));
    } else {
      this.actionPhase = ACTION_NONE;
      this.action = -1;
      this.actionWeight = 0;
      this.previousAction = -1;
    }
  }

  private setAction(phase: number, phaseTime: number, weight: number): void {
    this.actionPhase = phase;
    this.actionPhaseTime = Math.max(0, phaseTime);
    this.actionWeight = weight;
  }

  /** Flattens the crossfade (and the locomotion blend inside it) into the output stack, then the action layer. */
  private writeOutput(): void {
    const f = this.crossfader;
    const clips = this.runtime.scratchClips;
    clips.clear();
    const weights = this.runtime.scratchWeights;
    f.sourceWeights(weights);
    for (let i = 0; i <= f.fadeCount; i++) {
      const source = i === 0 ? f.current : f.fades[i - 1].target;
      const w = weights[i];
      if (source.kind === SOURCE_CLIP) {
        clips.add(source.playback.clip, source.playback.sampleTime, source.playback.sampleSpeed, w);
      } else if (this.locomotion) {
        const loco = this.locomotion;
        const blend = loco.blend;
        for (let k = 0; k < blend.count; k++) {
          clips.add(blend.clips[k], loco.phase * blend.durations[k], blend.rates[k] * loco.rateScale, w * blend.weights[k]);
        }
      }
    }
    const handover = this.previousAction >= 0 && this.previousWeight > 0;
    clips.writeTo(this.output, f.current.playback.clip, handover ? MAX_BLEND - 1 : MAX_BLEND);
    if (handover) {
      const previous = this.runtime.config.actions[this.previousAction];
      const p = this.previousPlayback;
      this.output.pushLayer(previous.clip, p.sampleTime, p.sampleSpeed, this.previousWeight, previous.mask);
    }
    if (this.actionPhase !== ACTION_NONE && this.actionWeight > 0) {
      const action = this.runtime.config.actions[this.action];
      const p = this.actionPlayback;
      this.output.pushLayer(action.clip, p.sampleTime, p.sampleSpeed, this.actionWeight, action.mask);
    }
  }

  private clipSource(clip: number): Source {
    const settings = this.runtime.config.clips[clip];
    const s = this.runtime.scratchSource;
    s.kind = SOURCE_CLIP;
    s.playback.set(clip, this.runtime.clipDurations[clip], settings.speed, settings.loop, settings.speed < 0 && !settings.loop ? Infinity : 0);
    return s;
  }

  private locomotionSource(): Source {
    const s = this.runtime.scratchSource;
    s.kind = SOURCE_LOCOMOTION;
    s.playback.set(this.runtime.config.locomotion!.idle, 0, 0, true);
    return s;
  }

  private showLocomotion(): void {
    const f = this.crossfader;
    const last = f.fadeCount > 0 ? f.fades[f.fadeCount - 1] : null;
    const shown = last ? (last.reversing ? (f.fadeCount >= 2 ? f.fades[f.fadeCount - 2].target : f.current) : last.target) : f.current;
    if (shown.kind === SOURCE_LOCOMOTION) return;
    const loco = this.runtime.config.locomotion!;
    f.fadeTo(this.locomotionSource(), loco.fadeSeconds, 'smooth', this.runtime.config.fade.curve);
  }

  private requireLocomotion(): Locomotion {
    if (!this.locomotion) throw new Error('this model\'s controller config has no "locomotion" section');
    return this.locomotion;
  }
}
