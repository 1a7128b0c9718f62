// Over 400 lines: the closed-form clip-event plan of a GPU-driven controller (every source: locomotion, fades, actions) and its replay after a restore are one schedule; halves would share every field.
import { ACTION_NONE, type AnimationController, type ControllerRuntime } from '../../anim/control/controller';
import { SOURCE_LOCOMOTION } from '../../anim/control/crossfader';
import { CONTROLLER_SOURCES, ControllerEvents, loopCrossingAfter, type PhaseSegment } from '../../anim/control/events';
import { EVENT_SLACK_SECONDS } from '../../anim/events/clip-events';
import type { ClipEventScheduler, ExternalEventSource } from '../../anim/events/scheduler';
import { PLAYBACKS } from '../../runtime/layout';

/** Relative change of velocity, heading and blend rate under which a locomotion step counts as steady. */
const STEADY_TOLERANCE = 1e-9;

/**
 * Clip events of GPU-driven controllers (src/features/controllers/gpu-controllers.ts), at a CPU cost per event.
 *
 * Clip playbacks (crossfade clips, actions): between two changes of a controller's discrete
 * state (a command, a due transition, a refresh: GpuControllers' catchUp and rewrite) every
 * clip time and weight is a closed-form function of the time since the state was written (T0).
 * So each controller has one keyed entry in the crowd's queue: its next crossing after a cursor
 * (ControllerEvents.next from the state at T0). When it is due it fires and the next is
 * scheduled; when the state is about to change (flush), the crossings up to now are decided from
 * the old state (one-shot entries, fired in order in crowd.update) and the schedule restarts from
 * the new state. This gives the CPU driver's events: its transitions also fall on step ends, and
 * its weights at a crossing are the same closed forms.
 *
 * The locomotion blend: its phase advances at a rate that varies continuously while the velocity
 * or heading changes (bounded acceleration, turning), which the GPU integrates frame by frame.
 * The CPU keeps the reference (the controller's Locomotion, stepped by Locomotion.update exactly
 * as the CPU driver steps it) and steps it every frame only while it is not steady: from a
 * change of the controller's state (a command) until a step leaves velocity, heading and blend
 * unchanged (within 1e-9), firing the blend's crossings of each step. Once steady, its phase is
 * phase_s + rate x (t - t_s): the blend joins the closed-form schedule, and the reference is
 * brought up to date in closed form when the next change comes. So a walking crowd costs per
 * footstep; a controller costs per frame only in the fraction of a second after a command.
 * References are kept only while some locomotion clip of the config has events: without them a
 * crowd pays nothing. Events given to a locomotion clip later (CrowdEvents.setClipEvents) start the
 * references of the controllers already there from where the CPU last knew them: their velocity
 * and heading converge to the GPU's (the inputs are the same), but their blend phase may stay
 * off the GPU's; give locomotion clips their events before adding GPU-driven controllers.
 *
 * Plans: a controller with no fade in flight and no action plays one source at weight 1 (a
 * looping clip, or the steady locomotion blend's heaviest clip): its playback is copied into
 * per-handle arrays when its schedule restarts, and its next crossing is computed from them
 * alone (the common case in a crowd: a walker). Any other state scans the controller.
 */
/** Where GpuControllerEvents reads and writes the GPU-driven controllers' states (GpuControllers keeps them). */
export interface ControllerStates {
  /** Whether `handle` is GPU-driven. */
  has(handle: number): boolean;
  /** Loads GPU-driven handle's state into a working controller and returns it (valid until the next load). */
  load(handle: number): AnimationController;
  /** Saves the working controller's state as handle's. */
  save(handle: number): void;
  /** One more than the largest handle ever GPU-driven. */
  readonly handleBound: number;
  /** The rows (replaced when they grow: read it anew in each call). */
  readonly rows: Float64Array;
  /** Where handle's EVENT_CURSOR_WORDS words are in `rows`. */
  cursorAt(handle: number): number;
  /** Where handle's EVENT_PLAN_WORDS words are in `rows`. */
  planAt(handle: number): number;
}

/** Plan of a handle: nothing to schedule, or scan the controller (else: a clip index, the one-playback plan). */
const PLAN_NONE = -1;
const PLAN_SCAN = -2;

