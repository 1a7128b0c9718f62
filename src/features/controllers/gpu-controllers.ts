// Over 400 lines: the GPU-driven driver keeps one row per controller, its timers, the refresh sweep, the uploads and the readback, which all move the same rows; docs/controllers.md explains the design.
import { ACTION_NONE, AnimationController, type ControllerDriver, type ControllerRuntime } from '../../anim/control/controller';
import { TIME_EPSILON } from '../../anim/control/crossfader';
import type { BlendCurve } from '../../anim/control/curves';
import { TimerQueue } from '../../anim/control/timers';
import { buildControlModel, ControlUpdates, CurveTables } from './control-records';
import type { ClipEventScheduler } from '../../anim/events/scheduler';
import type { CrowdKernel } from '../../runtime/feature';
import { EVENT_CURSOR_WORDS, EVENT_PLAN_WORDS, GpuControllerEvents, type ControllerStates } from './gpu-controller-events';
import { ControlPass, type ControlClocks } from './control-pass';
import type { InstanceStore } from '../../runtime/instance-store';
import { CONTROL_UPDATE } from '../../runtime/layout';

/**
 * Seconds of control clock per basis period. Records hold times relative to the start of their
 * period so that f32 keeps them precise (ulp(2 x 60 s) = 7.6e-6 s). Every record is rewritten
 * within the first half of the period after the one it was written in (a sweep through the
 * controllers, see refreshSweep), so at most two periods are live and the pass gets now in both.
 * At 100,000 controllers that is 100,000 / (60 s x 60 fps / 2) = 56 refreshes a frame.
 */
export const CONTROL_PERIOD_SECONDS = 60;

/** The share of a period over which the refresh sweep spreads its rewrites. */
const REFRESH_SPREAD = 0.5;

/**
 * With readBack off, the locomotion state is still read back this often (seconds of control
 * clock), so that a lost device can be restored from a state at most this old (replayed on the
 * CPU since; see restore). At 100,000 controllers: 3.2 MB copied once a second.
 */
export const RESTORE_CHECKPOINT_SECONDS = 1;

/** Frames whose dt restore() can replay exactly (older ones are replayed in 1/60 s steps). */
const REPLAY_FRAMES = 128;

/**
 * Per handle, before the controller's state (AnimationController.saveState): the control clock
 * its discrete state is at, its epoch, its entry in the frame's ControlUpdates and the update
 * generation that entry belongs to, the control period its record was written in, the control
 * clock its next transition is due at in `timers` (Infinity: none, so a controller without one
 * never touches the queue), the locomotion state its epoch starts from (x, z, heading, velocity
 * x, z, phase), and the clip-event cursor (GpuControllerEvents). After the state: the clip-event
 * plan, used only while some clip has events. What every event reads and writes is so one
 * contiguous stretch of about 70 words (an action's playbacks and the fades in flight follow only
 * when there are any).
 */
const TOUCHED = 0;
const EPOCH = 1;
const ENTRY = 2;
const ENTRY_GENERATION = 3;
const WRITTEN_PERIOD = 4;
const DUE = 5;
const START = 6;
const CURSOR = 12;
const DRIVER_WORDS = CURSOR + EVENT_CURSOR_WORDS;

/** A GPU-driven controller's locomotion as read back (model units, radians, seconds). */
export interface LocomotionReadback {
  /** Position on the ground plane, model units (x). */
  x: number;
  /** Position on the ground plane, model units (z). */
  z: number;
  /** Velocity, model units per second (x). */
  velocityX: number;
  /** Velocity, model units per second (z). */
  velocityZ: number;
  /** Facing, radians about +y (0 faces +z). */
  heading: number;
  /** Normalised blend phase in [0, 1). */
  phase: number;
  /** Seconds between the state's frame and the controllers' clock now. */
  age: number;
}

/** Work a frame cost, for the overlay and the benchmark. */
export interface ControlFrameStats {
  /** Controllers rewritten: commands, due transitions and refreshes. */
  events: number;
  /** Bytes sent to the GPU for them (records, the handle list). */
  uploadBytes: number;
}

