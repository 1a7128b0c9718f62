/**
 * The Walker's skeleton and body: 17 joints and a box per joint, in metres, +y up, facing +z
 * (its left is +x, as glTF characters face). Every joint's rest rotation is the identity, so a
 * joint's bind-space position is the sum of the rest translations down to it and its inverse
 * bind matrix is a translation.
 */

import { quatd, vec3d } from 'wgpu-matrix';
import { BOX_FACE_TRIANGLES, visitBoxCorners } from '../props/boxes';

export type Vec3 = [number, number, number];
/** A unit quaternion (x, y, z, w). */
export type Quat4 = [number, number, number, number];

export interface JointDef {
  name: string;
  /** Index of the parent joint, -1 for the root (Hips). Parents come before children. */
  parent: number;
  /** Rest translation in the parent's space, metres. */
  offset: Vec3;
  /** Rest rotation in the parent's space (default the identity; the variants of variants.ts set it). */
  rotation?: Quat4;
}

const joint = (name: string, parent: number, offset: Vec3): JointDef => ({ name, parent, offset });

/** Thigh and shin length, metres (hip joint to knee, knee to ankle). */
export const THIGH = 0.4;
export const SHIN = 0.4;
/** Ankle height above the ground when the foot is flat, metres. */
export const ANKLE_HEIGHT = 0.09;
/** Rest height of the Hips joint: legs straight, feet flat. */
export const REST_HIPS_HEIGHT = 0.06 + THIGH + SHIN + ANKLE_HEIGHT;

export const JOINTS: readonly JointDef[] = [
  joint('Hips', -1, [0, REST_HIPS_HEIGHT, 0]),
  joint('Spine', 0, [0, 0.1, 0]),
  joint('Chest', 1, [0, 0.22, 0]),
  joint('Neck', 2, [0, 0.24, 0]),
  joint('Head', 3, [0, 0.08, 0]),
  joint('UpperArm.L', 2, [0.21, 0.2, 0]),
  joint('LowerArm.L', 5, [0, -0.28, 0]),
  joint('Hand.L', 6, [0, -0.25, 0]),
  joint('UpperArm.R', 2, [-0.21, 0.2, 0]),
  joint('LowerArm.R', 8, [0, -0.28, 0]),
  joint('Hand.R', 9, [0, -0.25, 0]),
  joint('UpperLeg.L', 0, [0.1, -0.06, 0]),
  joint('LowerLeg.L', 11, [0, -THIGH, 0]),
  joint('Foot.L', 12, [0, -SHIN, 0]),
  joint('UpperLeg.R', 0, [-0.1, -0.06, 0]),
  joint('LowerLeg.R', 14, [0, -THIGH, 0]),
  joint('Foot.R', 15, [0, -SHIN, 0]),
];

export const jointIndex = (name: string): number => {
  const index = JOINTS.findIndex((j) => j.name === name);
  if (index < 0) throw new Error(`no Walker joint ${name}`);
  return index;
};

/** Bind-space (model-space rest) position of every joint (of `joints`, default the Walker's). */
export function bindPositions(joints: readonly JointDef[] = JOINTS): Vec3[] {
  return bindFrames(joints).positions;
}

/** Bind-space position and rotation of every joint, composing the rest rotations down the tree. */
export function bindFrames(joints: readonly JointDef[] = JOINTS): { positions: Vec3[]; rotations: Quat4[] } {
  const positions: Vec3[] = [];
  const rotations: Quat4[] = [];
  for (const j of joints) {
    const local = j.rotation ?? [0, 0, 0, 1];
    if (j.parent < 0) {
      positions.push([...j.offset]);
      rotations.push([...local]);
      continue;
    }
    const p = positions[j.parent];
    const r = rotations[j.parent];
    const o = vec3d.transformQuat(j.offset, r);
    positions.push([p[0] + o[0], p[1] + o[1], p[2] + o[2]]);
    rotations.push(Array.from(quatd.multiply(r, local)) as Quat4);
  }
  return { positions, rotations };
}

export interface BoxDef {
  joint: string;
  /** Centre relative to the joint's bind position, and full size, metres. */
  centre: Vec3;
  size: Vec3;
  /** 0 body colour, 1 accent colour. */
  material: 0 | 1;
}

const box = (jointName: string, centre: Vec3, size: Vec3, material: 0 | 1 = 0): BoxDef => ({ joint: jointName, centre, size, material });

