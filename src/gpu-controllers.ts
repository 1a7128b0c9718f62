import { ACTION_NONE, type AnimationController, type ControllerDriver, type ControllerRuntime } from './anim/control/controller';
import { TIME_EPSILON } from './anim/control/crossfader';
import type { BlendCurve } from './anim/control/curves';
import { TimerQueue } from './anim/control/timers';
import { buildControlModel, ControlUpdates, CurveTables } from './control-records';
import type { Crowd } from './crowd';
import { ControlPass, type ControlClocks } from './gpu/control-pass';
import type { InstanceStore } from './gpu/instance-store';
import { CONTROL_UPDATE } from './gpu/layout';

/**
 * Seconds of control clock per basis period. Records hold times relative to the start of their
 * period so that f32 keeps them precise (ulp(2 x 60 s) = 7.6e-6 s). Every record is rewritten
 * within the first half of the period after the one it was written in (a refresh timer, spread
 * by handle), so at most two periods are live and the pass gets now in both. At 100,000
 * controllers that is 100,000 / (60 s x 60 fps / 2) = 56 refreshes a frame.
 */
export const CONTROL_PERIOD_SECONDS = 60;

/**
 * With readBack off, the locomotion state is still read back this often (seconds of control
 * clock), so that a lost device can be restored from a state at most this old (replayed on the
 * CPU since; see restore). At 100,000 controllers: 3.2 MB copied once a second.
 */
export const RESTORE_CHECKPOINT_SECONDS = 1;

/** Frames whose dt restore() can replay exactly (older ones are replayed in 1/60 s steps). */
const REPLAY_FRAMES = 128;