/**
 * GPU-driven animation controllers of one crowd: the CPU keeps every controller's discrete
 * state (src/anim/control, the reference) and touches one only on an event (a command, a
 * transition due at a known time, a periodic refresh), rewriting its ControlInput record; the
 * control pass (shaders/controllers/control.wgsl) evaluates everything continuous every frame on the GPU:
 * fade weights, clip times, action layers, locomotion movement and its blend.
 *
 * The states live in one Float64Array, a row per handle (DRIVER_WORDS of this driver's own, then
 * AnimationController.saveState), not in each controller's objects: an event loads the row
 * into one working controller (`work`, hot in cache), runs the reference code on it and saves it
 * back. At 100,000 controllers an event so touches one contiguous stretch of about 70 words
 * (see DRIVER_WORDS) instead of some fifty scattered objects (3.9 KB a controller), which is what
 * made an event cost 3 to 8 µs. The controllers handed to the user keep no state of their own
 * while driven: their commands go through beforeCommand / afterCommand, reading a value goes
 * through present, and reading an object (crossfader, locomotion) syncs it first (sync).
 * Commands validate everything before beforeCommand, so none throws between it and afterCommand.
 *
 * Per frame: update(dt) pops the due transitions and runs the refresh sweep (O(events)); the
 * crowd's update and encode then run the control pass before the pose pass (the crowd calls
 * prepare and encode). Nothing allocates per frame. Clip events: src/features/controllers/gpu-controller-events.ts
 * (scheduled from the discrete state, and the locomotion reference stepped only until it is
 * steady after a change). A controller's `output` and locomotion position are not maintained on
 * the CPU here (locomotionState reads the GPU's, a frame late).
 */
export class GpuControllers implements ControllerDriver, ControllerStates {
  private pass: ControlPass;
  private readonly curves = new CurveTables();
  private curveCount: number;
  private readonly updates = new ControlUpdates();
  private readonly timers = new TimerQueue();
  private readonly store: InstanceStore;
  /** Handles of the GPU-driven controllers, dense. */
  private list = new Uint32Array(64);
  private count = 0;
  private listChanged = false;
  /** Per handle: position in `list` (-1: not GPU-driven). */
  private indexOf = new Int32Array(64).fill(-1);
  /** Per handle, `row` words: TOUCHED, EPOCH, ENTRY, ENTRY_GENERATION, WRITTEN_PERIOD, DUE, START, CURSOR (DRIVER_WORDS), the controller's state, then the clip-event plan. */
  private states: Float64Array;
  /** Words per handle in `states`. */
  private readonly row: number;
  /** Bumped whenever `updates` is cleared: a row's ENTRY counts only with this ENTRY_GENERATION. */
  private updateGeneration = 0;
  /** The period the refresh sweep is in, and the position in `list` it has reached (see refreshSweep). */
  private sweepPeriod = -1;
  private sweepCursor = 0;
  /** The controller whose state is loaded from `states` to run an event on (see the class comment). */
  private readonly work: AnimationController;
  /** The state of a new controller (saveState of a fresh one), copied into the row of each one added. */
  private readonly fresh: Float64Array;
  /** The dt handed to the GPU by each of the last REPLAY_FRAMES frames, and the control clock after it (ring buffers, by frame). */
  private readonly frameDt = new Float64Array(REPLAY_FRAMES);
  private readonly frameClock = new Float64Array(REPLAY_FRAMES).fill(-Infinity);
  private frames = 0;
  /** The user's controller of each GPU-driven handle (their state lives in `states`). */
  private readonly controllers: (AnimationController | undefined)[] = [];
  private readonly scheduler: ClipEventScheduler;
  /** The controllers' clip events. */
  readonly events: GpuControllerEvents;
  private nextEpoch = 1;
  /** One more than the largest handle ever GPU-driven: the per-handle buffers of the pass cover [0, handleLimit). */
  private handleLimit = 0;
  /** The control clock: seconds, the sum of every update's dt (float64, never rebased). */
  private clock = 0;
  /** dt of the update not yet handed to the GPU (locomotion integrates it once). */
  private pendingDt = 0;
  /**
   * dt handed to a prepare that no encode has run since (a crowd updated twice without drawing,
   * as a paused view does): the next prepare hands it over again with its own, and its commands
   * stay in `updates`, so the GPU loses neither. `encoded`: whether an encode ran since the last prepare.
   */
  private unencodedDt = 0;
  private encoded = true;
  /** Whether `updates` changed since the last prepare uploaded it: then an encode keeps them for the next upload (applying a record twice writes the same input). */
  private updatedSincePrepare = false;
  private readonly clocks = { crowdClock: 0, dt: 0, clock0: 0, clock1: 0 } satisfies ControlClocks;
  readonly stats: ControlFrameStats = { events: 0, uploadBytes: 0 };
  /** Read the locomotion state back every frame the previous read has finished (off by default). */
  readBack = false;
  /** The latest state read back: CONTROL_STATE records per handle (f32 words), and its control clock. */
  private snapshot = new Float32Array(0);
  private snapshotBits = new Uint32Array(0);
  private snapshotClock = NaN;
  /** Readback: idle, a copy recorded by encode (map it at the next prepare), or a map in flight. */
  private readState: 'idle' | 'copied' | 'mapping' = 'idle';
  private staging: GPUBuffer | null = null;

