import { mat4 } from 'wgpu-matrix';
import { MAX_TWIN_AGENTS, type CrowdControllers, type CrowdSteering, type GroundPoint, type InstanceId, type PickCamera, type ScreenRect, type SteeringAgents } from '../../src/index';
import type { StateKey } from '../controls';
import { MODELS } from '../models';
import type { SceneModel } from '../scene-model';
import type { SceneActivity } from './activity';
import { AGENT_RADIUS_PER_HEIGHT, characterHeight, steeringOf } from './steering-shared';

/** Tints (linear RGB) of the two groups and of the selected agents. */
const GROUP_TINTS: readonly (readonly [number, number, number])[] = [[1, 0.5, 0.3], [0.35, 0.6, 1]];
const SELECTED_TINT = [1, 1, 0.15] as const;
/** Seconds between two crossings of the groups (agents a click sent somewhere stay there). */
const CROSSING_PERIOD = 30;
/** Pillars: this many on a ring of PILLAR_RING x the plaza's radius, PILLAR_SIZE x the character height across. */
const PILLARS = 6;
const PILLAR_RING = 0.35;
const PILLAR_SIZE = 0.9;
/** Without controllers, the agents' preferred speed per character height (per second). */
const PLAIN_SPEED_PER_HEIGHT = 0.75;
/** maxSpeed over preferredSpeed: the room avoidance has to speed an agent up. */
const SPEED_MARGIN = 1.4;
/**
 * With controllers, each agent's preferred speed is walkSpeed times 1 +- this (a fixed pick per
 * agent): controllers all start at the same blend phase, and a group that set off together would
 * walk in step for good; at different paces their steps drift apart within seconds.
 */
const PACE_SPREAD = 0.12;
/** What this scene leaves out on WebGL 2, and why (the overlay's lines there). */
const GL_MISSING = [
  `WebGL 2: steering's twin on the CPU, at most ${MAX_TWIN_AGENTS} agents`,
  '  no controllers (steering feeds GPU-driven ones):',
  '  the walk clip plays at its own pace',
];

/**
 * The steering scene (?scene=steering): two groups cross a plaza with pillars, every character
 * an agent of CrowdSteering (docs/steering.md), stepped on the GPU. A click on a character or a
 * Shift + drag box selects agents (tinted yellow); a click on the ground then sends the selected
 * ones there, spread around the point. The groups cross again every CROSSING_PERIOD seconds
 * (agents sent somewhere by a click stay there). The pillars are drawn as rings on the ground.
 * When the model has a controller config with locomotion, every agent has a GPU-driven animation
 * controller (CrowdControllers) that steering feeds (docs/steering.md, "Steering and
 * controllers"): idle, walk and run and their rates follow each agent's steered speed, at the
 * config's walkSpeed; otherwise the agents play the model's walk clip at its own pace.
 *
 * On WebGL 2 (a GLCrowd: docs/webgl2.md) steering is its TypeScript twin stepped on the CPU, at
 * most MAX_TWIN_AGENTS (150) agents: a larger count shows that many, with the reason; picking is
 * CPU raycasting and the selection's tint the GL draw's appearance records. The agents have no
 * controllers there (GPU-driven controllers, which steering's locomotion channel feeds, need
 * WebGPU): they play the walk clip at its own pace. The overlay says so (GL_MISSING).
 */
export class SteeringActivity implements SceneActivity {
  readonly kind = 'steering';
  readonly cellSize: readonly [number, number];
  readonly height: number;
  private readonly steering: CrowdSteering;
  private readonly radius: number;
  private readonly speed: number;
  /** The crowd's controllers when the config has locomotion (the agents are animated by them), else undefined. */
  private readonly controllers: CrowdControllers | undefined;
  private ids: InstanceId[] = [];
  private readonly ordered = new Set<InstanceId>();
  private selected: InstanceId[] = [];
  private obstacles: number[] = [];
  private pillars: [number, number, number][] = [];
  private elapsed = 0;
  private crossing = 0;
  private pending = false;

  constructor(private readonly scene: SceneModel) {
    this.height = characterHeight(scene);
    this.radius = AGENT_RADIUS_PER_HEIGHT * this.height;
    const locomotion = scene.controllerConfig.locomotion;
    // Steering feeds GPU-driven controllers (its locomotion channel): none on WebGL 2.
    this.controllers = locomotion && scene.backend === 'webgpu' ? scene.controllers : undefined;
    this.speed = locomotion ? locomotion.walkSpeed : PLAIN_SPEED_PER_HEIGHT * this.height;
    this.cellSize = [this.height, this.height];
    this.steering = steeringOf(scene);
  }

  get count(): number {
    return this.ids.length;
  }

