import type { AnimationController, ControllerConfig, LocomotionReadback } from '../../src/index';
import { Random } from '../random';

/** Seconds between a wanderer's decisions: uniform in [MIN, MIN + SPREAD). */
const DECIDE_MIN = 2;
const DECIDE_SPREAD = 4;
/** Chances of each decision. */
const ACTION_CHANCE = 0.22;
const IDLE_CHANCE = 0.12;
const RUN_CHANCE = 0.2;
/** Radians of random swing around the way back to the centre. */
const RETURN_SWING = 0.7;
/** With directional clips (blendSpace "2d"): chance that a move keeps the current facing (a strafe, backpedal or diagonal). */
const STRAFE_CHANCE = 0.5;

/**
 * Where a wanderer's decisions go besides its controller: goals of a steering agent (the
 * locomotion scene with CrowdSteering, whose motion the controller then animates).
 */
export interface WanderSteer {
  /** Wanderer i, at (x, z), heads along (dx, dz) (length: the pace, at most 1), running or walking. */
  go(i: number, x: number, z: number, dx: number, dz: number, running: boolean): void;
  /** Wanderer i stands (and still steps aside). */
  stand(i: number): void;
}

/**
 * Autonomous wandering for animation controllers: every few seconds each wanderer picks a new
 * direction and pace (walk, run, or stand), and sometimes an action the controller config allows
 * from locomotion. A wanderer outside `radius` of the origin that is moving outward turns back
 * toward the centre. Full-body actions (no mask) stop the wanderer while they play; upper-body
 * ones play on the move. With directional clips (a "2d" locomotion blend space) half the moves
 * keep the wanderer's facing, so it strafes, backpedals and walks diagonally; the others face
 * the way they go. The scene looks at each wanderer only now and then (update() takes the
 * seconds since its last look), with its locomotion as read back from the GPU for GPU-driven
 * wanderers, so the crowd's CPU cost follows its decisions. State lives in typed arrays;
 * update() allocates nothing. With `steer` set, each decision also goes there (a steering goal:
 * a steered controller ignores its own locomotion input, which is kept for when it is no agent).
 */
export class Wander {
  /** Area radius, world units. */
  radius = 1;
  /** Where decisions also go (steering goals), or undefined. */
  steer: WanderSteer | undefined;
  private timer = new Float32Array(0);
  private readonly random: Random;
  /** Actions reachable from locomotion, and whether each is full-body. */
  private readonly actions: string[];
  private readonly fullBody: boolean[];
  /** Whether the config has clips for moving sideways and back (blendSpace "2d"). */
  private readonly directional: boolean;
  /** Whether the config has locomotion (without it a wanderer has nothing to decide). */
  private readonly moves: boolean;

  constructor(config: ControllerConfig, seed = 0x3a4d) {
    this.directional = config.locomotion?.blendSpace === '2d';
    this.moves = config.locomotion !== null;
    this.random = new Random(seed);
    const allowed = config.actions.filter((a) => config.transitions.has(`locomotion->${a.name}`));
    this.actions = allowed.map((a) => a.name);
    this.fullBody = allowed.map((a) => a.mask < 0);
  }

  /** Makes room for wanderers [0, capacity). */
  reserve(capacity: number): void {
    if (capacity <= this.timer.length) return;
    const next = new Float32Array(capacity);
    next.set(this.timer);
    this.timer = next;
  }

  /** Wanderer i decides soon (staggered, so a new crowd does not decide all at once). */
  start(i: number): void {
    this.timer[i] = this.random.next() * DECIDE_MIN;
  }

  /** Looks at wanderer i `elapsed` seconds after the last look; `state` is where it is (x, z, velocity). */
  update(i: number, c: AnimationController, state: LocomotionReadback, elapsed: number): void {
    if (!this.moves) return;
    this.timer[i] -= elapsed;
    const x = state.x;
    const z = state.z;
    const outside = x * x + z * z > this.radius * this.radius;
    const leaving = outside && state.velocityX * x + state.velocityZ * z > 0;
    if (this.timer[i] > 0 && !leaving) return;
    if (c.action >= 0 && this.fullBodyAction(c)) {
      // Stand still until the full-body action is over, then decide again.
      this.timer[i] = 0.5;
      return;
    }
    this.timer[i] = DECIDE_MIN + DECIDE_SPREAD * this.random.next();
    const r = this.random;
    if (outside) {
      const angle = Math.atan2(-x, -z) + (r.next() * 2 - 1) * RETURN_SWING;
      this.chooseFacing(c, state.heading);
      c.move(Math.sin(angle), Math.cos(angle), false);
      this.steer?.go(i, x, z, Math.sin(angle), Math.cos(angle), false);
      return;
    }
    if (this.actions.length > 0 && r.next() < ACTION_CHANCE) {
      const k = r.index(this.actions.length);
      if (this.fullBody[k]) {
        c.stop();
        this.steer?.stand(i);
      }
      if (c.requestAction(this.actions[k])) return;
    }
    const pick = r.next();
    if (pick < IDLE_CHANCE) {
      c.stop();
      this.steer?.stand(i);
      return;
    }
    const angle = r.next() * 2 * Math.PI;
    const running = pick > 1 - RUN_CHANCE;
    // Walkers vary their pace (a direction shorter than 1 scales the speed).
    const pace = running ? 1 : 0.6 + 0.4 * r.next();
    this.chooseFacing(c, state.heading);
    c.move(Math.sin(angle) * pace, Math.cos(angle) * pace, running);
    this.steer?.go(i, x, z, Math.sin(angle) * pace, Math.cos(angle) * pace, running);
  }

  /** Directional configs: keep looking where the wanderer looks now (and move any way), or face the movement. */
  private chooseFacing(c: AnimationController, heading: number): void {
    if (!this.directional) return;
    c.face(this.random.next() < STRAFE_CHANCE ? heading : null);
  }

  private fullBodyAction(c: AnimationController): boolean {
    return c.runtime.config.actions[c.action].mask < 0;
  }
}