  /** Bytes of the GPU buffers of the controllers (the control pass's and the readback staging). */
  get gpuBytes(): number {
    return this.pass.gpuBytes + (this.staging?.size ?? 0);
  }
  private stagingClock = 0;
  /** Bumped by restore, so that a map of the lost device's staging buffer that settles late is ignored. */
  private readGeneration = 0;

  /** The crowd's kernel (CrowdControllers installs the feature and forwards the frame hooks here). */
  constructor(private readonly kernel: CrowdKernel, scheduler: ClipEventScheduler, private readonly runtime: ControllerRuntime, private readonly maskIds: Int32Array) {
    this.store = kernel.store;
    this.scheduler = scheduler;
    this.work = new AnimationController(runtime);
    this.fresh = new Float64Array(this.work.stateWords);
    this.work.saveState(this.fresh, 0);
    this.row = DRIVER_WORDS + this.work.stateWords + EVENT_PLAN_WORDS;
    this.states = new Float64Array(64 * this.row);
    this.events = new GpuControllerEvents(this.scheduler, this, runtime);
    this.pass = new ControlPass(kernel.device, buildControlModel(runtime, maskIds, this.curves));
    this.curveCount = this.curves.count;
  }

  /** One more than the largest handle ever GPU-driven. */
  get handleBound(): number {
    return this.handleLimit;
  }

  /** GPU-driven controllers. */
  get size(): number {
    return this.count;
  }

  /**
   * A new GPU-driven controller for instance `handle`, starting at x, z (model units) facing
   * `heading` (radians): its state is a fresh controller's, kept in its row from the start.
   */
  add(handle: number, x: number, z: number, heading: number): AnimationController {
    // The pass's buffers are checked (and grown) first: a refusal names the limit and changes nothing.
    this.pass.reserve(Math.max(this.handleLimit, handle + 1), this.count + 1);
    this.handleLimit = Math.max(this.handleLimit, handle + 1);
    this.store.makeLayered(handle); // the pass writes a stack for every controller
    this.ensure(handle);
    const r = handle * this.row;
    this.states.set(this.fresh, r + DRIVER_WORDS);
    const controller = new AnimationController(this.runtime, this, handle);
    this.controllers[handle] = controller;
    if (this.count === this.list.length) {
      const grown = new Uint32Array(this.list.length * 2);
      grown.set(this.list);
      this.list = grown;
    }
    this.indexOf[handle] = this.count;
    this.list[this.count++] = handle;
    this.listChanged = true;
    const states = this.states;
    states[r + EPOCH] = this.nextEpoch++;
    states[r + ENTRY_GENERATION] = -1;
    states[r + DUE] = Infinity;
    states.fill(0, r + START, r + CURSOR);
    states[r + START] = x;
    states[r + START + 1] = z;
    states[r + START + 2] = heading;
    states[r + TOUCHED] = this.clock;
    this.events.added(handle, this.load(handle), x, z, heading, this.pendingDt);
    this.rewrite(handle);
    return controller;
  }

