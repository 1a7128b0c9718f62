/**
 * Humanoid bone maps (docs/retargeting.md): which node of a skeleton is which human bone, with
 * the VRM 1.0 humanoid bones as the canonical set. A map comes from the file itself (VRM 1.0's
 * `VRMC_vrm.humanoid`, VRM 0.x's `VRM.humanoid`) or is recognized by node name for the common
 * conventions (NAME_CONVENTIONS). Load-time only; a page that binds no clips files ships none of
 * it (build-rig.ts keeps a body's own VRM map on the rig through vrm-humanoid.ts).
 */

import { HUMAN_BONES, type HumanBone, type HumanoidMap } from './vrm-humanoid';

export { HUMAN_BONES, type HumanBone, type HumanoidMap };

const BONE_ID = new Map<string, number>(HUMAN_BONES.map((b, i) => [b, i]));

/** The bones VRM 1.0 requires; a skeleton recognized by name must have all of them to count as humanoid. */
export const REQUIRED_BONES: readonly HumanBone[] = [
  'hips', 'spine', 'head', 'leftUpperArm', 'leftLowerArm', 'leftHand', 'rightUpperArm', 'rightLowerArm', 'rightHand',
  'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot',
];

/** Per convention: bone -> node name, `{s}` standing for the side letter (l or r); compared as normalized (normalizeName). */
type Convention = Partial<Record<string, string>>;

const sided = (table: Record<string, string>): Convention => {
  const out: Convention = {};
  for (const [bone, name] of Object.entries(table)) {
    if (!name.includes('{')) { out[bone] = name; continue; }
    for (const [side, s] of [['left', 'l'], ['right', 'r']] as const) {
      out[side + bone[0].toUpperCase() + bone.slice(1)] = name.replace(/\{s\}/g, s).replace(/\{S\}/g, s === 'l' ? 'left' : 'right');
    }
  }
  return out;
};
const fingers = (name: (finger: string, vrm: string, k: number) => string | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  const parts = ['Proximal', 'Intermediate', 'Distal'];
  for (const [finger, vrm] of [['thumb', 'Thumb'], ['index', 'Index'], ['middle', 'Middle'], ['ring', 'Ring'], ['little', 'Little']]) {
    for (let k = 0; k < 3; k++) {
      const bone = finger === 'thumb' ? `thumb${['Metacarpal', 'Proximal', 'Distal'][k]}` : `${finger}${parts[k]}`;
      const n = name(finger, vrm, k);
      if (n) out[bone] = n;
    }
  }
  return out;
};

/**
 * Name conventions recognized (docs/retargeting.md lists them): node names compared after
 * normalizeName. Sided bones are written once with `{s}` (l or r) or `{S}` (left or right).
 */
