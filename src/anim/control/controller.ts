// Over 400 lines: the AnimationController is one state machine (crossfades, locomotion, actions, its saved row) whose parts read each other's state every step; split apart, each part would reach into the others.
import { resolveClip } from '../../bake/clip-names';
import type { BakedRootMotion } from '../../bake/root-motion';
import { show } from '../../math/show';
import { checkCurve, checkCurveValues, CurveCodes, evaluateCurve, type BlendCurve } from './curves';
import { checkConfigEvents, type ActionConfig, type ControllerConfig } from './config';
import { Crossfader, FADE_WORDS, MAX_FADES, SOURCE_CLIP, SOURCE_LOCOMOTION, SOURCE_WORDS, Source, TIME_EPSILON, TRANSITION_KINDS, type TransitionKind } from './crossfader';
import { checkFacing, checkMove, checkSpeedParameter, Locomotion, LOCOMOTION_WORDS, LocomotionRuntime } from './locomotion';
import type { LayerStackArrays } from '../layer-stack';
import { LayerStackBuffer, MAX_BLEND, WeightedClips } from './output';
import { ClipPlayback, PLAYBACK_WORDS } from './playback';

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
  /** Numbers of the blend curves in saved controller states (saveState). @internal */
  readonly curveCodes = new CurveCodes();
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
 * CrowdControllers) and keeps its state: the GPU driver keeps every controller's state in one
 * typed array (saveState), so that an event touches a few cache lines rather than a graph of
 * objects. Before each command the driver brings the state up to the present in a working
 * controller of its own and hands that back: the command changes it; after the command the
 * driver takes the changed state as what to evaluate from. checkCurve refuses a custom curve it
 * cannot evaluate, naming the field, before anything changes. sync copies the present state
 * into the controller itself, for reading.
 */
export interface ControllerDriver {
  /** Called before a command changes `controller`: returns the controller (the driver's working copy) whose state is up to the present, for the command to change. */
  beforeCommand(controller: AnimationController): AnimationController;
  /** Called after the command: take the changed state as what to evaluate from. */
  afterCommand(controller: AnimationController): void;
  /** Called instead of afterCommand when the command was refused and changed nothing: keep the state as brought up to the present. */
  afterRefusal(controller: AnimationController): void;
  /** Returns the driver's working copy of `controller`'s state brought up to the present (for reading a value; valid until the next call into the driver). */
  present(controller: AnimationController): AnimationController;
  /** Brings `controller`'s own state up to the present (for reading its objects: crossfader, locomotion, playbacks). */
  sync(controller: AnimationController): void;
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
  /** Set by a driver that evaluates this controller (GPU-driven controllers); null when update() is stepped every frame. */
  driver: ControllerDriver | null = null;
  /** The driver's key for this controller (GpuControllers: the instance handle), so its hooks need no lookup; -1 without a driver. */
  driverKey = -1;
  private stack: LayerStackBuffer | null = null;
  // The state. A driven controller's lives with its driver: the getters below read it there, and
  // its objects here are made at the first sync (makeState), so that 100,000 GPU-driven
  // controllers are not 390 MB of objects nobody reads.
  private fader!: Crossfader;
  private movement!: Locomotion | null;
  private phaseOfAction = ACTION_NONE;
  private actionIndex = -1;
  private timeInPhase = 0;
  private timeSinceRequest = 0;
  private outTime = Infinity;
  private weightOfAction = 0;
  private playbackOfAction!: ClipPlayback;
  private playbackOfPrevious!: ClipPlayback;
  private previousIndex = -1;
  private weightOfPrevious = 0;
  private startWeightOfPrevious = 0;

  /**
   * A controller showing the locomotion blend (idle), or clip 0 when the config has no locomotion.
   *
   * @param runtime What the controllers of one model share (one ControllerRuntime per model and config).
   * @param driver A driver that keeps this controller's state from the start (GpuControllers makes its controllers so; its key below); null for one you step with update().
   * @param driverKey The driver's key for this controller.
   */
  constructor(readonly runtime: ControllerRuntime, driver: ControllerDriver | null = null, driverKey = -1) {
    this.driver = driver;
    this.driverKey = driverKey;
    if (driver) return; // its state starts with the driver
    this.makeState();
    this.fader.play(runtime.config.locomotion ? this.locomotionSource() : this.clipSource(0));
    this.writeOutput();
  }