/**
 * Per handle, float64 words in the states' rows (ControllerStates.rows), beside the controller's
 * state, so that an event touches no other cache line. EVENT_CURSOR_WORDS at cursorAt(handle),
 * written on every event: T0, the event clock of the discrete state the schedule is computed
 * from, and the last crossing decided, (tau since T0, source, event index). EVENT_PLAN_WORDS at
 * planAt(handle), used only while some clip has events: the event clock since which the
 * locomotion reference is steady (NaN: stepped every frame), its phase then and its rate (cycles
 * per second); the plan, PLAN_NONE, PLAN_SCAN or the clip of its one playback, with that
 * playback's clip time at T0, speed (clip seconds per second), duration and start (tau).
 */
const T0 = 0;
const CURSOR_TAU = 1;
const CURSOR_SOURCE = 2;
const CURSOR_INDEX = 3;
export const EVENT_CURSOR_WORDS = 4;
const STEADY_AT = 0;
const STEADY_PHASE = 1;
const STEADY_RATE = 2;
const PLAN = 3;
const PLAN_TIME0 = 4;
const PLAN_SPEED = 5;
const PLAN_DURATION = 6;
const PLAN_FROM = 7;
export const EVENT_PLAN_WORDS = 8;
export class GpuControllerEvents implements ExternalEventSource {
  private readonly scanner: ControllerEvents;
  /** Handles whose locomotion reference is stepped every frame, dense; position of each (-1: none). */
  private stepping = new Int32Array(64);
  private steppingCount = 0;
  private steppingAt = new Int32Array(64).fill(-1);
  private readonly segment: PhaseSegment = { phase: 0, rate: 0, from: 0 };
  private readonly crossing = { tau: 0, index: 0 };
  /** Clip indices the locomotion blend can show (idle, every direction's walk and run). */
  private readonly locomotionClips: Int32Array;
  /** Whether the controllers have locomotion (the config has a "locomotion" section). */
  private readonly hasLocomotion: boolean;
  /** Whether some locomotion clip has events (the references are kept), as of table version `tablesVersion`. */
  private referencesKept = false;
  private tablesVersion = -1;

  /**
   * @param scheduler The crowd's clip events (not owned).
   * @param states The GPU-driven controllers' states (GpuControllers; not owned).
   * @param runtime What the controllers share (the locomotion clips).
   */
  constructor(private readonly scheduler: ClipEventScheduler, private readonly states: ControllerStates, runtime: ControllerRuntime) {
    this.scanner = new ControllerEvents(scheduler.tables, () => scheduler.threshold);
    const loco = runtime.config.locomotion;
    this.hasLocomotion = loco !== null;
    const clips = new Set<number>();
    if (loco) {
      clips.add(loco.idle);
      for (const set of Object.values(loco.directions)) if (set) { clips.add(set.walk); clips.add(set.run); }
    }
    this.locomotionClips = Int32Array.from(clips);
  }

  /** Handles whose locomotion reference is being stepped (not steady). */
  get steppingHandles(): number {
    return this.steppingCount;
  }

  /**
   * A controller was made GPU-driven at (x, z) facing `heading`: its locomotion reference starts
   * there, as the GPU's does. `pendingDt` is the step the GPU still integrates this frame.
   */
  added(handle: number, controller: AnimationController, x: number, z: number, heading: number, pendingDt: number): void {
    this.ensure(handle);
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    const pl = this.states.planAt(handle);
    rows.fill(0, e, e + EVENT_CURSOR_WORDS);
    rows.fill(0, pl, pl + EVENT_PLAN_WORDS);
    rows[pl + PLAN] = PLAN_SCAN;
    rows[pl + STEADY_AT] = NaN;
    const loco = controller.locomotion;
    if (loco) {
      loco.positionX = x;
      loco.positionZ = z;
      loco.heading = heading;
      if (pendingDt > 0) loco.update(pendingDt);
    }
    this.scheduler.setExternal(handle, true, this);
    this.checkTables();
  }

  /** The controller of `handle` is no longer GPU-driven. */
  removed(handle: number): void {
    this.scheduler.queue.cancel(handle * PLAYBACKS);
    this.stopStepping(handle);
  }

