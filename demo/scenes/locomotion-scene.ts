import type { AnimationController, InstanceId, LocomotionReadback, SteeringAgents } from '../../src/index';
import { clipWeights } from '../clip-weights';
import { HeldProp } from '../held-prop';
import { MODELS } from '../models';
import type { Keyboard } from '../keyboard';
import { Random } from '../random';
import { Scene } from '../scene';
import type { SceneModel } from '../scene-model';
import type { WeightPlot } from '../weight-plot';
import type { SceneActivity } from './activity';
import { Wander } from './wander';
import { STEERED_WANDERERS_MAX, WanderSteering } from './wander-steering';
import { AGENT_RADIUS_PER_HEIGHT, characterHeight, steeringOf } from './steering-shared';

/** Keys shown for actions 1-9. */
const ACTION_KEYS = 9;
/**
 * Past this many wanderers the far ones are drawn as impostors (the 1k preset and up; the
 * default 80 are all near the camera that follows the selected one).
 */
const IMPOSTORS_ABOVE = 500;
/** Seconds between two looks at the same wanderer (the scene looks at count * dt / this per frame). */
const LOOK_PERIOD = 0.5;
/** What this scene leaves out on WebGL 2, and why (the overlay's lines there). */
const GL_MISSING = [
  'WebGL 2: no control pass, every controller CPU-driven',
  '  no steering: the wanderers walk through each other',
  '  (steering moves controllers through a GPU channel)',
  '  no sword (CrowdProps needs WebGPU)',
];

/**
 * The locomotion scene: a crowd wandering under animation controllers (CrowdControllers: one
 * controller per instance, the model's <name>.controller.json) with random actions, inside a
 * disc that grows with the count. The wanderers are GPU-driven where the config allows it: the
 * CPU acts only on their decisions (a slice of them is looked at each frame, with positions read
 * back from the GPU). One selected character is CPU-driven and follows the keyboard instead (WASD
 * relative to the view, Shift runs, 1-9 and Space request actions); the camera follows it, a ring
 * marks it, and a live plot shows how much each clip weighs in its pose. With directional clips
 * (a "2d" locomotion blend space, as the Walker has) the keyboard character faces the view while
 * it moves, so S backpedals and A/D strafe. Up to STEERED_WANDERERS_MAX wanderers, every
 * character is an agent of the crowd's CrowdSteering (WanderSteering): the wanderers walk around
 * each other and around the keyboard's character, their decisions becoming steering goals.
 *
 * On WebGL 2 (a GLCrowd: docs/webgl2.md) every controller is CPU-driven (the control pass needs
 * WebGPU), so each wanderer costs a controller step a frame; there is no steering (a CPU-driven
 * controller places its character every frame, which restarts a steering agent standing there:
 * steering animates controllers only through the GPU's locomotion channel) and no held prop
 * (CrowdProps needs WebGPU); the overlay says so (GL_MISSING).
 */
