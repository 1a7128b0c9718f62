import type { ControllerConfig } from '../../anim/control/config';
import { AnimationController, ControllerRuntime } from '../../anim/control/controller';
import { ControllerEvents, type ControllerEventSink } from '../../anim/control/events';
import { buildMask } from '../../anim/masks';
import type { ClipEventScheduler } from '../../anim/events/scheduler';
import type { Crowd, InstanceId } from '../../runtime/crowd';
import type { CrowdFeature, CrowdKernel, FeatureStage } from '../../runtime/feature';
import { SilentEvents } from './silent-events';
import { checkF32, F32_HOLDS, F32_WHY, WORLD, WORLD_WHY } from '../../math/float32';
import { show } from '../../math/show';
import { GpuControllers, type ControlFrameStats, type LocomotionReadback } from './gpu-controllers';

/** Who steps a controller: the GPU control pass (CPU cost per event) or the CPU every frame. */
export type ControllerDriverKind = 'gpu' | 'cpu';

/** What CrowdControllers uses of a crowd: a Crowd (WebGPU) or a GLCrowd (WebGL 2, CPU-driven controllers only). */
export type ControlledCrowd = Pick<Crowd, 'character' | 'hasFeature' | 'install' | 'setPlacement' | 'setLayers' | 'createMask'> & {
  /** Which backend the crowd runs on: on 'webgl2' controllers are CPU-driven only. */
  readonly backend: 'webgpu' | 'webgl2';
};

/** Why a GPU-driven controller is refused on a WebGL 2 crowd. */
const GPU_DRIVER_ON_GL = "driver 'gpu' (the control pass) needs WebGPU, and this crowd runs on WebGL 2: its controllers are CPU-driven (driver 'cpu', the default there; docs/webgl2.md)";

/** Options of CrowdControllers. */
export interface CrowdControllersOptions {
  /** Driver of controllers added without one (default 'gpu'; on a WebGL 2 crowd 'cpu', the only one there). */
  driver?: ControllerDriverKind;
  /**
   * When the character has root motion (LoadOptions.rootMotion), set the locomotion clips'
   * playback rate so that their root speed matches the movement speed, so feet do not slide
   * (default true; see Locomotion in src/anim/control/locomotion.ts). False plays them at their
   * configured rates.
   */
  matchRootSpeed?: boolean;
}

/** Snapshot layout per CPU-driven controller: layer count, seconds since written, base (clip, time, speed), 4 x layer (clip, time, speed, weight, mask). */
const NO_STATS: ControlFrameStats = Object.freeze({ events: 0, uploadBytes: 0 });
const COUNT = 0;
const AGE = 1;
const BASE = 2;
const LAYERS = 5;
const SNAPSHOT = LAYERS + 4 * 5;

/**
 * Animation controllers (crossfades, locomotion, actions: src/anim/control) for instances of a
 * crowd, each driven one of two ways:
 * - 'gpu' (default): the CPU keeps the discrete state and acts only on events (a command, a
 *   transition due at a known time, a periodic refresh); the control pass evaluates fades, clip
 *   times, action layers and locomotion every frame on the GPU (src/features/controllers/gpu-controllers.ts). CPU
 *   cost per frame follows events, not controllers. The controller's `output` and locomotion
 *   position are not kept up to date on the CPU.
 * - 'cpu': update(dt) steps the controller and writes its layer stack and placement into the
 *   crowd's records; a stack that only moved on in time is not rewritten (the GPU advances it).
 * Call update(dt) before crowd.update(dt) with the same dt. Moving instances are placed from
 * their locomotion (position, heading) on the ground plane y = 0. Nothing allocates per frame.
 *
 * Clip events: when the crowd has the clip-events feature (CrowdEvents, made before this), the
 * config's "events" become its event tables and its listeners hear controlled instances as their
 * controllers play (docs/clip-events.md): a CPU-driven controller's events are scanned from its own playbacks each step; a
 * GPU-driven one's are scheduled from its discrete state in closed form (O(events)). Either way
 * they fire from crowd.update, in crossing order with every other instance's.
 *
 * @example
 * ```ts
 * const json = await (await fetch('/models/RobotExpressive/RobotExpressive.controller.json')).json();
 * const controllers = new CrowdControllers(crowd, parseControllerConfig(json, character.clipNames));
 * const c = controllers.add(crowd.add(), 2, 0, 0);   // at x = 2, z = 0 (model units), facing +z
 * c.setSpeed(1.5);                                    // 0 idle, 1 walk, 2 run
 * // each frame, with the same dt (seconds):
 * controllers.update(dt);
 * crowd.update(dt);
 * ```
 */