  /**
   * The discrete state of `handle` is about to change at event clock `now`: the crossings up to
   * now are decided from the old state (one-shot entries), and its entry is cancelled.
   */
  flush(handle: number, controller: AnimationController, now: number): void {
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    const pl = this.states.planAt(handle);
    const loco = controller.locomotion;
    const since = this.referencesKept ? rows[pl + STEADY_AT] : NaN;
    if (loco && !Number.isNaN(since)) {
      // Bring the steady reference to now in closed form (restore() may then overwrite it with the GPU's state).
      const elapsed = now - since;
      loco.positionX += loco.velocityX * elapsed;
      loco.positionZ += loco.velocityZ * elapsed;
      const u = rows[pl + STEADY_PHASE] + rows[pl + STEADY_RATE] * elapsed;
      const wrapped = u - Math.floor(u);
      loco.phase = wrapped >= 1 ? 0 : wrapped;
    }
    if (!this.scheduler.tables.hasEvents) return; // nothing pending: a table change reschedules every controller
    const q = this.scheduler.queue;
    q.cancel(handle * PLAYBACKS);
    const s = this.scanner;
    const t0 = rows[e + T0];
    s.load(controller, this.steadySegment(handle), true);
    const c = s.found;
    c.tau = rows[e + CURSOR_TAU]; c.source = rows[e + CURSOR_SOURCE]; c.index = rows[e + CURSOR_INDEX];
    while (s.next(c.tau, c.source, c.index, now + EVENT_SLACK_SECONDS - t0)) {
      if (c.index >= 0) this.scheduler.fire(handle, c.source, t0 + c.tau, c.clip, c.index);
    }
  }

  /**
   * The discrete state of `handle` is as of event clock `now` (after a flush, or when it was
   * added): the schedule restarts from it, and the locomotion reference (brought to now by the
   * flush) is stepped again until steady.
   */
  restart(handle: number, controller: AnimationController, now: number): void {
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    const pl = this.states.planAt(handle);
    rows[e + T0] = now;
    rows[e + CURSOR_TAU] = EVENT_SLACK_SECONDS; // up to the slack past now was the old state's (flush)
    rows[e + CURSOR_SOURCE] = CONTROLLER_SOURCES;
    rows[e + CURSOR_INDEX] = 0;
    if (controller.locomotion && this.referencesKept) {
      rows[pl + STEADY_AT] = NaN;
      this.startStepping(handle);
    }
    if (!this.scheduler.tables.hasEvents) return; // reschedule() plans every controller when events arrive
    this.makePlan(handle, controller);
    this.scheduleNext(handle, controller);
  }

  /**
   * One frame: steps the locomotion references that are not steady by dt (the step ends at event
   * clock `end`), deciding their blend's crossings, and lets the steady ones join the schedule.
   */
  step(dt: number, end: number): void {
    this.checkTables();
    const start = end - dt;
    const scanning = dt > 0 && this.scheduler.tables.hasEvents;
    for (let i = this.steppingCount - 1; i >= 0; i--) {
      const handle = this.stepping[i];
      const controller = this.states.load(handle);
      const loco = controller.locomotion!;
      const vx = loco.velocityX;
      const vz = loco.velocityZ;
      const heading = loco.heading;
      const phase = loco.phase;
      const rate = loco.blend.cycleDuration > 0 ? loco.rateScale / loco.blend.cycleDuration : 0;
      loco.update(dt);
      const after = loco.blend.cycleDuration > 0 ? loco.rateScale / loco.blend.cycleDuration : 0;
      if (scanning) this.scanStep(handle, controller, phase, after, start, end);
      this.states.save(handle);
      if (!(dt > 0)) continue; // a step of 0 says nothing about steadiness
      const rows = this.states.rows;
    const pl = this.states.planAt(handle);
      const tolerance = STEADY_TOLERANCE * (1 + Math.abs(vx) + Math.abs(vz));
      if (Math.abs(loco.velocityX - vx) <= tolerance && Math.abs(loco.velocityZ - vz) <= tolerance
        && Math.abs(loco.heading - heading) <= STEADY_TOLERANCE && Math.abs(after - rate) <= STEADY_TOLERANCE * Math.abs(rate)) {
        rows[pl + STEADY_AT] = end;
        rows[pl + STEADY_PHASE] = loco.phase;
        rows[pl + STEADY_RATE] = after;
        this.stopStepping(handle);
        this.makePlan(handle, controller);
        this.scheduleNext(handle, controller);
      }
    }
  }

