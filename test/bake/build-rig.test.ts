import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRig } from '../../src/bake/build-rig';
import type { GltfJson } from '../../src/bake/gltf-json';
import type { Rig } from '../../src/bake/rig';
import { sampleClip } from '../../src/bake/sampler';
import { readGltfFile } from '../../tools/node-io';
import { expectModelError, skinnedModel, translationMatrix, type SkinnedModel } from '../helpers/gltf-builder';
import { loadModel, modelPath, testModelNames } from '../helpers/models';
import { composeTrsAt } from '../../src/math/affine';
import { createPose } from '../../src/math/pose';

/** The rig of the minimal valid model (see skinnedModel) after `mutate` changed it. */
function rigWith(mutate: (m: SkinnedModel) => void = () => {}): Rig {
  const model = skinnedModel();
  mutate(model);
  return buildRig(model.builder.build());
}

const quat = (...q: number[]) => Float32Array.from(q);

describe('buildRig validity', () => {
  it('accepts the unbroken model without warnings', () => {
    const rig = rigWith();
    expect(rig.warnings).toEqual([]);
    expect(rig.nodes.names).toEqual(['root', 'arm']);
    expect(rig.primitives).toHaveLength(1);
    expect(rig.clips[0].channels).toHaveLength(1);
  });

  const cases: { breaks: string; mutate: (m: SkinnedModel) => void; message: RegExp }[] = [
    {
      breaks: 'inverseBindMatrices count differs from joints count',
      mutate: (m) => { m.json.skins![0].inverseBindMatrices = m.builder.addAccessor('MAT4', new Float32Array(16)); },
      message: /^skin 0: inverseBindMatrices has 1 matrices, joints has 2$/,
    },
    { breaks: 'skin joint node out of range', mutate: (m) => { m.json.skins![0].joints = [0, 7]; }, message: /skin 0: joint 1 is node 7, which does not exist/ },
    { breaks: 'duplicate skin joint', mutate: (m) => { m.json.skins![0].joints = [1, 1]; }, message: /skin 0: node 1 is listed twice in joints/ },
    { breaks: 'empty skin joints', mutate: (m) => { m.json.skins![0].joints = []; }, message: /skin 0: joints is empty/ },
    { breaks: 'mesh node skin out of range', mutate: (m) => { m.json.nodes[2].skin = 4; }, message: /node 2: skin 4 does not exist \(the file has 1\)/ },
    { breaks: 'node with two parents', mutate: (m) => { m.json.nodes[2].children = [1]; }, message: /node 1: has two parents \(nodes 0 and 2\)/ },
    { breaks: 'cycle', mutate: (m) => { m.json.nodes[1].children = [0]; }, message: /node 0: its ancestors form a cycle/ },
    { breaks: 'node is its own child', mutate: (m) => { m.json.nodes[1].children = [1]; }, message: /node 1: lists itself as a child/ },
    { breaks: 'child out of range', mutate: (m) => { m.json.nodes[0].children = [1, 5]; }, message: /node 0: child 5 does not exist \(the file has 3 nodes\)/ },
    {
      breaks: 'node with matrix and TRS',
      mutate: (m) => { m.json.nodes[0].matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]; m.json.nodes[0].scale = [2, 2, 2]; },
      message: /node 0: has both matrix and translation\/rotation\/scale/,
    },
    {
      breaks: 'matrix with shear',
      mutate: (m) => { m.json.nodes[0].matrix = [1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]; },
      message: /node 0: matrix has shear or projection/,
    },
    {
      breaks: 'matrix with a zero scale axis',
      mutate: (m) => { m.json.nodes[0].matrix = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]; },
      message: /node 0: matrix has a zero scale axis/,
    },
    { breaks: 'zero-length rest rotation', mutate: (m) => { m.json.nodes[1].rotation = [0, 0, 0, 0]; }, message: /node 1: rotation quaternion has zero length/ },
    {
      breaks: 'skinned primitive without JOINTS_0',
      mutate: (m) => { delete m.json.meshes![0].primitives[0].attributes.JOINTS_0; },
      message: /mesh 0 primitive 0: is drawn with skin 0 by node 2 but has no JOINTS_0\/WEIGHTS_0/,
    },
    {
      breaks: 'JOINTS_0 index >= joint count with weight > 0',
      mutate: (m) => { m.json.meshes![0].primitives[0].attributes.JOINTS_0 = m.builder.addAccessor('VEC4', Uint8Array.of(0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0)); },
      message: /mesh 0 primitive 0 JOINTS_0: vertex 1 uses joint 2, but skin 0 has 2 joints/,
    },
    {
      breaks: 'negative weight',
      mutate: (m) => { m.json.meshes![0].primitives[0].attributes.WEIGHTS_0 = m.builder.addAccessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1.5, -0.5, 0, 0)); },
      message: /mesh 0 primitive 0 WEIGHTS_0: vertex 2 has negative weight -0.5/,
    },
    {
      breaks: 'indices out of range',
      mutate: (m) => { m.json.meshes![0].primitives[0].indices = m.builder.addAccessor('SCALAR', Uint16Array.of(0, 1, 3)); },
      message: /mesh 0 primitive 0 indices: index 2 is 3, but there are 3 vertices/,
    },
    {
      breaks: 'NORMAL count differs from POSITION count',
      mutate: (m) => { m.json.meshes![0].primitives[0].attributes.NORMAL = m.builder.addAccessor('VEC3', new Float32Array(6)); },
      message: /mesh 0 primitive 0 NORMAL \(accessor \d+\): has 2 elements, expected 3/,
    },
    {
      breaks: 'non-increasing input times',
      mutate: (m) => { m.json.animations![0].samplers[0].input = m.builder.addAccessor('SCALAR', Float32Array.of(0.5, 0.5)); },
      message: /animation 'wave' channel 0: sampler input times are not increasing \(key 1 at 0.5 s follows 0.5 s\)/,
    },
    {
      breaks: 'negative first key time',
      mutate: (m) => { m.json.animations![0].samplers[0].input = m.builder.addAccessor('SCALAR', Float32Array.of(-1, 1)); },
      message: /animation 'wave' channel 0: sampler input starts at negative time -1/,
    },
    {
      breaks: 'a clip shorter than the smallest normal float32 (subnormal on the GPU)',
      mutate: (m) => { m.json.animations![0].samplers[0].input = m.builder.addAccessor('SCALAR', Float32Array.of(0, 1e-44)); },
      message: /^animation 'wave' channel 0: its last key is at 9\.80908925027372e-45 s, so the clip is shorter than float32's smallest normal number \(1\.1754943508222875e-38 s\): the GPU may read its duration as 0, and its clip time overflows$/,
    },
    {
      breaks: 'output count mismatch',
      mutate: (m) => { m.json.animations![0].samplers[0].output = m.builder.addAccessor('VEC4', quat(0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)); },
      message: /animation 'wave' channel 0: sampler output has 3 values, expected 2 for 2 LINEAR keys/,
    },
    {
      breaks: 'zero-length rotation key',
      mutate: (m) => { m.json.animations![0].samplers[0].output = m.builder.addAccessor('VEC4', quat(0, 0, 0, 1, 0, 0, 0, 0)); },
      message: /animation 'wave' channel 0: rotation key 1 has zero length/,
    },
    {
      breaks: 'unknown interpolation',
      mutate: (m) => { m.json.animations![0].samplers[0].interpolation = 'QUADRATIC'; },
      message: /animation 'wave' channel 0: interpolation 'QUADRATIC' is not STEP, LINEAR or CUBICSPLINE/,
    },
    {
      breaks: 'duplicate channel target',
      mutate: (m) => { m.json.animations![0].channels.push({ sampler: 0, target: { node: 1, path: 'rotation' } }); },
      message: /animation 'wave' channel 1: node 1 rotation is already animated by another channel of this animation/,
    },
    {
      breaks: 'channel sampler out of range',
      mutate: (m) => { m.json.animations![0].channels[0].sampler = 3; },
      message: /animation 'wave' channel 0: sampler 3 does not exist \(the animation has 1\)/,
    },
    {
      breaks: 'channel target node out of range',
      mutate: (m) => { m.json.animations![0].channels[0].target.node = 9; },
      message: /animation 'wave' channel 0: target node 9 does not exist/,
    },
    {
      breaks: 'CUBICSPLINE with 1 key',
      mutate: (m) => {
        const sampler = m.json.animations![0].samplers[0];
        sampler.interpolation = 'CUBICSPLINE';
        sampler.input = m.builder.addAccessor('SCALAR', Float32Array.of(0));
        sampler.output = m.builder.addAccessor('VEC4', quat(0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0));
      },
      message: /animation 'wave' channel 0: CUBICSPLINE needs at least 2 keys, has 1/,
    },
    {
      breaks: 'animated node that has a matrix',
      mutate: (m) => { delete m.json.nodes[1].translation; m.json.nodes[1].matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1]; },
      message: /animation 'wave' channel 0: node 1 is animated but has a matrix/,
    },
    {
      breaks: 'inverse bind matrix that is not affine',
      mutate: (m) => {
        const projective = [...translationMatrix(0, -1, 0)];
        projective[3] = 0.5; // column 0, row 3: bottom row (0.5, 0, 0, 1)
        m.json.skins![0].inverseBindMatrices = m.builder.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0), ...projective));
      },
      message: /^skin 0: inverse bind matrix 1 is not affine: its bottom row is \(0\.5, 0, 0, 1\), glTF requires \(0, 0, 0, 1\)$/,
    },
    {
      breaks: 'required extension the loader does not know',
      mutate: (m) => { m.json.extensionsRequired = ['KHR_materials_variants']; },
      message: /^the file requires extension KHR_materials_variants, which this loader does not support$/,
    },
    {
      breaks: 'asset.minVersion above 2.0',
      mutate: (m) => { m.json.asset!.minVersion = '2.1'; },
      message: /^the file needs glTF 2\.1 or later \(asset\.minVersion\); this loader reads glTF 2\.0$/,
    },
    {
      breaks: 'required unsupported extension',
      mutate: (m) => { m.json.extensionsRequired = ['KHR_draco_mesh_compression']; },
      message: /^the file requires extension KHR_draco_mesh_compression, which needs decoders: \{ draco: dracoDecoder\(await createDecoderModule\(\)\) \}, dracoDecoder from 'crowd-skin'/,
    },
    { breaks: 'default scene out of range', mutate: (m) => { m.json.scene = 2; }, message: /scene 2 \(the default scene\) does not exist \(the file has 1\)/ },
  ];

  it.each(cases)('rejects $breaks', ({ mutate, message }) => {
    expectModelError(() => rigWith(mutate), message);
  });

  it('accepts a clip as short as the smallest normal float32, and one of a single key (0 s)', () => {
    for (const times of [Float32Array.of(0, 2 ** -126), Float32Array.of(0)]) {
      const rig = rigWith((m) => {
        m.json.animations![0].samplers[0].input = m.builder.addAccessor('SCALAR', times);
        m.json.animations![0].samplers[0].output = m.builder.addAccessor('VEC4', quat(...[0, 0, 0, 1, 0, 0, 0.6, 0.8].slice(0, times.length * 4)));
      });
      expect(rig.clips[0].duration).toBe(times[times.length - 1]);
    }
  });
});

