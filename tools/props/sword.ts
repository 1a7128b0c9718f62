import { Document, NodeIO, type Accessor } from '@gltf-transform/core';

/**
 * The Sword: a static prop for CrowdProps.attach, built from boxes by code (licence-free by
 * construction, CC0). One mesh node without a skin or clips, in three primitives (steel blade,
 * gold guard and pommel, leather grip). Prop space: the grip's centre is the origin, the blade
 * points along +y, the guard spans x, the flat of the blade faces z; 1 unit long from pommel to
 * tip (y in [-0.2, 0.8]). Deterministic: the same code writes the same bytes.
 */

type Vec3 = [number, number, number];

/** Linear base colours. */
export const SWORD_MATERIALS: readonly { name: string; color: [number, number, number, number] }[] = [
  { name: 'Steel', color: [0.9, 0.92, 0.95, 1] },
  { name: 'Gold', color: [0.85, 0.6, 0.12, 1] },
  { name: 'Leather', color: [0.3, 0.15, 0.06, 1] },
];

/** Boxes: centre and full size in prop units, material index. */
export const SWORD_BOXES: readonly { centre: Vec3; size: Vec3; material: number }[] = [
  { centre: [0, 0.44, 0], size: [0.1, 0.72, 0.025], material: 0 }, // blade
  { centre: [0, 0.78, 0], size: [0.06, 0.04, 0.02], material: 0 }, // tip
  { centre: [0, 0.07, 0], size: [0.28, 0.045, 0.07], material: 1 }, // guard
  { centre: [0, -0.17, 0], size: [0.075, 0.06, 0.075], material: 1 }, // pommel
  { centre: [0, -0.05, 0], size: [0.045, 0.19, 0.045], material: 2 }, // grip
];

/** Faces of a unit box: normal axis, sign, and the two in-plane axes (counter-clockwise seen from outside). */
const FACES: readonly [number, number, number, number][] = [
  [0, 1, 1, 2], [0, -1, 2, 1], [1, 1, 2, 0], [1, -1, 0, 2], [2, 1, 0, 1], [2, -1, 1, 0],
];

/** The boxes of one material as a triangle list with flat normals. */
function boxes(material: number): { positions: Float32Array; normals: Float32Array; indices: Uint16Array } {
  const list = SWORD_BOXES.filter((b) => b.material === material);
  const positions = new Float32Array(list.length * 24 * 3);
  const normals = new Float32Array(list.length * 24 * 3);
  const indices = new Uint16Array(list.length * 36);
  let v = 0;
  let i = 0;
  for (const b of list) {
    for (const [axis, sign, u, w] of FACES) {
      const first = v;
      for (const [su, sw] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
        const p = [0, 0, 0];
        p[axis] = sign;
        p[u] = su;
        p[w] = sw;
        for (let c = 0; c < 3; c++) {
          positions[v * 3 + c] = b.centre[c] + (p[c] * b.size[c]) / 2;
          normals[v * 3 + c] = c === axis ? sign : 0;
        }
        v++;
      }
      indices.set([first, first + 1, first + 2, first, first + 2, first + 3], i);
      i += 6;
    }
  }
  return { positions, normals, indices };
}

/** The Sword as .glb bytes (@gltf-transform/core). */
export async function buildSwordGlb(): Promise<Uint8Array> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'crowd-skin tools/make-props.ts';
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3', array: Float32Array | Uint16Array): Accessor => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const mesh = doc.createMesh('Sword');
  SWORD_MATERIALS.forEach((m, k) => {
    const data = boxes(k);
    const material = doc.createMaterial(m.name).setBaseColorFactor(m.color).setMetallicFactor(k === 2 ? 0 : 0.8).setRoughnessFactor(0.4);
    mesh.addPrimitive(doc.createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', data.positions))
      .setAttribute('NORMAL', accessor('VEC3', data.normals))
      .setIndices(accessor('SCALAR', data.indices))
      .setMaterial(material));
  });
  doc.getRoot().setDefaultScene(doc.createScene('Sword').addChild(doc.createNode('Sword').setMesh(mesh)));
  return new NodeIO().writeBinary(doc);
}