export class CrowdControllers implements CrowdFeature {
  /** 'controllers' for a crowd's first CrowdControllers, 'controllers-2' and on for more (each drives its own instances). */
  readonly featureName: string;
  /** Runs on WebGL 2 too, CPU-driven there (the same ControllerRuntime and records as the CPU driver on WebGPU). */
  readonly onWebGL2 = true;
  /** What the controllers share: the config, clip durations, locomotion blend spaces. */
  readonly runtime: ControllerRuntime;
  /** Driver of controllers added without one. */
  readonly driver: ControllerDriverKind;
  private gpuControllers: GpuControllers | null = null;

  /** Bytes of the GPU-driven controllers' buffers (Crowd.gpuBytes). */
  get gpuBytes(): number {
    return this.gpuControllers?.gpuBytes ?? 0;
  }
  private readonly maskIds: Int32Array;
  /** The controller of each handle (InstanceStore handles: ids are turned into handles on the way in). */
  private controllers: (AnimationController | undefined)[] = [];
  /** Handles with a CPU-driven controller, densely packed; position of each handle in it. */
  private handles: number[] = [];
  private position: number[] = [];
  /**
   * What each controller (by dense position) last wrote: SNAPSHOT numbers each, see write(). A
   * stack that only advanced in time at its speeds is not rewritten: the GPU advances it too.
   */
  private snapshot = new Float64Array(64 * SNAPSHOT);
  /** The crowd's clip events; the scanner CPU-driven controllers step with, and where it sends their crossings. */
  private readonly scheduler: ClipEventScheduler;
  private readonly kernel: CrowdKernel;
  private readonly events: ControllerEvents;
  /** Where a CPU-driven controller's crossings go; `handle` is the instance being stepped. */
  private readonly eventSink: ControllerEventSink & { handle: number };

  /**
   * @param crowd The crowd the controllers write into (not owned).
   * @param config A config made for the crowd's character (its clip names must match); its action masks become crowd masks.
   */
  constructor(readonly crowd: ControlledCrowd, config: ControllerConfig, options: CrowdControllersOptions = {}) {
    checkOptions(options);
    const gl = crowd?.backend === 'webgl2';
    if (gl && options.driver === 'gpu') throw new RangeError(GPU_DRIVER_ON_GL);
    if (typeof config !== 'object' || config === null || !Array.isArray(config.clipNames) || !Array.isArray(config.masks)) {
      throw new TypeError(`config must be a ControllerConfig (parseControllerConfig or defaultControllerConfig), got ${show(config)}`);
    }
    if (config.clipNames.length !== crowd.character.clipNames.length || config.clipNames.some((n, i) => n !== crowd.character.clipNames[i])) {
      throw new RangeError('controller config was made for another model (its clip names differ)');
    }
    // Every mask is checked before the first becomes a crowd mask (masks are kept for the crowd's life).
    config.masks.forEach((spec, i) => buildMask(crowd.character.rig.nodes, spec, `config.masks[${i}]`));
    if (options.matchRootSpeed !== undefined && typeof options.matchRootSpeed !== 'boolean') {
      throw new TypeError(`matchRootSpeed must be true or false, got ${JSON.stringify(options.matchRootSpeed)}`);
    }
    // Checks the event times too.
    this.runtime = new ControllerRuntime(config, crowd.character.clipDurations, options.matchRootSpeed === false ? null : crowd.character.rootMotion);
    this.driver = options.driver ?? (gl ? 'cpu' : 'gpu');
    const listed = new Map(config.events.flatMap((list, clip) => (list.length ? [[clip, list] as const] : [])));
    // The clip-events feature if the crowd has one (found by name: features import no other feature).
    const events = crowd.hasFeature('clip-events') ? undefined : new SilentEvents(crowd.character.clipNames, crowd.character.clipDurations);
    if (events && listed.size) for (const [clip, list] of listed) events.tables.check(clip, list, `config.events.${config.clipNames[clip]}`);
    let name = 'controllers';
    for (let n = 2; crowd.hasFeature(name); n++) name = `controllers-${n}`;
    this.featureName = name;
    this.kernel = crowd.install(this);
    const scheduler: ClipEventScheduler = events ?? this.kernel.feature<CrowdFeature & ClipEventScheduler>('clip-events')!;
    if (!events && listed.size) scheduler.setAll(listed, (clip) => `config.events.${config.clipNames[clip]}`);
    this.maskIds = Int32Array.from(config.masks, (spec) => crowd.createMask(spec));
    this.scheduler = scheduler;
    this.events = new ControllerEvents(scheduler.tables, () => scheduler.threshold);
    // A CPU-driven controller's crossings of this step, decided now, fire in crowd.update (its clock then ends the step).
    this.eventSink = {
      handle: 0,
      event(tau, source, clip, index) { scheduler.fire(this.handle, source, scheduler.clock + tau, clip, index); },
    };
    this.events.sink = this.eventSink;
  }