describe('buildRig on small models', () => {
  it('orders rig nodes parent-first, includes ancestors of joints and leaves other nodes out', () => {
    // glTF node order is child-first: 0 leaf joint, 1 its parent joint, 2 a non-joint ancestor, 3 unrelated.
    const rig = rigWith((m) => {
      m.json.nodes.splice(0, 3,
        { name: 'leaf', translation: [0, 1, 0] },
        { name: 'mid', children: [0] },
        { name: 'top', children: [1], scale: [2, 2, 2] },
        { name: 'unrelated' },
        { name: 'mesh', mesh: 0, skin: 0 });
      m.json.scenes = [{ nodes: [2, 3, 4] }];
      m.json.skins![0].joints = [0, 1];
      m.json.animations![0].channels[0].target.node = 0;
    });
    expect(rig.nodes.names).toEqual(['top', 'mid', 'leaf']);
    expect(Array.from(rig.nodes.gltfIndex)).toEqual([2, 1, 0]);
    expect(Array.from(rig.nodes.parent)).toEqual([-1, 0, 1]);
    expect(Array.from(rig.skins[0].joints)).toEqual([2, 1]); // skin order kept, mapped to rig indices
    expect(rig.skins[0].jointNames).toEqual(['leaf', 'mid']);
    expect(Array.from(rig.nodes.restScale.subarray(0, 3))).toEqual([2, 2, 2]);
    expect(rig.clips[0].channels[0].node).toBe(2);
  });

  it('turns a mesh node under a joint into a one-joint skin with weight 1', () => {
    const rig = rigWith((m) => {
      const positions = m.builder.addAccessor('VEC3', Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 0, 2, 0));
      m.json.meshes!.push({ primitives: [{ attributes: { POSITION: positions } }] });
      m.json.nodes[1].children = [3];
      m.json.nodes.push({ name: 'hat', mesh: 1, translation: [0, 0.5, 0] });
    });
    expect(rig.nodes.names).toEqual(['root', 'arm', 'hat']);
    expect(rig.gltfSkinCount).toBe(1);
    expect(rig.skins).toHaveLength(2);
    const rigid = rig.skins[1];
    expect(rigid).toMatchObject({ gltfSkin: -1, name: 'rigid:hat', jointNames: ['hat'] });
    expect(Array.from(rigid.joints)).toEqual([2]);
    expect(Array.from(rigid.inverseBind)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const prim = rig.primitives.find((p) => p.gltfNode === 3)!;
    expect(prim.skin).toBe(1);
    expect(prim.indices).toBeUndefined();
    expect(Array.from(prim.joints)).toEqual(new Array(24).fill(0));
    expect(Array.from(prim.weights)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
  });

  it('renormalises weights with a warning and points zero-weight influences at joint 0', () => {
    const rig = rigWith((m) => {
      const prim = m.json.meshes![0].primitives[0];
      prim.attributes.WEIGHTS_0 = m.builder.addAccessor('VEC4', Float32Array.of(2, 0, 0, 0, 1, 0, 0, 0, 0.5, 1.5, 0, 0));
      prim.attributes.JOINTS_0 = m.builder.addAccessor('VEC4', Uint8Array.of(0, 200, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0));
    });
    expect(rig.warnings).toEqual(['mesh 0 primitive 0: 2 vertices had weights not summing to 1; renormalised']);
    expect(Array.from(rig.primitives[0].weights)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 0.25, 0.75, 0, 0]);
    expect(Array.from(rig.primitives[0].joints)).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0]);
  });

  it('binds a vertex whose weights are all 0 to its first joint, with a warning', () => {
    const rig = rigWith((m) => {
      m.json.meshes![0].primitives[0].attributes.WEIGHTS_0 = m.builder.addAccessor('VEC4', Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 0, 0));
    });
    expect(rig.warnings).toEqual(['mesh 0 primitive 0: 1 vertices had all weights 0; bound to their first joint']);
    expect(Array.from(rig.primitives[0].weights.subarray(4, 8))).toEqual([1, 0, 0, 0]);
  });

  it('skips a non-triangle primitive with a warning', () => {
    const rig = rigWith((m) => {
      const prim = m.json.meshes![0].primitives[0];
      m.json.meshes![0].primitives.push({ ...prim, mode: 1 });
    });
    expect(rig.primitives.map((p) => p.primitiveIndex)).toEqual([0]);
    expect(rig.warnings).toEqual(['mesh 0 primitive 1: mode 1 is not triangles; not drawn']);
  });

  it('accepts animations that share a name: the later ones become "<name> (2)", "(3)"..., each with a warning', () => {
    const rig = rigWith((m) => {
      const wave = m.json.animations![0];
      m.json.animations!.push(structuredClone(wave), { ...structuredClone(wave), name: 'wave (2)' }, structuredClone(wave));
    });
    // The file's own 'wave (2)' keeps its name, so the copies skip it.
    expect(rig.clips.map((c) => c.name)).toEqual(['wave', 'wave (3)', 'wave (2)', 'wave (4)']);
    expect(rig.warnings).toEqual([
      "animation 1: another animation is also named 'wave'; this one is named 'wave (3)'",
      "animation 3: another animation is also named 'wave'; this one is named 'wave (4)'",
    ]);
    expect(rig.clips.every((c) => c.channels.length === 1)).toBe(true);
  });

  it('gives an unnamed animation a clip name that no named one uses', () => {
    const rig = rigWith((m) => {
      const unnamed = structuredClone(m.json.animations![0]);
      delete unnamed.name;
      m.json.animations!.push({ ...structuredClone(unnamed), name: 'clip2' }, unnamed);
    });
    expect(rig.clips.map((c) => c.name)).toEqual(['wave', 'clip2', 'clip2 (2)']);
  });

  it('skips a primitive without POSITION, with a warning, and draws the others', () => {
    const rig = rigWith((m) => {
      const prim = m.json.meshes![0].primitives[0];
      const { POSITION: _dropped, ...rest } = prim.attributes;
      m.json.meshes![0].primitives.unshift({ ...prim, attributes: rest });
    });
    expect(rig.primitives.map((p) => p.primitiveIndex)).toEqual([1]);
    expect(rig.warnings).toEqual(['mesh 0 primitive 0: has no POSITION attribute; not drawn']);
  });

  it('snaps an inverse bind matrix whose bottom row is off by rounding to exactly (0, 0, 0, 1)', () => {
    const rig = rigWith((m) => {
      const nearly = [...translationMatrix(0, -1, 0)];
      nearly[15] = 1 + 2e-7;
      nearly[7] = -3e-7;
      m.json.skins![0].inverseBindMatrices = m.builder.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0), ...nearly));
    });
    expect([3, 7, 11, 15].map((i) => rig.skins[0].inverseBind[16 + i])).toEqual([0, 0, 0, 1]);
  });

  it('accepts glTF 2.1 files that ask for no more than 2.0 (minor versions are compatible)', () => {
    expect(rigWith((m) => { m.json.asset = { version: '2.1', minVersion: '2.0' }; }).clips).toHaveLength(1);
    expect(rigWith((m) => { m.json.asset = { version: '2.3' }; }).clips).toHaveLength(1);
  });

  it('ignores weights channels of nodes without morph targets and channels on nodes outside the rig, with warnings', () => {
    const rig = rigWith((m) => {
      m.json.nodes.push({ name: 'lamp' });
      m.json.scenes![0].nodes!.push(3);
      m.json.animations![0].channels.push(
        { sampler: 0, target: { node: 2, path: 'weights' } },
        { sampler: 0, target: { node: 3, path: 'rotation' } },
      );
    });
    expect(rig.clips[0].channels).toHaveLength(1);
    expect(rig.warnings).toEqual([
      "animation 'wave' channel 1: node 2 draws no morph targets; its weights channel is ignored",
      "animation 'wave' channel 2: node 3 moves no joint or drawn mesh; ignored",
    ]);
  });

  it('reads inverse bind matrices, rest TRS and clip duration', () => {
    const rig = rigWith();
    expect(Array.from(rig.skins[0].inverseBind.subarray(16))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]);
    expect(Array.from(rig.nodes.restTranslation)).toEqual([0, 0, 0, 0, 1, 0]);
    expect(Array.from(rig.nodes.restRotation)).toEqual([0, 0, 0, 1, 0, 0, 0, 1]);
    expect(rig.clips[0]).toMatchObject({ name: 'wave', duration: 1 });
    expect(rig.clips[0].channels[0]).toMatchObject({ node: 1, path: 'rotation', interpolation: 'LINEAR' });
  });
});

