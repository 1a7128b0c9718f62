import { readAccessor } from './accessor';
import { check } from './errors';
import type { GltfAsset, GltfPrimitive } from './gltf-json';
import { CORE_ATTRIBUTES } from './attribute-types';
import type { MorphSet, MorphTargets } from './rig';

/** The morph half of the bake (bake-morph.ts), fetched with this reader and handed on as Rig.morphBake by build-rig.ts. */
export * as bakeMorph from './bake-morph';

/**
 * glTF morph targets (spec 3.7.2.2): each primitive of a mesh may list `targets`, every one a
 * set of attribute displacements (POSITION, NORMAL, TANGENT); the vertex is
 * p0 + sum_t w_t * target_t, with one weight per target for the whole mesh: the node's
 * `weights`, else the mesh's, else 0, unless an animation channel of path `weights` sets them.
 * TANGENT displacements are not read (the renderer has no tangents). parseGltf fetches this
 * module (a dynamic import) only for a file with morph targets and hands it on as
 * GltfAsset.morph, which build-rig.ts and load-mesh.ts read, with the morph half of the bake
 * (bakeMorph, which build-rig.ts hands on as Rig.morphBake): a page loading other files ships none of it.
 */

/** Number of morph targets of mesh `meshIndex` (0 when none); every primitive must have the same. */
export function meshTargetCount(asset: GltfAsset, meshIndex: number): number {
  const mesh = asset.json.meshes![meshIndex];
  const counts = mesh.primitives.map((p) => p.targets?.length ?? 0);
  const first = counts[0] ?? 0;
  const other = counts.findIndex((n) => n !== first);
  check(other < 0, () => `mesh ${meshIndex}: primitive ${other} has ${counts[other]} morph targets, primitive 0 has ${first} (glTF requires the same for every primitive)`);
  return first;
}

/**
 * The morph set of mesh node `gltfNode` (which draws mesh `gltfMesh`, of `targetCount` > 0
 * targets): names, default weights (checked to have one per target) and the rig node its masks
 * read (`maskNode`, chosen by the caller).
 */
export function loadMorphSet(asset: GltfAsset, gltfNode: number, gltfMesh: number, targetCount: number, maskNode: number, name: string, warnings: string[]): MorphSet {
  const node = asset.json.nodes![gltfNode];
  const mesh = asset.json.meshes![gltfMesh];
  const weights = (values: number[] | undefined, where: string): Float32Array | undefined => {
    if (values === undefined) return undefined;
    check(values.length === targetCount, `${where}: weights has ${values.length} numbers, mesh ${gltfMesh} has ${targetCount} morph targets`);
    return Float32Array.from(values);
  };
  const defaultWeights = weights(node.weights, `node ${gltfNode}`) ?? weights(mesh.weights, `mesh ${gltfMesh}`) ?? new Float32Array(targetCount);
  return { name, gltfNode, gltfMesh, targetNames: targetNames(mesh.extras, gltfMesh, targetCount, warnings), defaultWeights, maskNode };
}

/** `extras.targetNames` when it is one unique string per target; else target0, target1, ... (with a warning when present but unusable). */
function targetNames(extras: unknown, gltfMesh: number, targetCount: number, warnings: string[]): string[] {
  const fallback = Array.from({ length: targetCount }, (_, t) => `target${t}`);
  const names = (extras as { targetNames?: unknown } | undefined)?.targetNames;
  if (names === undefined) return fallback;
  const usable = Array.isArray(names) && names.length === targetCount && names.every((n) => typeof n === 'string' && n.length > 0) &&
    new Set(names).size === names.length;
  if (!usable) {
    warnings.push(`mesh ${gltfMesh}: extras.targetNames is not ${targetCount} distinct names; its morph targets are named target0..target${targetCount - 1}`);
    return fallback;
  }
  return names as string[];
}

/**
 * Reads primitive `prim`'s targets (POSITION and NORMAL displacements, `vertexCount` each) for
 * morph set `set`. NORMAL displacements are kept only when the primitive has normals (derived
 * normals follow the unmorphed triangles); a target without one of them displaces nothing there.
 */
export function loadMorphTargets(asset: GltfAsset, prim: GltfPrimitive, set: number, vertexCount: number, hasNormals: boolean, where: string): MorphTargets {
  const targets = prim.targets ?? [];
  const expectations = asset.quantization?.attributeExpectations(asset) ?? CORE_ATTRIBUTES;
  const read = (t: number, attribute: 'POSITION' | 'NORMAL') => {
    const index = targets[t][attribute];
    if (index === undefined) return new Float32Array(vertexCount * 3);
    const expect = attribute === 'POSITION' ? expectations.targetPosition : expectations.targetNormal;
    return readAccessor(asset, index, `${where} target ${t} ${attribute}`, { ...expect, count: vertexCount }).values as Float32Array;
  };
  const positions = targets.map((_, t) => read(t, 'POSITION'));
  const anyNormals = hasNormals && targets.some((target) => target.NORMAL !== undefined);
  return { set, positions, normals: anyNormals ? targets.map((_, t) => read(t, 'NORMAL')) : undefined };
}
