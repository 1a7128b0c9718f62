import type { ControllerConfig } from './anim/control/config';
import { AnimationController, ControllerRuntime } from './anim/control/controller';
import type { Crowd, InstanceId } from './crowd';

/**
 * Animation controllers (crossfades, locomotion, actions: src/anim/control) for instances of a
 * crowd. update(dt) runs every controller and writes its layer stack and placement into the
 * crowd's records; nothing allocates per frame. Moving instances are placed from their
 * locomotion (position, heading) on the ground plane y = 0, offset by their start position.
 */
export class CrowdControllers {
  readonly runtime: ControllerRuntime;
  private readonly maskIds: Int32Array;
  private readonly mappedMasks = new Int32Array(4);
  private controllers: (AnimationController | undefined)[] = [];
  /** Ids with a controller, densely packed; position of each id in it. */
  private ids: InstanceId[] = [];
  private position: number[] = [];

  constructor(readonly crowd: Crowd, config: ControllerConfig) {
    if (config.clipNames.length !== crowd.character.clipNames.length || config.clipNames.some((n, i) => n !== crowd.character.clipNames[i])) {
      throw new RangeError('controller config was made for another model (its clip names differ)');
    }
    this.runtime = new ControllerRuntime(config, crowd.character.clipDurations);
    this.maskIds = Int32Array.from(config.masks, (spec) => crowd.createMask(spec));
  }

  /** Gives instance `id` a controller starting at (x, z) facing `heading` radians; returns it. */
  add(id: InstanceId, x = 0, z = 0, heading = 0): AnimationController {
    if (this.controllers[id]) throw new RangeError(`instance ${id} already has a controller`);
    const controller = new AnimationController(this.runtime);
    if (controller.locomotion) {
      controller.locomotion.positionX = x;
      controller.locomotion.positionZ = z;
      controller.locomotion.heading = heading;
    }
    this.controllers[id] = controller;
    this.position[id] = this.ids.push(id) - 1;
    // Without locomotion nothing moves the instance: place it once, here.
    if (!controller.locomotion) this.crowd.setPlacement(id, x, 0, z, heading);
    this.write(id, controller);
    return controller;
  }

  remove(id: InstanceId): void {
    if (!this.controllers[id]) throw new RangeError(`instance ${id} has no controller`);
    this.controllers[id] = undefined;
    const at = this.position[id];
    const last = this.ids.pop()!;
    if (last !== id) {
      this.ids[at] = last;
      this.position[last] = at;
    }
  }

  get(id: InstanceId): AnimationController {
    const controller = this.controllers[id];
    if (!controller) throw new RangeError(`instance ${id} has no controller`);
    return controller;
  }

  get count(): number {
    return this.ids.length;
  }

  /** Advances every controller by dt seconds and writes the results into the crowd. */
  update(dt: number): void {
    const ids = this.ids;
    for (let i = 0; i < ids.length; i++) {
      const controller = this.controllers[ids[i]]!;
      controller.update(dt);
      this.write(ids[i], controller);
    }
  }

  private write(id: InstanceId, controller: AnimationController): void {
    const out = controller.output;
    // Controller mask indices -> crowd mask ids.
    for (let i = 0; i < out.layerCount; i++) this.mappedMasks[i] = out.layerMask[i] < 0 ? -1 : this.maskIds[out.layerMask[i]];
    this.crowd.setStackArrays(id, out.baseClip, out.baseTime, out.baseSpeed, out.layerCount,
      out.layerClip, out.layerTime, out.layerSpeed, out.layerWeight, this.mappedMasks);
    const loco = controller.locomotion;
    if (loco) this.crowd.setPlacement(id, loco.positionX, 0, loco.positionZ, loco.heading);
  }
}
