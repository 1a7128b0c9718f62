// Fetched by loadCharacter (a dynamic import) only when LoadOptions.lod hands in a simplifier;
// the options and their check are in mesh-lod-options.ts, which every load runs.
import { checkMeshLodOptions, type MeshLodOptions, type MeshSimplifier } from './mesh-lod-options';
import { triangleList, type Rig } from './rig';
import { restPose } from './sampler';
import { createPose, localToModel } from '../math/pose';
import { multiplyAt } from '../math/affine';

export type { MeshLodOptions, MeshSimplifier } from './mesh-lod-options';

/** Mesh LOD levels of a character: see Character.lods. */
export interface MeshLods {
  /** indices[p][l - 1]: triangle list of primitive p at level l >= 1 (vertices shared with level 0). */
  indices: Uint32Array[][];
  /** Simplification error of each level in model units (errors[0] = 0, non-decreasing). */
  errors: number[];
}

/**
 * Simplified index buffers for every primitive, made once at load time with meshoptimizer's
 * simplifier (quadric error metric; it reports the error it made, which screen-space LOD
 * selection needs). Each level aims at `ratio` of the previous level's triangles; primitive
 * borders are locked so that meshes split by material do not open seams. Vertices are welded by
 * position first, so a level's triangles use the first vertex at each position (its normal and
 * UV), which coarse levels can afford. Simplification runs
 * on the bind-pose positions; errors are converted to model units with the largest scale of the
 * rest-pose joint matrices of the primitive's skin, and a level's error is the largest over
 * primitives, so one level serves the whole character.
 */
export async function meshLods(rig: Rig, options: MeshLodOptions): Promise<MeshLods> {
  const { simplifier, levels = 4, ratio = 0.5 } = checkMeshLodOptions(options)!;
  await simplifier.ready;
  const skinScale = restSkinScales(rig);
  const errors = new Array<number>(levels).fill(0);
  const indices = rig.primitives.map((prim) => {
    const welded = weld(simplifier, prim.positions, triangleList(prim));
    const own = welded.indices;
    const scale = simplifier.getScale(prim.positions, 3) * skinScale[prim.skin];
    const out: Uint32Array[] = [];
    let previous = own;
    let total = 0;
    for (let l = 1; l < levels; l++) {
      const target = Math.max(3, Math.floor((previous.length * ratio) / 3) * 3);
      const [simplified, error] = simplifier.simplify(previous, welded.positions, 3, target, 1, ['LockBorder']);
      // The error is relative to the mesh's extent and measured against the previous level: errors add up.
      total += error * scale;
      errors[l] = Math.max(errors[l], errors[l - 1], total);
      out.push(simplified.map((v) => welded.original[v]));
      previous = simplified;
    }
    return out;
  });
  return { indices, errors };
}

/**
 * Vertices split only by their normal or UV (hard edges, UV seams, non-indexed triangles) merged
 * by position: the simplifier sees every such split as a seam it must keep, so without this it
 * cannot simplify faceted meshes. Returns the unique positions, the triangles over them, and the
 * first original vertex of each (what the simplified triangles draw).
 */
function weld(simplifier: MeshSimplifier, positions: Float32Array, indices: Uint32Array): { positions: Float32Array; indices: Uint32Array; original: Uint32Array } {
  const remap = simplifier.generatePositionRemap(positions, 3);
  const compact = new Int32Array(remap.length).fill(-1);
  const original: number[] = [];
  for (let v = 0; v < remap.length; v++) {
    if (remap[v] === v) { compact[v] = original.length; original.push(v); }
  }
  const unique = new Float32Array(original.length * 3);
  original.forEach((v, i) => unique.set(positions.subarray(v * 3, v * 3 + 3), i * 3));
  return { positions: unique, indices: indices.map((v) => compact[remap[v]]), original: Uint32Array.from(original) };
}

/** Per skin, the largest row norm of model(joint) * inverseBind(joint) over its joints in the rest pose: bind space to model space. */
function restSkinScales(rig: Rig): number[] {
  const model = localToModel(rig.nodes.parent, restPose(rig.nodes, createPose(rig.nodes.count)), new Float64Array(rig.nodes.count * 16));
  const m = new Float64Array(16);
  return rig.skins.map((skin) => {
    let scale = 0;
    for (let j = 0; j < skin.joints.length; j++) {
      multiplyAt(model, skin.joints[j] * 16, skin.inverseBind, j * 16, m, 0);
      for (let r = 0; r < 3; r++) scale = Math.max(scale, Math.hypot(m[r], m[4 + r], m[8 + r]));
    }
    return scale || 1;
  });
}
