import { quatd } from 'wgpu-matrix';
import {
  ANKLE_HEIGHT, X, Y, Z, axisAngle, curve, ease, mul, plantLeg, poseArm, restWalkerPose, smoothstep, swingAxis, type WalkerPose,
} from './pose';
import { REST_HIPS_HEIGHT, jointIndex, type Vec3 } from './skeleton';

/**
 * The Walker's clips, keyed procedurally: Idle; a walk and a run in each of the eight directions
 * the controller config knows (forward, forward-right, right, ..., relative to the facing +z;
 * the character's right is -x); Wave and Jump. Gaits carry root motion: the Hips travel at the
 * gait's speed along its direction, so a clip's cycle displacement is speed x duration.
 */

export interface ClipSpec {
  name: string;
  /** Seconds. */
  duration: number;
  /** Keys per second (every clip has a key at 0 and at its duration). */
  fps: number;
  pose(t: number): WalkerPose;
}

/** Directions in the order of the controller config's DIRECTIONS, as clip-name parts and unit vectors (x, z). */
export const DIRECTION_NAMES = ['Forward', 'ForwardRight', 'Right', 'BackRight', 'Back', 'BackLeft', 'Left', 'ForwardLeft'] as const;

/** Unit direction k (k * 45 degrees clockwise from forward, seen from above): forward +z, right -x. */
export function directionVector(k: number): Vec3 {
  const angle = (k * Math.PI) / 4;
  // Round away float dust (cos(pi/2) = 6e-17) so that the keys of the cardinal gaits are exact.
  const clean = (v: number) => (Math.abs(v) < 1e-12 ? 0 : v);
  return [clean(-Math.sin(angle)), 0, clean(Math.cos(angle))];
}

export interface Gait {
  /** Metres per second along the direction. */
  speed: number;
  /** Seconds per cycle (two steps) walking forward or back (see gaitPeriod). */
  period: number;
  /** Fraction of the cycle a foot is on the ground. */
  stance: number;
  /** Swing-foot lift, metres. */
  lift: number;
  /** Hips height at mid-stance and its dip (walk: at double support; run: a bounce), metres. */
  height: number;
  bob: number;
  /** Forward lean (radians), arm swing amplitude (radians), elbow bend (radians), side sway (metres). */
  lean: number;
  armSwing: number;
  elbow: number;
  sway: number;
}

/** Walk at 1.2 m/s (the controller's walkSpeed) and run at twice that, as the locomotion blend expects. */
export const WALK: Gait = { speed: 1.2, period: 1, stance: 0.55, lift: 0.07, height: 0.93, bob: 0.06, lean: 0.05, armSwing: 0.35, elbow: 0.25, sway: 0.02 };
export const RUN: Gait = { speed: 2.4, period: 0.7, stance: 0.35, lift: 0.2, height: 0.86, bob: 0.04, lean: 0.18, armSwing: 0.6, elbow: 1.4, sway: 0 };

/**
 * Seconds per cycle of a gait in `direction`: shorter steps (a quicker cadence) the more sideways
 * it goes, at the same speed, since sideways strides cannot be long. Whole frames at 30 fps, so
 * every key lies on one grid: walk 1, 0.733, 0.6 s; run 0.7, 0.533, 0.433 s (forward, diagonal, sideways).
 */
export function gaitPeriod(g: Gait, direction: Vec3): number {
  return Math.round(g.period * (1 - 0.4 * Math.abs(direction[0])) * 30) / 30;
}

const TWIST = 0.07; // pelvis twist amplitude when walking forward, radians

/**
 * The gait's pose at time t (seconds, 0..period): the left foot touches down at t = 0 (ahead
 * of its hip by half the stance stride), the right half a cycle later. Planted feet stay put in
 * model space while the Hips move on, so feet do not slide when the clip's root motion is
 * applied (or when an in-place clip is moved at the gait's speed).
 */
export function gaitPose(g: Gait, direction: Vec3, t: number): WalkerPose {
  const pose = restWalkerPose();
  const period = gaitPeriod(g, direction);
  const u = t / period;
  const [dx, , dz] = direction;
  const half = (g.speed * g.stance * period) / 2; // the foot's travel relative to the hips during stance, each way
  const midStance = u - g.stance / 2;
  const height = g.sway > 0
    ? g.height - (g.bob * (1 - Math.cos(4 * Math.PI * midStance))) / 2 // walk: high over the planted leg
    : g.height - g.bob * Math.cos(4 * Math.PI * midStance); // run: low at mid-stance, high in flight
  const travelled = g.speed * t;
  pose.hips = [travelled * dx + g.sway * Math.cos(2 * Math.PI * midStance), height, travelled * dz];
  const twist = -TWIST * dz * Math.cos(2 * Math.PI * u);
  pose.rotations[0] = mul(axisAngle(swingAxis(Y, direction), g.lean), axisAngle(Y, twist));
  pose.rotations[jointIndex('Chest')] = axisAngle(Y, -1.6 * twist);
  // The neck undoes the lean and twist so the head looks ahead.
  pose.rotations[jointIndex('Neck')] = quatd.conjugate(mul(pose.rotations[0], pose.rotations[jointIndex('Chest')]));

  // Sideways the feet stand wider apart, so that they do not cross.
  const width = 0.1 + 0.1 * Math.abs(dx);
  for (const [side, offset, x] of [['L', 0, width], ['R', 0.5, -width]] as const) {
    const phase = (u + offset) % 1;
    let along: number;
    let lift = 0;
    let around = 0;
    let pitch = 0;
    if (phase < g.stance) {
      along = half * (1 - (2 * phase) / g.stance);
    } else {
      const s = (phase - g.stance) / (1 - g.stance);
      along = -half - g.speed * s * (1 - g.stance) * period + g.speed * period * ease(s);
      lift = g.lift * Math.sin(Math.PI * s);
      around = 0.06 * Math.abs(dx) * Math.sin(Math.PI * s); // a sideways swing passes in front of the other foot
      pitch = 0.35 * Math.sin(2 * Math.PI * s); // toes down after push-off, up before touch-down
    }
    const ankle: Vec3 = [travelled * dx + x + along * dx, ANKLE_HEIGHT + lift, travelled * dz + along * dz + around];
    plantLeg(pose, side, ankle, axisAngle(X, pitch));
    // Each arm swings against its own leg, along the direction of travel (less when sideways).
    const swing = g.armSwing * (Math.abs(dz) + 0.25 * Math.abs(dx)) * -Math.cos(2 * Math.PI * (u + offset));
    poseArm(pose, side, 0.1 + 0.1 * g.lean, swing, direction, g.elbow + 0.3 * Math.max(0, swing));
  }
  return pose;
}