  /** The layer stack the last update produced (base clip plus up to 4 layers): what CrowdControllers writes into the crowd. Not kept for a driven controller (its driver evaluates the stack): empty there. */
  get output(): LayerStackArrays {
    return this.buffer;
  }

  /** The output, writable. */
  private get buffer(): LayerStackBuffer {
    return (this.stack ??= new LayerStackBuffer());
  }

  /** The crossfades between clips and the locomotion blend (read-only state; use play/fadeTo). */
  get crossfader(): Crossfader {
    this.driver?.sync(this);
    return this.fader;
  }

  /**
   * Movement state, or null when the config has no locomotion: positionX/positionZ (model units,
   * ground plane), heading (radians about +y, 0 faces +z), speed (model units per second),
   * direction of motion relative to the heading. Change it through move/setSpeed/stop. (A
   * GPU-driven controller's position is the GPU's: read it with CrowdControllers.locomotionState.)
   */
  get locomotion(): Locomotion | null {
    this.driver?.sync(this);
    return this.movement;
  }

  /** Phase of the action state machine: 0 locomotion (no action), 1 to-action, 2 action, 3 to-locomotion. */
  get actionPhase(): number {
    return this.present().phaseOfAction;
  }

  /** Index into config.actions of the current action, -1 when none. */
  get action(): number {
    return this.present().actionIndex;
  }

  /** Seconds since the current action phase began. */
  get actionPhaseTime(): number {
    return this.present().timeInPhase;
  }

  /** Seconds since the current action was requested (its phases are intervals of this clock, see updateAction). */
  get actionTime(): number {
    return this.present().timeSinceRequest;
  }

  /** actionTime at which the action starts fading out: its clip's last fadeOut seconds, but not before the fade-in ends (Infinity: a clip at speed 0 never ends). */
  get actionOutTime(): number {
    return this.present().outTime;
  }

  /** Weight of the action layer, [0, 1]. */
  get actionWeight(): number {
    return this.present().weightOfAction;
  }

  /** The clock of the current action's clip (seconds, clamped at its end); meaningful while an action is in flight. */
  get actionPlayback(): ClipPlayback {
    this.driver?.sync(this);
    return this.playbackOfAction;
  }

  /**
   * An action handed over mid-fade keeps fading out under the new one (over the new action's
   * fadeIn) instead of vanishing: its clock.
   */
  get previousPlayback(): ClipPlayback {
    this.driver?.sync(this);
    return this.playbackOfPrevious;
  }

  /** Index into config.actions of the action fading out under the current one, -1 when none. */
  get previousAction(): number {
    return this.present().previousIndex;
  }

  /** Weight of that action's layer, [0, 1]. */
  get previousWeight(): number {
    return this.present().weightOfPrevious;
  }

  /** The handed-over action's weight at the handover. */
  get previousStartWeight(): number {
    return this.present().startWeightOfPrevious;
  }

  /** Shows `clip` now (no fade), playing at its configured speed from time 0. */
  play(clip: string | number): void {
    const index = this.runtime.clipIndex(clip);
    const c = this.begin();
    c.fader.play(c.clipSource(index));
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
    const c = this.begin();
    const result = c.fader.fadeTo(c.clipSource(index), seconds, kind, curve);
    this.driver?.afterCommand(this);
    return result;
  }

  /** Locomotion at speed parameter p in [0, 2] along the heading; fades locomotion in if needed. */
  setSpeed(parameter: number): void {
    this.requireLocomotion();
    checkSpeedParameter(parameter); // before the driver brings the state up to the present
    const c = this.begin();
    c.movement!.setSpeed(parameter);
    c.showLocomotion();
    this.driver?.afterCommand(this);
  }

  /** Locomotion in world direction (x, z), walking or running; fades locomotion in if needed. */
  move(x: number, z: number, run = false): void {
    this.requireLocomotion();
    checkMove(x, z, run);
    const c = this.begin();
    c.movement!.move(x, z, run);
    c.showLocomotion();
    this.driver?.afterCommand(this);
  }

