// Types only: the simplifier's code (about 54 KB minified, mostly WebAssembly) reaches a page
// only when the page passes it in (LoadOptions.lod.simplifier), so a page without mesh LOD ships none.
import type { MeshoptSimplifier } from 'meshoptimizer/simplifier';
import { triangleList, type Rig } from './rig';
import { restPose } from './sampler';
import { createPose, localToModel } from '../math/pose';
import { multiplyAt } from '../math/affine';

/** Mesh LOD levels of a character: see Character.lods. */
export interface MeshLods {
  /** indices[p][l - 1]: triangle list of primitive p at level l >= 1 (vertices shared with level 0). */
  indices: Uint32Array[][];
  /** Simplification error of each level in model units (errors[0] = 0, non-decreasing). */
  errors: number[];
}

/**
 * What meshLods uses of meshoptimizer's simplifier: pass `MeshoptSimplifier`, exported by
 * crowd-skin (the same object as meshoptimizer/simplifier's; `ready` is awaited before use).
 */
export type MeshSimplifier = Pick<typeof MeshoptSimplifier, 'ready' | 'simplify' | 'getScale' | 'generatePositionRemap'>;

/**
 * Mesh LOD levels for loadCharacter to make (LoadOptions.lod): the simplifier that makes them,
 * how many, and how coarse each is. Handed in, as three.js's GLTFLoader takes a decoder
 * (`setMeshoptDecoder`), so that a page without mesh LOD does not ship the simplifier.
 */
export interface MeshLodOptions {
  /** meshoptimizer's simplifier: `MeshoptSimplifier`, imported from crowd-skin. */
  simplifier: MeshSimplifier;
  /** Levels including the full mesh, 2..4 (default 4). */
  levels?: number;
  /** Fraction of the previous level's triangles each level aims at, in (0, 1) (default 0.5). */
  ratio?: number;
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

/** How to ask for mesh LOD now, for the refusals below. */
const HOW = "pass meshoptimizer's simplifier: `import { MeshoptSimplifier } from 'crowd-skin'`, then `loadCharacter(url, { lod: { simplifier: MeshoptSimplifier } })` (docs/culling-lod-shadows.md)";

/**
 * LoadOptions.lod, checked before anything is downloaded: undefined or false (no mesh LOD, the
 * default) gives undefined; `{ simplifier, levels?, ratio? }` is returned as given. `true`, the
 * spelling from before mesh LOD became opt-in, is refused with the call that replaces it.
 */
export function checkMeshLodOptions(lod: unknown): MeshLodOptions | undefined {
  if (lod === undefined || lod === false) return undefined;
  if (lod === true) throw new TypeError(`lod: true no longer makes mesh LOD levels (the simplifier is no longer shipped by default); ${HOW}`);
  if (typeof lod !== 'object' || lod === null) throw new TypeError(`lod must be false or { simplifier, levels?, ratio? }, got ${JSON.stringify(lod)}; ${HOW}`);
  const { simplifier, levels, ratio } = lod as Partial<MeshLodOptions>;
  if (typeof simplifier?.simplify !== 'function' || typeof simplifier.generatePositionRemap !== 'function' || typeof simplifier.getScale !== 'function') {
    throw new TypeError(`lod.simplifier must be meshoptimizer's MeshoptSimplifier, got ${simplifier === undefined ? 'undefined' : `an ${typeof simplifier}`.replace(/^an ([^aeiou])/, 'a $1')} without simplify, getScale and generatePositionRemap; ${HOW}`);
  }
  if (levels !== undefined && (!Number.isInteger(levels) || levels < 2 || levels > 4)) throw new RangeError(`lod.levels must be an integer in [2, 4], got ${levels}`);
  if (ratio !== undefined && !(ratio > 0 && ratio < 1)) throw new RangeError(`lod.ratio must be in (0, 1), got ${ratio}`);
  return lod as MeshLodOptions;
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
