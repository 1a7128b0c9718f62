import { composeTrsAt, multiplyAt } from './affine';
import { nlerpInto } from './quat';

/**
 * A local pose: TRS for every rig node (see bake/rig.ts for conventions), float64. Produced by
 * the exact sampler (bake), the lookup tables and the layer evaluator (anim). The functions
 * below are the TypeScript twin of shaders/pose.wgsl's blend, hierarchy walk and joint-matrix
 * step; every one writes into a caller-owned `out`.
 */
export interface Pose {
  /** vec3 per node. */
  translation: Float64Array;
  /** Unit quaternion (x, y, z, w) per node. */
  rotation: Float64Array;
  /** vec3 per node. */
  scale: Float64Array;
}

/**
 * The identity TRS as three vec4 rows, the layout of the baked tables: translation (0, 0, 0, 0),
 * rotation (0, 0, 0, 1), scale (1, 1, 1, 0). What a difference clip reads for an untouched node.
 */
export const IDENTITY_TRS = Float32Array.of(0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0);

export function createPose(nodeCount: number): Pose {
  return {
    translation: new Float64Array(nodeCount * 3),
    rotation: new Float64Array(nodeCount * 4),
    scale: new Float64Array(nodeCount * 3),
  };
}

/**
 * Blends two local poses: w = 0 gives `a`, w = 1 gives `b` (w in [0, 1]). Translation and scale
 * lerp, rotation nlerp along the shortest path. `out` may alias `a` or `b`.
 */
export function blendPoses(a: Pose, b: Pose, w: number, out: Pose): Pose {
  const n = a.rotation.length / 4;
  for (let i = 0; i < n * 3; i++) {
    out.translation[i] = a.translation[i] + (b.translation[i] - a.translation[i]) * w;
    out.scale[i] = a.scale[i] + (b.scale[i] - a.scale[i]) * w;
  }
  for (let i = 0; i < n; i++) nlerpInto(a.rotation, b.rotation, i * 4, w, out.rotation);
  return out;
}

/**
 * Model-space (scene-space) matrices of every node: model[i] = model[parent[i]] * local[i], in
 * parent-first order. `out` holds 16 numbers per node.
 */
export function localToModel(parent: Int32Array, pose: Pose, out: Float64Array, scratch = new Float64Array(16)): Float64Array {
  for (let i = 0; i < parent.length; i++) {
    if (parent[i] < 0) {
      composeTrsAt(pose.translation, i * 3, pose.rotation, i * 4, pose.scale, i * 3, out, i * 16);
    } else {
      composeTrsAt(pose.translation, i * 3, pose.rotation, i * 4, pose.scale, i * 3, scratch, 0);
      multiplyAt(out, parent[i] * 16, scratch, 0, out, i * 16);
    }
  }
  return out;
}

/** Joint matrices of a skin: model(joint) * inverseBind(joint), 16 numbers per skin joint. */
export function jointMatrices(joints: Int32Array, inverseBind: Float64Array, model: Float64Array, out: Float64Array): Float64Array {
  for (let j = 0; j < joints.length; j++) multiplyAt(model, joints[j] * 16, inverseBind, j * 16, out, j * 16);
  return out;
}