/** Limb boxes for one side: sign +1 is left (+x), -1 right. */
function side(s: 'L' | 'R'): BoxDef[] {
  const x = s === 'L' ? 0.01 : -0.01;
  return [
    box(`UpperArm.${s}`, [x, -0.13, 0], [0.09, 0.28, 0.09]),
    box(`LowerArm.${s}`, [x, -0.12, 0], [0.08, 0.25, 0.08]),
    box(`Hand.${s}`, [x, -0.06, 0.01], [0.06, 0.11, 0.08], 1),
    box(`UpperLeg.${s}`, [0, -THIGH / 2, 0], [0.13, THIGH, 0.13]),
    box(`LowerLeg.${s}`, [0, -SHIN / 2, 0], [0.1, SHIN, 0.1]),
    box(`Foot.${s}`, [0, -ANKLE_HEIGHT / 2, 0.05], [0.1, ANKLE_HEIGHT, 0.26], 1),
  ];
}

/** The body: one box per joint, plus a visor on the head so that the facing shows from afar. */
export const BOXES: readonly BoxDef[] = [
  box('Hips', [0, -0.03, 0], [0.3, 0.16, 0.18]),
  box('Spine', [0, 0.1, 0], [0.26, 0.2, 0.16]),
  box('Chest', [0, 0.14, 0], [0.36, 0.28, 0.2]),
  box('Neck', [0, 0.03, 0], [0.08, 0.08, 0.08]),
  box('Head', [0, 0.12, 0], [0.2, 0.24, 0.22]),
  box('Head', [0, 0.14, 0.115], [0.16, 0.06, 0.02], 1),
  ...side('L'),
  ...side('R'),
];

/** Linear base colours of the two materials: body and accent. */
export const MATERIALS: readonly { name: string; color: [number, number, number, number] }[] = [
  { name: 'Body', color: [0.55, 0.62, 0.7, 1] },
  { name: 'Accent', color: [0.9, 0.35, 0.1, 1] },
];

export interface BoxMesh {
  positions: Float32Array;
  normals: Float32Array;
  joints: Uint8Array;
  weights: Float32Array;
  indices: Uint16Array;
}

/** The boxes of one material as a triangle mesh, each vertex skinned to its box's joint with weight 1. */
export function boxMesh(material: 0 | 1, body: Proportioned = { joints: JOINTS, boxes: BOXES }): BoxMesh {
  const boxes = body.boxes.filter((b) => b.material === material);
  const bind = bindPositions(body.joints);
  const names = body.joints.map((j) => j.name);
  const vertexCount = boxes.length * 24;
  const mesh: BoxMesh = {
    positions: new Float32Array(vertexCount * 3),
    normals: new Float32Array(vertexCount * 3),
    joints: new Uint8Array(vertexCount * 4),
    weights: new Float32Array(vertexCount * 4),
    indices: new Uint16Array(boxes.length * 36),
  };
  let v = 0;
  for (const b of boxes) {
    const j = names.indexOf(b.joint);
    const turn = body.boxTurns?.[j] ?? [0, 0, 0, 1];
    visitBoxCorners(b.centre, b.size, (corner, face) => {
      const position = vec3d.transformQuat(corner, turn);
      const normal = vec3d.transformQuat(face, turn);
      for (let c = 0; c < 3; c++) {
        mesh.positions[v * 3 + c] = bind[j][c] + position[c];
        mesh.normals[v * 3 + c] = normal[c];
      }
      mesh.joints[v * 4] = j;
      mesh.weights[v * 4] = 1;
      if (v % 4 === 0) mesh.indices.set(BOX_FACE_TRIANGLES.map((k) => v + k), (v / 4) * 6);
      v++;
    });
  }
  return mesh;
}

/** A body of the Walker's skeleton (same joints and names) in other proportions. */
export interface Proportioned {
  joints: readonly JointDef[];
  boxes: readonly BoxDef[];
  /** Per joint: a rotation of its boxes about the joint (an A-pose's arms; default none). */
  boxTurns?: readonly Quat4[];
}

const LEG_JOINTS = /^(UpperLeg|LowerLeg|Foot)\./;

/**
 * The Walker with its legs (the Hips' height, the hip joints' offsets, thighs, shins, feet and
 * their boxes) scaled by `legScale` and everything above the hips (spine, neck, head, arms and
 * their boxes) by `torsoScale`. Rest rotations stay the identity; only bone lengths change.
 */
export function proportioned(legScale: number, torsoScale: number): Proportioned {
  const scale = (v: Vec3, k: number): Vec3 => [v[0] * k, v[1] * k, v[2] * k];
  const isLeg = (name: string) => LEG_JOINTS.test(name);
  return {
    joints: JOINTS.map((j) => ({ ...j, offset: scale(j.offset, j.parent < 0 || isLeg(j.name) ? legScale : torsoScale) })),
    boxes: BOXES.map((b) => {
      const k = isLeg(b.joint) ? legScale : torsoScale;
      return { ...b, centre: scale(b.centre, k), size: scale(b.size, k) };
    }),
  };
}
