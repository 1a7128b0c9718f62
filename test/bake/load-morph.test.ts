import { describe, expect, it } from 'vitest';
import { buildRig } from '../../src/bake/build-rig';
import type { Rig } from '../../src/bake/rig';
import { morphStarts, sampleMorphWeights, sampleWeightsChannel } from '../../src/bake/sampler';
import { expectModelError, morphModel, type MorphModel } from '../helpers/gltf-builder';
import { loadModel } from '../helpers/models';

function rigWith(mutate: (m: MorphModel) => void = () => {}): Rig {
  const model = morphModel();
  mutate(model);
  return buildRig(model.builder.build());
}

describe('morph targets: validity', () => {
  it('accepts the unbroken model without warnings', () => {
    expect(rigWith().warnings).toEqual([]);
  });

  it('refuses primitives of one mesh with different target counts', () => {
    expectModelError(() => rigWith((m) => {
      const prim = m.json.meshes![0].primitives[0];
      m.json.meshes![0].primitives.push({ ...prim, targets: [prim.targets![0]] });
    }), /mesh 0: primitive 1 has 1 morph targets, primitive 0 has 2/);
  });

  it('refuses default weights of the wrong length, on the mesh and on the node', () => {
    expectModelError(() => rigWith((m) => { m.json.meshes![0].weights = [1]; }), /mesh 0: weights has 1 numbers, mesh 0 has 2 morph targets/);
    expectModelError(() => rigWith((m) => { m.json.nodes[2].weights = [0, 0, 0]; }), /node 2: weights has 3 numbers, mesh 0 has 2 morph targets/);
    expectModelError(() => rigWith((m) => { m.json.nodes[2].weights = [0, 'a' as unknown as number]; }), /node 2: weights\[1\] must be a number/);
  });

  it('refuses a target accessor with another vertex count, or not VEC3 float', () => {
    expectModelError(() => rigWith((m) => {
      m.json.meshes![0].primitives[0].targets![1].POSITION = m.builder.addAccessor('VEC3', new Float32Array(6));
    }), /mesh 0 primitive 0 target 1 POSITION \(accessor \d+\): has 2 elements, expected 3/);
    expectModelError(() => rigWith((m) => {
      m.json.meshes![0].primitives[0].targets![0].NORMAL = m.builder.addAccessor('VEC4', new Float32Array(12));
    }), /target 0 NORMAL \(accessor \d+\): type is VEC4, expected VEC3/);
    expectModelError(() => rigWith((m) => { m.json.meshes![0].primitives[0].targets = [{ POSITION: -1 }] as never; }), /targets\[0\]\.POSITION must be a non-negative integer/);
  });

  it('refuses a weights channel whose output does not hold targetCount values per key', () => {
    expectModelError(() => rigWith((m) => {
      m.json.animations![0].samplers[1].output = m.builder.addAccessor('SCALAR', new Float32Array(5));
    }), /animation 'wave' channel 1: sampler output has 5 values, expected 6 for 3 LINEAR keys of 2 morph targets/);
    expectModelError(() => rigWith((m) => {
      m.json.animations![1].samplers[0].output = m.builder.addAccessor('SCALAR', new Float32Array(6));
    }), /animation 'blink' channel 0: sampler output has 6 values, expected 18 for 3 CUBICSPLINE keys of 2 morph targets/);
    expectModelError(() => rigWith((m) => {
      m.json.animations![0].samplers[1].output = m.builder.addAccessor('VEC2', new Float32Array(6));
    }), /type is VEC2, expected SCALAR/);
  });

  it('refuses two weights channels of one node in one animation', () => {
    expectModelError(() => rigWith((m) => {
      m.json.animations![0].channels.push({ sampler: 1, target: { node: 2, path: 'weights' } });
    }), /animation 'wave' channel 2: node 2 weights is already animated by another channel of this animation/);
  });

  it('ignores, with a warning, weights channels of nodes that draw no morph targets, and unusable target names', () => {
    const rig = rigWith((m) => {
      m.json.animations![0].channels.push({ sampler: 1, target: { node: 1, path: 'weights' } });
      m.json.meshes![0].extras = { targetNames: ['smile', 'smile'] };
    });
    expect(rig.warnings).toEqual([
      'mesh 0: extras.targetNames is not 2 distinct names; its morph targets are named target0..target1',
      "animation 'wave' channel 2: node 1 draws no morph targets; its weights channel is ignored",
    ]);
    expect(rig.clips[0].weights).toHaveLength(1);
    expect(rig.morphs[0].targetNames).toEqual(['target0', 'target1']);
  });
});

