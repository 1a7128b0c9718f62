import { describe, expect, it } from 'vitest';
import { HUMAN_BONES, REQUIRED_BONES, boneId, humanoidByName, normalizeName } from '../../src/bake/humanoid';
import { humanoidFromBones, vrmHumanBones } from '../../src/bake/vrm-humanoid';

/**
 * Humanoid bone maps (src/bake/humanoid.ts, src/bake/vrm-humanoid.ts): the VRM maps a file
 * declares (1.0 and 0.x), and the name conventions recognized, each on a skeleton named its way.
 */

/** The bone each name gives, as { bone: name }, for the mapped bones of `names`. */
function mapped(names: string[]): Record<string, string> | undefined {
  const map = humanoidByName(names);
  if (!map) return undefined;
  const out: Record<string, string> = {};
  HUMAN_BONES.forEach((bone, b) => { if (map.nodes[b] >= 0) out[bone] = names[map.nodes[b]]; });
  return out;
}

const sides = (f: (s: string, side: string) => string[]) => [...f('l', 'Left'), ...f('r', 'Right')];

describe('humanoid maps by name', () => {
  it('Mixamo, with or without its prefix (any namespace), Spine1 as chest and Spine2 as upper chest', () => {
    const names = ['Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head', ...sides((_s, side) => [
      `${side}Shoulder`, `${side}Arm`, `${side}ForeArm`, `${side}Hand`, `${side}HandIndex1`, `${side}UpLeg`, `${side}Leg`, `${side}Foot`, `${side}ToeBase`])];
    for (const prefix of ['', 'mixamorig:', 'mixamorig1:']) {
      const map = mapped(names.map((n) => prefix + n))!;
      expect(humanoidByName(names.map((n) => prefix + n))!.source).toBe('Mixamo');
      expect(map.chest).toBe(`${prefix}Spine1`);
      expect(map.upperChest).toBe(`${prefix}Spine2`);
      expect(map.leftUpperArm).toBe(`${prefix}LeftArm`);
      expect(map.rightLowerLeg).toBe(`${prefix}RightLeg`);
      expect(map.leftIndexProximal).toBe(`${prefix}LeftHandIndex1`);
      expect(Object.keys(map)).toHaveLength(6 + 2 * 9);
    }
  });

  it('VRoid (J_Bip_), Unreal mannequin, Rigify (DEF-) and Blender .L/.R names', () => {
    const vroid = mapped(['J_Bip_C_Hips', 'J_Bip_C_Spine', 'J_Bip_C_Chest', 'J_Bip_C_UpperChest', 'J_Bip_C_Neck', 'J_Bip_C_Head',
      ...sides((s) => [`J_Bip_${s.toUpperCase()}_UpperArm`, `J_Bip_${s.toUpperCase()}_LowerArm`, `J_Bip_${s.toUpperCase()}_Hand`, `J_Bip_${s.toUpperCase()}_UpperLeg`,
        `J_Bip_${s.toUpperCase()}_LowerLeg`, `J_Bip_${s.toUpperCase()}_Foot`, `J_Bip_${s.toUpperCase()}_Thumb1`])])!;
    expect(vroid.leftThumbMetacarpal).toBe('J_Bip_L_Thumb1');
    expect(vroid.upperChest).toBe('J_Bip_C_UpperChest');
    const unreal = mapped(['root', 'pelvis', 'spine_01', 'spine_02', 'spine_03', 'neck_01', 'head',
      ...sides((s) => [`clavicle_${s}`, `upperarm_${s}`, `lowerarm_${s}`, `hand_${s}`, `thigh_${s}`, `calf_${s}`, `foot_${s}`, `ball_${s}`, `upperarm_twist_01_${s}`])])!;
    expect(humanoidByName(['pelvis', 'spine_01', 'head', ...sides((s) => [`upperarm_${s}`, `lowerarm_${s}`, `hand_${s}`, `thigh_${s}`, `calf_${s}`, `foot_${s}`])])!.source).toBe('Unreal');
    expect(unreal).toMatchObject({ hips: 'pelvis', leftUpperLeg: 'thigh_l', rightToes: 'ball_r', leftShoulder: 'clavicle_l' });
    expect(Object.values(unreal)).not.toContain('upperarm_twist_01_l');
    const rigify = mapped(['DEF-spine', 'DEF-spine.001', 'DEF-spine.002', 'DEF-spine.003', 'DEF-spine.004', 'DEF-spine.006',
      ...sides((s) => [`DEF-upper_arm.${s.toUpperCase()}`, `DEF-forearm.${s.toUpperCase()}`, `DEF-hand.${s.toUpperCase()}`, `DEF-thigh.${s.toUpperCase()}`, `DEF-shin.${s.toUpperCase()}`, `DEF-foot.${s.toUpperCase()}`])])!;
    expect(rigify).toMatchObject({ hips: 'DEF-spine', spine: 'DEF-spine.001', head: 'DEF-spine.006', rightLowerLeg: 'DEF-shin.R' });
    const blender = mapped(['hips', 'spine', 'chest', 'neck', 'head', ...sides((s) => [`upper_arm.${s}`, `forearm_${s}`, `hand-${s}`, `thigh.${s}`, `shin.${s}`, `foot.${s}`])])!;
    expect(humanoidByName(['hips', 'spine', 'chest', 'neck', 'head', ...sides((s) => [`upper_arm.${s}`, `forearm_${s}`, `hand-${s}`, `thigh.${s}`, `shin.${s}`, `foot.${s}`])])!.source).toBe('Blender');
    expect(blender).toMatchObject({ leftLowerArm: 'forearm_l', rightHand: 'hand-r' });
  });

  it('the project\'s test characters (Walker, Mannequin names); skeletons that are not humanoids, or lack a required bone, are none', () => {
    const walker = ['Hips', 'Spine', 'Chest', 'Neck', 'Head', ...sides((s) => [`UpperArm.${s.toUpperCase()}`, `LowerArm.${s.toUpperCase()}`, `Hand.${s.toUpperCase()}`,
      `UpperLeg.${s.toUpperCase()}`, `LowerLeg.${s.toUpperCase()}`, `Foot.${s.toUpperCase()}`])];
    expect(humanoidByName(walker)!.source).toBe('crowd-skin');
    expect(Object.keys(mapped(walker)!)).toHaveLength(17);
    // Without the right hand (a required bone) there is no humanoid.
    expect(humanoidByName(walker.filter((n) => n !== 'Hand.R'))).toBeUndefined();
    // Fox, CesiumMan, RobotExpressive (its hands are meshes, not bones).
    expect(humanoidByName(['_rootJoint', 'b_Root_00', 'b_Hip_01', 'b_Spine01_02', 'b_Spine02_03', 'b_Neck_04', 'b_Head_05'])).toBeUndefined();
    expect(humanoidByName(['Skeleton_torso_joint_1', 'leg_joint_R_1', 'leg_joint_L_1', 'Skeleton_neck_joint_1'])).toBeUndefined();
    expect(humanoidByName(['Hips', 'Abdomen', 'Torso', 'Neck', 'Head', 'Shoulder.L', 'UpperArm.L', 'LowerArm.L', 'UpperLeg.L', 'LowerLeg.L', 'Foot.L'])).toBeUndefined();
  });

  it('normalizes namespaces, case and side suffixes', () => {
    expect(['mixamorig:LeftArm', 'Armature|Hand_L', 'thigh-R', 'Foot.l', 'shin R'].map(normalizeName)).toEqual(['leftarm', 'hand.l', 'thigh.r', 'foot.l', 'shin.r']);
  });
});