  /** Stops driving instance `handle`'s controller (its last pose stays as written; the controller keeps its state as of now). */
  remove(handle: number): void {
    const at = this.indexOf[handle];
    if (!(at >= 0)) return;
    this.sync(this.controllers[handle]!);
    const last = this.list[--this.count];
    this.list[at] = last;
    this.indexOf[last] = at;
    this.indexOf[handle] = -1;
    this.listChanged = true;
    // The moved controller is now behind the refresh sweep: refresh it here if the sweep has not.
    if (at < this.sweepCursor && last !== handle && this.states[last * this.row + WRITTEN_PERIOD] < this.sweepPeriod) this.refresh(last);
    this.timers.cancel(handle);
    this.events.removed(handle);
    const r = handle * this.row;
    if (this.states[r + ENTRY_GENERATION] === this.updateGeneration) {
      const entry = this.states[r + ENTRY];
      const moved = this.updates.drop(entry);
      this.updatedSincePrepare = true;
      if (moved >= 0) this.states[moved * this.row + ENTRY] = entry;
    }
    const controller = this.controllers[handle]!;
    controller.driver = null;
    controller.driverKey = -1;
    this.controllers[handle] = undefined;
  }

  /** Whether instance `handle`'s controller is GPU-driven. */
  has(handle: number): boolean {
    return handle < this.indexOf.length && this.indexOf[handle] >= 0;
  }

  /** Advances the control clock by dt and applies every transition now due: O(events). */
  update(dt: number): void {
    this.clock += dt;
    this.pendingDt += dt;
    this.events.step(dt, this.eventNow);
    for (let handle = this.timers.popDue(this.clock); handle >= 0; handle = this.timers.popDue(this.clock)) {
      this.states[handle * this.row + DUE] = Infinity;
      this.refresh(handle);
    }
    this.refreshSweep();
  }

  /**
   * Rewrites, in list order, the records written before the current period, spread over the
   * first REFRESH_SPREAD of it in proportion to the time elapsed in it (all at once when a step
   * jumps further), so that no record is evaluated more than one period after it was written.
   * A controller moved behind the cursor by remove() is refreshed there.
   */
  private refreshSweep(): void {
    const period = Math.floor(this.clock / CONTROL_PERIOD_SECONDS);
    if (period !== this.sweepPeriod) {
      this.sweepPeriod = period;
      this.sweepCursor = 0;
    }
    const elapsed = (this.clock - period * CONTROL_PERIOD_SECONDS) / (CONTROL_PERIOD_SECONDS * REFRESH_SPREAD);
    const target = Math.min(this.count, Math.ceil(this.count * Math.min(1, elapsed)));
    for (; this.sweepCursor < target; this.sweepCursor++) {
      const handle = this.list[this.sweepCursor];
      if (this.states[handle * this.row + WRITTEN_PERIOD] < period) this.refresh(handle);
    }
  }

  /** Brings handle's state up to now and rewrites its record (a due transition, a refresh). */
  private refresh(handle: number): void {
    this.load(handle);
    this.catchUp(handle);
    this.rewrite(handle);
  }

  /** Loads the handle's state into the working controller, brings it up to the present and returns it for the command to change. */
  beforeCommand(controller: AnimationController): AnimationController {
    const handle = controller.driverKey;
    this.load(handle);
    this.catchUp(handle);
    return this.work;
  }

  /** The working controller holds the command's result: save it and rewrite the handle's record. */
  afterCommand(controller: AnimationController): void {
    this.rewrite(controller.driverKey);
  }

  /** The command was refused: keep the state brought up to the present (the clip events go on from it, see catchUp); the record stays. */
  afterRefusal(controller: AnimationController): void {
    this.keep(controller.driverKey);
  }

  /** The handle's state brought up to the present (and kept so), in the working controller. */
  present(controller: AnimationController): AnimationController {
    const handle = controller.driverKey;
    this.load(handle);
    this.catchUp(handle);
    this.keep(handle);
    return this.work;
  }

  /** Copies the handle's state, brought up to the present, into the user's controller itself (for reading its objects). */
  sync(controller: AnimationController): void {
    this.present(controller);
    controller.loadState(this.states, controller.driverKey * this.row + DRIVER_WORDS);
  }

  /** Loads GPU-driven handle's state into the working controller and returns it (GpuControllerEvents uses it too). */
  load(handle: number): AnimationController {
    this.work.loadState(this.states, handle * this.row + DRIVER_WORDS);
    return this.work;
  }

