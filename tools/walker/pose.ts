import { quatd, vec3d } from 'wgpu-matrix';
import { ANKLE_HEIGHT, JOINTS, SHIN, THIGH, jointIndex, type Vec3 } from './skeleton';

/**
 * Building blocks of the Walker's procedural poses: a pose type, quaternion shorthands, a
 * two-bone leg IK that plants an ankle at a world position, and the smooth curves the clips are
 * made of. Float64 throughout; the clips are written as float32 keys.
 */

export type Quat = Float64Array;

/** A pose of the Walker: the Hips translation (model space, metres) and every joint's local rotation. */
export interface WalkerPose {
  hips: Vec3;
  rotations: Quat[];
}

export function restWalkerPose(): WalkerPose {
  return { hips: [...JOINTS[0].offset] as Vec3, rotations: JOINTS.map(() => quatd.identity()) };
}

export const X: Vec3 = [1, 0, 0];
export const Y: Vec3 = [0, 1, 0];
export const Z: Vec3 = [0, 0, 1];

/** Rotation of `angle` radians about `axis` (normalised here; a zero axis gives the identity). */
export function axisAngle(axis: Vec3, angle: number): Quat {
  const length = Math.hypot(axis[0], axis[1], axis[2]);
  if (length < 1e-12) return quatd.identity();
  return quatd.fromAxisAngle([axis[0] / length, axis[1] / length, axis[2] / length], angle);
}

/** a * b * c * ... (the rightmost applies first). */
export function mul(...qs: Quat[]): Quat {
  return qs.reduce((acc, q) => quatd.multiply(acc, q));
}

export const rotate = (q: Quat, v: Vec3): Vec3 => Array.from(vec3d.transformQuat(v, q)) as Vec3;

/** The axis about which a positive rotation turns `from` toward `to` (from x to), for swinging limbs. */
export const swingAxis = (from: Vec3, to: Vec3): Vec3 => Array.from(vec3d.cross(from, to)) as Vec3;

/** 0 at s <= 0, 1 at s >= 1, zero velocity and acceleration at both ends. */
export function ease(s: number): number {
  const c = Math.min(1, Math.max(0, s));
  return c - Math.sin(2 * Math.PI * c) / (2 * Math.PI);
}

/** Smooth 0 -> 1 over [a, b]. */
export const smoothstep = (a: number, b: number, t: number): number => {
  const s = Math.min(1, Math.max(0, (t - a) / (b - a)));
  return s * s * (3 - 2 * s);
};

/** Piecewise cosine interpolation through control points [time, value] (times ascending). */
export function curve(points: readonly [number, number][], t: number): number {
  if (t <= points[0][0]) return points[0][1];
  for (let i = 1; i < points.length; i++) {
    const [t1, v1] = points[i];
    if (t <= t1) {
      const [t0, v0] = points[i - 1];
      const s = (1 - Math.cos((Math.PI * (t - t0)) / (t1 - t0))) / 2;
      return v0 + (v1 - v0) * s;
    }
  }
  return points[points.length - 1][1];
}

/**
 * Plants leg `side` ('L' or 'R') of `pose` so that its ankle is at `ankle` (model space) with the
 * foot's world rotation `foot`, given the pose's Hips translation and rotation: two-bone IK in
 * the Hips frame (law of cosines for the knee, which bends the shin back about the thigh's x axis;
 * the shortest arc for the hip). A target out of reach is approached with the leg straight.
 */
export function plantLeg(pose: WalkerPose, side: 'L' | 'R', ankle: Vec3, foot: Quat): void {
  const upper = jointIndex(`UpperLeg.${side}`);
  const hipsRotation = pose.rotations[0];
  const hipJoint = rotate(hipsRotation, JOINTS[upper].offset).map((v, c) => v + pose.hips[c]) as Vec3;
  const inverse = quatd.conjugate(hipsRotation);
  const target = rotate(inverse, [ankle[0] - hipJoint[0], ankle[1] - hipJoint[1], ankle[2] - hipJoint[2]]);
  const reach = Math.min(Math.max(Math.hypot(...target), 0.2), THIGH + SHIN - 1e-4);
  const cosInterior = (THIGH * THIGH + SHIN * SHIN - reach * reach) / (2 * THIGH * SHIN);
  const knee = Math.PI - Math.acos(Math.min(1, Math.max(-1, cosInterior)));
  const footInLeg: Vec3 = [0, -THIGH - SHIN * Math.cos(knee), -SHIN * Math.sin(knee)];
  const hip = quatd.rotationTo(vec3d.normalize(footInLeg), vec3d.normalize(target));
  const shin = axisAngle(X, knee);
  pose.rotations[upper] = hip;
  pose.rotations[upper + 1] = shin;
  pose.rotations[upper + 2] = mul(quatd.conjugate(mul(hipsRotation, hip, shin)), foot);
}

/** Upper arm hanging `out` radians away from the body, swung `swing` radians toward `direction`; elbow bent `elbow` radians forward. */
export function poseArm(pose: WalkerPose, side: 'L' | 'R', out: number, swing: number, direction: Vec3, elbow: number): void {
  const upper = jointIndex(`UpperArm.${side}`);
  const abduct = axisAngle(Z, side === 'L' ? out : -out);
  pose.rotations[upper] = mul(axisAngle(swingAxis([0, -1, 0], direction), swing), abduct);
  pose.rotations[upper + 1] = axisAngle(X, -elbow);
}

export { ANKLE_HEIGHT };