  /** Radius of the plaza, world units: room for the count at a few radii apart. */
  private get plaza(): number {
    return Math.max(8 * this.height, 3 * this.radius * Math.sqrt(Math.max(1, this.ids.length)) + 4 * this.height);
  }

  /**
   * Adds or removes characters, every one an agent. On WebGL 2 a count past MAX_TWIN_AGENTS
   * shows that many and then throws the reason (the App shows it and takes the count shown).
   */
  setCount(count: number): void {
    const wanted = count;
    if (this.scene.backend === 'webgl2') count = Math.min(count, MAX_TWIN_AGENTS);
    this.resize(count);
    if (wanted > count) {
      throw new RangeError(`steering on WebGL 2 steps at most ${MAX_TWIN_AGENTS} agents (its TypeScript twin on the CPU; more need WebGPU, docs/webgl2.md)`);
    }
  }

  private resize(count: number): void {
    const { crowd } = this.scene;
    while (this.ids.length > count) {
      const id = this.ids.pop()!;
      this.ordered.delete(id);
      this.controllers?.remove(id);
      crowd.remove(id);
    }
    const clip = Math.max(0, crowd.character.clipNames.indexOf(MODELS[this.scene.source.model]?.clipA ?? ''));
    while (this.ids.length < count) {
      const id = crowd.add({ clipA: clip, timeA: (this.ids.length * 0.37) % 1 });
      // A GPU-driven controller (placed by layOut, as an agent): it plays what steering's motion asks for.
      this.controllers?.add(id);
      this.ids.push(id);
    }
    this.layOut();
  }

  settingChanged(_key: StateKey): boolean {
    return false;
  }

  apply(): void {}

  update(dt: number): void {
    this.elapsed += dt;
    if (this.elapsed - this.crossing < CROSSING_PERIOD) return;
    // The groups cross back: an event per agent every CROSSING_PERIOD seconds, nothing per frame.
    this.crossing = this.elapsed;
    for (const id of this.ids) {
      if (this.ordered.has(id)) continue;
      const goal = this.steering.goal(id);
      if (goal) this.steering.setGoal(id, [-goal[0], goal[1]]);
    }
  }

  extent(out: Float32Array): void {
    out[0] = this.plaza * 0.8;
    out[1] = this.plaza * 0.5;
    out[2] = 0;
  }

  follow(): boolean {
    return false;
  }

  /** The pillars as rings: x, z, radius per pillar into `out`; returns how many. */
  rings(out: Float32Array): number {
    const n = Math.min(this.pillars.length, Math.floor(out.length / 3));
    for (let i = 0; i < n; i++) out.set(this.pillars[i], 3 * i);
    return n;
  }

  /** A click: on an agent, selects it; on the ground with agents selected, sends them there. */
  click(x: number, y: number, camera: PickCamera): boolean {
    const { picking } = this.scene;
    if (this.pending || picking.pending > 0) return true;
    this.pending = true;
    const ground = groundPoint(x, y, camera);
    picking.pickPointer(x, y, camera).then((hit) => {
      if (hit && this.steering.hasAgent(hit.id)) this.select([hit.id]);
      else if (ground && this.selected.length > 0) this.send(ground);
      else this.select([]);
    }, (error: Error) => console.warn(`picking failed: ${error.message}`)).finally(() => { this.pending = false; });
    return true;
  }

  /** A Shift + drag box: selects the agents inside it. */
  box(rect: ScreenRect, camera: PickCamera): boolean {
    const { picking } = this.scene;
    if (picking.pending > 0) return true;
    picking.selectRect(rect, camera).then((ids) => this.select(ids.filter((id) => this.steering.hasAgent(id))),
      (error: Error) => console.warn(`box selection failed: ${error.message}`));
    return true;
  }

  readAgents(): Promise<SteeringAgents & { keyboard: InstanceId }> {
    return this.steering.readAgents().then((agents) => ({ ...agents, keyboard: -1 }));
  }

  describe(lines: string[], data: DOMStringMap): void {
    lines.push(`steering: ${this.steering.agentCount.toLocaleString('en-US')} agents, ${this.obstacles.length} pillars, ${this.selected.length} selected` +
      (this.selected.length ? ' (click the ground to send them)' : ' (click or Shift + drag to select)'));
    if (this.scene.backend === 'webgl2') lines.push(...GL_MISSING);
    else lines.push(this.controllers ? `animated by controllers: idle / walk / run at each agent's speed (walkSpeed ${this.speed})` : 'no controller config with locomotion: the walk clip plays at its own pace');
    data.agents = String(this.steering.agentCount);
    data.controlledAgents = String(this.controllers ? this.ids.length : 0);
    data.selectedAgents = String(this.selected.length);
    data.sentAgents = String(this.ordered.size);
  }

