/**
 * The three.js objects of a crowd three draws (shading 'three'), on either of three's backends:
 * per primitive of the character, one Mesh per mesh LOD level (CrowdLevelMesh), sharing the
 * primitive's vertices (positions, normals, UVs, joint slots with the skin's offset added, weights;
 * four influences a set, two sets for 8-influence characters) and one index buffer holding every
 * level's triangles one after another, as the crowd's own MeshBuffers do. Materials: the user's
 * (used as it is) or a MeshStandardNodeMaterial per primitive from its glTF material. Who reads
 * the instances (WebGPU storage buffers: three-shading.ts; WebGL 2 textures: three-gl-shading.ts)
 * sets the materials' positionNode and each level's draw.
 */
import {
  BufferAttribute, BufferGeometry, DataTexture, Group, LinearFilter, LinearMipmapLinearFilter, MeshStandardNodeMaterial, SRGBColorSpace, Texture,
  type NodeMaterial,
} from 'three/webgpu';
import type { Character } from '../index';
import { triangleList } from '../bake/rig';
import { primitiveVertices } from '../runtime/mesh-data';
import { CrowdLevelMesh } from './three-instance';
import type { ThreeShadingOptions } from './three-shading';

/** What makeCrowdMeshes made; the caller owns it (disposeCrowdMeshes frees it). */
export interface CrowdMeshes {
  /** Add this to the scene: every mesh (identity transform; instances carry their own). */
  readonly object: Group;
  /** One per (primitive, LOD level), primitive after primitive. */
  readonly meshes: CrowdLevelMesh[];
  /** The geometries, in `meshes`' order. */
  readonly geometries: BufferGeometry[];
  /** The materials drawn with (each once). */
  readonly materials: NodeMaterial[];
  /** Whether the materials were made here (disposed with the meshes) rather than the user's. */
  readonly ownsMaterials: boolean;
  /** Base-colour textures made here. */
  readonly textures: Texture[];
  /** Mesh LOD levels (1 without them). */
  readonly levels: number;
  /** Per primitive and level: [index count, first index] in the primitive's index buffer. */
  readonly ranges: [number, number][][];
  /** Whether the character has 8-influence primitives (two joint / weight attribute sets). */
  readonly eight: boolean;
}

/** The meshes of `character` for a crowd three draws; nothing is drawn until the caller sets the positionNode. */
export function makeCrowdMeshes(character: Character, options: ThreeShadingOptions): CrowdMeshes {
  const primitives = character.rig.primitives;
  const eight = primitives.some((prim) => prim.influences === 8);
  const object = new Group();
  object.name = `crowd-skin ${character.name}`;
  const lods = character.lods?.indices ?? [];
  const levels = 1 + (lods[0]?.length ?? 0);
  const made: CrowdMeshes = { object, meshes: [], geometries: [], materials: [], ownsMaterials: options.material === undefined, textures: [], levels, ranges: [], eight };
  primitives.forEach((prim, p) => {
    const v = primitiveVertices(prim, character.gpu.skinSlotOffset[prim.skin]);
    const attributes: [string, BufferAttribute][] = [
      ['position', new BufferAttribute(v.positions, 3)], ['normal', new BufferAttribute(v.normals, 3)], ['uv', new BufferAttribute(v.uvs, 2)],
    ];
    // Joints as u32 (WGSL has no u16), split into sets of four; weights alike.
    const vertices = prim.vertexCount;
    const sets = eight ? 2 : 1;
    for (let s = 0; s < sets; s++) {
      const joints = new Uint32Array(vertices * 4);
      const weights = new Float32Array(vertices * 4);
      if (s < v.influences / 4) {
        for (let i = 0; i < vertices; i++) {
          for (let k = 0; k < 4; k++) {
            joints[i * 4 + k] = v.joints[i * v.influences + s * 4 + k];
            weights[i * 4 + k] = v.weights[i * v.influences + s * 4 + k];
          }
        }
      }
      attributes.push([`crowdJoints${s}`, new BufferAttribute(joints, 4)], [`crowdWeights${s}`, new BufferAttribute(weights, 4)]);
    }
    // Every LOD level's triangles one after another in one index buffer, as the crowd's MeshBuffers.
    const all = [triangleList(prim), ...(lods[p] ?? [])];
    const total = all.reduce((n, l) => n + l.length, 0);
    const indices = vertices > 0x10000 ? new Uint32Array(total) : new Uint16Array(total);
    const primitiveRanges: [number, number][] = [];
    let first = 0;
    for (const level of all) {
      indices.set(level, first);
      primitiveRanges.push([level.length, first]);
      first += level.length;
    }
    made.ranges.push(primitiveRanges);
    const index = new BufferAttribute(indices, 1);
    const material = options.material ?? defaultMaterial(character, p, made.textures);
    if (!made.materials.includes(material)) made.materials.push(material);
    for (let level = 0; level < levels; level++) {
      const geometry = new BufferGeometry();
      for (const [name, data] of attributes) geometry.setAttribute(name, data);
      geometry.setIndex(index);
      made.geometries.push(geometry);
      const mesh = new CrowdLevelMesh(geometry, material, p, level);
      mesh.name = `${object.name} primitive ${p} level ${level}`;
      // The primitive uniform (appearance's parts, morph headers): one material may draw every primitive.
      mesh.userData.crowdPrimitive = p;
      // The instances are spread over the world; three's bounds are those of the rest pose at the origin.
      mesh.frustumCulled = false;
      // three's Mesh.raycast would hit the rest pose at the origin, not the instances: a
      // CrowdObject3D (crowd-object.ts) in the scene answers three's Raycaster for the crowd.
      mesh.raycast = () => {};
      mesh.castShadow = options.castShadow ?? true;
      mesh.receiveShadow = options.receiveShadow ?? true;
      made.meshes.push(mesh);
      object.add(mesh);
    }
  });
  return made;
}