  /**
   * Keeps facing `heading` (radians about +y, 0 faces +z) while moving any way, so sideways is a
   * strafe and back a backpedal (with a config that has clips for them); null faces the movement.
   */
  face(heading: number | null): void {
    this.requireLocomotion();
    checkFacing(heading);
    const c = this.begin();
    c.movement!.face(heading);
    this.driver?.afterCommand(this);
  }

  /** Stops moving (decelerates to idle). */
  stop(): void {
    this.requireLocomotion();
    const c = this.begin();
    c.movement!.stop();
    c.showLocomotion();
    this.driver?.afterCommand(this);
  }

  /** Requests action `name`; returns whether it started (false: not allowed now, ignored). */
  requestAction(name: string): boolean {
    const index = this.runtime.actionIndex.get(name);
    if (index === undefined) {
      throw new RangeError(`no action ${JSON.stringify(name)} (actions: ${this.runtime.config.actions.map((a) => JSON.stringify(a.name)).join(', ') || 'none'})`);
    }
    // A driver brings the discrete state up to the present first: refusals depend on the phase now.
    const c = this.begin();
    if (!c.startAction(index)) {
      this.driver?.afterRefusal(this);
      return false;
    }
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
    this.refuseDriven('update');
    const phaseBefore = this.movement ? this.movement.phase : 0;
    this.movement?.update(dt);
    events?.step(this, dt, phaseBefore);
    this.fader.update(dt);
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
    this.refuseDriven('advanceDiscrete');
    this.fader.update(dt);
    this.updateAction(dt);
  }

  /** Float64 words saveState writes (the same for every controller of the runtime's config). */
  get stateWords(): number {
    return this.fadesAt + MAX_FADES * FADE_WORDS;
  }

  /** Where saveState puts the action playbacks and the fades: after what every command reads, the fades (rarely in flight) last. */
  private get playbacksAt(): number {
    return MOVEMENT + (this.runtime.locomotion ? LOCOMOTION_WORDS : 0);
  }

  private get fadesAt(): number {
    return this.playbacksAt + 2 * PLAYBACK_WORDS;
  }

  /**
   * Writes the whole state (crossfades, action state machine, locomotion; not `output`) into
   * out[o .. o + stateWords), for a driver that keeps its controllers' states in one typed array.
   * loadState into a controller of the same runtime gives back the same state, bit for bit. What
   * means nothing in the state is not written (fades not in flight, an action's playbacks when
   * there is no action): those words are left as they were.
   */
  saveState(out: Float64Array, o: number): void {
    if (!this.fader) throw new Error('this controller\'s state lives with its driver (it has none of its own to save)');
    out[o] = this.phaseOfAction;
    out[o + 1] = this.actionIndex;
    out[o + 2] = this.timeInPhase;
    out[o + 3] = this.timeSinceRequest;
    out[o + 4] = this.outTime;
    out[o + 5] = this.weightOfAction;
    out[o + 6] = this.previousIndex;
    out[o + 7] = this.weightOfPrevious;
    out[o + 8] = this.startWeightOfPrevious;
    this.fader.save(out, o + FADER, o + this.fadesAt, this.runtime.curveCodes);
    this.movement?.save(out, o + MOVEMENT);
    // An action's playbacks mean something only while it (or the one it took over from) is in flight.
    const p = o + this.playbacksAt;
    if (this.phaseOfAction !== ACTION_NONE) this.playbackOfAction.save(out, p);
    if (this.previousIndex >= 0) this.playbackOfPrevious.save(out, p + PLAYBACK_WORDS);
  }

  /** Reads a state saveState wrote (by a controller of the same runtime). */
  loadState(words: Float64Array, o: number): void {
    if (!this.fader) this.makeState();
    this.phaseOfAction = words[o];
    this.actionIndex = words[o + 1];
    this.timeInPhase = words[o + 2];
    this.timeSinceRequest = words[o + 3];
    this.outTime = words[o + 4];
    this.weightOfAction = words[o + 5];
    this.previousIndex = words[o + 6];
    this.weightOfPrevious = words[o + 7];
    this.startWeightOfPrevious = words[o + 8];
    this.fader.load(words, o + FADER, o + this.fadesAt, this.runtime.curveCodes);
    this.movement?.load(words, o + MOVEMENT);
    const p = o + this.playbacksAt;
    if (this.phaseOfAction !== ACTION_NONE) this.playbackOfAction.load(words, p);
    if (this.previousIndex >= 0) this.playbackOfPrevious.load(words, p + PLAYBACK_WORDS);
  }

