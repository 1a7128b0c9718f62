import type { CrowdSteering, InstanceId } from '../../src/index';
import type { WanderSteer } from './wander';

/**
 * Wanderers are steered up to this many. The step is O(agents) on the GPU (docs/steering.md:
 * about a fifth of the pose pass at 10,000 and 100,000 agents) but making them agents is an
 * event each, and a crowd of a million would spend more on avoidance than on animation: above
 * this count the wanderers are no agents and walk through each other as before.
 */
export const STEERED_WANDERERS_MAX = 100_000;
/** Pace of a wanderer that joins, until its first decision, in walkSpeed units. */
const JOIN_PACE = 0.8;
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

  /**
   * A goal ahead along (dx, dz) at the decision's pace: the length of (dx, dz) (at most 1) x
   * walkSpeed walking, twice walkSpeed running (as AnimationController.move takes it). The agent's
   * speeds change in place (setAgentOptions), so it goes on from where it is.
   */
  go(i: number, x: number, z: number, dx: number, dz: number, running = false): void {
    const length = Math.hypot(dx, dz) || 1;
    this.head(i, x, z, dx / length, dz / length, (running ? 2 : Math.min(length, 1)) * this.walkSpeed);
  }

  /** Wanderer i keeps going the way it went at velocity (vx, vz), units per second (a wanderer that joins on the move). */
  goOn(i: number, x: number, z: number, vx: number, vz: number): void {
    const speed = Math.hypot(vx, vz);
    if (speed > 0) this.head(i, x, z, vx / speed, vz / speed, Math.min(speed, 2 * this.walkSpeed));
  }

  /** A goal GOAL_AHEAD_SECONDS ahead along the unit direction (ux, uz) at `speed`, units per second. */
  private head(i: number, x: number, z: number, ux: number, uz: number, speed: number): void {
    const id = this.ids[i];
    if (!this.on || !this.steering.hasAgent(id)) return;
    this.steering.setAgentOptions(id, { maxSpeed: SPEED_MARGIN * speed, preferredSpeed: speed });
    const ahead = GOAL_AHEAD_SECONDS * speed;
    this.steering.setGoal(id, [x + ux * ahead, z + uz * ahead]);
  }

  stand(i: number): void {
    const id = this.ids[i];
    if (this.on && this.steering.hasAgent(id)) this.steering.setGoal(id, null);
  }

  /**
   * Makes a wanderer (instance `id`, placed where it stands) an agent, standing: a wanderer
   * (at JOIN_PACE until its first decision), or the keyboard's character (`keyboard`: it cannot move, its controller places it).
   */
  join(id: InstanceId, keyboard: boolean): void {
    if (this.steering.hasAgent(id)) this.steering.removeAgent(id);
    if (keyboard) {
      this.steering.addAgent(id, { radius: KEYBOARD_RADIUS * this.radius, maxSpeed: 0 });
      return;
    }
    const speed = JOIN_PACE * this.walkSpeed;
    this.steering.addAgent(id, { radius: this.radius, maxSpeed: SPEED_MARGIN * speed, preferredSpeed: speed });
  }

  /** Instance `id` is no agent any more (if it was one): its controller moves it from where it stands. */
  leave(id: InstanceId): void {
    if (this.steering.hasAgent(id)) this.steering.removeAgent(id);
  }
}
