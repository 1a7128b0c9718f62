/**
 * Steering scenarios run on the TypeScript twin of the GPU step (src/features/steering/step.ts):
 * the circle swap, two groups crossing in a corridor, a crowd through a door, with the numbers
 * docs/steering.md reports: closest approach, pairs that overlapped, time to goal, agents short of
 * their goal. Used by test/features/steering/scenarios.test.ts and `npm run bench -- --section steering`.
 */
import { AGENT_STATE } from '../src/features/steering/layout';
import { SteeringModel } from '../src/features/steering/model';
import { checkAgentOptions, checkPolygon } from '../src/features/steering/options';
import { distSqToSegment } from '../src/features/steering/orca';
import { stepSteering, tableSizeFor } from '../src/features/steering/step';
import type { CrowdSteeringOptions, GroundPoint, SteeringAgentOptions } from '../src/features/steering/types';
import { STEERING_PARAMS } from '../src/features/steering/layout';

/** Column-major placement at (x, 0, z) facing `heading` about +y. */
export function placementAt(x: number, z: number, heading = 0): Float32Array {
  const c = Math.cos(heading), s = Math.sin(heading);
  return Float32Array.of(c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, x, 0, z, 1);
}

/** What a scenario measured. */
export interface SceneReport {
  agents: number;
  steps: number;
  /** Smallest centre distance over the sum of radii, over every pair and step (>= 1: never overlapped). */
  closestApproach: number;
  /** Distinct pairs that overlapped by more than 1% of their radii sum at some step. */
  overlappingPairs: number;
  /** Seconds until the last agent that arrived did (within its radius of its goal). */
  timeToGoal: number;
  /** Mean seconds to arrive over the agents that did. */
  meanTimeToGoal: number;
  /** Agents farther than their radius (or the scene's arriveWithin) from their goal at the end. */
  shortOfGoal: number;
  /** Smallest distance of an agent's centre to an obstacle segment over its radius, over every agent and step (>= 1: never inside; Infinity without obstacles). */
  closestToObstacle: number;
  /** Agents whose disc came within 0.99 of its radius of an obstacle segment, or whose centre crossed one, at some step. */
  agentsInObstacles: number;
  /** Steps in which some agent with a goal moved slower than 1% of its preferred speed while short of its goal (the most, over agents). */
  stalledSteps: number;
}

/** A scene on the twin: agents by handle 0, 1, ... and their motion in AGENT_STATE bytes. */
export class TwinScene {
  readonly model: SteeringModel;
  states = new ArrayBuffer(0);
  private readonly radii: number[] = [];
  private readonly goals: (GroundPoint | null)[] = [];
  private readonly prefSpeeds: number[] = [];
  time = 0;
  steps = 0;
  arrival: number[] = [];
  stalled: number[] = [];
  closest = Infinity;
  readonly overlapped = new Set<number>();
  closestToObstacle = Infinity;
  readonly inObstacles = new Set<number>();
  private readonly segments: number[][] = [];
  private previous = new Float32Array(0);

  /**
   * @param arriveWithin An agent has arrived within this distance of its goal (default: its radius;
   *   more where many share one goal point, which they cannot all stand on).
   */
  constructor(options: CrowdSteeringOptions = {}, readonly arriveWithin?: number) {
    this.model = new SteeringModel(options);
  }

  add(x: number, z: number, options: SteeringAgentOptions, heading = 0): number {
    const handle = this.radii.length;
    const settings = checkAgentOptions(options);
    this.model.add(handle, settings, placementAt(x, z, heading));
    this.radii.push(settings.radius);
    this.goals.push(settings.goal);
    this.prefSpeeds.push(settings.preferredSpeed);
    this.arrival.push(NaN);
    this.stalled.push(0);
    return handle;
  }

  obstacle(vertices: GroundPoint[]): number {
    const flat = checkPolygon(vertices);
    const n = flat.length / 2;
    for (let i = 0; i < (n === 2 ? 1 : n); i++) {
      const j = (i + 1) % n;
      this.segments.push([flat[2 * i], flat[2 * i + 1], flat[2 * j], flat[2 * j + 1]]);
    }
    return this.model.addObstacle(flat);
  }