  /** The rows of every handle (replaced when they grow). */
  get rows(): Float64Array {
    return this.states;
  }

  /** Where handle's clip-event cursor words are in `rows`. */
  cursorAt(handle: number): number {
    return handle * this.row + CURSOR;
  }

  /** Where handle's clip-event plan words are in `rows`. */
  planAt(handle: number): number {
    return (handle + 1) * this.row - EVENT_PLAN_WORDS;
  }

  /** Saves the working controller's state as handle's (after load and a change). */
  save(handle: number): void {
    this.work.saveState(this.states, handle * this.row + DRIVER_WORDS);
  }

  checkCurve(curve: BlendCurve, where: string): void {
    this.curves.id(curve, where);
    if (this.curves.count !== this.curveCount) {
      this.pass.setModel(buildControlModel(this.runtime, this.maskIds, this.curves));
      this.curveCount = this.curves.count;
    }
  }

  /**
   * Locomotion state of GPU-driven instance `handle` from the latest readback (enable readBack;
   * it arrives a frame or two after the GPU computed it), written into `out`; false when there
   * is none yet or the handle is not GPU-driven. `out.age` is how many seconds old it is.
   */
  locomotionState(handle: number, out: LocomotionReadback): boolean {
    if (!this.has(handle) || (handle + 1) * 8 > this.snapshot.length || Number.isNaN(this.snapshotClock)) return false;
    const o = handle * 8;
    const s = this.snapshot;
    if (this.snapshotBits[o + 6] !== this.epochOf(handle)) return false; // not yet integrated since its (re)start
    out.x = s[o]; out.z = s[o + 1]; out.velocityX = s[o + 2]; out.velocityZ = s[o + 3]; out.heading = s[o + 4]; out.phase = s[o + 5];
    out.age = this.clock - this.snapshotClock;
    return true;
  }

  /** Called by the crowd's update, after its own uploads: sends the frame's records and uniforms. */
  prepare(crowdClock: number): void {
    if (this.readState === 'copied') this.mapStaging();
    const period = Math.floor(this.clock / CONTROL_PERIOD_SECONDS);
    const local = this.clock - period * CONTROL_PERIOD_SECONDS;
    const c = this.clocks;
    c.crowdClock = crowdClock;
    c.dt = this.unencodedDt + this.pendingDt;
    c.clock0 = period % 2 === 0 ? local : local + CONTROL_PERIOD_SECONDS;
    c.clock1 = period % 2 === 0 ? local + CONTROL_PERIOD_SECONDS : local;
    this.stats.uploadBytes = this.updates.count * CONTROL_UPDATE.size + (this.listChanged ? this.count * 4 : 0);
    this.pass.update(this.store, this.list, this.count, this.listChanged, this.updates.bytes, this.updates.count, this.handleLimit, c);
    this.stats.events = this.updates.count;
    this.listChanged = false;
    this.updatedSincePrepare = false;
    // The updates are forgotten, and the frame counted as integrated, by the encode that runs them;
    // a frame no encode ran is replaced by this one, which carries its dt.
    if (!this.encoded) this.frames--;
    const frame = this.frames++ % REPLAY_FRAMES;
    this.frameDt[frame] = c.dt;
    this.frameClock[frame] = this.clock;
    this.unencodedDt = c.dt;
    this.pendingDt = 0;
    this.encoded = false;
  }

  /**
   * Re-creates the control pass on `device` (Crowd.restore calls it) and rewrites every
   * controller's record as of now. The locomotion state lived on the lost device: each
   * controller restarts (a new epoch) from the latest state read back (readBack, or the
   * checkpoint taken every RESTORE_CHECKPOINT_SECONDS), advanced on the CPU by
   * Locomotion.update over the frames the GPU integrated since, with each frame's dt and the
   * controller's current input: the state the GPU had, to float32 rounding, unless the input
   * changed in those frames. A controller never read back restarts from where it was added.
   */
  restore(device: GPUDevice): void {
    this.pass.destroy();
    this.staging?.destroy();
    this.staging = null;
    this.readState = 'idle';
    this.readGeneration++;
    this.pass = new ControlPass(device, buildControlModel(this.runtime, this.maskIds, this.curves));
    this.clearUpdates();
    // A prepared frame no encode ran: the GPU did not integrate it (its dt stays in unencodedDt, handed over by the next prepare).
    if (!this.encoded) {
      this.frames--;
      this.encoded = true;
    }
    for (let i = 0; i < this.count; i++) {
      const handle = this.list[i];
      this.load(handle);
      this.catchUp(handle);
      this.resumeLocomotion(handle);
      this.states[handle * this.row + EPOCH] = this.nextEpoch++;
      this.rewrite(handle);
    }
    this.listChanged = true;
  }