/** Frees the geometries, and the materials and textures made here; takes the object out of its parent. */
export function disposeCrowdMeshes(made: CrowdMeshes): void {
  made.object.removeFromParent();
  for (const geometry of made.geometries) geometry.dispose();
  if (made.ownsMaterials) for (const material of made.materials) material.dispose();
  for (const texture of made.textures) texture.dispose();
}

/** A MeshStandardNodeMaterial of primitive `p`'s glTF material (its base-colour texture pushed to `textures`). */
function defaultMaterial(character: Character, p: number, textures: Texture[]): NodeMaterial {
  const info = character.rig.primitives[p].material as typeof character.rig.primitives[number]['material'] & { metallicFactor?: number; roughnessFactor?: number };
  const [r, g, b, a] = info.baseColorFactor;
  const material = new MeshStandardNodeMaterial({ metalness: info.metallicFactor ?? 0, roughness: info.roughnessFactor ?? 1 });
  // A primitive without NORMAL is shaded flat, by face normals from the fragment stage, as three's
  // GLTFLoader does and as the crowd's own skin pass does (docs/draw.md).
  material.flatShading = character.rig.primitives[p].normals === undefined;
  material.color.setRGB(r, g, b);
  material.opacity = a;
  const bitmap = info.baseColorImage && character.textures.get(info.baseColorImage);
  const ktx2 = info.baseColorImage?.ktx2; // a KTX2 image: its RGBA8 levels, transcoded at load
  if (bitmap || ktx2) {
    const map = ktx2 ? new DataTexture(ktx2.rgba[0], ktx2.width, ktx2.height) : new Texture(bitmap);
    if (ktx2) { // a DataTexture's defaults are nearest and no mipmaps: filtered and mip-mapped as an image texture
      [map.magFilter, map.minFilter, map.generateMipmaps] = [LinearFilter, LinearMipmapLinearFilter, ktx2.rgba.length === 1];
      if (ktx2.rgba.length > 1) map.mipmaps = ktx2.rgba.map((data, l) => ({ data, width: Math.max(1, ktx2.width >> l), height: Math.max(1, ktx2.height >> l) }));
    }
    map.flipY = false; // glTF's UV origin is the top left
    map.colorSpace = SRGBColorSpace;
    map.needsUpdate = true;
    textures.push(map);
    material.map = map;
  }
  return material;
}