  /** One step of `dt` seconds, then the measurements. */
  step(dt: number): void {
    const handles = this.model.handleLimit;
    if (this.states.byteLength < handles * AGENT_STATE.size) {
      const grown = new ArrayBuffer(handles * AGENT_STATE.size);
      new Uint8Array(grown).set(new Uint8Array(this.states));
      this.states = grown;
    }
    this.model.advanceFields(); // as CrowdSteering.prepare does each frame
    const params = this.model.writeParams(dt);
    const view = new DataView(params);
    view.setUint32(STEERING_PARAMS.handleCount, handles, true);
    view.setUint32(STEERING_PARAMS.tableSize, tableSizeFor(handles), true);
    stepSteering({ agents: this.model.agents, states: this.states, obstacles: this.model.obstacles, fields: this.model.fields, params, projectionIterations: this.model.settings.projectionIterations });
    this.time += dt;
    this.steps++;
    this.measure();
  }

  /** (x, z) of agent `handle` now. */
  position(handle: number): [number, number] {
    const s = new Float32Array(this.states, handle * AGENT_STATE.size, 2);
    return [s[0], s[1]];
  }

  velocity(handle: number): [number, number] {
    const s = new Float32Array(this.states, handle * AGENT_STATE.size, 4);
    return [s[2], s[3]];
  }

  private measure(): void {
    const n = this.radii.length;
    const s = new Float32Array(this.states);
    const S = AGENT_STATE.size / 4;
    for (let i = 0; i < n; i++) {
      const x = s[i * S], z = s[i * S + 1];
      for (const [ax, az, bx, bz] of this.segments) {
        const ratio = Math.sqrt(distSqToSegment(ax, az, bx, bz, x, z)) / this.radii[i];
        if (ratio < this.closestToObstacle) this.closestToObstacle = ratio;
        const crossed = this.steps > 1 && segmentsCross(this.previous[2 * i], this.previous[2 * i + 1], x, z, ax, az, bx, bz);
        if (ratio < 0.99 || crossed) this.inObstacles.add(i);
      }
    }
    if (this.previous.length < 2 * n) this.previous = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) { this.previous[2 * i] = s[i * S]; this.previous[2 * i + 1] = s[i * S + 1]; }
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const d = Math.hypot(s[i * S] - s[j * S], s[i * S + 1] - s[j * S + 1]);
        const ratio = d / (this.radii[i] + this.radii[j]);
        if (ratio < this.closest) this.closest = ratio;
        if (ratio < 0.99) this.overlapped.add(i * n + j);
      }
      const goal = this.goals[i];
      if (!goal) continue;
      const away = Math.hypot(s[i * S] - goal[0], s[i * S + 1] - goal[1]);
      if (away <= (this.arriveWithin ?? this.radii[i])) {
        if (Number.isNaN(this.arrival[i])) this.arrival[i] = this.time;
      } else if (Math.hypot(s[i * S + 2], s[i * S + 3]) < 0.01 * this.prefSpeeds[i]) {
        this.stalled[i]++;
      }
    }
  }

  report(): SceneReport {
    const arrived = this.arrival.filter((t) => !Number.isNaN(t));
    const s = new Float32Array(this.states);
    const S = AGENT_STATE.size / 4;
    let short = 0;
    this.goals.forEach((goal, i) => {
      if (goal && Math.hypot(s[i * S] - goal[0], s[i * S + 1] - goal[1]) > (this.arriveWithin ?? this.radii[i])) short++;
    });
    return {
      agents: this.radii.length,
      steps: this.steps,
      closestApproach: this.closest,
      overlappingPairs: this.overlapped.size,
      closestToObstacle: this.closestToObstacle,
      agentsInObstacles: this.inObstacles.size,
      timeToGoal: arrived.length ? Math.max(...arrived) : NaN,
      meanTimeToGoal: arrived.length ? arrived.reduce((a, b) => a + b, 0) / arrived.length : NaN,
      shortOfGoal: short,
      stalledSteps: Math.max(0, ...this.stalled),
    };
  }
}

