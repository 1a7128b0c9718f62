import { readAccessor, ComponentType as C } from './accessor';
import { check } from './errors';
import type { GltfAsset, GltfNode } from './gltf-json';
import { checkGltfJson } from './json-shape';
import { defaultSceneRoots, gltfParents, nodesUnder, restTrs } from './hierarchy';
import { loadClips } from './load-clips';
import { loadPrimitives, type PrimitiveSource } from './load-mesh';
import type { MorphSet, Rig, RigNodes, Skin, SkinnedPrimitive } from './rig';

/**
 * Builds the validated Rig of a parsed glTF (see rig.ts for its conventions). Everything wrong
 * in the file is reported as a ModelError naming the place; harmless repairs go to `warnings`.
 */
export function buildRig(asset: GltfAsset): Rig {
  const json: unknown = asset.json;
  checkGltfJson(json);
  const gltfNodes = json.nodes ?? [];
  const warnings: string[] = [];
  const parentOf = gltfParents(json);
  const sceneNodes = nodesUnder(json, defaultSceneRoots(json, parentOf));

  // Skins: validate joints and read inverse bind matrices.
  const gltfSkins = json.skins ?? [];
  gltfSkins.forEach((skin, s) => {
    check(Array.isArray(skin.joints) && skin.joints.length > 0, `skin ${s}: joints is empty`);
    const seen = new Set<number>();
    skin.joints.forEach((j, k) => {
      check(Number.isInteger(j) && j >= 0 && j < gltfNodes.length, `skin ${s}: joint ${k} is node ${j}, which does not exist`);
      check(!seen.has(j), `skin ${s}: node ${j} is listed twice in joints`);
      seen.add(j);
    });
  });

  // Mesh nodes of the default scene: skinned ones use their skin, others are rigid attachments.
  const meshNodes = sceneNodes.filter((n) => gltfNodes[n].mesh !== undefined);
  for (const n of meshNodes) {
    const skin = gltfNodes[n].skin;
    check(skin === undefined || (Number.isInteger(skin) && skin >= 0 && skin < gltfSkins.length),
      `node ${n}: skin ${skin} does not exist (the file has ${gltfSkins.length})`);
  }
  const rigidNodes = meshNodes.filter((n) => gltfNodes[n].skin === undefined);

  // Rig nodes: joints, rigid mesh nodes and all their ancestors, ordered parent-first.
  const moving = new Uint8Array(gltfNodes.length);
  const mark = (n: number) => { for (let p = n; p !== -1 && !moving[p]; p = parentOf[p]) moving[p] = 1; };
  gltfSkins.forEach((skin) => skin.joints.forEach(mark));
  rigidNodes.forEach(mark);
  const order = parentFirstOrder(gltfNodes, moving, parentOf);
  const rigIndexOf = new Int32Array(gltfNodes.length).fill(-1);
  order.forEach((n, i) => { rigIndexOf[n] = i; });
  const nodes = makeRigNodes(asset, order, parentOf, rigIndexOf);
  gltfSkins.forEach((skin) => skin.joints.forEach((j) => { nodes.isJoint[rigIndexOf[j]] = 1; }));

  const skins: Skin[] = gltfSkins.map((skin, s) => {
    const inverseBind = new Float64Array(skin.joints.length * 16);
    if (skin.inverseBindMatrices === undefined) {
      for (let j = 0; j < skin.joints.length; j++) inverseBind[j * 16] = inverseBind[j * 16 + 5] = inverseBind[j * 16 + 10] = inverseBind[j * 16 + 15] = 1;
    } else {
      const data = readAccessor(asset, skin.inverseBindMatrices, `skin ${s}: inverseBindMatrices`, { types: ['MAT4'], components: [{ type: C.FLOAT }] });
      check(data.count === skin.joints.length, `skin ${s}: inverseBindMatrices has ${data.count} matrices, joints has ${skin.joints.length}`);
      inverseBind.set(data.values);
      checkAffine(inverseBind, s);
    }
    return {
      name: skin.name ?? `skin${s}`, gltfSkin: s, inverseBind,
      joints: Int32Array.from(skin.joints, (j) => rigIndexOf[j]),
      jointNames: skin.joints.map((j) => nodes.names[rigIndexOf[j]]),
    };
  });
  const rigidSkin = new Map<number, number>();
  for (const n of rigidNodes) {
    rigidSkin.set(n, skins.length);
    const inverseBind = new Float64Array(16);
    inverseBind[0] = inverseBind[5] = inverseBind[10] = inverseBind[15] = 1;
    skins.push({ name: `rigid:${nodes.names[rigIndexOf[n]]}`, gltfSkin: -1, joints: Int32Array.of(rigIndexOf[n]), jointNames: [nodes.names[rigIndexOf[n]]], inverseBind });
  }

  const primitives: SkinnedPrimitive[] = [];
  // Mesh nodes with morph targets, each a morph set; morphOf maps their glTF node to the set.
  const morphs: MorphSet[] = [];
  const morphOf = new Map<number, number>();
  for (const n of meshNodes) {
    const gltfSkin = gltfNodes[n].skin;
    const skin = gltfSkin ?? rigidSkin.get(n)!;
    const source: PrimitiveSource = {
      gltfNode: n, gltfMesh: gltfNodes[n].mesh!, skin, rigid: gltfSkin === undefined,
      skinJointCount: skins[skin].joints.length,
    };
    const meshes = json.meshes ?? [];
    // The morph target reader comes with the asset, for a file with targets only (parse.ts).
    const targets = asset.morph && source.gltfMesh < meshes.length && Array.isArray(meshes[source.gltfMesh].primitives) ? asset.morph.meshTargetCount(asset, source.gltfMesh) : 0;
    if (targets > 0) {
      // Masks act on a mesh's weights through its own rig node (rigid), else its skin's topmost joint.
      const maskNode = source.rigid ? rigIndexOf[n] : Math.min(...skins[skin].joints);
      morphOf.set(n, source.morphSet = morphs.length);
      morphs.push(asset.morph!.loadMorphSet(asset, n, source.gltfMesh, targets, maskNode, gltfNodes[n].name ?? `node${n}`, warnings));
    }
    for (const primitive of loadPrimitives(asset, source, warnings)) primitives.push({ ...primitive, nodeName: gltfNodes[n].name ?? `node${n}` });
  }

  const clips = loadClips(asset, rigIndexOf, warnings, { morphOf, targetCounts: morphs.map((m) => m.defaultWeights.length) });
  // A VRM file's own humanoid map (VRMC_vrm, or VRM 0.x), over rig nodes, for binding clips
  // (clip-library.ts); the reader comes with the asset, for a VRM file only (parse.ts).
  const vrm = asset.vrm;
  const declared = vrm?.vrmHumanBones(json);
  const humanoid = declared && vrm!.humanoidFromBones(declared, (n) => rigIndexOf[n]);
  // The morph bake comes with the morph target reader (a file with targets only), for bake().
  return {
    nodes, skins, gltfSkinCount: gltfSkins.length, primitives, clips, morphs, warnings, ...(humanoid ? { humanoid } : {}),
    ...(morphs.length > 0 ? { morphBake: asset.morph!.bakeMorph } : {}),
  };
}

