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

/** The boxes of one material as a triangle list with flat normals. */
function boxesOf(all: readonly PropBox[], material: number): { positions: Float32Array; normals: Float32Array; indices: Uint16Array } {
  const list = all.filter((b) => b.material === material);
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
