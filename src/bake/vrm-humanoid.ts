/**
 * What a character load reads of a VRM file (docs/loading.md#vrm-files): the VRM 1.0 bone
 * names and the humanoid map a file declares (`VRMC_vrm`, or VRM 0.x's `VRM`), kept on the rig
 * by build-rig.ts for humanoid retargeting (humanoid.ts, docs/retargeting.md), and the look its
 * MToon materials are drawn with. parseGltf fetches this module (a dynamic import) only for a
 * file with VRM's extensions and hands it on as GltfAsset.vrm, so a page loading other files
 * ships none of it. Recognition by name lives in humanoid.ts, shipped only with clip libraries.
 */

/** The VRM 1.0 humanoid bones, parents before children; index = bone id in HumanoidMap.nodes. */
export const HUMAN_BONES = [
  'hips', 'spine', 'chest', 'upperChest', 'neck', 'head', 'leftEye', 'rightEye', 'jaw',
  'leftUpperLeg', 'leftLowerLeg', 'leftFoot', 'leftToes', 'rightUpperLeg', 'rightLowerLeg', 'rightFoot', 'rightToes',
  'leftShoulder', 'leftUpperArm', 'leftLowerArm', 'leftHand', 'rightShoulder', 'rightUpperArm', 'rightLowerArm', 'rightHand',
  ...(['left', 'right'] as const).flatMap((side) => [
    `${side}ThumbMetacarpal`, `${side}ThumbProximal`, `${side}ThumbDistal`,
    ...['Index', 'Middle', 'Ring', 'Little'].flatMap((f) => [`${side}${f}Proximal`, `${side}${f}Intermediate`, `${side}${f}Distal`]),
  ]),
] as const;

/** A VRM 1.0 humanoid bone name. */
export type HumanBone = (typeof HUMAN_BONES)[number];

/** A skeleton's humanoid: the node of each HUMAN_BONES bone (-1 where it has none) and where the map came from. */
export interface HumanoidMap {
  /** Node index per bone id (HUMAN_BONES order), -1 where absent. Node indices are the caller's (glTF or rig). */
  nodes: Int32Array;
  /** 'VRMC_vrm' or 'VRM' (the file's own map), or the name convention recognized ('Mixamo', 'VRoid', ...). */
  source: string;
}

const BONE_ID = new Map<string, number>(HUMAN_BONES.map((b, i) => [b, i]));

/** VRM 0.x names its thumb bones one joint further out than VRM 1.0 (0.x Proximal = 1.0 Metacarpal). */
const VRM0_THUMBS: Readonly<Record<string, string>> = {
  ThumbProximal: 'ThumbMetacarpal', ThumbIntermediate: 'ThumbProximal', ThumbDistal: 'ThumbDistal',
};

/**
 * The humanoid map a glTF file declares, as glTF node per bone name: VRM 1.0's
 * `extensions.VRMC_vrm.humanoid.humanBones` ({ hips: { node } }) or VRM 0.x's
 * `extensions.VRM.humanoid.humanBones` ([{ bone, node }], thumbs renamed to 1.0's). Undefined
 * when the file has neither. Entries naming an unknown bone or a node out of range are left out.
 */
export function vrmHumanBones(json: { extensions?: Record<string, unknown>; nodes?: unknown[] }): { source: string; bones: Record<string, number> } | undefined {
  const count = json.nodes?.length ?? 0;
  const ok = (node: unknown): node is number => Number.isInteger(node) && (node as number) >= 0 && (node as number) < count;
  const vrm1 = (json.extensions?.VRMC_vrm as { humanoid?: { humanBones?: Record<string, { node?: unknown }> } } | undefined)?.humanoid?.humanBones;
  if (vrm1 && typeof vrm1 === 'object') {
    const bones: Record<string, number> = {};
    for (const [bone, value] of Object.entries(vrm1)) if (BONE_ID.has(bone) && ok(value?.node)) bones[bone] = value.node;
    return { source: 'VRMC_vrm', bones };
  }
  const vrm0 = (json.extensions?.VRM as { humanoid?: { humanBones?: { bone?: unknown; node?: unknown }[] } } | undefined)?.humanoid?.humanBones;
  if (Array.isArray(vrm0)) {
    const bones: Record<string, number> = {};
    for (const entry of vrm0) {
      if (typeof entry?.bone !== 'string' || !ok(entry.node)) continue;
      const side = /^(left|right)/.exec(entry.bone)?.[0] ?? '';
      const rest = entry.bone.slice(side.length);
      const bone = side && VRM0_THUMBS[rest] ? side + VRM0_THUMBS[rest] : entry.bone;
      if (BONE_ID.has(bone)) bones[bone] = entry.node;
    }
    return { source: 'VRM', bones };
  }
  return undefined;
}

/** A declared map (vrmHumanBones) over the caller's node indices: `indexOf(gltfNode)` gives the caller's index or -1. */
export function humanoidFromBones(declared: { source: string; bones: Record<string, number> }, indexOf: (gltfNode: number) => number): HumanoidMap {
  const nodes = new Int32Array(HUMAN_BONES.length).fill(-1);
  for (const [bone, node] of Object.entries(declared.bones)) nodes[BONE_ID.get(bone)!] = indexOf(node);
  return { nodes, source: declared.source };
}

/**
 * How a VRM file asks material `index` to look: 'mtoon' for VRM 1.0's `VRMC_materials_mtoon` or
 * VRM 0.x's `VRM/MToon` shader (drawn as the nearest glTF look: lit, metallic 0, roughness 1,
 * the base colour and texture as the lit colour; shade colour, rim, matcap and outline are not
 * drawn), 'unlit' for VRM 0.x's `VRM/Unlit*` shaders, undefined for any other material. VRM 0.x
 * material properties match the glTF material of the same name, else of the same index.
 */
export function vrmMaterialLook(json: { materials?: { name?: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> }, index: number): 'mtoon' | 'unlit' | undefined {
  const material = json.materials?.[index];
  if (material?.extensions?.VRMC_materials_mtoon !== undefined) return 'mtoon';
  const props = (json.extensions?.VRM as { materialProperties?: { name?: unknown; shader?: unknown }[] } | undefined)?.materialProperties;
  if (!Array.isArray(props)) return undefined;
  const own = props.find((p) => p?.name !== undefined && p.name === material?.name) ?? props[index];
  const shader = typeof own?.shader === 'string' ? own.shader : '';
  return shader === 'VRM/MToon' ? 'mtoon' : shader.startsWith('VRM/Unlit') ? 'unlit' : undefined;
}