describe('morph targets: what the loader reads', () => {
  it('one morph set per mesh node: names, default weights (node, else mesh, else 0), mask node', () => {
    const rig = rigWith();
    expect(rig.morphs).toHaveLength(1);
    expect(rig.morphs[0]).toMatchObject({ name: 'mesh', gltfNode: 2, gltfMesh: 0, targetNames: ['smile', 'blink'], maskNode: 0 });
    expect(Array.from(rig.morphs[0].defaultWeights)).toEqual([0.25, 0]);
    expect(Array.from(rigWith((m) => { m.json.nodes[2].weights = [0.5, 0.75]; }).morphs[0].defaultWeights)).toEqual([0.5, 0.75]);
    expect(Array.from(rigWith((m) => { delete m.json.meshes![0].weights; }).morphs[0].defaultWeights)).toEqual([0, 0]);
  });

  it('reads POSITION and NORMAL displacements per target (zeros where a target has none)', () => {
    const prim = rigWith().primitives[0];
    expect(prim.morph!.set).toBe(0);
    expect(prim.morph!.positions.map((p) => Array.from(p))).toEqual([[0, 0, 0, 0.5, 0, 0, 0, 0.25, 0], [0, 0, 0.5, 0, 0, 0, -0.25, 0, 0.125]]);
    expect(prim.morph!.normals!.map((p) => Array.from(p))).toEqual([[0.5, 0, 0, 0, 0.5, 0, 0.25, 0.25, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0]]);
    // Without base normals (derived when drawing), normal displacements are not kept.
    expect(rigWith((m) => { delete m.json.meshes![0].primitives[0].attributes.NORMAL; }).primitives[0].morph!.normals).toBeUndefined();
    // A mesh without targets has no morph set.
    expect(rigWith((m) => { delete m.json.meshes![0].primitives[0].targets; delete m.json.meshes![0].weights; m.json.animations!.splice(1, 2); m.json.animations![0].channels.pop(); }).morphs).toEqual([]);
  });

  it('reads weights channels into clips; the duration covers them', () => {
    const rig = rigWith((m) => { m.json.animations![0].samplers[1].input = m.builder.addAccessor('SCALAR', Float32Array.of(0, 0.5, 3)); });
    expect(rig.clips.map((c) => [c.name, c.duration, c.weights?.length])).toEqual([['wave', 3, 1], ['blink', 2, 1], ['snap', 1, 1]]);
    expect(rig.clips[1].weights![0]).toMatchObject({ morph: 0, interpolation: 'CUBICSPLINE' });
    expect(rig.clips[1].channels).toEqual([]);
  });
});

describe('morph weights: the exact sampler', () => {
  const rig = rigWith();
  const at = (clip: number, t: number) => Array.from(sampleMorphWeights(rig, clip, t, new Float64Array(2)));

  it('LINEAR interpolates each weight, holds outside the keys', () => {
    expect(at(0, 0.25)).toEqual([0.5, 0.25]);
    expect(at(0, 0.75).map((w) => +w.toFixed(6))).toEqual([0.6, 0.75]);
    const out = new Float64Array(2);
    sampleWeightsChannel(rig.clips[0].weights![0], 2, 5, out, 0);
    expect(Array.from(out, (w) => +w.toFixed(6))).toEqual([0.2, 1]);
  });

  it('STEP holds the key before; CUBICSPLINE is the Hermite spline with tangents scaled by the interval', () => {
    expect(at(2, 0.1)).toEqual([1, 0]);
    expect(at(2, 0.3)).toEqual([0, 1]);
    // Key 0 (0 s): values (0, 0), out-tangents (1, -1); key 1 (1.5 s): in-tangents (0.5, 0), values (0.6, 0.9).
    const s = 0.5, dt = 1.5;
    const h = [2 * s ** 3 - 3 * s ** 2 + 1, s ** 3 - 2 * s ** 2 + s, -2 * s ** 3 + 3 * s ** 2, s ** 3 - s ** 2];
    const expected = [h[1] * dt * 1 + h[2] * 0.6 + h[3] * dt * 0.5, h[1] * dt * -1 + h[2] * 0.9];
    at(1, 0.75).forEach((w, i) => expect(w).toBeCloseTo(expected[i], 6));
  });

  it('sets the clip does not animate keep their default weights; clip time wraps', () => {
    const still = rigWith((m) => { m.json.animations![0].channels.pop(); });
    expect(Array.from(sampleMorphWeights(still, 0, 0.5, new Float64Array(2)))).toEqual([0.25, 0]);
    expect(at(0, 1.25)).toEqual(at(0, 0.25));
    expect(morphStarts(rig)).toEqual([0, 2]);
  });
});

describe('morph targets on RobotExpressive', () => {
  it('the Head mesh (rigid on its node): targets Angry, Surprised, Sad on its 3 primitives; a weights channel in every clip', async () => {
    const { rig } = await loadModel('RobotExpressive');
    expect(rig.morphs.map((m) => [m.name, m.targetNames])).toEqual([['Head', ['Angry', 'Surprised', 'Sad']]]);
    expect(rig.nodes.names[rig.morphs[0].maskNode]).toBe('Head');
    const morphed = rig.primitives.filter((p) => p.morph);
    expect(morphed.map((p) => [p.vertexCount, p.morph!.positions.length, p.morph!.normals])).toEqual([[302, 3, undefined], [876, 3, undefined], [564, 3, undefined]]);
    expect(rig.clips.every((c) => c.weights?.length === 1)).toBe(true);
    expect(rig.warnings.filter((w) => /weights/.test(w))).toHaveLength(4); // only the hands' renormalised skin weights
  });
});