/** Words per handle in GpuControllers.start: x, z, heading, velocity x, z, phase. */
const START_WORDS = 6;

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
 * control pass (shaders/control.wgsl) evaluates everything continuous every frame on the GPU:
 * fade weights, clip times, action layers, locomotion movement and its blend.
 *
 * Per frame: update(dt) pops the due timers (O(events)); the crowd's update and encode then run
 * the control pass before the pose pass (the crowd calls prepare and encode). Nothing allocates
 * per frame. A controller's `output` and locomotion position are not maintained on the CPU
 * here (readState reads the GPU's, a frame late).
 */
export class GpuControllers implements ControllerDriver {
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
  /** Per handle: position in `list` (-1: not GPU-driven), control clock its discrete state is at, epoch, the state its epoch starts from (START_WORDS). */
  private indexOf = new Int32Array(64).fill(-1);
  private touched = new Float64Array(64);
  private epochOf = new Uint32Array(64);
  private start = new Float64Array(64 * START_WORDS);
  /** The dt handed to the GPU by each of the last REPLAY_FRAMES frames, and the control clock after it (ring buffers, by frame). */
  private readonly frameDt = new Float64Array(REPLAY_FRAMES);
  private readonly frameClock = new Float64Array(REPLAY_FRAMES).fill(-Infinity);
  private frames = 0;
  private readonly controllers: (AnimationController | undefined)[] = [];
  private nextEpoch = 1;
  /** One more than the largest handle ever GPU-driven: the per-handle buffers of the pass cover [0, handleLimit). */
  private handleLimit = 0;
  /** The control clock: seconds, the sum of every update's dt (float64, never rebased). */
  private clock = 0;
  /** dt of the update not yet handed to the GPU (locomotion integrates it once). */
  private pendingDt = 0;
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
  private stagingClock = 0;
  /** Bumped by restore, so that a map of the lost device's staging buffer that settles late is ignored. */
  private readGeneration = 0;

  constructor(crowd: Crowd, private readonly runtime: ControllerRuntime, private readonly maskIds: Int32Array) {
    this.store = crowd.instanceStore;
    this.pass = new ControlPass(crowd.device, buildControlModel(runtime, maskIds, this.curves));
    this.curveCount = this.curves.count;
    crowd.addPrepass(this);
  }

  /** GPU-driven controllers. */
  get size(): number {
    return this.count;
  }

  /** Makes `controller` (of instance `handle`, starting at x, z facing heading) GPU-driven. */
  add(handle: number, controller: AnimationController, x: number, z: number, heading: number): void {
    // The pass's buffers are checked (and grown) first: a refusal names the limit and changes nothing.
    this.pass.reserve(Math.max(this.handleLimit, handle + 1), this.count + 1);
    this.handleLimit = Math.max(this.handleLimit, handle + 1);
    this.store.makeLayered(handle); // the pass writes a stack for every controller
    this.ensure(handle);
    controller.driver = this;
    this.controllers[handle] = controller;
    controller.driverKey = handle;
    if (this.count === this.list.length) {
      const grown = new Uint32Array(this.list.length * 2);
      grown.set(this.list);
      this.list = grown;
    }
    this.indexOf[handle] = this.count;
    this.list[this.count++] = handle;
    this.listChanged = true;
    this.epochOf[handle] = this.nextEpoch++;
    this.start.fill(0, handle * START_WORDS, (handle + 1) * START_WORDS);
    this.start[handle * START_WORDS] = x;
    this.start[handle * START_WORDS + 1] = z;
    this.start[handle * START_WORDS + 2] = heading;
    this.touched[handle] = this.clock;
    this.rewrite(handle);
  }

  /** Stops driving instance `handle`'s controller (its last pose stays as written). */
  remove(handle: number): void {
    const at = this.indexOf[handle];
    if (!(at >= 0)) return;
    const last = this.list[--this.count];
    this.list[at] = last;
    this.indexOf[last] = at;
    this.indexOf[handle] = -1;
    this.listChanged = true;
    this.timers.cancel(handle);
    this.updates.drop(handle);
    const controller = this.controllers[handle]!;
    controller.driver = null;
    controller.driverKey = -1;
    this.controllers[handle] = undefined;
  }

  has(handle: number): boolean {
    return handle < this.indexOf.length && this.indexOf[handle] >= 0;
  }

  /** Advances the control clock by dt and applies every transition now due: O(events). */
  update(dt: number): void {
    this.clock += dt;
    this.pendingDt += dt;
    for (let handle = this.timers.popDue(this.clock); handle >= 0; handle = this.timers.popDue(this.clock)) {
      this.catchUp(handle);
      this.rewrite(handle);
    }
  }

  beforeCommand(controller: AnimationController): void {
    this.catchUp(controller.driverKey);
  }

  afterCommand(controller: AnimationController): void {
    this.rewrite(controller.driverKey);
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
    if (this.snapshotBits[o + 6] !== this.epochOf[handle]) return false; // not yet integrated since its (re)start
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
    c.dt = this.pendingDt;
    c.clock0 = period % 2 === 0 ? local : local + CONTROL_PERIOD_SECONDS;
    c.clock1 = period % 2 === 0 ? local + CONTROL_PERIOD_SECONDS : local;
    this.stats.uploadBytes = this.updates.count * CONTROL_UPDATE.size + (this.listChanged ? this.count * 4 : 0);
    this.pass.update(this.store, this.list, this.count, this.listChanged, this.updates.bytes, this.updates.count, this.handleLimit, c);
    this.stats.events = this.updates.count;
    this.listChanged = false;
    this.updates.clear();
    const frame = this.frames++ % REPLAY_FRAMES;
    this.frameDt[frame] = this.pendingDt;
    this.frameClock[frame] = this.clock;
    this.pendingDt = 0;
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
    this.updates.clear();
    for (let i = 0; i < this.count; i++) {
      const handle = this.list[i];
      this.catchUp(handle);
      this.resumeLocomotion(handle);
      this.epochOf[handle] = this.nextEpoch++;
      this.rewrite(handle);
    }
    this.listChanged = true;
  }

  /** Sets handle's start state to its locomotion state on the GPU at the last prepared frame (see restore). */
  private resumeLocomotion(handle: number): void {
    const loco = this.controllers[handle]!.locomotion;
    const o = handle * 8;
    if (!loco || (handle + 1) * 8 > this.snapshot.length || Number.isNaN(this.snapshotClock) || this.snapshotBits[o + 6] !== this.epochOf[handle]) return;
    const s = this.snapshot;
    loco.positionX = s[o]; loco.positionZ = s[o + 1]; loco.velocityX = s[o + 2]; loco.velocityZ = s[o + 3]; loco.heading = s[o + 4]; loco.phase = s[o + 5];
    // Replay the frames integrated after the snapshot, oldest first; 1/60 s steps where the ring no longer reaches.
    const integrated = this.clock - this.pendingDt;
    const oldest = Math.max(0, this.frames - REPLAY_FRAMES);
    let first = this.frames;
    while (first > oldest && this.frameClock[(first - 1) % REPLAY_FRAMES] > this.snapshotClock) first--;
    const covered = first < this.frames ? this.frameClock[first % REPLAY_FRAMES] - this.frameDt[first % REPLAY_FRAMES] : integrated;
    for (let gap = covered - this.snapshotClock; gap > 1e-9; gap -= 1 / 60) loco.update(Math.min(gap, 1 / 60));
    for (let f = first; f < this.frames; f++) loco.update(this.frameDt[f % REPLAY_FRAMES]);
    const b = handle * START_WORDS;
    this.start[b] = loco.positionX; this.start[b + 1] = loco.positionZ; this.start[b + 2] = loco.heading;
    this.start[b + 3] = loco.velocityX; this.start[b + 4] = loco.velocityZ; this.start[b + 5] = loco.phase;
  }

  /** Called by the crowd's encode, before the pose pass. */
  encode(encoder: GPUCommandEncoder): void {
    this.pass.encode(encoder);
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

  /** Brings handle's discrete state up to the control clock (no transition lies in between: timers see to it). */
  private catchUp(handle: number): void {
    const dt = this.clock - this.touched[handle];
    if (dt > 0) this.controllers[handle]!.advanceDiscrete(dt);
    this.touched[handle] = this.clock;
  }

  /** Queues handle's record as of now and schedules its next transition or refresh. */
  private rewrite(handle: number): void {
    const controller = this.controllers[handle]!;
    const period = Math.floor(this.clock / CONTROL_PERIOD_SECONDS);
    this.updates.write(handle, controller, this.clock - period * CONTROL_PERIOD_SECONDS, period % 2, this.epochOf[handle],
      this.start, handle * START_WORDS, this.curves);
    // Refresh within the first half of the next period, spread by handle so the load is even.
    const refresh = (period + 1 + ((handle * 0.618034) % 1) * 0.5) * CONTROL_PERIOD_SECONDS;
    this.timers.schedule(handle, Math.min(refresh, this.clock + this.nextTransition(controller)));
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
    const touched = new Float64Array(n);
    touched.set(this.touched);
    this.touched = touched;
    const epochs = new Uint32Array(n);
    epochs.set(this.epochOf);
    this.epochOf = epochs;
    const start = new Float64Array(n * START_WORDS);
    start.set(this.start);
    this.start = start;
  }
}
