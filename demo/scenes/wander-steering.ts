import type { CrowdSteering, InstanceId } from '../../src/index';
import type { WanderSteer } from './wander';

/**
 * Wanderers are steered up to this many. The step is O(agents) on the GPU (docs/steering.md:
 * about a fifth of the pose pass at 10,000 and 100,000 agents) but making them agents is an
 * event each, and a crowd of a million would spend more on avoidance than on animation: above
 * this count the wanderers are no agents and walk through each other as before.
 */
export const STEERED_WANDERERS_MAX = 100_000;
/** Share of wanderers that run (steering keeps an agent's speed for its life: each has one pace). */
const RUNNER_SHARE = 0.15;
/** maxSpeed over preferredSpeed: the room avoidance has to speed a wanderer up. */
const SPEED_MARGIN = 1.4;
/** A wanderer's goal lies this many seconds ahead at its pace (beyond its next decision, 2 to 6 s away). */
const GOAL_AHEAD_SECONDS = 8;
/**
 * The keyboard character's disc over a wanderer's. Steering sees it standing (each placement
 * restarts it with no velocity) and ORCA leaves a wanderer half the avoidance: at 1.5 times a
 * wanderer's radius, wanderers came within 0.44 m (centres) of a keyboard character walking into
 * a crowd of 200; at twice, 0.66 m, bodies apart (SwiftShader e2e run, 0.32 m radius).
 */
const KEYBOARD_RADIUS = 2;

/** Pace of wanderer i, in walkSpeed units: a fixed pick per index (0.6 to 1 walking, 2 running). */
function paceOf(i: number): number {
  const u = (Math.imul(i + 1, 0x9e3779b1) >>> 0) / 2 ** 32;
  return u < RUNNER_SHARE ? 2 : 0.6 + (0.4 * (u - RUNNER_SHARE)) / (1 - RUNNER_SHARE);
}

/**
 * The locomotion scene's wanderers as agents of CrowdSteering (docs/steering.md): each wander
 * decision becomes a goal (a point ahead in the chosen direction, or none to stand), steering
 * moves the agents around each other on the GPU and their GPU-driven controllers animate that
 * motion. The keyboard's character (a CPU-driven controller, which places it every frame) is an
 * agent that cannot move (maxSpeed 0): each placement restarts it there, standing, so the
 * wanderers see it where it is and step aside, while its controller alone moves it. Events
 * only: nothing per wanderer per frame.
 */
export class WanderSteering implements WanderSteer {
  /** Whether the wanderers are agents now (the scene turns it off above STEERED_WANDERERS_MAX). */
  on = false;
  /** Instance id of each wanderer (the scene's array, handed over again when it grows). */
  ids = new Int32Array(0);

  /**
   * @param steering the crowd's steering
   * @param walkSpeed the controller config's walkSpeed, units per second
   * @param radius an agent's radius, world units
   */
  constructor(readonly steering: CrowdSteering, private readonly walkSpeed: number, private readonly radius: number) {}

  /** A goal ahead along (dx, dz); `running` is not used: steering keeps an agent's pace (paceOf) for its life. */
  go(i: number, x: number, z: number, dx: number, dz: number, _running = false): void {
    const id = this.ids[i];
    if (!this.on || !this.steering.hasAgent(id)) return;
    const ahead = GOAL_AHEAD_SECONDS * paceOf(i) * this.walkSpeed;
    const length = Math.hypot(dx, dz) || 1;
    this.steering.setGoal(id, [x + (dx / length) * ahead, z + (dz / length) * ahead]);
  }

  stand(i: number): void {
    const id = this.ids[i];
    if (this.on && this.steering.hasAgent(id)) this.steering.setGoal(id, null);
  }

  /**
   * Makes wanderer i (instance `id`, placed where it stands) an agent, standing: a wanderer at
   * its pace, or the keyboard's character (`keyboard`: it cannot move, its controller places it).
   */
  join(i: number, id: InstanceId, keyboard: boolean): void {
    if (this.steering.hasAgent(id)) this.steering.removeAgent(id);
    if (keyboard) {
      this.steering.addAgent(id, { radius: KEYBOARD_RADIUS * this.radius, maxSpeed: 0 });
      return;
    }
    const speed = paceOf(i) * this.walkSpeed;
    this.steering.addAgent(id, { radius: this.radius, maxSpeed: SPEED_MARGIN * speed, preferredSpeed: speed });
  }

  /** Instance `id` is no agent any more (if it was one): its controller moves it from where it stands. */
  leave(id: InstanceId): void {
    if (this.steering.hasAgent(id)) this.steering.removeAgent(id);
  }
}