  /** CrowdFeature: an instance removed from the crowd takes its controller with it (its handle may be reused by another instance). */
  removed(handle: number): void {
    if (this.controllers[handle]) this.drop(handle);
  }

  /** CrowdFeature: the GPU-driven controllers' records and uniforms, after the crowd's uploads. */
  prepare(crowdClock: number): void {
    this.gpuControllers?.prepare(crowdClock);
  }

  /** CrowdFeature: the control pass, first in the frame (it writes the records the other passes read). */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage): void {
    if (stage === 'control') this.gpuControllers?.encode(encoder);
  }

  /** CrowdFeature: the control pass on the new device; GPU-driven controllers resume from their last state read back. */
  restore(device: GPUDevice): void {
    this.gpuControllers?.restore(device);
  }

  /** CrowdFeature: frees the control pass. */
  destroy(): void {
    this.gpuControllers?.destroy();
  }

  /**
   * Gives instance `id` a controller starting at (x, z) on the ground plane (model units) facing
   * `heading` radians about +y (0 faces +z); returns it. Throws if the instance already has one.
   * `driver` overrides the crowd's default: 'cpu' for a character stepped on the CPU every frame
   * (a keyboard-driven one whose `output` and position you read each frame).
   */
  add(id: InstanceId, x = 0, z = 0, heading = 0, options: { driver?: ControllerDriverKind } = {}): AnimationController {
    const handle = this.kernel.store.handle(id); // throws for an id that names no live instance, before anything changes
    if (this.controllers[handle]) throw new RangeError(`instance ${id} already has a controller`);
    for (const [name, v] of [['x', x], ['z', z], ['heading', heading]] as const) {
      if (!Number.isFinite(v)) throw new RangeError(`${name} must be a finite number, got ${show(v)}`);
      // The control pass and the placement take them as float32; x and z are world coordinates (+-1e12).
      if (name === 'heading') checkF32(v, name, F32_HOLDS, F32_WHY);
      else checkF32(v, name, WORLD, WORLD_WHY);
    }
    checkOptions(options);
    const driver = options.driver ?? this.driver;
    if (driver === 'gpu' && this.kernel.backend === 'webgl2') throw new RangeError(GPU_DRIVER_ON_GL);
    this.scheduler.setExternal(handle, true); // its events come from the controller from now on
    // The controller moves the character (locomotion) or keeps it in place: not its clips' root motion.
    this.kernel.feature<CrowdFeature & { setMoves(id: InstanceId, on: boolean): void }>('root-motion')?.setMoves(id, false);
    if (driver === 'gpu') {
      const gpu = this.gpu; // made on first use
      if (!this.runtime.locomotion) this.crowd.setPlacement(id, x, 0, z, heading);
      const controller = gpu.add(handle, x, z, heading);
      this.controllers[handle] = controller;
      return controller;
    }
    const controller = new AnimationController(this.runtime);
    if (controller.locomotion) {
      controller.locomotion.positionX = x;
      controller.locomotion.positionZ = z;
      controller.locomotion.heading = heading;
    }
    this.controllers[handle] = controller;
    const at = this.handles.push(handle) - 1;
    this.position[handle] = at;
    if (this.snapshot.length < this.handles.length * SNAPSHOT) {
      const grown = new Float64Array(this.snapshot.length * 2);
      grown.set(this.snapshot);
      this.snapshot = grown;
    }
    this.snapshot[at * SNAPSHOT + COUNT] = -1; // nothing written yet
    // Without locomotion nothing moves the instance: place it once, here.
    if (!controller.locomotion) this.crowd.setPlacement(id, x, 0, z, heading);
    this.write(at, handle, controller, 0);
    return controller;
  }

  /** Takes instance `id`'s controller away (the instance stays in the crowd, as last written; Crowd.remove takes it away too). */
  remove(id: InstanceId): void {
    this.get(id);
    this.drop(this.kernel.store.handle(id));
  }

  /** The controller of instance `id`; throws a RangeError when it has none (or `id` names no live instance). */
  get(id: InstanceId): AnimationController {
    const controller = this.controllers[this.kernel.store.handle(id)];
    if (!controller) throw new RangeError(`instance ${id} has no controller`);
    return controller;
  }

  /** Controllers of both drivers. */
  get count(): number {
    return this.handles.length + (this.gpuControllers?.size ?? 0);
  }

  /** Whether instance `id`'s controller is GPU-driven (false without one; refuses an id that names no live instance). */
  isGpuDriven(id: InstanceId): boolean {
    const handle = this.kernel.store.handle(id);
    return this.gpuControllers?.has(handle) ?? false;
  }

  /** What the last frame cost the GPU-driven controllers: events (rewritten records) and bytes uploaded. */
  get gpuStats(): ControlFrameStats {
    return this.gpuControllers?.stats ?? NO_STATS;
  }

  /**
   * Reads GPU-driven controllers' locomotion back every frame the previous read has finished,
   * for locomotionState (off by default: it copies 32 bytes per instance).
   */
  set readBack(on: boolean) {
    if (typeof on !== 'boolean') throw new TypeError(`readBack must be true or false, got ${show(on)}`);
    if (on || this.gpuControllers) this.gpu.readBack = on;
  }

  /** Whether GPU-driven controllers' locomotion is read back (see the setter). */
  get readBack(): boolean {
    return this.gpuControllers?.readBack ?? false;
  }

  /**
   * Where instance `id` is and how it moves, written into `out`: for a CPU-driven controller its
   * locomotion now (age 0); for a GPU-driven one the latest state read back (readBack on), a
   * frame or two late (`age` says how many seconds). False when there is none (no locomotion,
   * or nothing read back yet). Allocation-free.
   */
  locomotionState(id: InstanceId, out: LocomotionReadback): boolean {
    const controller = this.get(id);
    if (typeof out !== 'object' || out === null) throw new TypeError(`out must be an object (LocomotionReadback), got ${show(out)}`);
    const handle = this.kernel.store.handle(id);
    if (this.gpuControllers?.has(handle)) return this.gpuControllers.locomotionState(handle, out);
    const loco = controller.locomotion;
    if (!loco) return false;
    out.x = loco.positionX; out.z = loco.positionZ; out.velocityX = loco.velocityX; out.velocityZ = loco.velocityZ;
    out.heading = loco.heading; out.phase = loco.phase; out.age = 0;
    return true;
  }

  /** @internal The GPU controllers (created with the first GPU-driven controller). */
  get gpu(): GpuControllers {
    if (this.kernel.backend === 'webgl2') throw new RangeError(GPU_DRIVER_ON_GL);
    this.gpuControllers ??= new GpuControllers(this.kernel, this.scheduler, this.runtime, this.maskIds);
    return this.gpuControllers;
  }

  /**
   * Advances every controller by dt seconds (>= 0): CPU-driven ones are stepped and written into
   * the crowd; GPU-driven ones cost only their events (commands, transitions due now). Call it
   * before crowd.update(dt) with the same dt.
   */
  update(dt: number): void {
    if (!(dt >= 0) || !Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds >= 0, got ${show(dt)}`);
    this.gpuControllers?.update(dt);
    const handles = this.handles;
    for (let i = 0; i < handles.length; i++) {
      const controller = this.controllers[handles[i]]!;
      this.eventSink.handle = handles[i];
      controller.update(dt, this.events);
      this.snapshot[i * SNAPSHOT + AGE] += dt;
      this.write(i, handles[i], controller, dt);
    }
  }

  /** Takes the controller of live or just-removed `handle` away (remove, and the removed hook). */
  private drop(handle: number): void {
    this.controllers[handle] = undefined;
    if (this.kernel.store.has(handle)) this.scheduler.setExternal(handle, false); // back to its records' events
    if (this.gpuControllers?.has(handle)) {
      this.gpuControllers.remove(handle);
      return;
    }
    const at = this.position[handle];
    const last = this.handles.pop()!;
    if (last !== handle) {
      this.handles[at] = last;
      this.position[last] = at;
      this.snapshot.copyWithin(at * SNAPSHOT, this.handles.length * SNAPSHOT, (this.handles.length + 1) * SNAPSHOT);
    }
  }

  /** Writes controller `at` (dense position) of the instance of `handle` into the crowd, unless its stack only moved on in time. */
  private write(at: number, handle: number, controller: AnimationController, ahead: number): void {
    const id = this.kernel.store.idOf(handle);
    const out = controller.output;
    const loco = controller.locomotion;
    if (loco) this.crowd.setPlacement(id, loco.positionX, 0, loco.positionZ, loco.heading);
    if (this.unchanged(at, controller)) return;
    // The output's masks are indices into the config's masks: maskIds maps them to crowd masks.
    this.crowd.setLayers(id, out, this.maskIds, ahead);
    const s = this.snapshot;
    const o = at * SNAPSHOT;
    s[o + COUNT] = out.layerCount;
    s[o + AGE] = 0;
    s[o + BASE] = out.baseClip; s[o + BASE + 1] = out.baseTime; s[o + BASE + 2] = out.baseSpeed;
    for (let i = 0; i < out.layerCount; i++) {
      const l = o + LAYERS + i * 5;
      s[l] = out.layerClip[i]; s[l + 1] = out.layerTime[i]; s[l + 2] = out.layerSpeed[i]; s[l + 3] = out.layerWeight[i]; s[l + 4] = out.layerMask[i];
    }
  }

  /**
   * Whether the output equals what was last written except for times that advanced at the
   * written speeds (which the GPU reproduces from phase + speed * clock).
   */
  private unchanged(at: number, controller: AnimationController): boolean {
    const out = controller.output;
    const s = this.snapshot;
    const o = at * SNAPSHOT;
    const age = s[o + AGE];
    if (s[o + COUNT] !== out.layerCount || s[o + BASE] !== out.baseClip || s[o + BASE + 2] !== out.baseSpeed) return false;
    if (!this.onTrack(out.baseClip, s[o + BASE + 1], out.baseSpeed, age, out.baseTime)) return false;
    for (let i = 0; i < out.layerCount; i++) {
      const l = o + LAYERS + i * 5;
      if (s[l] !== out.layerClip[i] || s[l + 2] !== out.layerSpeed[i] || s[l + 3] !== out.layerWeight[i] || s[l + 4] !== out.layerMask[i]) return false;
      if (!this.onTrack(out.layerClip[i], s[l + 1], out.layerSpeed[i], age, out.layerTime[i])) return false;
    }
    return true;
  }

  /** Whether `time` is where a clip written at `written` playing at `speed` is `age` seconds later (within 0.1 ms, wrapped). */
  private onTrack(clip: number, written: number, speed: number, age: number, time: number): boolean {
    const d = this.crowd.character.clipDurations[clip];
    let drift = time - (written + speed * age);
    if (d > 0) drift -= Math.round(drift / d) * d;
    return Math.abs(drift) < 1e-4;
  }
}

/** Throws naming the field unless `options` is an object whose driver, if given, is 'gpu' or 'cpu'. */
function checkOptions(options: { driver?: ControllerDriverKind }): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`options must be an object { driver }, got ${show(options)}`);
  const { driver } = options;
  if (driver !== undefined && driver !== 'gpu' && driver !== 'cpu') throw new RangeError(`driver must be 'gpu' or 'cpu', got ${show(driver)}`);
}
