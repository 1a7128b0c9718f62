import { Document, NodeIO, type Accessor } from '@gltf-transform/core';

/**
 * Static props built from boxes (tools/props/sword.ts, flag.ts): one mesh node without a skin or
 * clips, a primitive per material, flat normals. Deterministic: the same boxes write the same bytes.
 */

export type Vec3 = [number, number, number];

/** A material: its name, linear base colour, metalness and roughness. */
export interface BoxMaterial {
  name: string;
  color: [number, number, number, number];
  metallic: number;
  roughness: number;
}

/** A box: centre and full size in prop units, and the index of its material. */
export interface PropBox {
  centre: Vec3;
  size: Vec3;
  material: number;
}

/** Faces of a unit box: normal axis, sign, and the two in-plane axes (counter-clockwise seen from outside). */
const FACES: readonly [number, number, number, number][] = [
  [0, 1, 1, 2], [0, -1, 2, 1], [1, 1, 2, 0], [1, -1, 0, 2], [2, 1, 0, 1], [2, -1, 1, 0],
];

/** A box face's two triangles over its four corners as visitBoxCorners gives them (add the face's first vertex). */
export const BOX_FACE_TRIANGLES: readonly number[] = [0, 1, 2, 0, 2, 3];

/**
 * Visits the 24 corners of the box of `centre` and full `size` (4 a face, faces in one fixed
 * order, each counter-clockwise seen from outside) with the corner's position and its face's
 * normal (flat shading): the Walker's, the Mannequin's and the props' boxes.
 */
export function visitBoxCorners(centre: readonly number[], size: readonly number[], visit: (position: Vec3, normal: Vec3) => void): void {
  for (const [axis, sign, u, w] of FACES) {
    for (const [su, sw] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
      const p = [0, 0, 0];
      p[axis] = sign;
      p[u] = su;
      p[w] = sw;
      visit([0, 1, 2].map((c) => centre[c] + (p[c] * size[c]) / 2) as Vec3, [0, 1, 2].map((c) => (c === axis ? sign : 0)) as Vec3);
    }
  }
}

/** The boxes of one material as a triangle list with flat normals. */
function boxesOf(all: readonly PropBox[], material: number): { positions: Float32Array; normals: Float32Array; indices: Uint16Array } {
  const list = all.filter((b) => b.material === material);
  const positions = new Float32Array(list.length * 24 * 3);
  const normals = new Float32Array(list.length * 24 * 3);
  const indices = new Uint16Array(list.length * 36);
  let v = 0;
  for (const b of list) {
    visitBoxCorners(b.centre, b.size, (position, normal) => {
      positions.set(position, v * 3);
      normals.set(normal, v * 3);
      if (v % 4 === 0) indices.set(BOX_FACE_TRIANGLES.map((k) => v + k), (v / 4) * 6);
      v++;
    });
  }
  return { positions, normals, indices };
}

/** The prop `name` (its mesh, node and scene) of `boxes` in `materials`, as .glb bytes (@gltf-transform/core). */
export async function buildBoxPropGlb(name: string, materials: readonly BoxMaterial[], boxes: readonly PropBox[]): Promise<Uint8Array> {
  const doc = new Document();
  doc.getRoot().getAsset().generator = 'crowd-skin tools/make-props.ts';
  const buffer = doc.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3', array: Float32Array | Uint16Array): Accessor => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const mesh = doc.createMesh(name);
  materials.forEach((m, k) => {
    const data = boxesOf(boxes, k);
    const material = doc.createMaterial(m.name).setBaseColorFactor(m.color).setMetallicFactor(m.metallic).setRoughnessFactor(m.roughness);
    mesh.addPrimitive(doc.createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', data.positions))
      .setAttribute('NORMAL', accessor('VEC3', data.normals))
      .setIndices(accessor('SCALAR', data.indices))
      .setMaterial(material));
  });
  doc.getRoot().setDefaultScene(doc.createScene(name).addChild(doc.createNode(name).setMesh(mesh)));
  return new NodeIO().writeBinary(doc);
}
