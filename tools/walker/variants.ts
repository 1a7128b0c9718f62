import { quatd, vec3d } from 'wgpu-matrix';
import { BOXES, JOINTS, SHIN, THIGH, bindPositions, type JointDef, type Proportioned, type Quat4, type Vec3 } from './skeleton';

/**
 * Versions of the Walker's body for humanoid retargeting (docs/retargeting.md): the same boxes in
 * the same places, with other joint names, other local joint axes, an A-pose rest, or an extra
 * spine joint. Clips made for the Walker, bound to one of these, must put every joint where it
 * is on the Walker itself (test/bake/retarget.test.ts).
 */

/** The VRM 1.0 humanoid bone of each Walker joint. */
export const VRM_BONES: Readonly<Record<string, string>> = {
  Hips: 'hips', Spine: 'spine', Chest: 'chest', Neck: 'neck', Head: 'head',
  'UpperArm.L': 'leftUpperArm', 'LowerArm.L': 'leftLowerArm', 'Hand.L': 'leftHand',
  'UpperArm.R': 'rightUpperArm', 'LowerArm.R': 'rightLowerArm', 'Hand.R': 'rightHand',
  'UpperLeg.L': 'leftUpperLeg', 'LowerLeg.L': 'leftLowerLeg', 'Foot.L': 'leftFoot',
  'UpperLeg.R': 'rightUpperLeg', 'LowerLeg.R': 'rightLowerLeg', 'Foot.R': 'rightFoot',
};

const sides = (f: (side: 'L' | 'R', long: 'Left' | 'Right') => Record<string, string>) => ({ ...f('L', 'Left'), ...f('R', 'Right') });

/** Walker joint -> VRoid Studio's name (J_Bip_...). */
export const VROID_NAMES: Readonly<Record<string, string>> = {
  Hips: 'J_Bip_C_Hips', Spine: 'J_Bip_C_Spine', Chest: 'J_Bip_C_Chest', Neck: 'J_Bip_C_Neck', Head: 'J_Bip_C_Head',
  ...sides((s) => ({
    [`UpperArm.${s}`]: `J_Bip_${s}_UpperArm`, [`LowerArm.${s}`]: `J_Bip_${s}_LowerArm`, [`Hand.${s}`]: `J_Bip_${s}_Hand`,
    [`UpperLeg.${s}`]: `J_Bip_${s}_UpperLeg`, [`LowerLeg.${s}`]: `J_Bip_${s}_LowerLeg`, [`Foot.${s}`]: `J_Bip_${s}_Foot`,
  })),
};

/** Walker joint -> Mixamo's name without its `mixamorig:` prefix (Spine1 is Mixamo's chest). */
export const MIXAMO_NAMES: Readonly<Record<string, string>> = {
  Hips: 'Hips', Spine: 'Spine', Chest: 'Spine1', Neck: 'Neck', Head: 'Head',
  ...sides((s, long) => ({
    [`UpperArm.${s}`]: `${long}Arm`, [`LowerArm.${s}`]: `${long}ForeArm`, [`Hand.${s}`]: `${long}Hand`,
    [`UpperLeg.${s}`]: `${long}UpLeg`, [`LowerLeg.${s}`]: `${long}Leg`, [`Foot.${s}`]: `${long}Foot`,
  })),
};

/** How a variant differs from the Walker. */
export interface Variant {
  /** Give every joint its own local axes: a rest rotation per joint, the joints where they were. */
  axes?: boolean;
  /** Raise the arms out to the side by this many radians in the rest pose (0.8: about 45 degrees below horizontal). */
  aPose?: number;
  /** Put a joint `Spine.001` half way between Spine and Chest. */
  extraSpine?: boolean;
  /** Turn the whole body about +y by this many radians (pi: facing -z, as VRM 0.x avatars do). */
  face?: number;
  /** Thigh length in metres, the shin taking the rest of the Walker's 0.8 m leg (same hip height, other proportions). */
  thigh?: number;
}

/** The joint added by `extraSpine`. */
export const EXTRA_SPINE = 'Spine.001';

/** A fixed, well spread rotation for joint j (no randomness: the files are rebuilt byte for byte). */
function axesOf(j: number): Quat4 {
  const axis = vec3d.normalize([Math.sin(j * 1.7 + 0.3), Math.cos(j * 2.3 + 0.5), Math.sin(j * 0.9 + 1.1)]);
  return Array.from(quatd.fromAxisAngle(axis, 0.6 + ((j * 1.3) % 2.2))) as Quat4;
}