  /** Sets handle's start state (and the loaded working controller's locomotion) to its locomotion state on the GPU at the last prepared frame (see restore). */
  private resumeLocomotion(handle: number): void {
    const loco = this.work.locomotion;
    const o = handle * 8;
    if (!loco || (handle + 1) * 8 > this.snapshot.length || Number.isNaN(this.snapshotClock) || this.snapshotBits[o + 6] !== this.epochOf(handle)) return;
    const s = this.snapshot;
    loco.positionX = s[o]; loco.positionZ = s[o + 1]; loco.velocityX = s[o + 2]; loco.velocityZ = s[o + 3]; loco.heading = s[o + 4]; loco.phase = s[o + 5];
    // Replay the frames integrated after the snapshot, oldest first; 1/60 s steps where the ring no longer reaches.
    const integrated = this.clock - this.pendingDt - this.unencodedDt;
    const oldest = Math.max(0, this.frames - REPLAY_FRAMES);
    let first = this.frames;
    while (first > oldest && this.frameClock[(first - 1) % REPLAY_FRAMES] > this.snapshotClock) first--;
    const covered = first < this.frames ? this.frameClock[first % REPLAY_FRAMES] - this.frameDt[first % REPLAY_FRAMES] : integrated;
    for (let gap = covered - this.snapshotClock; gap > 1e-9; gap -= 1 / 60) loco.update(Math.min(gap, 1 / 60));
    for (let f = first; f < this.frames; f++) loco.update(this.frameDt[f % REPLAY_FRAMES]);
    const b = handle * this.row + START;
    const start = this.states;
    start[b] = loco.positionX; start[b + 1] = loco.positionZ; start[b + 2] = loco.heading;
    start[b + 3] = loco.velocityX; start[b + 4] = loco.velocityZ; start[b + 5] = loco.phase;
  }