  /** The state as a string: an action phase ("action:Jump"), a fade ("fade:Survey->Walk"), "locomotion" or "play:Survey". */
  get state(): string {
    const c = this.present();
    if (c.phaseOfAction !== ACTION_NONE) return `${PHASE_NAMES[c.phaseOfAction]}:${this.runtime.config.actions[c.actionIndex].name}`;
    const f = c.fader;
    if (f.fadeCount > 0) return `fade:${this.sourceName(f.current)}->${this.sourceName(f.fades[f.fadeCount - 1].target)}`;
    return f.current.kind === SOURCE_LOCOMOTION ? 'locomotion' : `play:${this.sourceName(f.current)}`;
  }

  /** Makes the state's objects (at construction, or a driven controller's at its first sync). */
  private makeState(): void {
    this.fader = new Crossfader();
    this.movement = this.runtime.locomotion ? new Locomotion(this.runtime.locomotion) : null;
    this.playbackOfAction = new ClipPlayback();
    this.playbackOfPrevious = new ClipPlayback();
  }

  /** Throws, naming `what`, for a driven controller: its driver advances it. */
  private refuseDriven(what: string): void {
    if (this.driver) throw new Error(`${what}: this controller is driven (GPU-driven controllers advance in CrowdControllers.update); drive it with { driver: 'cpu' } to step it yourself`);
  }

  /** This controller, or (driven) its driver's working copy of its state brought up to the present, for reading a value. */
  private present(): AnimationController {
    return this.driver ? this.driver.present(this) : this;
  }

  /** The controller whose state a command changes: this one, or its driver's working copy brought up to the present. */
  private begin(): AnimationController {
    return this.driver ? this.driver.beforeCommand(this) : this;
  }

  private sourceName(source: Source): string {
    return source.kind === SOURCE_LOCOMOTION ? 'locomotion' : this.runtime.config.clipNames[source.playback.clip];
  }

  /** Starts action `index` when the state machine allows it now; false when it is refused (nothing changes). */
  private startAction(index: number): boolean {
    if (this.phaseOfAction === ACTION_PLAY) return false;
    if (!this.runtime.allows(this.phaseOfAction === ACTION_NONE ? -1 : this.actionIndex, index)) return false;
    const action = this.runtime.config.actions[index];
    const settings = this.runtime.config.clips[action.clip];
    if (this.phaseOfAction !== ACTION_NONE && this.weightOfAction > 0) {
      this.playbackOfPrevious.copy(this.playbackOfAction);
      this.previousIndex = this.actionIndex;
      this.startWeightOfPrevious = this.weightOfPrevious = this.weightOfAction;
    }
    this.actionIndex = index;
    this.phaseOfAction = ACTION_IN;
    this.timeInPhase = 0;
    this.timeSinceRequest = 0;
    // Actions play once: clamped whatever the clip's loop setting.
    const p = this.playbackOfAction.set(action.clip, this.runtime.clipDurations[action.clip], settings.speed, false, settings.speed < 0 ? Infinity : 0);
    const length = p.speed === 0 ? Infinity : (p.speed > 0 ? p.duration - p.time : p.time) / Math.abs(p.speed);
    this.outTime = Math.max(action.fadeIn, length - action.fadeOut);
    return true;
  }