describe('humanoid maps a VRM file declares', () => {
  const nodes = Array.from({ length: 60 }, (_, i) => ({ name: `n${i}` }));
  it('VRM 1.0 (VRMC_vrm.humanoid.humanBones) and VRM 0.x (VRM.humanoid.humanBones, thumbs one joint further out)', () => {
    const v1 = vrmHumanBones({ nodes, extensions: { VRMC_vrm: { humanoid: { humanBones: { hips: { node: 3 }, leftThumbMetacarpal: { node: 9 }, tail: { node: 1 }, head: { node: 99 } } } } } });
    expect(v1).toEqual({ source: 'VRMC_vrm', bones: { hips: 3, leftThumbMetacarpal: 9 } }); // unknown bones and nodes out of range left out
    const v0 = vrmHumanBones({ nodes, extensions: { VRM: { humanoid: { humanBones: [{ bone: 'hips', node: 2 }, { bone: 'leftThumbProximal', node: 7 }, { bone: 'leftThumbIntermediate', node: 8 }, { bone: 'rightThumbDistal', node: 12 }] } } } });
    expect(v0).toEqual({ source: 'VRM', bones: { hips: 2, leftThumbMetacarpal: 7, leftThumbProximal: 8, rightThumbDistal: 12 } });
    expect(vrmHumanBones({ nodes })).toBeUndefined();
    const map = humanoidFromBones(v1!, (n) => n * 10);
    expect(map.nodes[boneId('hips')]).toBe(30);
    expect(map.nodes[boneId('spine')]).toBe(-1);
    expect(REQUIRED_BONES).toHaveLength(15);
  });
});