  /**
   * Called by the crowd's encode, before the pose pass. A controller whose handle the kernel's
   * locomotion channel marks driven (steering) follows that motion and leaves the placement alone.
   */
  encode(encoder: GPUCommandEncoder): void {
    this.pass.encode(encoder, this.kernel.locomotionDrive);
    if (!this.encoded) {
      if (!this.updatedSincePrepare) this.clearUpdates();
      this.unencodedDt = 0;
      this.encoded = true;
    }
    const checkpoint = Number.isNaN(this.snapshotClock) || this.clock - this.snapshotClock >= RESTORE_CHECKPOINT_SECONDS;
    if ((this.readBack || checkpoint) && this.readState === 'idle' && this.count > 0) {
      const bytes = this.pass.stateBuffer.size; // every handle the pass holds (it was checked against the limits)
      if (!this.staging || this.staging.size < bytes) {
        this.staging?.destroy();
        this.staging = this.pass.device.createBuffer({ label: 'GpuControllers.readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
      }
      encoder.copyBufferToBuffer(this.pass.stateBuffer, 0, this.staging, 0, bytes);
      this.stagingClock = this.clock;
      this.readState = 'copied';
    }
  }

  /** Maps the staging copy (its commands were submitted since encode) and keeps it as the snapshot when it arrives. */
  private mapStaging(): void {
    const staging = this.staging!;
    const clock = this.stagingClock;
    const generation = this.readGeneration;
    this.readState = 'mapping';
    staging.mapAsync(GPUMapMode.READ).then(() => {
      if (generation !== this.readGeneration) return;
      const data = new Float32Array(staging.getMappedRange());
      if (this.snapshot.length < data.length) {
        this.snapshot = new Float32Array(data.length);
        this.snapshotBits = new Uint32Array(this.snapshot.buffer);
      }
      this.snapshot.set(data);
      this.snapshotClock = clock;
      staging.unmap();
      this.readState = 'idle';
    }, () => { if (generation === this.readGeneration) this.readState = 'idle'; });
  }

  /** The control pass's per-handle locomotion state (CONTROL_STATE records), for readback. */
  get stateBuffer(): GPUBuffer {
    return this.pass.stateBuffer;
  }

  destroy(): void {
    this.pass.destroy();
    this.staging?.destroy();
  }

  /** Forgets the frame's updates (uploaded, or lost with the device). */
  private clearUpdates(): void {
    this.updates.clear();
    this.updateGeneration++;
  }

  /** Epoch of handle's locomotion state (see START). */
  private epochOf(handle: number): number {
    return this.states[handle * this.row + EPOCH];
  }

  /**
   * Brings the loaded handle's discrete state (in `work`) up to the control clock (no transition
   * lies in between: timers see to it), deciding its clip events up to now (flush). Follow it with
   * rewrite or keep, which restart the events from the state then.
   */
  private catchUp(handle: number): void {
    const controller = this.work;
    this.events.flush(handle, controller, this.eventNow);
    const touched = handle * this.row + TOUCHED;
    const dt = this.clock - this.states[touched];
    if (dt > 0) controller.advanceDiscrete(dt);
    this.states[touched] = this.clock;
  }

  /** Keeps the loaded handle's state as caught up, without a new record: saves it, and its clip events go on from it. */
  private keep(handle: number): void {
    this.events.restart(handle, this.work, this.eventNow);
    this.save(handle);
  }

  /** Saves the loaded handle's state (in `work`), queues its record as of now and schedules its next transition. */
  private rewrite(handle: number): void {
    const controller = this.work;
    const r = handle * this.row;
    const states = this.states;
    controller.saveState(states, r + DRIVER_WORDS);
    // One entry per handle a frame: a second write replaces the first.
    if (states[r + ENTRY_GENERATION] !== this.updateGeneration) {
      states[r + ENTRY] = this.updates.append(handle);
      states[r + ENTRY_GENERATION] = this.updateGeneration;
    }
    const period = Math.floor(this.clock / CONTROL_PERIOD_SECONDS);
    states[r + WRITTEN_PERIOD] = period;
    this.updatedSincePrepare = true;
    this.updates.write(states[r + ENTRY], controller, this.clock - period * CONTROL_PERIOD_SECONDS, period % 2, states[r + EPOCH],
      states, r + START, this.curves);
    const due = this.clock + this.nextTransition(controller);
    if (due !== Infinity || states[r + DUE] !== Infinity) this.timers.schedule(handle, due);
    states[r + DUE] = due;
    this.events.restart(handle, controller, this.eventNow);
  }

  /** The event clock (CrowdEvents) at the end of the frame being prepared: the crowd's next update adds pendingDt. */
  private get eventNow(): number {
    return this.scheduler.clock + this.pendingDt;
  }

  /** Seconds until the controller's discrete state next changes by itself (Infinity: never). */
  private nextTransition(c: AnimationController): number {
    let next = Infinity;
    const f = c.crossfader;
    for (let i = 0; i < f.fadeCount; i++) {
      const fade = f.fades[i];
      next = Math.min(next, fade.reversing ? fade.elapsed - TIME_EPSILON : fade.duration - TIME_EPSILON - fade.elapsed);
    }
    if (c.actionPhase !== ACTION_NONE) {
      // The pass evaluates the phases in closed form (intervals of actionTime); the CPU steps in
      // only where the layers change: the action's end and the end of a handed-over action.
      const action = this.runtime.config.actions[c.action];
      next = Math.min(next, c.actionOutTime + action.fadeOut - TIME_EPSILON - c.actionTime);
      if (c.previousAction >= 0) next = Math.min(next, action.fadeIn - TIME_EPSILON - c.actionTime);
    }
    return next;
  }

  private ensure(handle: number): void {
    if (handle < this.indexOf.length) return;
    const n = Math.max(handle + 1, this.indexOf.length * 2);
    const indexOf = new Int32Array(n).fill(-1);
    indexOf.set(this.indexOf);
    this.indexOf = indexOf;
    const states = new Float64Array(n * this.row);
    states.set(this.states);
    this.states = states;
  }
}
