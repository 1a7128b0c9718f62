import { GltfBuilder, translationMatrix, type SkinnedModel } from './gltf-builder';

/** Twist of the upper joint in the 'twist' clip, degrees. */
export const TWIST_DEGREES = 150;
/** Rings of the cylinder (y = 0, 0.25, ..., 2) and vertices per ring. */
export const TWIST_RINGS = 9;
export const TWIST_SEGMENTS = 32;
/** Radius of the cylinder, model units. */
export const TWIST_RADIUS = 0.25;
/** The ring weighted 50/50 between the two joints (y = 1, at the upper joint). */
export const MIDDLE_RING = 4;

/**
 * A cylinder twisted about its own axis: the test rig of dual-quaternion skinning.
 * - nodes: 'base' (joint 0, at the origin) with child 'twist' (joint 1, at y = 1); 'mesh'.
 * - mesh: TWIST_RINGS rings of TWIST_SEGMENTS vertices, y = 0 to 2 in steps of 0.25, radius
 *   TWIST_RADIUS, radial normals; ring k has weight clamp(y - 0.5, 0, 1) on 'twist', the rest on
 *   'base': rings at y <= 0.5 follow the base, y >= 1.5 the twist joint, the middle ring (y = 1)
 *   is half and half.
 * - clip 'twist' (2 s): 'twist' turns about +y from 0 at t = 0 to TWIST_DEGREES at t = 1, held to t = 2
 *   (time 0 is the rest pose; any time in [1, 2) is the full twist). With `held`, the clip holds
 *   the full twist from t = 0 (for the demo, whose instances play their clips).
 */
export function twistRigModel(options: { held?: boolean } = {}): SkinnedModel {
  const b = new GltfBuilder();
  const positions: number[] = [], normals: number[] = [], joints: number[] = [], weights: number[] = [], indices: number[] = [];
  for (let k = 0; k < TWIST_RINGS; k++) {
    const y = k * 0.25;
    const w = Math.min(1, Math.max(0, y - 0.5));
    for (let i = 0; i < TWIST_SEGMENTS; i++) {
      const angle = (2 * Math.PI * i) / TWIST_SEGMENTS;
      positions.push(TWIST_RADIUS * Math.cos(angle), y, TWIST_RADIUS * Math.sin(angle));
      normals.push(Math.cos(angle), 0, Math.sin(angle));
      joints.push(0, 1, 0, 0);
      weights.push(1 - w, w, 0, 0);
    }
  }
  for (let k = 0; k + 1 < TWIST_RINGS; k++) {
    for (let i = 0; i < TWIST_SEGMENTS; i++) {
      const a = k * TWIST_SEGMENTS + i, b2 = k * TWIST_SEGMENTS + ((i + 1) % TWIST_SEGMENTS);
      // Counter-clockwise seen from outside (glTF's front faces: single-sided primitives cull the others).
      indices.push(a, a + TWIST_SEGMENTS, b2, b2, a + TWIST_SEGMENTS, b2 + TWIST_SEGMENTS);
    }
  }
  const half = (TWIST_DEGREES * Math.PI) / 360;
  const acc = {
    positions: b.addAccessor('VEC3', Float32Array.from(positions)),
    normals: b.addAccessor('VEC3', Float32Array.from(normals)),
    joints: b.addAccessor('VEC4', Uint8Array.from(joints)),
    weights: b.addAccessor('VEC4', Float32Array.from(weights)),
    indices: b.addAccessor('SCALAR', Uint16Array.from(indices)),
    inverseBind: b.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0), ...translationMatrix(0, -1, 0))),
    times: b.addAccessor('SCALAR', Float32Array.of(0, 1, 2)),
    rotations: b.addAccessor('VEC4', Float32Array.of(
      0, options.held ? Math.sin(half) : 0, 0, options.held ? Math.cos(half) : 1, 0, Math.sin(half), 0, Math.cos(half), 0, Math.sin(half), 0, Math.cos(half))),
  };
  b.json.nodes.push({ name: 'base', children: [1] }, { name: 'twist', translation: [0, 1, 0] }, { name: 'mesh', mesh: 0, skin: 0 });
  b.json.scenes = [{ nodes: [0, 2] }];
  b.json.meshes = [{ primitives: [{ attributes: { POSITION: acc.positions, NORMAL: acc.normals, JOINTS_0: acc.joints, WEIGHTS_0: acc.weights }, indices: acc.indices }] }];
  b.json.skins = [{ joints: [0, 1], inverseBindMatrices: acc.inverseBind }];
  b.json.animations = [{
    name: 'twist',
    channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }],
    samplers: [{ input: acc.times, output: acc.rotations, interpolation: 'LINEAR' }],
  }];
  return { builder: b, json: b.json, acc };
}

/**
 * Area of the polygon through ring `ring`'s vertices projected on the xz plane (the cross
 * section: the twist is about y, so rings stay level), from skinned positions (3 per vertex).
 */
export function ringArea(positions: ArrayLike<number>, ring = MIDDLE_RING): number {
  let twice = 0;
  for (let i = 0; i < TWIST_SEGMENTS; i++) {
    const a = (ring * TWIST_SEGMENTS + i) * 3, b = (ring * TWIST_SEGMENTS + ((i + 1) % TWIST_SEGMENTS)) * 3;
    twice += positions[a] * positions[b + 2] - positions[b] * positions[a + 2];
  }
  return Math.abs(twice) / 2;
}

/** Largest |y - ring height| over the ring's vertices: how far the section left its plane. */
export function ringTilt(positions: ArrayLike<number>, ring = MIDDLE_RING): number {
  let worst = 0;
  for (let i = 0; i < TWIST_SEGMENTS; i++) worst = Math.max(worst, Math.abs(positions[(ring * TWIST_SEGMENTS + i) * 3 + 1] - ring * 0.25));
  return worst;
}