const IDLE_PERIOD = 3;

/** Standing, breathing, looking about: a 3 s loop. */
export function idlePose(t: number): WalkerPose {
  const pose = restWalkerPose();
  const breath = Math.sin((2 * Math.PI * t) / IDLE_PERIOD);
  pose.hips = [0, REST_HIPS_HEIGHT - 0.02 + 0.004 * breath, 0];
  pose.rotations[jointIndex('Spine')] = axisAngle(X, 0.02 * breath);
  pose.rotations[jointIndex('Chest')] = axisAngle(X, -0.015 * breath);
  pose.rotations[jointIndex('Neck')] = axisAngle(Y, 0.15 * Math.sin((2 * Math.PI * t) / IDLE_PERIOD + 1));
  for (const [side, x] of [['L', 0.12], ['R', -0.12]] as const) {
    plantLeg(pose, side, [x, ANKLE_HEIGHT, 0], quatd.identity());
    poseArm(pose, side, 0.1, 0.03 * breath, Z, 0.2);
  }
  return pose;
}

/** A wave of the right hand over the idle pose (2.4 s, played once; masked to the upper body by the controller config). */
export function wavePose(t: number): WalkerPose {
  const pose = idlePose(t);
  const raised = smoothstep(0, 0.4, t) * (1 - smoothstep(2, 2.4, t));
  const arm = jointIndex('UpperArm.R');
  // Up and out to the side (about -z lifts the right arm), a little forward.
  pose.rotations[arm] = mul(axisAngle([0, 0, -1], 2.5 * raised), axisAngle([-1, 0, 0], 0.3 * raised), pose.rotations[arm]);
  pose.rotations[arm + 1] = axisAngle([0, 0, -1], raised * (0.5 + 0.45 * Math.sin(2 * Math.PI * 2.5 * t)));
  pose.rotations[jointIndex('Neck')] = axisAngle([0, 0, 1], 0.12 * raised);
  return pose;
}

const JUMP_TAKEOFF = 0.5;
const JUMP_LANDING = 0.9;

/** A standing jump (1.3 s, played once): crouch, push, 0.35 m of flight with the legs tucked, landing, recovery. */
export function jumpPose(t: number): WalkerPose {
  const pose = restWalkerPose();
  const stand = REST_HIPS_HEIGHT - 0.02;
  const takeoff = REST_HIPS_HEIGHT + 0.005;
  const flying = t > JUMP_TAKEOFF && t < JUMP_LANDING;
  const s = (t - JUMP_TAKEOFF) / (JUMP_LANDING - JUMP_TAKEOFF);
  const height = flying
    ? takeoff + 4 * 0.35 * s * (1 - s)
    : curve([[0, stand], [0.35, stand - 0.22], [JUMP_TAKEOFF, takeoff], [JUMP_LANDING, takeoff], [1.05, stand - 0.18], [1.3, stand]], t);
  pose.hips = [0, height, 0];
  const lean = curve([[0, 0], [0.35, 0.35], [JUMP_TAKEOFF, 0.05], [JUMP_LANDING, 0.05], [1.05, 0.25], [1.3, 0]], t);
  pose.rotations[0] = axisAngle(X, lean);
  pose.rotations[jointIndex('Neck')] = axisAngle(X, -0.6 * lean);
  const tuck = flying ? 0.2 * Math.sin(Math.PI * s) : 0;
  const footHeight = flying ? ANKLE_HEIGHT + height - takeoff + tuck : ANKLE_HEIGHT;
  const arms = curve([[0, 0], [0.35, -0.7], [0.55, 2.6], [0.8, 2], [1.3, 0]], t);
  for (const [side, x] of [['L', 0.12], ['R', -0.12]] as const) {
    plantLeg(pose, side, [x, footHeight, 0], axisAngle(X, flying ? 0.3 * Math.sin(Math.PI * s) : 0));
    poseArm(pose, side, 0.15, arms, Z, 0.3);
  }
  return pose;
}

/** Every clip of the Walker, in file order. */
export function walkerClips(): ClipSpec[] {
  const gaits = (prefix: string, g: Gait): ClipSpec[] => DIRECTION_NAMES.map((name, k) => ({
    name: `${prefix}${name}`, duration: gaitPeriod(g, directionVector(k)), fps: g === RUN ? 60 : 30, pose: (t: number) => gaitPose(g, directionVector(k), t),
  }));
  return [
    { name: 'Idle', duration: IDLE_PERIOD, fps: 10, pose: idlePose },
    ...gaits('Walk', WALK),
    ...gaits('Run', RUN),
    { name: 'Wave', duration: 2.4, fps: 20, pose: wavePose },
    { name: 'Jump', duration: 1.3, fps: 30, pose: jumpPose },
  ];
}

export { Z };
