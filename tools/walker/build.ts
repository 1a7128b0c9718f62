import { Document, NodeIO, type Accessor, type Node } from '@gltf-transform/core';
import { walkerClips, type ClipSpec } from './clips';
import { MIXAMO_NAMES, VRM_BONES, VROID_NAMES, variantBody } from './variants';
import { mat4d } from 'wgpu-matrix';
import { BOXES, JOINTS, MATERIALS, bindFrames, boxMesh, proportioned, type Proportioned } from './skeleton';

/**
 * Assembles the Walker as a glTF document (@gltf-transform/core) and writes it as .glb bytes:
 * the joints as a node tree, one skinned mesh with a primitive per material, and every clip of
 * clips.ts as LINEAR keys (one shared time accessor per clip; rotations as normalised shorts). Deterministic: the same code gives
 * the same bytes, so the committed file can be checked against a fresh build.
 */

/** Rotations within this of the identity at every key are not written (the joint keeps its rest pose). */
const REST_EPSILON = 1e-7;

/** What to write (default: the Walker whole, body and clips). */
export interface WalkerParts {
  /** The skinned mesh (default true); false writes the skeleton's nodes only. */
  mesh?: boolean;
  /** The clips (default true). */
  clips?: boolean;
  /** The body's proportions (skeleton.ts `proportioned`; default the Walker's). */
  body?: Proportioned;
  /** Put before every node name (`mixamorig:` gives the naming of a Mixamo download). */
  prefix?: string;
  /** Walker joint name -> the name written (variants.ts: VRoid and Mixamo names). */
  names?: Readonly<Record<string, string>>;
  /** Write a VRM 1.0 humanoid map (`VRMC_vrm`) naming every joint's bone (variants.ts VRM_BONES). */
  vrm?: boolean;
}

/** Legs and torso of the stocky body (WalkerStocky.glb): shorter legs, a bigger torso, the same joint names. */
export const STOCKY = { legScale: 0.8, torsoScale: 1.15 } as const;

/** The thigh of WalkerLegs.glb, metres (the Walker's: 0.4; the shin takes the rest of 0.8). */
export const LEGS_THIGH = 0.5;

/** The A-pose of WalkerMixamo.glb: arms raised 0.8 rad (46 degrees) from hanging, about 44 degrees below horizontal. */
export const A_POSE = 0.8;

/**
 * The files make-walker writes beside Walker.glb, for clips kept apart from bodies
 * (docs/clips.md): the Walker's body alone, its clips alone (nodes, no mesh), the clips with
 * Mixamo-style joint names, a body of other proportions with the same joint names, and the
 * Walker's body renamed (VRoid names with a VRM map; Mixamo names), with other local axes, an
 * A-pose rest, an extra spine joint, other leg proportions, or facing -z (variants.ts).
 */
export const WALKER_PARTS: Readonly<Record<string, WalkerParts>> = {
  'WalkerBody.glb': { clips: false },
  'WalkerClips.glb': { mesh: false },
  'WalkerClipsMixamo.glb': { mesh: false, prefix: 'mixamorig:' },
  'WalkerStocky.glb': { clips: false, body: proportioned(STOCKY.legScale, STOCKY.torsoScale) },
  // For humanoid retargeting (docs/retargeting.md, variants.ts): the same body renamed, with other
  // local axes, an A-pose rest, an extra spine joint, other leg proportions.
  'WalkerVRoid.glb': { clips: false, names: VROID_NAMES, vrm: true, body: variantBody({ axes: true }) },
  'WalkerMixamo.glb': { clips: false, names: MIXAMO_NAMES, body: variantBody({ aPose: A_POSE }) },
  'WalkerSpine.glb': { clips: false, body: variantBody({ extraSpine: true }) },
  // Legs in other proportions at the same hip height, for the leg solve: thigh 0.5 m, shin 0.3 m.
  'WalkerLegs.glb': { clips: false, body: variantBody({ thigh: LEGS_THIGH }) },
  // Facing -z, as VRM 0.x avatars do.
  'WalkerBack.glb': { clips: false, body: variantBody({ face: Math.PI }) },
};


export async function buildWalkerGlb(parts: WalkerParts = {}): Promise<Uint8Array> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'crowd-skin tools/make-walker.ts';
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint8Array | Uint16Array | Int16Array): Accessor =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer).setNormalized(array instanceof Int16Array);
  const body = parts.body ?? { joints: JOINTS, boxes: BOXES };

  const nodes: Node[] = body.joints.map((j) => {
    const node = doc.createNode(`${parts.prefix ?? ''}${parts.names?.[j.name] ?? j.name}`).setTranslation(j.offset);
    return j.rotation ? node.setRotation(j.rotation) : node;
  });
  body.joints.forEach((j, i) => { if (j.parent >= 0) nodes[j.parent].addChild(nodes[i]); });
  if (parts.mesh === false) {
    doc.getRoot().setDefaultScene(doc.createScene('Walker').addChild(nodes[0]));
  } else {
    addBody(doc, body, nodes, accessor);
  }
  if (parts.clips !== false) for (const clip of walkerClips()) addClip(doc, clip, nodes, accessor);
  const glb = await new NodeIO().writeBinary(doc);
  return parts.vrm ? withVrmHumanoid(glb, body.joints.map((j) => [`${parts.prefix ?? ''}${parts.names?.[j.name] ?? j.name}`, VRM_BONES[j.name]])) : glb;
}