export class LocomotionActivity implements SceneActivity {
  readonly kind = 'locomotion';
  readonly cellSize: readonly [number, number];
  readonly height: number;
  /** Ring radius under the selected character, world units. */
  private readonly markerRadius: number;
  /** Ground area per character: the disc's radius grows as spacing * sqrt(count). */
  private readonly spacing: number;
  private readonly wander: Wander;
  /** The wanderers as steering agents, when the config has locomotion (else undefined). */
  private readonly steer: WanderSteering | undefined;
  private readonly random = new Random(0x10c0);
  private readonly weights: Float32Array;
  private readonly actionNames: string[];
  /** The config has clips for moving sideways and back: the keyboard character faces the view. */
  private readonly directional: boolean;
  private ids = new Int32Array(0);
  private controllers: AnimationController[] = [];
  private countValue = 0;
  private selected = 0;
  private keyMoving = false;
  private elapsed = 0;
  private lastKey = '';
  /** Next wanderer to look at, and when each was last looked at (scene seconds). */
  private nextLook = 0;
  private lookedAt = new Float64Array(0);
  private readonly state: LocomotionReadback = { x: 0, z: 0, velocityX: 0, velocityZ: 0, heading: 0, phase: 0, age: 0 };
  /** The sword every character holds, on models whose MODELS entry names a hand (WebGPU only). */
  private readonly prop: HeldProp | undefined;
  /** How wanderers' controllers run: on the GPU (control pass) on WebGPU, on the CPU on WebGL 2. */
  private readonly wanderDriver: 'cpu' | 'gpu';
  /**
   * The clips the impostors bake: the idle, the forward walk and run (a wanderer walks where it
   * faces, so its 2D blend space's heaviest clips are these) and the unmasked actions' (a masked
   * action is left out past the switch: impostorPartialLayers); undefined without locomotion. A
   * wanderer whose two heaviest clips are others (turning, a side step) is a mesh until they are
   * these again.
   */
  readonly impostorClips: readonly number[] | undefined;
  /** A far wanderer doing a masked action (a wave over its walk) is the impostor of its walk, the action left out (ImpostorOptions.partialLayers), not a mesh. */
  readonly impostorPartialLayers = 'leave-out';

  constructor(private readonly scene: SceneModel, private readonly keyboard: Keyboard, private readonly plot: WeightPlot, notify: (message: string) => void) {
    const { character, controllerConfig: config } = scene;
    const { min, max } = character.bounds;
    this.height = Math.max(max[1] - min[1], 1e-6);
    const footprint = Math.max(max[0] - min[0], max[2] - min[2], this.height * 0.5);
    this.spacing = footprint * 3;
    this.markerRadius = footprint * 0.75;
    this.cellSize = [footprint * 1.5, footprint * 1.5];
    this.wander = new Wander(config);
    const gpu = scene.backend === 'webgpu';
    this.wanderDriver = gpu ? 'gpu' : 'cpu';
    if (config.locomotion && gpu) this.steer = new WanderSteering(steeringOf(scene), config.locomotion.walkSpeed, AGENT_RADIUS_PER_HEIGHT * characterHeight(scene));
    this.wander.steer = this.steer;
    this.weights = new Float32Array(character.clipNames.length);
    this.actionNames = config.actions.slice(0, ACTION_KEYS).map((a) => a.name);
    this.directional = config.locomotion?.blendSpace === '2d';
    const forward = config.locomotion?.directions.forward;
    this.impostorClips = config.locomotion && forward
      ? [...new Set([config.locomotion.idle, forward.walk, forward.run, ...config.actions.filter((a) => a.mask < 0).map((a) => a.clip)])]
      : undefined;
    if (scene.configProblem) notify(scene.configProblem);
    if (!config.locomotion) notify(`${scene.label} has no walk clip and no controller config with locomotion: the characters cannot walk`);
    plot.reset(character.clipNames);
    plot.show(true);
    // GPU-driven controllers' positions come back from the GPU (CPU-driven ones have theirs at hand).
    if (gpu) scene.controllers.readBack = true;
    const hand = MODELS[scene.source.model]?.hand;
    this.prop = hand && character.jointNames.includes(hand) && scene instanceof Scene ? new HeldProp(scene, hand, notify) : undefined;
  }

  get count(): number {
    return this.countValue;
  }

  /** Past IMPOSTORS_ABOVE wanderers the far ones are impostors (CrowdImpostors of impostorClips; WebGPU). */
  get impostors(): boolean {
    return this.impostorClips !== undefined && this.countValue > IMPOSTORS_ABOVE;
  }

  /** Radius of the disc the wanderers keep to, world units. */
  get radius(): number {
    return this.spacing * Math.sqrt(Math.max(1, this.countValue) / Math.PI);
  }

