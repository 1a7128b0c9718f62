import { GltfBuilder, translationMatrix, type SkinnedModel } from './gltf-builder';

/** Where the shoulder joint is (model space) and the arm's length, model units. */
export const SHOULDER = [0.55, 2, 0] as const;
export const ARM_LENGTH = 0.9;
/** Half the depth (z) of every box. */
export const FIGURE_HALF_DEPTH = 0.15;

/**
 * A standing figure made of boxes, for picking: two legs (x in [-0.4, -0.1] and [0.1, 0.4], y in
 * [0, 1]) with a gap between them, a torso (x in [-0.4, 0.4], y in [1, 2]) on joint 'hips' (0, at
 * the origin), and an arm hanging from joint 'shoulder' (1, at SHOULDER: x in [0.45, 0.65], y in
 * [1.1, 2]). Every box is z in [-FIGURE_HALF_DEPTH, FIGURE_HALF_DEPTH].
 * Clips (1 s each): 'rest' (the bind pose) and 'armOut' (the shoulder turned +90 degrees about z,
 * held: the arm points along +x, from x = 0.55 to 1.45 at y in [1.9, 2.1]).
 */
export function figureRigModel(): SkinnedModel {
  const b = new GltfBuilder();
  const positions: number[] = [], joints: number[] = [], weights: number[] = [], indices: number[] = [];
  const box = (x0: number, x1: number, y0: number, y1: number, joint: number) => {
    const base = positions.length / 3;
    for (let i = 0; i < 8; i++) {
      positions.push(i & 1 ? x1 : x0, i & 2 ? y1 : y0, i & 4 ? FIGURE_HALF_DEPTH : -FIGURE_HALF_DEPTH);
      joints.push(joint, 0, 0, 0);
      weights.push(1, 0, 0, 0);
    }
    // Six faces, two triangles each (corners by bit: 1 x, 2 y, 4 z).
    for (const [a, c, d, e] of [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]) {
      indices.push(base + a, base + c, base + d, base + a, base + d, base + e);
    }
  };
  box(-0.4, -0.1, 0, 1, 0);
  box(0.1, 0.4, 0, 1, 0);
  box(-0.4, 0.4, 1, 2, 0);
  box(SHOULDER[0] - 0.1, SHOULDER[0] + 0.1, SHOULDER[1] - ARM_LENGTH, SHOULDER[1], 1);
  const s = Math.SQRT1_2;
  const acc = {
    positions: b.addAccessor('VEC3', Float32Array.from(positions)),
    joints: b.addAccessor('VEC4', Uint8Array.from(joints)),
    weights: b.addAccessor('VEC4', Float32Array.from(weights)),
    indices: b.addAccessor('SCALAR', Uint16Array.from(indices)),
    inverseBind: b.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0), ...translationMatrix(-SHOULDER[0], -SHOULDER[1], -SHOULDER[2]))),
    times: b.addAccessor('SCALAR', Float32Array.of(0, 1)),
    rotations: b.addAccessor('VEC4', Float32Array.of(0, 0, s, s, 0, 0, s, s)),
    rest: b.addAccessor('VEC4', Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1)),
  };
  b.json.nodes.push({ name: 'hips', children: [1] }, { name: 'shoulder', translation: [...SHOULDER] }, { name: 'mesh', mesh: 0, skin: 0 });
  b.json.scenes = [{ nodes: [0, 2] }];
  b.json.meshes = [{ primitives: [{ attributes: { POSITION: acc.positions, JOINTS_0: acc.joints, WEIGHTS_0: acc.weights }, indices: acc.indices }] }];
  b.json.skins = [{ joints: [0, 1], inverseBindMatrices: acc.inverseBind }];
  b.json.animations = [
    { name: 'rest', channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }], samplers: [{ input: acc.times, output: acc.rest, interpolation: 'LINEAR' }] },
    { name: 'armOut', channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }], samplers: [{ input: acc.times, output: acc.rotations, interpolation: 'LINEAR' }] },
  ];
  return { builder: b, json: b.json, acc };
}