/**
 * The .glb with a VRM 1.0 humanoid map (`extensions.VRMC_vrm`: spec version, a minimal meta, and
 * `humanoid.humanBones`) for the nodes named in `bones` ([node name, VRM bone], bone undefined
 * for joints no bone names). @gltf-transform/core keeps no unknown extension, so the JSON chunk
 * is rewritten here (padded with spaces to 4 bytes, as the GLB format asks).
 */
function withVrmHumanoid(glb: Uint8Array, bones: [string, string | undefined][]): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength)));
  const nodeOf = (name: string) => json.nodes.findIndex((n: { name?: string }) => n.name === name);
  const humanBones: Record<string, { node: number }> = {};
  for (const [name, bone] of bones) if (bone) humanBones[bone] = { node: nodeOf(name) };
  json.extensionsUsed = [...(json.extensionsUsed ?? []), 'VRMC_vrm'];
  json.extensions = {
    ...json.extensions,
    VRMC_vrm: {
      specVersion: '1.0',
      meta: { name: 'Walker', version: '1', authors: ['crowd-skin tools/make-walker.ts'], licenseUrl: 'https://creativecommons.org/publicdomain/zero/1.0/' },
      humanoid: { humanBones },
    },
  };
  let text = JSON.stringify(json);
  text += ' '.repeat((4 - (text.length % 4)) % 4);
  const jsonBytes = new TextEncoder().encode(text);
  const rest = glb.subarray(20 + jsonLength);
  const out = new Uint8Array(20 + jsonBytes.byteLength + rest.byteLength);
  const outView = new DataView(out.buffer);
  out.set(glb.subarray(0, 12));
  outView.setUint32(8, out.byteLength, true);
  outView.setUint32(12, jsonBytes.byteLength, true);
  outView.setUint32(16, 0x4e4f534a, true); // 'JSON'
  out.set(jsonBytes, 20);
  out.set(rest, 20 + jsonBytes.byteLength);
  return out;
}

/** The skin and the boxes' mesh (one primitive per material), and the scene. */
function addBody(doc: Document, body: Proportioned, nodes: Node[], accessor: (type: 'SCALAR' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint8Array | Uint16Array | Int16Array) => Accessor): void {
  const bind = bindFrames(body.joints);
  const inverseBind = new Float32Array(body.joints.length * 16);
  bind.positions.forEach((p, j) => {
    const [x, y, z, w] = bind.rotations[j];
    if (x === 0 && y === 0 && z === 0 && w === 1) inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0], -p[1], -p[2], 1], j * 16);
    else inverseBind.set(mat4d.inverse(mat4d.multiply(mat4d.translation(p), mat4d.fromQuat(bind.rotations[j]))), j * 16);
  });
  const skin = doc.createSkin('Walker').setSkeleton(nodes[0]).setInverseBindMatrices(accessor('MAT4', inverseBind));
  nodes.forEach((n) => skin.addJoint(n));

  const mesh = doc.createMesh('Walker');
  MATERIALS.forEach((m, k) => {
    if (!body.boxes.some((b) => b.material === k)) return;
    const data = boxMesh(k as 0 | 1, body);
    const material = doc.createMaterial(m.name).setBaseColorFactor(m.color).setMetallicFactor(0).setRoughnessFactor(0.8);
    mesh.addPrimitive(doc.createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', data.positions))
      .setAttribute('NORMAL', accessor('VEC3', data.normals))
      .setAttribute('JOINTS_0', accessor('VEC4', data.joints))
      .setAttribute('WEIGHTS_0', accessor('VEC4', data.weights))
      .setIndices(accessor('SCALAR', data.indices))
      .setMaterial(material));
  });
  const mesh0 = doc.createNode('WalkerMesh').setMesh(mesh).setSkin(skin);
  doc.getRoot().setDefaultScene(doc.createScene('Walker').addChild(nodes[0]).addChild(mesh0));
}

export function addClip(doc: Document, clip: ClipSpec, nodes: Node[], accessor: (type: 'SCALAR' | 'VEC3' | 'VEC4', a: Float32Array | Int16Array) => Accessor): void {
  const keys = Math.round(clip.duration * clip.fps) + 1;
  const times = Float32Array.from({ length: keys }, (_, k) => (k === keys - 1 ? clip.duration : k / clip.fps));
  const poses = Array.from(times, (_, k) => clip.pose(k === keys - 1 ? clip.duration : k / clip.fps));
  const animation = doc.createAnimation(clip.name);
  const input = accessor('SCALAR', times);
  const channel = (node: Node, path: 'translation' | 'rotation', type: 'VEC3' | 'VEC4', values: Float32Array | Int16Array) => {
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(accessor(type, values)).setInterpolation('LINEAR');
    animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler));
  };
  channel(nodes[0], 'translation', 'VEC3', Float32Array.from(poses.flatMap((p) => p.hips)));
  JOINTS.forEach((_, j) => {
    const values = new Float32Array(keys * 4);
    let moves = false;
    poses.forEach((p, k) => {
      const q = p.rotations[j];
      // Sign-continuous keys: q and -q are the same rotation; keep each key on the side of the last.
      const o = k * 4;
      const flip = k > 0 && q[0] * values[o - 4] + q[1] * values[o - 3] + q[2] * values[o - 2] + q[3] * values[o - 1] < 0 ? -1 : 1;
      for (let c = 0; c < 4; c++) values[o + c] = flip * q[c];
      if (Math.abs(Math.abs(q[3]) - 1) > REST_EPSILON) moves = true;
    });
    // Rotations as normalised shorts (glTF allows them for rotation outputs): half the bytes, 3e-5 per component.
    if (moves) channel(nodes[j], 'rotation', 'VEC4', Int16Array.from(values, (v) => Math.round(v * 32767)));
  });
}
