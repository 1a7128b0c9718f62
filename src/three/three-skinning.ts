/**
 * The skinning of shaders/skin.wgsl written in TSL, for shading 'three' (three-shading.ts builds
 * the material's positionNode from these): 'linear' blends the joint matrices' rows,
 * 'dual-quaternion' (Kavan et al. 2008, skin.wgsl's accumulateDualQuaternion and
 * placeDualQuaternion) blends the joints' scale / shear linearly and their rigid parts as
 * sign-aligned dual quaternions. Each function takes the vertex's model-space position and normal
 * (morphed or its own) and returns them skinned, still in model space (the instance's world matrix
 * is the caller's). They read the joint records from `joints` (three's copy of the crowd's joint
 * buffer, vec4f elements) at `jointBase` (the first joint record of the joint set the instance
 * draws with, in records: joint set x joint slots), never `instanceIndex`, so a caller that maps
 * the drawn instance through a cull list or a joint palette passes what it found. Call them inside
 * a TSL `Fn` (they declare variables and branches).
 */
import { cross, Fn, If, select, uint, vec3, vec4 } from 'three/tsl';
import type { Node, StorageBufferNode } from 'three/webgpu';
import { DQ_VEC4S, MATRIX_VEC4S, type SkinningMethod } from '../runtime/layout';

/** A TSL node of WGSL type T (three's own node objects). */
export type TslNode<T extends string> = Node<T>;

/** Four influences of a vertex: joint slots (skin offset added) and weights, vertex attributes. */
export interface Influences {
  readonly joints: TslNode<'uvec4'>;
  readonly weights: TslNode<'vec4'>;
}

/** A vertex's position and normal in model space (the normal not normalised). */
export interface SkinnedVertex {
  readonly position: TslNode<'vec3'>;
  readonly normal: TslNode<'vec3'>;
}

const COMPONENTS = ['x', 'y', 'z', 'w'] as const;

/**
 * Row `row` (0, 1 or 2) of joint record `joint` (joint set x joint slots + joint slot), as a vec4:
 * where the joint matrices are read from (three's storage buffer on WebGPU, the pose pass's row
 * textures on WebGL 2).
 */
export type JointRow = (joint: TslNode<'uint'>, row: 0 | 1 | 2) => TslNode<'vec4'>;

/** skin.wgsl's linear path: the weighted sum of the joints' matrix rows, applied to position and normal. */
export function linearSkin(joints: StorageBufferNode<'vec4'>, jointBase: TslNode<'uint'>, influences: readonly Influences[], vertex: SkinnedVertex): SkinnedVertex {
  return linearSkinRows((joint, row) => joints.element(joint.mul(uint(MATRIX_VEC4S)).add(uint(row))) as unknown as TslNode<'vec4'>, jointBase, influences, vertex);
}

/** linearSkin over joint rows read by `rowOf` (JointRow): the one copy of the linear skinning for both of three's backends. */
export function linearSkinRows(rowOf: JointRow, jointBase: TslNode<'uint'>, influences: readonly Influences[], vertex: SkinnedVertex): SkinnedVertex {
  const row0 = vec4(0).toVar(), row1 = vec4(0).toVar(), row2 = vec4(0).toVar();
  for (const { joints: j, weights: w } of influences) {
    for (const c of COMPONENTS) {
      const joint = jointBase.add(j[c]);
      row0.addAssign(rowOf(joint, 0).mul(w[c]));
      row1.addAssign(rowOf(joint, 1).mul(w[c]));
      row2.addAssign(rowOf(joint, 2).mul(w[c]));
    }
  }
  const p = vec4(vertex.position, 1);
  const n = vertex.normal;
  return {
    position: vec3(row0.dot(p), row1.dot(p), row2.dot(p)),
    // The same matrices: exact for rotation and uniform scale, the usual approximation otherwise.
    normal: vec3(row0.xyz.dot(n), row1.xyz.dot(n), row2.xyz.dot(n)),
  };
}

/** `v` rotated by the unit quaternion `q` (skin.wgsl rotateByQuat). */
const rotateByQuat = Fn(([q, v]: [TslNode<'vec4'>, TslNode<'vec3'>]) => v.add(cross(q.xyz, cross(q.xyz, v).add(v.mul(q.w))).mul(2)));

/**
 * skin.wgsl's dual-quaternion path on JOINT_DQ records (4 vec4f: the rotation's unit quaternion,
 * then the rows of [S | t]): S blended linearly, the rigid parts as dual quaternions flipped into
 * the hemisphere of the first influence of non-zero weight, normalised; the normal through the
 * cofactor of S (exact under non-uniform scale), then the rotation.
 */
export function dualQuaternionSkin(joints: StorageBufferNode<'vec4'>, jointBase: TslNode<'uint'>, influences: readonly Influences[], vertex: SkinnedVertex): SkinnedVertex {
  const real = vec4(0).toVar(), dual = vec4(0).toVar();
  const row0 = vec4(0).toVar(), row1 = vec4(0).toVar(), row2 = vec4(0).toVar();
  const pivot = vec4(0).toVar();
  for (const { joints: j, weights: weights } of influences) {
    for (const c of COMPONENTS) {
      const w = weights[c];
      If(w.notEqual(0), () => {
        const o = jointBase.add(j[c]).mul(uint(DQ_VEC4S));
        const q = joints.element(o).toVar();
        const r0 = joints.element(o.add(uint(1))).toVar();
        const r1 = joints.element(o.add(uint(2))).toVar();
        const r2 = joints.element(o.add(uint(3))).toVar();
        // The first influence of non-zero weight sets the hemisphere (a unit quaternion is never 0).
        If(pivot.dot(pivot).equal(0), () => {
          pivot.assign(q);
        });
        const t = vec3(r0.w, r1.w, r2.w);
        const ws = select(pivot.dot(q).lessThan(0), w.negate(), w);
        real.addAssign(q.mul(ws));
        dual.addAssign(vec4(t.mul(q.w).add(cross(t, q.xyz)), t.dot(q.xyz).negate()).mul(ws.mul(0.5)));
        row0.addAssign(r0.mul(w));
        row1.addAssign(r1.mul(w));
        row2.addAssign(r2.mul(w));
      });
    }
  }
  const inverseLength = real.length().reciprocal();
  const r = real.mul(inverseLength).toVar();
  const d = dual.mul(inverseLength).toVar();
  const s0 = row0.xyz, s1 = row1.xyz, s2 = row2.xyz;
  const p = vertex.position, n = vertex.normal;
  const scaled = vec3(s0.dot(p), s1.dot(p), s2.dot(p));
  // Translation: 2 dual conj(real).
  const translation = r.w.mul(d.xyz).sub(r.xyz.mul(d.w)).add(cross(r.xyz, d.xyz)).mul(2);
  const c0 = cross(s1, s2);
  const cofactor = vec3(c0.dot(n), cross(s2, s0).dot(n), cross(s0, s1).dot(n)).mul(select(s0.dot(c0).lessThan(0), -1, 1));
  return {
    position: rotateByQuat(r, scaled).add(translation),
    normal: rotateByQuat(r, cofactor),
  };
}

/** The skinning function of `method`. */
export function skinningOf(method: SkinningMethod): typeof linearSkin {
  return method === 'dual-quaternion' ? dualQuaternionSkin : linearSkin;
}