  /**
   * Advances the action state machine by dt. Its phases are intervals of actionTime (seconds
   * since the request), so they fall where they would at any frame rate: to-action [0, fadeIn),
   * action [fadeIn, actionOutTime), to-locomotion [actionOutTime, actionOutTime + fadeOut), then
   * none. (A boundary is passed TIME_EPSILON early, for sums of frame times that land a hair short.)
   * The GPU twin (shaders/controllers/control.wgsl) evaluates the same intervals from one record.
   */
  private updateAction(dt: number): void {
    if (this.phaseOfAction === ACTION_NONE) return;
    const action: ActionConfig = this.runtime.config.actions[this.actionIndex];
    this.playbackOfAction.advance(dt);
    const t = (this.timeSinceRequest += dt);
    const fadingIn = t < action.fadeIn - TIME_EPSILON;
    if (this.previousIndex >= 0) {
      // The handed-over action fades out while this one fades in.
      this.playbackOfPrevious.advance(dt);
      this.weightOfPrevious = fadingIn ? this.startWeightOfPrevious * (1 - evaluateCurve(action.curve, t / action.fadeIn)) : 0;
      if (this.weightOfPrevious <= 0) this.previousIndex = -1;
    }
    const outAt = this.outTime;
    if (fadingIn) {
      this.setAction(ACTION_IN, t, evaluateCurve(action.curve, t / action.fadeIn));
    } else if (t < outAt - TIME_EPSILON) {
      this.setAction(ACTION_PLAY, t - action.fadeIn, 1);
    } else if (t < outAt + action.fadeOut - TIME_EPSILON) {
      this.setAction(ACTION_OUT, t - outAt, 1 - evaluateCurve(action.curve, (t - outAt) / action.fadeOut));
    } else {
      this.phaseOfAction = ACTION_NONE;
      this.actionIndex = -1;
      this.weightOfAction = 0;
      this.previousIndex = -1;
    }
  }

  private setAction(phase: number, phaseTime: number, weight: number): void {
    this.phaseOfAction = phase;
    this.timeInPhase = Math.max(0, phaseTime);
    this.weightOfAction = weight;
  }

  /** Flattens the crossfade (and the locomotion blend inside it) into the output stack, then the action layer. */
  private writeOutput(): void {
    const f = this.fader;
    const clips = this.runtime.scratchClips;
    clips.clear();
    const weights = this.runtime.scratchWeights;
    f.sourceWeights(weights);
    for (let i = 0; i <= f.fadeCount; i++) {
      const source = i === 0 ? f.current : f.fades[i - 1].target;
      const w = weights[i];
      if (source.kind === SOURCE_CLIP) {
        clips.add(source.playback.clip, source.playback.sampleTime, source.playback.sampleSpeed, w);
      } else if (this.movement) {
        const loco = this.movement;
        const blend = loco.blend;
        for (let k = 0; k < blend.count; k++) {
          clips.add(blend.clips[k], loco.phase * blend.durations[k], blend.rates[k] * loco.rateScale, w * blend.weights[k]);
        }
      }
    }
    const handover = this.previousIndex >= 0 && this.weightOfPrevious > 0;
    clips.writeTo(this.buffer, f.current.playback.clip, handover ? MAX_BLEND - 1 : MAX_BLEND);
    if (handover) {
      const previous = this.runtime.config.actions[this.previousIndex];
      const p = this.playbackOfPrevious;
      this.buffer.pushLayer(previous.clip, p.sampleTime, p.sampleSpeed, this.weightOfPrevious, previous.mask);
    }
    if (this.phaseOfAction !== ACTION_NONE && this.weightOfAction > 0) {
      const action = this.runtime.config.actions[this.actionIndex];
      const p = this.playbackOfAction;
      this.buffer.pushLayer(action.clip, p.sampleTime, p.sampleSpeed, this.weightOfAction, action.mask);
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
    const f = this.fader;
    const last = f.fadeCount > 0 ? f.fades[f.fadeCount - 1] : null;
    const shown = last ? (last.reversing ? (f.fadeCount >= 2 ? f.fades[f.fadeCount - 2].target : f.current) : last.target) : f.current;
    if (shown.kind === SOURCE_LOCOMOTION) return;
    const loco = this.runtime.config.locomotion!;
    f.fadeTo(this.locomotionSource(), loco.fadeSeconds, 'smooth', this.runtime.config.fade.curve);
  }

  private requireLocomotion(): void {
    if (!this.runtime.locomotion) throw new Error('this model\'s controller config has no "locomotion" section');
  }
}

/**
 * Layout of AnimationController.saveState, in the order an event reads it: 9 action words, the
 * crossfader's fade count and current source, the locomotion (if any), the two action playbacks,
 * then the fades in flight.
 */
const FADER = 9;
const MOVEMENT = FADER + 1 + SOURCE_WORDS;