  /** ExternalEventSource: the keyed entry of `handle` is due; schedule the next crossing, then fire this one. */
  due(handle: number, source: number, clip: number, event: number, tau: number): void {
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    rows[e + CURSOR_TAU] = tau;
    rows[e + CURSOR_SOURCE] = source;
    rows[e + CURSOR_INDEX] = event;
    this.scheduleNext(handle, this.states.load(handle));
    if (event >= 0) this.scheduler.emit(handle, clip, event);
  }

  /** ExternalEventSource: the tables or the threshold changed; every controller schedules from now. */
  reschedule(): void {
    this.checkTables();
    const now = this.scheduler.clock;
    for (let handle = 0; handle < this.states.handleBound; handle++) {
      if (!this.states.has(handle)) continue;
      const controller = this.states.load(handle);
      const rows = this.states.rows;
      const e = this.states.cursorAt(handle);
      rows[e + CURSOR_TAU] = now + EVENT_SLACK_SECONDS - rows[e + T0];
      rows[e + CURSOR_SOURCE] = CONTROLLER_SOURCES;
      this.makePlan(handle, controller);
      this.scheduleNext(handle, controller);
    }
  }

  /**
   * Keeps the locomotion references while some locomotion clip has events: when that starts,
   * every GPU-driven controller's reference is stepped from where it is; when it ends, none is.
   */
  private checkTables(): void {
    const tables = this.scheduler.tables;
    if (tables.version === this.tablesVersion) return;
    this.tablesVersion = tables.version;
    let kept = false;
    for (let i = 0; i < this.locomotionClips.length; i++) if (tables.count(this.locomotionClips[i]) > 0) kept = true;
    if (kept === this.referencesKept) return;
    this.referencesKept = kept;
    for (let handle = 0; handle < this.states.handleBound; handle++) {
      if (!this.hasLocomotion || !this.states.has(handle)) continue;
      this.states.rows[this.states.planAt(handle) + STEADY_AT] = NaN;
      if (kept) this.startStepping(handle);
      else this.stopStepping(handle);
    }
  }

  /** The locomotion blend's crossings in the step (start, end] (its phase from `phase` at `rate` cycles per second), as one-shot entries. */
  private scanStep(handle: number, controller: AnimationController, phase: number, rate: number, start: number, end: number): void {
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    const t0 = rows[e + T0];
    const seg = this.segment;
    seg.rate = rate;
    seg.phase = phase - rate * (start - t0);
    seg.from = start - t0 + EVENT_SLACK_SECONDS; // the step covers (start + slack, end + slack]
    const s = this.scanner;
    s.load(controller, seg, false);
    const c = s.found;
    c.tau = seg.from; c.source = CONTROLLER_SOURCES; c.index = 0;
    while (s.next(c.tau, c.source, c.index, end + EVENT_SLACK_SECONDS - t0)) {
      if (c.index >= 0) this.scheduler.fire(handle, c.source, t0 + c.tau, c.clip, c.index);
    }
  }

  /** Schedules `handle`'s next crossing after its cursor (clip playbacks, and the locomotion blend once steady). */
  private scheduleNext(handle: number, controller: AnimationController): void {
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    const pl = this.states.planAt(handle);
    const q = this.scheduler.queue;
    const key = handle * PLAYBACKS;
    const plan = rows[pl + PLAN];
    if (!this.scheduler.tables.hasEvents || plan === PLAN_NONE) { q.cancel(key); return; }
    if (plan >= 0) {
      const c = this.crossing;
      if (loopCrossingAfter(this.scheduler.tables.timesOf(plan), rows[pl + PLAN_TIME0], rows[pl + PLAN_SPEED], rows[pl + PLAN_DURATION], rows[pl + PLAN_FROM],
        0, rows[e + CURSOR_TAU], rows[e + CURSOR_SOURCE], rows[e + CURSOR_INDEX], c)) {
        q.schedule(key, rows[e + T0] + c.tau, key, plan, c.index, c.tau);
      } else {
        q.cancel(key);
      }
      return;
    }
    const s = this.scanner;
    s.load(controller, this.steadySegment(handle), true);
    if (s.next(rows[e + CURSOR_TAU], rows[e + CURSOR_SOURCE], rows[e + CURSOR_INDEX], Infinity)) {
      const c = s.found;
      q.schedule(key, rows[e + T0] + c.tau, key + c.source, c.clip, c.index, c.tau);
    } else {
      q.cancel(key);
    }
  }

