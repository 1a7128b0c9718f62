import { Document, NodeIO, type Accessor } from '@gltf-transform/core';
import { addClip } from '../walker/build';
import { walkerClips } from '../walker/clips';
import { JOINTS, bindPositions, boxMesh, type BoxDef, type Vec3 } from '../walker/skeleton';
import { encodePng } from './png';


/**
 * The Mannequin: the Walker's skeleton and clips with a body of swappable parts, for per-instance
 * appearance (docs/appearance.md). Four mesh nodes share one skin, one primitive each, in this
 * order (CrowdAppearance.parts): Body (textured, UVs cover each box face), HeadBox, HeadWide and
 * Hat. Beside it, base-colour variants of the body texture of the same 64 x 64 layout.
 * Deterministic: the same code gives the same bytes.
 */

/** Texels per side of the body texture and its variants. */
export const TEXTURE_SIZE = 64;

/** The parts in primitive order, each a mesh node of its own: boxes (skeleton.ts BoxDef, material ignored) and a linear base colour factor. */
export const MANNEQUIN_PARTS: readonly { name: string; color: [number, number, number, number]; textured: boolean; boxes: BoxDef[] }[] = [
  {
    name: 'Body', color: [1, 1, 1, 1], textured: true,
    boxes: [
      b('Hips', [0, -0.03, 0], [0.3, 0.16, 0.18]), b('Spine', [0, 0.1, 0], [0.26, 0.2, 0.16]), b('Chest', [0, 0.14, 0], [0.36, 0.28, 0.2]),
      b('Neck', [0, 0.03, 0], [0.08, 0.08, 0.08]),
      ...(['L', 'R'] as const).flatMap((s) => {
        const x = s === 'L' ? 0.01 : -0.01;
        return [
          b(`UpperArm.${s}`, [x, -0.13, 0], [0.09, 0.28, 0.09]), b(`LowerArm.${s}`, [x, -0.12, 0], [0.08, 0.25, 0.08]), b(`Hand.${s}`, [x, -0.06, 0.01], [0.06, 0.11, 0.08]),
          b(`UpperLeg.${s}`, [0, -0.2, 0], [0.13, 0.4, 0.13]), b(`LowerLeg.${s}`, [0, -0.2, 0], [0.1, 0.4, 0.1]), b(`Foot.${s}`, [0, -0.045, 0.05], [0.1, 0.09, 0.26]),
        ];
      }),
    ],
  },
  { name: 'HeadBox', color: [0.8, 0.6, 0.45, 1], textured: false, boxes: [b('Head', [0, 0.12, 0], [0.2, 0.24, 0.22]), b('Head', [0, 0.14, 0.115], [0.16, 0.06, 0.02])] },
  { name: 'HeadWide', color: [0.35, 0.8, 0.3, 1], textured: false, boxes: [b('Head', [0, 0.1, 0], [0.3, 0.2, 0.26]), b('Head', [0, 0.12, 0.135], [0.22, 0.05, 0.02])] },
  { name: 'Hat', color: [0.08, 0.08, 0.1, 1], textured: false, boxes: [b('Head', [0, 0.26, 0], [0.36, 0.03, 0.36]), b('Head', [0, 0.34, 0], [0.22, 0.14, 0.22])] },
];

function b(joint: string, centre: Vec3, size: Vec3): BoxDef {
  return { joint, centre, size, material: 0 };
}

/**
 * Base-colour texture `k` of the body (RGBA8, sRGB, TEXTURE_SIZE square): 0 the file's own (light
 * grey with a dark band), 1 red and white checks, 2 blue with yellow stripes. The file holds 0;
 * 1 and 2 are written beside it (Mannequin.variant1.png, Mannequin.variant2.png).
 */
export function mannequinTexture(k: 0 | 1 | 2): { width: number; height: number; data: Uint8Array } {
  const n = TEXTURE_SIZE;
  const data = new Uint8Array(n * n * 4);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      let c: number[];
      if (k === 0) c = y >= 24 && y < 40 ? [60, 60, 70] : [200, 200, 200];
      else if (k === 1) c = ((x >> 4) + (y >> 4)) % 2 === 0 ? [220, 30, 30] : [240, 240, 240];
      else c = (y >> 3) % 2 === 0 ? [30, 70, 220] : [240, 210, 40];
      data.set([...c, 255], (y * n + x) * 4);
    }
  }
  return { width: n, height: n, data };
}

/** The variant images written beside the file, variant k at index k - 1. */
export const MANNEQUIN_VARIANT_FILES = ['Mannequin.variant1.png', 'Mannequin.variant2.png'] as const;

export function mannequinVariantPng(k: 1 | 2): Uint8Array {
  const t = mannequinTexture(k);
  return encodePng(t.width, t.height, t.data);
}

export async function buildMannequinGlb(): Promise<Uint8Array> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'crowd-skin tools/make-mannequin.ts';
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4', array: Float32Array | Uint8Array | Uint16Array | Int16Array): Accessor =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer).setNormalized(array instanceof Int16Array);
  const nodes = JOINTS.map((j) => doc.createNode(j.name).setTranslation(j.offset));
  JOINTS.forEach((j, i) => { if (j.parent >= 0) nodes[j.parent].addChild(nodes[i]); });
  const bind = bindPositions(JOINTS);
  const inverseBind = new Float32Array(JOINTS.length * 16);
  bind.forEach((p, j) => inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0], -p[1], -p[2], 1], j * 16));
  const skin = doc.createSkin('Mannequin').setSkeleton(nodes[0]).setInverseBindMatrices(accessor('MAT4', inverseBind));
  nodes.forEach((n) => skin.addJoint(n));
  const scene = doc.createScene('Mannequin').addChild(nodes[0]);
  const own = mannequinTexture(0);
  const texture = doc.createTexture('BodyTexture').setImage(encodePng(own.width, own.height, own.data)).setMimeType('image/png');
  for (const part of MANNEQUIN_PARTS) {
    const data = boxMesh(0, { joints: JOINTS, boxes: part.boxes });
    // Each box face (4 vertices, boxMesh's order) covers the whole texture.
    const uvs = new Float32Array((data.positions.length / 3) * 2);
    for (let v = 0; v < uvs.length / 2; v++) uvs.set([[0, 1], [1, 1], [1, 0], [0, 0]][v % 4], v * 2);
    const material = doc.createMaterial(part.name).setBaseColorFactor(part.color).setMetallicFactor(0).setRoughnessFactor(0.8);
    if (part.textured) material.setBaseColorTexture(texture);
    const primitive = doc.createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', data.positions))
      .setAttribute('NORMAL', accessor('VEC3', data.normals))
      .setAttribute('TEXCOORD_0', accessor('VEC2', uvs))
      .setAttribute('JOINTS_0', accessor('VEC4', data.joints))
      .setAttribute('WEIGHTS_0', accessor('VEC4', data.weights))
      .setIndices(accessor('SCALAR', data.indices))
      .setMaterial(material);
    scene.addChild(doc.createNode(part.name).setMesh(doc.createMesh(part.name).addPrimitive(primitive)).setSkin(skin));
  }
  doc.getRoot().setDefaultScene(scene);
  for (const clip of walkerClips().filter((c) => c.name === 'Idle' || c.name === 'WalkForward' || c.name === 'RunForward')) addClip(doc, clip, nodes, accessor);
  return new NodeIO().writeBinary(doc);
}