/** Whether segment p0-p1 crosses segment a-b (each strictly on both sides of the other's line). */
function segmentsCross(p0x: number, p0z: number, p1x: number, p1z: number, ax: number, az: number, bx: number, bz: number): boolean {
  const side = (ox: number, oz: number, ux: number, uz: number, px: number, pz: number): number => Math.sign((ux - ox) * (pz - oz) - (uz - oz) * (px - ox));
  return side(ax, az, bx, bz, p0x, p0z) * side(ax, az, bx, bz, p1x, p1z) < 0 && side(p0x, p0z, p1x, p1z, ax, az) * side(p0x, p0z, p1x, p1z, bx, bz) < 0;
}

/** The usual agent of these scenes: 0.3 m radius, walking at 1.3 m/s, at most 1.8 m/s. */
const WALKER = { radius: 0.3, maxSpeed: 1.8, preferredSpeed: 1.3 } as const;

/** `count` agents evenly on a circle of `radius` metres, each sent to the opposite point. */
export function circleSwap(count = 24, radius = 6, options: CrowdSteeringOptions = {}): TwinScene {
  const scene = new TwinScene(options);
  for (let i = 0; i < count; i++) {
    const a = (2 * Math.PI * i) / count;
    const x = radius * Math.cos(a), z = radius * Math.sin(a);
    scene.add(x, z, { ...WALKER, goal: [-x, -z] });
  }
  return scene;
}

/** Two groups of `perGroup` walking opposite ways down a corridor 4 m wide and 24 m long (walls at z = +-2). */
export function corridorCrossing(perGroup = 12, options: CrowdSteeringOptions = {}): TwinScene {
  const scene = new TwinScene(options);
  scene.obstacle([[-14, 2], [14, 2]]);
  scene.obstacle([[-14, -2], [14, -2]]);
  for (let i = 0; i < perGroup; i++) {
    const row = i % 4, column = Math.floor(i / 4);
    const z = -1.2 + row * 0.8;
    scene.add(-10 - column * 0.8, z, { ...WALKER, goal: [10 + column * 0.8, z] });
    scene.add(10 + column * 0.8, z, { ...WALKER, goal: [-10 - column * 0.8, z] }, Math.PI);
  }
  return scene;
}

/**
 * A room 12 m wide whose wall at x = 0 has a door 1.2 m wide, off to one side (z in [3, 4.2]);
 * `count` agents start in a block left of it and head for a goal right of the wall, level with the
 * block's middle, so walking straight presses them against the wall: with `flowField` they find the door.
 * They share the goal point, so an agent has arrived within 2.5 m of it.
 */
export function bottleneck(count = 30, flowField = true, scale = 1, options: CrowdSteeringOptions = {}): TwinScene {
  const half = 6 * scale;
  // cellsPerFrame Infinity: the field from the first step, as these numbers were measured (sliced,
  // the 64 x 64 field takes 2 steps, in which the agents head straight for the goal).
  const field: CrowdSteeringOptions = flowField ? { flowField: { min: [-half - 2, -half - 2], max: [half + 2, half + 2], cellSize: 0.25 * scale, clearance: 0.3, cellsPerFrame: Infinity } } : {};
  const scene = new TwinScene({ ...options, ...field }, 2.5);
  const door0 = 3 * scale, door1 = 3 * scale + 1.2;
  scene.obstacle([[0, -half], [0, door0]]);
  scene.obstacle([[0, door1], [0, half]]);
  scene.obstacle([[-half, -half], [half, -half]]);
  scene.obstacle([[-half, half], [half, half]]);
  const columns = Math.ceil(Math.sqrt(count));
  for (let i = 0; i < count; i++) {
    const x = -1 - (i % columns) * 0.75, z = -2 + Math.floor(i / columns) * 0.75;
    scene.add(x, z, { ...WALKER, goal: [4 * scale, 0] });
  }
  return scene;
}

/** Runs `scene` for up to `seconds` at `dt`, stopping early once every agent with a goal arrived. */
export function runScene(scene: TwinScene, seconds: number, dt = 1 / 20): SceneReport {
  const steps = Math.round(seconds / dt);
  for (let i = 0; i < steps; i++) {
    scene.step(dt);
    if (i % 20 === 19 && scene.report().shortOfGoal === 0) break;
  }
  return scene.report();
}