/**
 * The Walker's body changed as `v` says. Joints keep the Walker's names (the build renames them);
 * each joint's world position is the Walker's (moved only by the A-pose), its world rest frame
 * is the A-pose turn times its own axes, and local offsets and rotations follow from those.
 */
export function variantBody(v: Variant): Proportioned {
  let defs: JointDef[] = JOINTS.map((j) => ({ ...j }));
  let boxes = BOXES;
  if (v.thigh !== undefined) {
    const lengths: Record<string, number> = { UpperLeg: v.thigh, LowerLeg: THIGH + SHIN - v.thigh };
    // A joint's offset is its parent's bone: the knee sits a thigh below the hip, the ankle a shin below the knee.
    defs = defs.map((j) => (/^LowerLeg\./.test(j.name) ? { ...j, offset: [0, -lengths.UpperLeg, 0] } : /^Foot\./.test(j.name) ? { ...j, offset: [0, -lengths.LowerLeg, 0] } : j));
    boxes = BOXES.map((b) => {
      const length = lengths[b.joint.split('.')[0]];
      return length === undefined ? b : { ...b, centre: [b.centre[0], -length / 2, b.centre[2]], size: [b.size[0], length, b.size[2]] };
    });
  }
  if (v.extraSpine) {
    const spine = defs.findIndex((j) => j.name === 'Spine');
    const chest = defs.findIndex((j) => j.name === 'Chest');
    const half: Vec3 = [defs[chest].offset[0] / 2, defs[chest].offset[1] / 2, defs[chest].offset[2] / 2];
    // Insert after Spine; every later index moves up by one.
    defs = [...defs.slice(0, spine + 1), { name: EXTRA_SPINE, parent: spine, offset: half }, ...defs.slice(spine + 1)]
      .map((j, i) => (i <= spine + 1 ? j : { ...j, parent: j.parent > spine ? j.parent + 1 : j.parent }));
    defs[chest + 1] = { ...defs[chest + 1], parent: spine + 1, offset: half };
  }
  const positions = bindPositions(defs);
  // World turn of each joint's rest (the A-pose: each arm about its shoulder, about z).
  const turns: Quat4[] = defs.map(() => [0, 0, 0, 1]);
  if (v.aPose) {
    for (const [side, sign] of [['L', 1], ['R', -1]] as const) {
      const shoulder = defs.findIndex((j) => j.name === `UpperArm.${side}`);
      const turn = Array.from(quatd.fromAxisAngle([0, 0, 1], sign * v.aPose)) as Quat4;
      defs.forEach((j, i) => {
        if (!/^(UpperArm|LowerArm|Hand)\./.test(j.name) || !j.name.endsWith(side)) return;
        turns[i] = turn;
        const d = vec3d.transformQuat(vec3d.subtract(positions[i], positions[shoulder]), turn);
        positions[i] = [positions[shoulder][0] + d[0], positions[shoulder][1] + d[1], positions[shoulder][2] + d[2]];
      });
    }
  }
  if (v.face) {
    const face = quatd.fromAxisAngle([0, 1, 0], v.face);
    positions.forEach((p, i) => { positions[i] = Array.from(vec3d.transformQuat(p, face)).map((c) => (Math.abs(c) < 1e-12 ? 0 : c)) as Vec3; });
    turns.forEach((t, i) => { turns[i] = Array.from(quatd.multiply(face, t)) as Quat4; });
  }
  const frames = defs.map((_, i) => (v.axes ? Array.from(quatd.multiply(turns[i], axesOf(i))) as Quat4 : turns[i]));
  const joints = defs.map((j, i): JointDef => {
    if (j.parent < 0) return { ...j, offset: positions[i], ...(v.axes || v.aPose || v.face ? { rotation: frames[i] } : {}) };
    const inverse = quatd.inverse(frames[j.parent]);
    const offset = Array.from(vec3d.transformQuat(vec3d.subtract(positions[i], positions[j.parent]), inverse)) as Vec3;
    const rotation = Array.from(quatd.multiply(inverse, frames[i])) as Quat4;
    const identity = Math.abs(rotation[3]) > 1 - 1e-15;
    return { ...j, offset: offset.map((c) => (Math.abs(c) < 1e-12 ? 0 : c)) as Vec3, ...(identity ? {} : { rotation }) };
  });
  return { joints, boxes, boxTurns: turns };
}