/**
 * Rig nodes (`moving`) in depth-first pre-order from the roots, children in file order: the
 * order a recursive walk gives, kept on an explicit stack so a 20,000-joint chain is no problem.
 */
function parentFirstOrder(gltfNodes: GltfNode[], moving: Uint8Array, parentOf: Int32Array): number[] {
  const order: number[] = [];
  const stack: number[] = [];
  for (let root = 0; root < gltfNodes.length; root++) {
    if (!moving[root] || parentOf[root] !== -1) continue;
    stack.push(root);
    while (stack.length > 0) {
      const n = stack.pop()!;
      order.push(n);
      const children = gltfNodes[n].children ?? [];
      for (let c = children.length - 1; c >= 0; c--) if (moving[children[c]]) stack.push(children[c]);
    }
  }
  return order;
}

/**
 * glTF requires inverse bind matrices to be affine (bottom row 0, 0, 0, 1). The GPU stores only
 * the top three rows, so any other bottom row would make the CPU and GPU poses differ: refused.
 * Rounding within 1e-6 is accepted and snapped to the exact row.
 */
function checkAffine(inverseBind: Float64Array, skin: number): void {
  for (let j = 0; j < inverseBind.length / 16; j++) {
    const row = [3, 7, 11, 15].map((i) => inverseBind[j * 16 + i]);
    check(Math.abs(row[0]) <= 1e-6 && Math.abs(row[1]) <= 1e-6 && Math.abs(row[2]) <= 1e-6 && Math.abs(row[3] - 1) <= 1e-6,
      () => `skin ${skin}: inverse bind matrix ${j} is not affine: its bottom row is (${row.join(', ')}), glTF requires (0, 0, 0, 1)`);
    inverseBind[j * 16 + 3] = inverseBind[j * 16 + 7] = inverseBind[j * 16 + 11] = 0;
    inverseBind[j * 16 + 15] = 1;
  }
}

function makeRigNodes(asset: GltfAsset, order: number[], parentOf: Int32Array, rigIndexOf: Int32Array): RigNodes {
  const count = order.length;
  const nodes: RigNodes = {
    count,
    names: [],
    gltfIndex: Int32Array.from(order),
    parent: Int32Array.from(order, (n) => (parentOf[n] === -1 ? -1 : rigIndexOf[parentOf[n]])),
    restTranslation: new Float64Array(count * 3),
    restRotation: new Float64Array(count * 4),
    restScale: new Float64Array(count * 3),
    isJoint: new Uint8Array(count),
  };
  order.forEach((n, i) => {
    const node = asset.json.nodes![n];
    nodes.names.push(node.name ?? `node${n}`);
    const { t, r, s } = restTrs(node, n);
    nodes.restTranslation.set(t, i * 3);
    nodes.restRotation.set(r, i * 4);
    nodes.restScale.set(s, i * 3);
  });
  return nodes;
}