  /** Chooses `handle`'s plan from its state as of t0 (see the class comment). */
  private makePlan(handle: number, controller: AnimationController): void {
    const rows = this.states.rows;
    const pl = this.states.planAt(handle);
    const f = controller.crossfader;
    rows[pl + PLAN] = PLAN_SCAN;
    if (f.fadeCount > 0 || controller.actionPhase !== ACTION_NONE) return;
    rows[pl + PLAN] = PLAN_NONE;
    const tables = this.scheduler.tables;
    if (f.current.kind === SOURCE_LOCOMOTION) {
      const seg = this.steadySegment(handle);
      const blend = controller.locomotion?.blend;
      if (!seg || !blend || blend.count === 0 || seg.rate === 0) return;
      let k = 0;
      for (let i = 1; i < blend.count; i++) if (blend.weights[i] > blend.weights[k]) k = i;
      const d = blend.durations[k];
      this.setPlan(handle, blend.clips[k], seg.phase * d, seg.rate * d, d, seg.from);
      return;
    }
    const p = f.current.playback;
    if (!p.loop) { rows[pl + PLAN] = PLAN_SCAN; return; }
    if (p.frozen || p.holdFirstFrame || p.speed === 0 || !(p.duration > 0)) return;
    this.setPlan(handle, p.clip, p.time, p.speed, p.duration, -Infinity);
    if (tables.count(p.clip) === 0) rows[pl + PLAN] = PLAN_NONE;
  }

  private setPlan(handle: number, clip: number, time0: number, speed: number, duration: number, from: number): void {
    const rows = this.states.rows;
    const pl = this.states.planAt(handle);
    rows[pl + PLAN] = this.scheduler.tables.count(clip) > 0 ? clip : PLAN_NONE;
    rows[pl + PLAN_TIME0] = time0;
    rows[pl + PLAN_SPEED] = speed;
    rows[pl + PLAN_DURATION] = duration;
    rows[pl + PLAN_FROM] = from;
  }

  /** The steady locomotion phase as a function of tau since t0, or null while the reference is stepped. */
  private steadySegment(handle: number): PhaseSegment | null {
    const rows = this.states.rows;
    const e = this.states.cursorAt(handle);
    const pl = this.states.planAt(handle);
    const since = rows[pl + STEADY_AT];
    if (Number.isNaN(since)) return null;
    const seg = this.segment;
    seg.rate = rows[pl + STEADY_RATE];
    seg.phase = rows[pl + STEADY_PHASE] - seg.rate * (since - rows[e + T0]);
    seg.from = since - rows[e + T0] + EVENT_SLACK_SECONDS; // the last step covered up to the slack past `since`
    return seg;
  }

  private startStepping(handle: number): void {
    if (this.steppingAt[handle] >= 0) return;
    if (this.steppingCount === this.stepping.length) {
      const grown = new Int32Array(this.stepping.length * 2);
      grown.set(this.stepping);
      this.stepping = grown;
    }
    this.steppingAt[handle] = this.steppingCount;
    this.stepping[this.steppingCount++] = handle;
  }

  private stopStepping(handle: number): void {
    const at = handle < this.steppingAt.length ? this.steppingAt[handle] : -1;
    if (at < 0) return;
    const last = this.stepping[--this.steppingCount];
    this.stepping[at] = last;
    this.steppingAt[last] = at;
    this.steppingAt[handle] = -1;
  }

  private ensure(handle: number): void {
    if (handle < this.steppingAt.length) return;
    const grown = new Int32Array(Math.max(handle + 1, this.steppingAt.length * 2)).fill(-1);
    grown.set(this.steppingAt);
    this.steppingAt = grown;
  }

}