  setCount(count: number): void {
    const { crowd, controllers } = this.scene;
    while (this.countValue > count) {
      const id = this.ids[--this.countValue];
      controllers.remove(id);
      crowd.remove(id);
    }
    if (count > this.ids.length) {
      const ids = new Int32Array(Math.max(count, this.ids.length * 2));
      ids.set(this.ids);
      this.ids = ids;
      if (this.steer) this.steer.ids = ids;
      this.wander.reserve(ids.length);
      const looked = new Float64Array(ids.length);
      looked.set(this.lookedAt);
      this.lookedAt = looked;
    }
    this.controllers.length = Math.min(this.controllers.length, this.countValue);
    const steer = this.steer;
    // Agents leave when the crowd grows past the limit (they walk on from where they stand), and
    // join when it is (back) under it; new wanderers join as they are placed.
    const steered = steer !== undefined && count <= STEERED_WANDERERS_MAX;
    if (steer) this.setSteered(steered);
    const spread = this.spacing * Math.sqrt(count / Math.PI);
    // The new characters' instances in one call (a million wanderers: docs/palette.md); their controllers place them.
    const added = count > this.countValue ? crowd.addMany({ count: count - this.countValue }) : undefined;
    for (let k = 0; this.countValue < count; k++) {
      const i = this.countValue;
      // The first character (the selected one at start) stands in the middle facing the camera.
      const r = i === 0 ? 0 : spread * Math.sqrt(this.random.next());
      const a = this.random.next() * 2 * Math.PI;
      const id = added![k];
      this.ids[i] = id;
      const x = r * Math.sin(a);
      const z = r * Math.cos(a);
      const heading = i === 0 ? 0 : this.random.next() * 2 * Math.PI;
      const controller = controllers.add(id, x, z, heading, { driver: i === this.selected ? 'cpu' : this.wanderDriver });
      this.controllers.push(controller);
      // Steering starts an agent at its instance's placement: the controller's start.
      if (steered) {
        crowd.setPlacement(id, x, 0, z, heading);
        steer!.join(id, i === this.selected);
      }
      this.lookedAt[i] = this.elapsed;
      this.wander.start(i);
      this.countValue++;
    }
    this.wander.radius = this.radius;
    if (this.selected >= this.countValue) this.select(0);
  }

  /** Hands the keyboard to character `index` (the previous one goes back to wandering). */
  select(index: number): void {
    if (this.countValue === 0) return;
    const next = ((index % this.countValue) + this.countValue) % this.countValue;
    // On WebGL 2 every controller is CPU-driven already: the keyboard just moves on.
    if (next !== this.selected && this.wanderDriver === 'gpu') {
      // The keyboard's character is CPU-driven (its output and position are read every frame);
      // the one it leaves goes back to the GPU. Each restarts where it stands.
      if (this.selected < this.countValue) this.redrive(this.selected, 'gpu');
      this.redrive(next, 'cpu');
      // Steering: the one left wanders as an agent again, the new one is the agent that cannot move.
      if (this.steer?.on) {
        if (this.selected < this.countValue) this.steer.join(this.ids[this.selected], false);
        this.steer.join(this.ids[next], !this.scene.controllers.isGpuDriven(this.ids[next]));
      }
    }
    this.wander.start(this.selected);
    this.selected = next;
    this.keyMoving = false;
    this.lastKey = '';
  }

  /** Selects the next character. */
  selectNext(): void {
    this.select(this.selected + 1);
  }

  settingChanged(): boolean {
    return false;
  }

  apply(): void {
    // Nothing of this scene is in the panel's state.
  }

