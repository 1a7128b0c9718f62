import { describe, expect, it } from 'vitest';
import { skinPositions } from '../../src/anim/skinning';
import { defaultMaterial, type SkinnedPrimitive } from '../../src/bake/rig';

function primitive(positions: number[], joints: number[], weights: number[]): SkinnedPrimitive {
  return {
    gltfNode: 0, gltfMesh: 0, primitiveIndex: 0, skin: 0, vertexCount: positions.length / 3,
    positions: Float32Array.from(positions), influences: 4, joints: Uint16Array.from(joints), weights: Float32Array.from(weights),
    material: defaultMaterial(),
  };
}

describe('skinPositions', () => {
  const translate = (x: number, y: number, z: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
  const scale2 = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1];
  const joints = Float64Array.from([...translate(10, 0, 0), ...scale2, ...translate(0, 0, -4)]);

  it('sums weight * jointMatrix * position over the influences', () => {
    const prim = primitive([1, 2, 3, 1, 1, 1], [0, 1, 2, 0, 2, 0, 0, 0], [0.5, 0.25, 0.25, 0, 1, 0, 0, 0]);
    const out = skinPositions(prim, joints, new Float64Array(6));
    // Vertex 0: 0.5 (11, 2, 3) + 0.25 (2, 4, 6) + 0.25 (1, 2, -1). Vertex 1: joint 2 only.
    expect(Array.from(out)).toEqual([6.25, 2.5, 2.75, 1, 1, -3]);
  });

  it('writes from the given offset and leaves the rest alone', () => {
    const prim = primitive([1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]);
    const out = skinPositions(prim, joints, new Float64Array(5).fill(-1), 2);
    expect(Array.from(out)).toEqual([-1, -1, 2, 0, 0]);
  });
});
