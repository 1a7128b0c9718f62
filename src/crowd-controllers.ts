import type { ControllerConfig } from './anim/control/config';
import { AnimationController, ControllerRuntime } from './anim/control/controller';
import type { Crowd, InstanceId } from './crowd';

/** Snapshot layout per controller: layer count, seconds since written, base (clip, time, speed), 4 x layer (clip, time, speed, weight, mask). */
const COUNT = 0;
const AGE = 1;
const BASE = 2;
const LAYERS = 5;
const SNAPSHOT = LAYERS + 4 * 5;

/**
 * Animation controllers (crossfades, locomotion, actions: src/anim/control) for instances of a
 * crowd. update(dt) runs every controller and writes its layer stack and placement into the
 * crowd's records; nothing allocates per frame. Call it before crowd.update(dt) with the same
 * dt: the stacks are written as they will be at the crowd's next clock, and a stack that only
 * moved on in time at its speeds is not rewritten (the GPU advances it). Moving instances are
 * placed from their locomotion (position, heading) on the ground plane y = 0.
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
export class CrowdControllers {
  /** What the controllers share: the config, clip durations, locomotion blend spaces. */
  readonly runtime: ControllerRuntime;
  private readonly maskIds: Int32Array;
  private readonly mappedMasks = new Int32Array(4);
  private controllers: (AnimationController | undefined)[] = [];
  /** Ids with a controller, densely packed; position of each id in it. */
  private ids: InstanceId[] = [];
  private position: number[] = [];
  /**
   * What each controller (by dense position) last wrote: SNAPSHOT numbers each, see write(). A
   * stack that only advanced in time at its speeds is not rewritten: the GPU advances it too.
   */
  private snapshot = new Float64Array(64 * SNAPSHOT);

  /**
   * @param crowd The crowd the controllers write into (not owned).
   * @param config A config made for the crowd's character (its clip names must match); its action masks become crowd masks.
   */
  constructor(readonly crowd: Crowd, config: ControllerConfig) {
    if (config.clipNames.length !== crowd.character.clipNames.length || config.clipNames.some((n, i) => n !== crowd.character.clipNames[i])) {
      throw new RangeError('controller config was made for another model (its clip names differ)');
    }
    this.runtime = new ControllerRuntime(config, crowd.character.clipDurations);
    this.maskIds = Int32Array.from(config.masks, (spec) => crowd.createMask(spec));
  }

  /**
   * Gives instance `id` a controller starting at (x, z) on the ground plane (model units) facing
   * `heading` radians about +y (0 faces +z); returns it. Throws if the instance already has one.
   */
  add(id: InstanceId, x = 0, z = 0, heading = 0): AnimationController {
    if (this.controllers[id]) throw new RangeError(`instance ${id} already has a controller`);
    const controller = new AnimationController(this.runtime);
    if (controller.locomotion) {
      controller.locomotion.positionX = x;
      controller.locomotion.positionZ = z;
      controller.locomotion.heading = heading;
    }
    this.controllers[id] = controller;
    const at = this.ids.push(id) - 1;
    this.position[id] = at;
    if (this.snapshot.length < this.ids.length * SNAPSHOT) {
      const grown = new Float64Array(this.snapshot.length * 2);
      grown.set(this.snapshot);
      this.snapshot = grown;
    }
    this.snapshot[at * SNAPSHOT + COUNT] = -1; // nothing written yet
    // Without locomotion nothing moves the instance: place it once, here.
    if (!controller.locomotion) this.crowd.setPlacement(id, x, 0, z, heading);
    this.write(at, id, controller, 0);
    return controller;
  }

  /** Takes instance `id`'s controller away (the instance stays in the crowd, as last written). */
  remove(id: InstanceId): void {
    if (!this.controllers[id]) throw new RangeError(`instance ${id} has no controller`);
    this.controllers[id] = undefined;
    const at = this.position[id];
    const last = this.ids.pop()!;
    if (last !== id) {
      this.ids[at] = last;
      this.position[last] = at;
      this.snapshot.copyWithin(at * SNAPSHOT, this.ids.length * SNAPSHOT, (this.ids.length + 1) * SNAPSHOT);
    }
  }

  /** The controller of instance `id`; throws a RangeError when it has none. */
  get(id: InstanceId): AnimationController {
    const controller = this.controllers[id];
    if (!controller) throw new RangeError(`instance ${id} has no controller`);
    return controller;
  }

  /** Instances with a controller. */
  get count(): number {
    return this.ids.length;
  }

  /** Advances every controller by dt seconds and writes the results into the crowd. */
  update(dt: number): void {
    const ids = this.ids;
    for (let i = 0; i < ids.length; i++) {
      const controller = this.controllers[ids[i]]!;
      controller.update(dt);
      this.snapshot[i * SNAPSHOT + AGE] += dt;
      this.write(i, ids[i], controller, dt);
    }
  }

  /** Writes controller `at` (dense position) of instance `id` into the crowd, unless its stack only moved on in time. */
  private write(at: number, id: InstanceId, controller: AnimationController, ahead: number): void {
    const out = controller.output;
    const loco = controller.locomotion;
    if (loco) this.crowd.setPlacement(id, loco.positionX, 0, loco.positionZ, loco.heading);
    if (this.unchanged(at, controller)) return;
    // Controller mask indices -> crowd mask ids.
    for (let i = 0; i < out.layerCount; i++) this.mappedMasks[i] = out.layerMask[i] < 0 ? -1 : this.maskIds[out.layerMask[i]];
    this.crowd.setStackArrays(id, out.baseClip, out.baseTime, out.baseSpeed, out.layerCount,
      out.layerClip, out.layerTime, out.layerSpeed, out.layerWeight, this.mappedMasks, ahead);
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