  update(dt: number, viewYaw: number): void {
    if (this.countValue === 0) return;
    const controllers = this.scene.controllers;
    const looks = Math.min(this.countValue, Math.ceil((this.countValue * dt) / LOOK_PERIOD));
    if (this.nextLook >= this.countValue) this.nextLook = 0; // the crowd shrank
    for (let k = 0; k < looks; k++) {
      const i = this.nextLook;
      this.nextLook = (i + 1) % this.countValue;
      if (i === this.selected || !controllers.locomotionState(this.ids[i], this.state)) continue;
      this.wander.update(i, this.controllers[i], this.state, this.elapsed - this.lookedAt[i]);
      this.lookedAt[i] = this.elapsed;
    }
    this.drive(this.controllers[this.selected], viewYaw);
    controllers.update(dt);
    if (dt > 0) {
      this.elapsed += dt;
      clipWeights(this.controllers[this.selected].output, this.weights);
      this.plot.sample(this.elapsed, this.weights);
    }
  }

  extent(out: Float32Array): void {
    // Frame the neighbourhood of the selected character, not the whole disc.
    out[0] = out[1] = Math.min(this.radius, this.height * 4);
    out[2] = 0;
  }

  follow(out: Float32Array): boolean {
    const loco = this.countValue > 0 ? this.controllers[this.selected].locomotion : null;
    if (!loco) return false;
    out[0] = loco.positionX;
    out[1] = loco.positionZ;
    out[2] = this.markerRadius;
    return true;
  }

  readAgents(): Promise<SteeringAgents & { keyboard: InstanceId }> | undefined {
    if (!this.steer?.on) return undefined;
    const keyboard = this.countValue > 0 && !this.scene.controllers.isGpuDriven(this.ids[this.selected]) ? this.ids[this.selected] : -1;
    return this.steer.steering.readAgents().then((agents) => ({ ...agents, keyboard }));
  }

  describe(lines: string[], data: DOMStringMap): void {
    if (this.countValue === 0) return;
    const c = this.controllers[this.selected];
    const state = c.state;
    const loco = c.locomotion;
    lines.push(`selected #${this.selected}: ${state}`);
    if (loco) lines.push(`  speed ${loco.speed.toFixed(2)} (${loco.parameter < 0.05 ? 'idle' : loco.parameter <= 1.05 ? 'walk' : 'run'}) · ${loco.direction}`);
    lines.push(this.directional ? 'keys: WASD move facing the view (S back, A/D strafe) · Shift run' : 'keys: WASD move (view-relative) · Shift run');
    if (this.actionNames.length > 0) {
      lines.push(`  Space ${this.actionNames[0]}`);
      for (let k = 0; k < this.actionNames.length; k += 4) {
        lines.push(`  ${this.actionNames.slice(k, k + 4).map((name, j) => `${k + j + 1} ${name}`).join('  ')}`);
      }
    }
    if (this.lastKey) lines.push(`last key: ${this.lastKey}`);
    const stats = this.scene.controllers.gpuStats;
    if (this.wanderDriver === 'gpu') lines.push(`GPU-driven: ${this.countValue - 1} · ${stats.events} events, ${stats.uploadBytes} B uploaded this frame`);
    else lines.push(`CPU-driven: ${this.countValue}`, ...GL_MISSING);
    const agents = this.steer?.on ? this.steer.steering.agentCount : 0;
    if (this.steer) {
      lines.push(this.steer.on ? `steering: ${agents.toLocaleString('en-US')} agents (the wanderers avoid each other and you)`
        : `steering off above ${STEERED_WANDERERS_MAX.toLocaleString('en-US')} wanderers: they walk through each other`);
    }
    data.agents = String(agents);
    data.events = String(stats.events);
    data.selected = String(this.selected);
    data.state = state;
    data.speed = loco ? loco.speed.toFixed(3) : '0';
    data.direction = loco ? loco.direction : '';
    data.heading = loco ? loco.heading.toFixed(3) : '';
    data.topClip = this.scene.character.clipNames[this.heaviest()];
    data.lastAction = this.lastKey;
    data.driver = this.wanderDriver;
    data.prop = this.prop?.attached ? `Sword@${this.prop.joint}` : '';
    if (this.prop?.attached) lines.push(`holding: Sword in ${this.prop.joint} (CrowdProps)`);
  }