  dispose(clearCrowd: boolean): void {
    // Instances first (their agents go with them; setCount lays the pillars out again), then the
    // pillars: the steering stays with the crowd, and the next scene must find no obstacle.
    if (clearCrowd) this.resize(0);
    for (const o of this.obstacles) this.steering.removeObstacle(o);
    this.obstacles = [];
    this.pillars = [];
    this.selected = [];
  }

  /** Pillars for the plaza's size and each agent at its start, sent across. */
  private layOut(): void {
    const { crowd } = this.scene;
    const plaza = this.plaza;
    for (const o of this.obstacles) this.steering.removeObstacle(o);
    this.obstacles = [];
    this.pillars = [];
    const size = PILLAR_SIZE * this.height;
    for (let p = 0; p < PILLARS; p++) {
      const a = (2 * Math.PI * (p + 0.5)) / PILLARS;
      const cx = PILLAR_RING * plaza * Math.cos(a), cz = PILLAR_RING * plaza * Math.sin(a);
      const octagon: GroundPoint[] = [];
      for (let k = 0; k < 8; k++) octagon.push([cx + size * Math.cos((k * Math.PI) / 4), cz + size * Math.sin((k * Math.PI) / 4)]);
      this.obstacles.push(this.steering.addObstacle(octagon));
      this.pillars.push([cx, cz, size]);
    }
    // Two groups in blocks left and right of the plaza, each sent to the other's side.
    const spacing = 3 * this.radius;
    const perGroup = Math.ceil(this.ids.length / 2);
    const rows = Math.max(1, Math.ceil(Math.sqrt(perGroup * 0.6)));
    this.ids.forEach((id, i) => {
      const group = i % 2, k = Math.floor(i / 2);
      const column = Math.floor(k / rows), row = k % rows;
      const side = group === 0 ? -1 : 1;
      const x = side * (plaza * 0.55 + column * spacing);
      const z = (row - (rows - 1) / 2) * spacing;
      if (this.steering.hasAgent(id)) this.steering.removeAgent(id);
      crowd.setPlacement(id, x, 0, z, side < 0 ? Math.PI / 2 : -Math.PI / 2);
      const speed = this.controllers ? this.speed * (1 + PACE_SPREAD * (2 * (((i * 0.618034) % 1)) - 1)) : this.speed;
      this.steering.addAgent(id, { radius: this.radius, maxSpeed: speed * SPEED_MARGIN, preferredSpeed: speed, goal: [-x, z] });
    });
    this.ordered.clear();
    this.crossing = this.elapsed;
    this.select([]);
  }

  private select(ids: readonly InstanceId[]): void {
    const looks = this.scene.appearance.looks();
    const tintOf = (id: InstanceId) => GROUP_TINTS[this.ids.indexOf(id) % 2] ?? [1, 1, 1];
    for (const id of this.selected) if (this.steering.hasAgent(id)) looks.set(id, { tint: tintOf(id) });
    this.selected = [...ids];
    // Every agent by its index (its group): tintOf's search for each would be quadratic in the count.
    if (this.selected.length === 0) this.ids.forEach((id, i) => looks.set(id, { tint: GROUP_TINTS[i % 2] }));
    for (const id of this.selected) looks.set(id, { tint: SELECTED_TINT });
  }

  /** Sends the selected agents to `point`, spread on a sunflower around it (they cannot all stand on one point). */
  private send(point: GroundPoint): void {
    const step = 2.4 * this.radius;
    this.selected.forEach((id, i) => {
      if (!this.steering.hasAgent(id)) return;
      const r = step * Math.sqrt(i), a = i * 2.39996;
      this.steering.setGoal(id, [point[0] + r * Math.cos(a), point[1] + r * Math.sin(a)]);
      this.ordered.add(id);
    });
  }
}

const inverse = new Float32Array(16);

/** Where the ray through (x, y) (CSS pixels) meets the ground y = 0, or undefined. */
function groundPoint(x: number, y: number, camera: PickCamera): GroundPoint | undefined {
  const m = mat4.inverse(Float32Array.from(camera.viewProjection), inverse);
  const nx = (2 * x) / camera.width - 1, ny = 1 - (2 * y) / camera.height;
  const at = (z: number): number[] => {
    const v = [0, 1, 2, 3].map((r) => m[r] * nx + m[4 + r] * ny + m[8 + r] * z + m[12 + r]);
    return [v[0] / v[3], v[1] / v[3], v[2] / v[3]];
  };
  const near = at(0), far = at(1);
  const dy = far[1] - near[1];
  if (Math.abs(dy) < 1e-9) return undefined;
  const t = -near[1] / dy;
  if (t < 0) return undefined;
  return [near[0] + t * (far[0] - near[0]), near[2] + t * (far[2] - near[2])];
}
