import { describe, expect, it } from 'vitest';
import { buildMask, nodeByName, type MaskSpec } from '../../src/anim/masks';
import type { RigNodes } from '../../src/bake/rig';
import { loadModel } from '../helpers/models';

/** Rig nodes with the given names and parents (parent-first); rest pose identity; `joints` lists the skin joints (default all). */
function rigNodes(names: string[], parents: number[], joints?: number[]): RigNodes {
  const count = names.length;
  const restRotation = new Float64Array(count * 4);
  for (let i = 0; i < count; i++) restRotation[i * 4 + 3] = 1;
  return {
    count,
    names,
    gltfIndex: Int32Array.from(names, (_, i) => i),
    parent: Int32Array.from(parents),
    restTranslation: new Float64Array(count * 3),
    restRotation,
    restScale: new Float64Array(count * 3).fill(1),
    isJoint: Uint8Array.from(names, (_, i) => (joints === undefined || joints.includes(i) ? 1 : 0)),
  };
}

// 0 root; 1 spine (child of 0); 2 head (child of 1); 3 leg (child of 0); 4 foot (child of 3).
const tree = rigNodes(['root', 'spine', 'head', 'leg', 'foot'], [-1, 0, 1, 0, 3]);

describe('buildMask validity', () => {
  it('rejects an unknown root joint with a RangeError naming it (and some joints that exist)', () => {
    expect(() => buildMask(tree, { root: 'Spine' })).toThrow(RangeError);
    expect(() => buildMask(tree, { root: 'Spine' })).toThrow(/mask root: no joint named 'Spine' \(joints include 'root', 'spine', 'head', 'leg', 'foot'\)/);
    // The caller's label leads the message.
    expect(() => buildMask(tree, { root: 'tail' }, 'layer 2 mask')).toThrow(/^layer 2 mask root: no joint named 'tail'/);
  });

  it('rejects an unknown joint in weights, naming it', () => {
    expect(() => buildMask(tree, { weights: { head: 1, neck: 0.5 } })).toThrow(RangeError);
    expect(() => buildMask(tree, { weights: { head: 1, neck: 0.5 } })).toThrow(/mask weights: no joint named 'neck'/);
  });

  it('rejects a weight outside [0, 1] or that is not a number, naming the joint', () => {
    for (const bad of [1.5, -0.1, NaN, Infinity, '0.5', null, true]) {
      const spec = { weights: { spine: bad } } as unknown as MaskSpec;
      expect(() => buildMask(tree, spec), `weight ${String(bad)}`).toThrow(RangeError);
      expect(() => buildMask(tree, spec), `weight ${String(bad)}`).toThrow(/mask weight of 'spine' must be a number in \[0, 1\]/);
    }
    // The ends of the range are fine.
    expect(Array.from(buildMask(tree, { weights: { spine: 0, head: 1 }, default: 1 }))).toEqual([1, 0, 1, 1, 1]);
  });

  it('rejects a default outside [0, 1] or that is not a number', () => {
    for (const bad of [2, -1, 1.0000001, NaN, '1']) {
      const spec = { weights: {}, default: bad } as unknown as MaskSpec;
      expect(() => buildMask(tree, spec), `default ${String(bad)}`).toThrow(RangeError);
      expect(() => buildMask(tree, spec), `default ${String(bad)}`).toThrow(/mask default must be a number in \[0, 1\]/);
    }
  });

  it('rejects a duplicated node name when a mask looks it up, and only then', () => {
    const dup = rigNodes(['root', 'bone', 'bone', 'arm', 'hand'], [-1, 0, 0, 0, 3]);
    expect(() => buildMask(dup, { root: 'bone' })).toThrow(RangeError);
    expect(() => buildMask(dup, { root: 'bone' })).toThrow(/more than one node is named 'bone'/);
    expect(() => buildMask(dup, { weights: { bone: 1 } })).toThrow(/mask weights: more than one node is named 'bone'/);
    expect(() => nodeByName(dup, 'bone', 'here')).toThrow(/^here: more than one node is named 'bone'/);
    // Unique names in the same rig still work.
    expect(Array.from(buildMask(dup, { root: 'arm' }))).toEqual([0, 0, 0, 1, 1]);
    expect(nodeByName(dup, 'hand', 'here')).toBe(4);
  });

  it('rejects a spec that is neither {root} nor {weights} with a TypeError', () => {
    const bad: unknown[] = [null, undefined, 'spine', 3, {}, { joints: { spine: 1 } }, { weights: null }, { weights: 1 }, { weights: 'spine' }];
    for (const spec of bad) {
      expect(() => buildMask(tree, spec as MaskSpec), JSON.stringify(spec) ?? String(spec)).toThrow(TypeError);
    }
    expect(() => buildMask(tree, {} as MaskSpec, 'stack.layers[1].mask')).toThrow(/^stack\.layers\[1\]\.mask must be \{"root": JOINT\} or \{"weights"/);
  });

  it('nodeByName lists at most 8 joints and marks the rest with ...', async () => {
    const { rig } = await loadModel('Fox');
    expect(() => nodeByName(rig.nodes, 'b_Spine', 'mask root')).toThrow(
      "mask root: no joint named 'b_Spine' (joints include 'root', '_rootJoint', 'b_Root_00', 'b_Hip_01', 'b_Spine01_02', 'b_Spine02_03', 'b_Neck_04', 'b_Head_05', ...)",
    );
  });
});

describe('buildMask', () => {
  it('{root} is 1 on the root joint and everything below it, 0 elsewhere', () => {
    expect(buildMask(tree, { root: 'spine' })).toBeInstanceOf(Float32Array);
    expect(Array.from(buildMask(tree, { root: 'spine' }))).toEqual([0, 1, 1, 0, 0]);
    expect(Array.from(buildMask(tree, { root: 'leg' }))).toEqual([0, 0, 0, 1, 1]);
    expect(Array.from(buildMask(tree, { root: 'head' }))).toEqual([0, 0, 1, 0, 0]);
    expect(Array.from(buildMask(tree, { root: 'foot' }))).toEqual([0, 0, 0, 0, 1]);
    expect(Array.from(buildMask(tree, { root: 'root' }))).toEqual([1, 1, 1, 1, 1]);
  });

  it('{root} stays inside its own scene root', () => {
    // Two scene roots: 0 -> 1, and 2 -> 3 -> 4.
    const forest = rigNodes(['a', 'a1', 'b', 'b1', 'b2'], [-1, 0, -1, 2, 3]);
    expect(Array.from(buildMask(forest, { root: 'a' }))).toEqual([1, 1, 0, 0, 0]);
    expect(Array.from(buildMask(forest, { root: 'b1' }))).toEqual([0, 0, 0, 1, 1]);
  });

  it('{weights, default} gives named joints their weight and every other node the default', () => {
    expect(Array.from(buildMask(tree, { weights: { spine: 1, head: 0.5 }, default: 0.25 }))).toEqual([0.25, 1, 0.5, 0.25, 0.25]);
    // No default: 0. Weights are per joint, never inherited by children.
    expect(Array.from(buildMask(tree, { weights: { spine: 0.75 } }))).toEqual([0, 0.75, 0, 0, 0]);
    expect(Array.from(buildMask(tree, { weights: {}, default: 1 }))).toEqual([1, 1, 1, 1, 1]);
    // Stored as float32.
    expect(buildMask(tree, { weights: { leg: 0.3 } })[3]).toBe(Math.fround(0.3));
  });

  it("Fox: root 'b_Spine01_02' covers the spine, neck, head and arms, not the hip, tail or legs", async () => {
    const { rig } = await loadModel('Fox');
    const mask = buildMask(rig.nodes, { root: 'b_Spine01_02' });
    expect(mask.length).toBe(rig.nodes.count);
    const weight = (name: string) => mask[rig.nodes.names.indexOf(name)];
    const upper = ['b_Spine01_02', 'b_Spine02_03', 'b_Neck_04', 'b_Head_05', 'b_RightUpperArm_06', 'b_RightForeArm_07', 'b_RightHand_08', 'b_LeftUpperArm_09', 'b_LeftForeArm_010', 'b_LeftHand_011'];
    const lower = ['root', '_rootJoint', 'b_Root_00', 'b_Hip_01', 'b_Tail01_012', 'b_Tail03_014', 'b_LeftLeg01_015', 'b_LeftFoot02_018', 'b_RightLeg01_019', 'b_RightFoot01_021'];
    for (const name of upper) expect(weight(name), name).toBe(1);
    for (const name of lower) expect(weight(name), name).toBe(0);
    // Exactly those 10 nodes.
    expect(mask.reduce((sum, w) => sum + w, 0)).toBe(10);
  });
});

describe('nodeByName with shared names', () => {
  it('prefers the one joint among nodes of the same name (a mesh node named like its joint)', () => {
    // 0 root, 1 Body (mesh node), 2 Torso (mesh node under Body), 3 Torso (joint under root), 4 Neck under 3
    const nodes = rigNodes(['root', 'Body', 'Torso', 'Torso', 'Neck'], [-1, 0, 1, 0, 3], [0, 3, 4]);
    expect(nodeByName(nodes, 'Torso', 'mask')).toBe(3);
    expect(Array.from(buildMask(nodes, { root: 'Torso' }))).toEqual([0, 0, 0, 1, 1]);
  });

  it('takes the ancestor when every node of that name is a joint and one holds the others', () => {
    const nodes = rigNodes(['root', 'Head', 'Head'], [-1, 0, 1]);
    expect(nodeByName(nodes, 'Head', 'mask')).toBe(1);
  });

  it('resolves RobotExpressive\'s Torso (a joint and a mesh node share the name) to the joint', async () => {
    const { rig } = await loadModel('RobotExpressive');
    const torso = nodeByName(rig.nodes, 'Torso', 'mask');
    expect(rig.nodes.isJoint[torso]).toBe(1);
    const mask = buildMask(rig.nodes, { root: 'Torso' });
    expect(mask[rig.nodes.names.indexOf('Head')]).toBe(1);
    expect(mask[rig.nodes.names.indexOf('UpperLeg.L')]).toBe(0);
  });
});