describe('buildRig on real models', () => {
  it('orders every model parent-first, keeps each node\'s glTF parent and maps every skin joint', async () => {
    for (const name of testModelNames()) {
      const { rig, asset } = await loadModel(name);
      const gltfParent = new Map<number, number>();
      asset.json.nodes!.forEach((node, i) => node.children?.forEach((c) => gltfParent.set(c, i)));
      for (let i = 0; i < rig.nodes.count; i++) {
        const p = rig.nodes.parent[i];
        expect(p, `${name} node ${i}`).toBeLessThan(i);
        const expected = gltfParent.get(rig.nodes.gltfIndex[i]);
        expect(p === -1 ? undefined : rig.nodes.gltfIndex[p], `${name} node ${i}`).toBe(expected);
      }
      // Every skin joint is a rig node, and every glTF skin's joints are where the file says.
      asset.json.skins?.forEach((skin, s) => {
        expect(Array.from(rig.skins[s].joints, (j) => rig.nodes.gltfIndex[j]), `${name} skin ${s}`).toEqual(skin.joints);
      });
    }
  });

  it('RobotExpressive: 2 glTF skins plus 12 rigid one-joint skins, 19 primitives, weights renormalised', async () => {
    const { rig } = await loadModel('RobotExpressive');
    expect(rig.gltfSkinCount).toBe(2);
    expect(rig.skins).toHaveLength(14);
    expect(rig.skins.slice(0, 2).map((s) => s.joints.length)).toEqual([43, 43]);
    for (const skin of rig.skins.slice(2)) {
      expect(skin.gltfSkin).toBe(-1);
      expect(skin.joints).toHaveLength(1);
    }
    expect(rig.primitives).toHaveLength(19);
    for (const prim of rig.primitives) {
      if (prim.skin >= 2) expect(rig.nodes.gltfIndex[rig.skins[prim.skin].joints[0]]).toBe(prim.gltfNode);
      for (let v = 0; v < prim.vertexCount; v++) {
        let sum = 0;
        for (let k = 0; k < prim.influences; k++) sum += prim.weights[v * prim.influences + k];
        expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
      }
    }
    const renormalised = rig.warnings.filter((w) => /weights not summing to 1; renormalised/.test(w));
    expect(renormalised).toHaveLength(4); // both primitives of both hands
    // The Head's morph weights channels (one per clip) are read now (test/bake/load-morph.test.ts), not ignored.
    expect(rig.warnings.filter((w) => /morph|weights channel/.test(w))).toEqual([]);
  });

  it('RiggedSimple: the matrix of root joint Bone is decomposed into a rest TRS that recomposes to it', async () => {
    const { rig, asset } = await loadModel('RiggedSimple');
    const i = rig.nodes.names.indexOf('Bone');
    const matrix = asset.json.nodes![rig.nodes.gltfIndex[i]].matrix!;
    expect(matrix).toHaveLength(16);
    const m = new Float64Array(16);
    composeTrsAt(rig.nodes.restTranslation, i * 3, rig.nodes.restRotation, i * 4, rig.nodes.restScale, i * 3, m, 0);
    m.forEach((v, k) => expect(v).toBeCloseTo(matrix[k], 6));
  });

  it('SimpleSkin (.gltf with data URIs): loads, and JOINTS_0 is read through its padded byteStride', async () => {
    const { rig, asset, path } = await loadModel('SimpleSkin');
    const file = JSON.parse(await readFile(path, 'utf8')) as GltfJson;
    expect(file.buffers!.map((b) => b.uri!.slice(0, 5))).toEqual(['data:', 'data:', 'data:', 'data:']);
    expect(asset.json.bufferViews![2].byteStride).toBe(16);
    expect(rig.nodes.count).toBe(2);
    expect(rig.primitives).toHaveLength(1);
    const prim = rig.primitives[0];
    expect(prim.vertexCount).toBe(10);
    // As stored in the file (u16 x 4 every 16 bytes, WEIGHTS_0 from byte 160 of the same view).
    const joints = [[0, 0, 0, 0], [0, 0, 0, 0], ...new Array(8).fill([0, 1, 0, 0])];
    const weights = [1, 1, 0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 0, 0].map((w) => [w, 1 - w, 0, 0]);
    expect(Array.from(prim.joints)).toEqual(joints.flat());
    expect(Array.from(prim.weights)).toEqual(weights.flat());
    expect(rig.clips[0].duration).toBe(5.5);
    expect(rig.clips[0].channels[0].times).toHaveLength(12);
  });

  it('loads a .gltf whose buffers are external .bin files next to it', async () => {
    const source = JSON.parse(await readFile(modelPath('SimpleSkin'), 'utf8')) as GltfJson;
    const dir = mkdtempSync(join(tmpdir(), 'crowd-skin-gltf-'));
    try {
      source.buffers!.forEach((buffer, i) => {
        const base64 = buffer.uri!.slice(buffer.uri!.indexOf(',') + 1);
        writeFileSync(join(dir, `part ${i}.bin`), Buffer.from(base64, 'base64'));
        buffer.uri = `part%20${i}.bin`; // relative and percent-encoded, as the spec allows
      });
      writeFileSync(join(dir, 'SimpleSkin.gltf'), JSON.stringify(source));
      const external = buildRig(await readGltfFile(join(dir, 'SimpleSkin.gltf')));
      const { rig: inline } = await loadModel('SimpleSkin');
      expect(Array.from(external.primitives[0].positions)).toEqual(Array.from(inline.primitives[0].positions));
      expect(Array.from(external.primitives[0].joints)).toEqual(Array.from(inline.primitives[0].joints));
      expect(Array.from(external.skins[0].inverseBind)).toEqual(Array.from(inline.skins[0].inverseBind));
      expect(Array.from(external.clips[0].channels[0].values)).toEqual(Array.from(inline.clips[0].channels[0].values));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('RecursiveSkeletons: 84 skins of 10 joints, 840 rig nodes', async () => {
    const { rig } = await loadModel('RecursiveSkeletons');
    expect(rig.gltfSkinCount).toBe(84);
    expect(rig.skins).toHaveLength(84);
    expect(rig.skins.every((s) => s.joints.length === 10)).toBe(true);
    expect(rig.nodes.count).toBe(840);
    expect(rig.primitives).toHaveLength(84);
    expect(rig.clips[0].channels).toHaveLength(840);
  });

  it('CesiumMan: clip of 2 s whose keys start at 0.0417 s holds the first key at t = 0', async () => {
    const { rig } = await loadModel('CesiumMan');
    const clip = rig.clips[0];
    expect(clip.duration).toBeCloseTo(2, 6);
    const pose = sampleClip(rig, 0, 0, createPose(rig.nodes.count));
    for (const channel of clip.channels) {
      expect(channel.times[0]).toBeCloseTo(1 / 24, 4);
      const n = channel.path === 'rotation' ? 4 : 3;
      const target = channel.path === 'translation' ? pose.translation : channel.path === 'rotation' ? pose.rotation : pose.scale;
      expect(Array.from(target.subarray(channel.node * n, channel.node * n + n))).toEqual(Array.from(channel.values.subarray(0, n)));
    }
  });

  it('Fox: clip durations', async () => {
    const { rig } = await loadModel('Fox');
    expect(rig.clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run']);
    const durations = rig.clips.map((c) => c.duration);
    [3.417, 0.708, 1.158].forEach((d, i) => expect(Math.abs(durations[i] - d)).toBeLessThan(1e-3));
  });
});