export const NAME_CONVENTIONS: Readonly<Record<string, Convention>> = {
  Mixamo: sided({
    hips: 'hips', spine: 'spine', chest: 'spine1', upperChest: 'spine2', neck: 'neck', head: 'head',
    eye: '{S}eye', shoulder: '{S}shoulder', upperArm: '{S}arm', lowerArm: '{S}forearm', hand: '{S}hand',
    upperLeg: '{S}upleg', lowerLeg: '{S}leg', foot: '{S}foot', toes: '{S}toebase',
    ...fingers((f, _v, k) => `{S}hand${f === 'little' ? 'pinky' : f}${k + 1}`),
  }),
  VRoid: sided({
    hips: 'j_bip_c_hips', spine: 'j_bip_c_spine', chest: 'j_bip_c_chest', upperChest: 'j_bip_c_upperchest', neck: 'j_bip_c_neck', head: 'j_bip_c_head',
    eye: 'j_adj_{s}_faceeye', shoulder: 'j_bip_{s}_shoulder', upperArm: 'j_bip_{s}_upperarm', lowerArm: 'j_bip_{s}_lowerarm', hand: 'j_bip_{s}_hand',
    upperLeg: 'j_bip_{s}_upperleg', lowerLeg: 'j_bip_{s}_lowerleg', foot: 'j_bip_{s}_foot', toes: 'j_bip_{s}_toebase',
    ...fingers((_f, v, k) => `j_bip_{s}_${v.toLowerCase()}${k + 1}`),
  }),
  Unreal: sided({
    hips: 'pelvis', spine: 'spine_01', chest: 'spine_02', upperChest: 'spine_03', neck: 'neck_01', head: 'head',
    shoulder: 'clavicle.{s}', upperArm: 'upperarm.{s}', lowerArm: 'lowerarm.{s}', hand: 'hand.{s}',
    upperLeg: 'thigh.{s}', lowerLeg: 'calf.{s}', foot: 'foot.{s}', toes: 'ball.{s}',
    ...fingers((f, _v, k) => `${f === 'little' ? 'pinky' : f}_0${k + 1}.{s}`),
  }),
  Rigify: sided({
    hips: 'def-spine', spine: 'def-spine.001', chest: 'def-spine.002', upperChest: 'def-spine.003', neck: 'def-spine.004', head: 'def-spine.006',
    shoulder: 'def-shoulder.{s}', upperArm: 'def-upper_arm.{s}', lowerArm: 'def-forearm.{s}', hand: 'def-hand.{s}',
    upperLeg: 'def-thigh.{s}', lowerLeg: 'def-shin.{s}', foot: 'def-foot.{s}', toes: 'def-toe.{s}',
    ...fingers((f, _v, k) => (f === 'thumb' ? `def-thumb.0${k + 1}.{s}` : `def-f_${f === 'little' ? 'pinky' : f}.0${k + 1}.{s}`)),
  }),
  Blender: sided({
    hips: 'hips', spine: 'spine', chest: 'chest', upperChest: 'upper_chest', neck: 'neck', head: 'head',
    eye: 'eye.{s}', shoulder: 'shoulder.{s}', upperArm: 'upper_arm.{s}', lowerArm: 'forearm.{s}', hand: 'hand.{s}',
    upperLeg: 'thigh.{s}', lowerLeg: 'shin.{s}', foot: 'foot.{s}', toes: 'toe.{s}',
  }),
  // The project's Walker and Mannequin (tools/walker, tools/mannequin): Hips, Chest, UpperArm.L, LowerLeg.R, ...
  'crowd-skin': sided({
    hips: 'hips', spine: 'spine', chest: 'chest', upperChest: 'upperchest', neck: 'neck', head: 'head',
    shoulder: 'shoulder.{s}', upperArm: 'upperarm.{s}', lowerArm: 'lowerarm.{s}', hand: 'hand.{s}',
    upperLeg: 'upperleg.{s}', lowerLeg: 'lowerleg.{s}', foot: 'foot.{s}', toes: 'toes.{s}',
  }),
};

/**
 * A node name as conventions are compared: without a namespace (`mixamorig:`, `mixamorig1:`,
 * `Armature|`), lower case, and a trailing side letter after `_`, `-`, `.` or a space written `.l` / `.r`
 * (`thigh_l`, `Hand.L`, `hand-R` -> `thigh.l`, `hand.l`, `hand.r`).
 */
export function normalizeName(name: string): string {
  return name.replace(/^.*[:|]/, '').toLowerCase().replace(/[_\-. ]([lr])$/, '.$1');
}

const normalizedConventions = Object.entries(NAME_CONVENTIONS).map(([source, table]) => {
  const byName = new Map<string, number>();
  for (const [bone, name] of Object.entries(table)) if (name) byName.set(normalizeName(name), BONE_ID.get(bone)!);
  return { source, byName };
});

/**
 * The humanoid recognized in `names` (node names, the caller's indices): the convention of
 * NAME_CONVENTIONS that names the most nodes, if it names every REQUIRED_BONES bone; else
 * undefined (the skeleton binds by name, as before). A bone two nodes claim goes to the first.
 */
export function humanoidByName(names: readonly string[]): HumanoidMap | undefined {
  let best: HumanoidMap | undefined;
  let bestCount = 0;
  const normalized = names.map(normalizeName);
  for (const { source, byName } of normalizedConventions) {
    const nodes = new Int32Array(HUMAN_BONES.length).fill(-1);
    let count = 0;
    normalized.forEach((name, i) => {
      const bone = byName.get(name);
      if (bone !== undefined && nodes[bone] < 0) { nodes[bone] = i; count++; }
    });
    if (count > bestCount && REQUIRED_BONES.every((b) => nodes[BONE_ID.get(b)!] >= 0)) { best = { nodes, source }; bestCount = count; }
  }
  return best;
}

/** Whether a declared map (VRM) holds every required bone; a map that does not is not used. */
export function isComplete(map: HumanoidMap): boolean {
  return REQUIRED_BONES.every((b) => map.nodes[BONE_ID.get(b)!] >= 0);
}

/** Bone id of a bone name. */
export function boneId(bone: HumanBone): number {
  return BONE_ID.get(bone)!;
}
