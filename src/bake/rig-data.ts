import type { BakedModel } from './bake';
import type { Rig } from './rig';
import { IDENTITY_TRS } from '../math/pose';

/**
 * Per rig node (shaders/pose.wgsl `Node`). packRigData packs them in this layout; PosePass
 * (src/runtime/pose-pass.ts) copies them into its `tracks` buffer as one vec4f
 * (parent, depth, 0, 0) each, integers as floats. test/runtime/layout.test.ts checks both
 * layouts here against the shader, through src/runtime/layout.ts.
 */
export const NODE = {
  size: 8,
  parent: 0, // i32: parent node, -1 for a root
  depth: 4, //  u32: 0 for a root
} as const;

/**
 * Per joint slot: one skin joint of one skin (shaders/pose.wgsl `JointSlot`). PosePass copies
 * them into its `tracks` buffer as 5 vec4f: the matrix's columns, then (node, 0, 0, 0).
 */
export const JOINT_SLOT = {
  size: 80,
  inverseBind: 0, // mat4x4f
  node: 64, //       u32: rig node whose model matrix this joint follows
  // 12 bytes of padding: a struct holding a mat4x4f is 16-byte aligned
} as const;

/**
 * The static GPU data of one character, as typed arrays laid out per NODE and JOINT_SLOT
 * above and src/runtime/layout.ts. Made at load time (Character.gpu), pure CPU (tested without a
 * GPU); PosePass uploads it. It sits in bake/, below character/ and runtime/, since both use it.
 */
export interface RigData {
  nodeCount: number;
  /** Deepest node depth (roots are 0): the pose pass runs this many composition levels. */
  maxDepth: number;
  /** Joint slots per instance: every skin's joints, skin after skin. */
  slotCount: number;
  /** First slot of each skin in `Rig.skins`; a vertex of skin k uses slot skinSlotOffset[k] + joint. */
  skinSlotOffset: Uint32Array;
  clipCount: number;
  /**
   * The baked track entries: the same array as BakedModel.tracks (not a copy), so characters that
   * share a clip library's tables share this, and PosePass uploads it once per device.
   */
  tracks: Float32Array;
  /**
   * The character's own records: the rest pose (3 vec4f per node from vec4 index `restBase`);
   * the identity difference (3 vec4f: translation 0, rotation identity, scale 1) just before
   * `clipBase`; then one vec4f per clip from vec4 index `clipBase`: (duration in seconds,
   * entries per track, 1 for a difference clip else 0, 0). PosePass puts them after trackRefs.
   */
  records: Float32Array;
  restBase: number;
  clipBase: number;
  trackRefs: Uint32Array;
  /** NODE records. */
  nodes: ArrayBuffer;
  /** JOINT_SLOT records. */
  slots: ArrayBuffer;
}

export function packRigData(rig: Rig, baked: BakedModel): RigData {
  const nodeCount = rig.nodes.count;
  const depth = new Uint32Array(nodeCount);
  const nodes = new ArrayBuffer(nodeCount * NODE.size);
  const nodeView = new DataView(nodes);
  for (let n = 0; n < nodeCount; n++) {
    const parent = rig.nodes.parent[n];
    depth[n] = parent < 0 ? 0 : depth[parent] + 1;
    nodeView.setInt32(n * NODE.size + NODE.parent, parent, true);
    nodeView.setUint32(n * NODE.size + NODE.depth, depth[n], true);
  }
  const skinSlotOffset = new Uint32Array(rig.skins.length);
  let slotCount = 0;
  rig.skins.forEach((skin, k) => { skinSlotOffset[k] = slotCount; slotCount += skin.joints.length; });
  const slots = new ArrayBuffer(Math.max(slotCount, 1) * JOINT_SLOT.size);
  const slotFloats = new Float32Array(slots);
  const slotView = new DataView(slots);
  rig.skins.forEach((skin, k) => {
    for (let j = 0; j < skin.joints.length; j++) {
      const o = (skinSlotOffset[k] + j) * JOINT_SLOT.size;
      slotFloats.set(skin.inverseBind.subarray(j * 16, j * 16 + 16), (o + JOINT_SLOT.inverseBind) / 4);
      slotView.setUint32(o + JOINT_SLOT.node, skin.joints[j], true);
    }
  });
  const restBase = 0;
  const clipBase = restBase + nodeCount * 3 + 3;
  const clipCount = baked.clipNames.length;
  const records = new Float32Array((clipBase + clipCount) * 4);
  records.set(baked.rest, restBase * 4);
  records.set(IDENTITY_TRS, (clipBase - 3) * 4);
  for (let c = 0; c < clipCount; c++) {
    records[(clipBase + c) * 4] = baked.clipDurations[c];
    records[(clipBase + c) * 4 + 1] = baked.clipEntries[c];
    records[(clipBase + c) * 4 + 2] = baked.clipIsDifference[c];
  }
  return {
    nodeCount, maxDepth: depth.reduce((a, b) => Math.max(a, b), 0), slotCount, skinSlotOffset,
    clipCount, tracks: baked.tracks, records, restBase, clipBase, trackRefs: baked.trackRefs,
    nodes, slots,
  };
}