  dispose(clearCrowd: boolean): void {
    this.prop?.dispose();
    if (clearCrowd) this.setCount(0);
    this.plot.show(false);
  }

  /**
   * Makes every character an agent (on: each starts where its controller stands, as last read
   * back) or none (off: each walks on by its own controller from where steering left it).
   */
  private setSteered(on: boolean): void {
    const steer = this.steer!;
    if (steer.on === on) return;
    steer.on = on;
    if (!on) {
      for (let i = 0; i < this.countValue; i++) steer.leave(this.ids[i]);
      return;
    }
    const { crowd, controllers } = this.scene;
    for (let i = 0; i < this.countValue; i++) {
      const id = this.ids[i];
      // The instance's placement is where its GPU-driven controller started: move it to where it
      // is, and keep it going the way it went (until its next decision).
      const s = this.state;
      const known = controllers.locomotionState(id, s);
      if (known) crowd.setPlacement(id, s.x, 0, s.z, s.heading);
      steer.join(id, !controllers.isGpuDriven(id));
      if (known && i !== this.selected && Math.hypot(s.velocityX, s.velocityZ) > 0.05) steer.goOn(i, s.x, s.z, s.velocityX, s.velocityZ);
    }
  }

  /**
   * Before the crowd is restored after a device loss: steering restarts its agents from their
   * instances' placements, which for a wanderer is where it was first placed (its motion lived on
   * the lost device), so each is placed where its controller was last read back (which restore
   * makes stale: read it now). Else they jump back (4.8 m after 30 frames in the e2e run). Once
   * per loss, an event per wanderer.
   */
  deviceLost(): void {
    if (!this.steer?.on) return;
    const { crowd, controllers } = this.scene;
    const s = this.state;
    for (let i = 0; i < this.countValue; i++) {
      const id = this.ids[i];
      if (controllers.isGpuDriven(id) && controllers.locomotionState(id, s)) crowd.setPlacement(id, s.x, 0, s.z, s.heading);
    }
  }

  /** Gives wanderer i a new controller of `driver`, starting where its old one stands. */
  private redrive(i: number, driver: 'cpu' | 'gpu'): void {
    const { controllers } = this.scene;
    const id = this.ids[i];
    // Nothing to hand over before the first readback, or for a model that does not move.
    if (!controllers.locomotionState(id, this.state)) return;
    controllers.remove(id);
    const s = this.state;
    this.controllers[i] = controllers.add(id, s.x, s.z, s.heading, { driver });
  }

  /** The clip that weighs most in the selected character's pose (as last plotted). */
  private heaviest(): number {
    let best = 0;
    for (let i = 1; i < this.weights.length; i++) if (this.weights[i] > this.weights[best]) best = i;
    return best;
  }

  /** Keyboard input for the selected character. */
  private drive(c: AnimationController, viewYaw: number): void {
    const kb = this.keyboard;
    if (c.locomotion) {
      const f = kb.forward;
      const s = kb.strafe;
      if (f !== 0 || s !== 0) {
        // The view looks along (-sin yaw, -cos yaw) on the ground; its right is (cos yaw, -sin yaw).
        const sin = Math.sin(viewYaw);
        const cos = Math.cos(viewYaw);
        // Facing the view is heading viewYaw + pi; it stays after the keys are let go, so a stop does not turn.
        if (this.directional) c.face(viewYaw + Math.PI);
        c.move(-sin * f + cos * s, -cos * f - sin * s, kb.shift);
        this.keyMoving = true;
      } else if (this.keyMoving) {
        c.stop();
        this.keyMoving = false;
      }
    }
    for (let action = kb.takeAction(); action >= 0; action = kb.takeAction()) {
      if (action >= this.actionNames.length) continue;
      const name = this.actionNames[action];
      const started = c.requestAction(name);
      this.lastKey = `${action + 1} ${name} (${started ? 'started' : 'not allowed now'})`;
    }
  }
}
