/**
 * A crowd drawn by three.js itself (`createCrowd(character, { shading: 'three' })`): one three
 * `Mesh` per primitive of the character, instanced `crowd.count` times, whose NodeMaterial (a
 * MeshStandardNodeMaterial made from the glTF material, or the user's) skins each vertex from the
 * crowd's joint records in its `positionNode`. So three's lights, environment, fog, tone mapping
 * and shadow maps see the characters as any other mesh: three's shadow pass draws the material's
 * `positionNode` too (Renderer.renderObject copies it onto its override depth material), so the
 * shadows follow the animated pose. Posing stays ours: the crowd's pose pass writes its joint
 * buffer as always, and this feature copies that buffer and the instance records (world
 * matrices) into three-owned storage buffers in the crowd's own command encoder
 * (after the pose pass), with copyBufferToBuffer. three r187 cannot bind a GPUBuffer it did not
 * create, so the copy is the price of going through three's pipeline (docs/three.md, numbers).
 *
 * Culling and mesh LOD: one Mesh per (primitive, LOD level), each drawn indirectly from the
 * crowd's cull pass records, the list chosen per pass and camera (three-instance.ts: the view
 * camera's lists, the shadow light's caster lists, or every instance), so shadows of characters
 * beside the view stay. The joint palette works as under the default shading: the drawn slot
 * reads its joint set through the palette's entries.
 *
 * Not here (documented in docs/three.md): morph targets, 'dual-quaternion' skinning (refused),
 * per-instance appearance (refused when three is about to draw: its materials do not read it).
 */
import {
  BufferAttribute, BufferGeometry, Group, MeshStandardNodeMaterial, SRGBColorSpace, Texture,
  type Camera, type NodeMaterial,
} from 'three/webgpu';
import { attribute, Fn, mat4, normalLocal, storage, uint, vec3, vec4 } from 'three/tsl';
import type { Character, Crowd, CrowdFeature, CrowdKernel, FeatureStage } from '../index';
import type { EncodedFrame } from '../runtime/feature';
import { primitiveVertices } from '../runtime/mesh-data';
import type { WebGpuBackend } from './backend';
import { CrowdLevelMesh, RECORD_VEC4S, ThreeInstances } from './three-instance';

const PREFIX = 'crowd-skin/three';
/** vec4f per joint record with 'linear' skinning (3 matrix rows). */
const JOINT_VEC4S = 3;

/** What `shading: 'three'` takes (ThreeCrowdOptions). */
export interface ThreeShadingOptions {
  /**
   * The material every primitive is drawn with, used as it is (not copied): the bridge sets its
   * `positionNode` to the crowd's skinning, so your colour, roughness, `colorNode`, ... edits
   * apply. Default: one MeshStandardNodeMaterial per primitive from the glTF material (base
   * colour texture and factor; metalness 0, roughness 1 where the loaded character does not
   * carry them).
   */
  material?: NodeMaterial;
  /** Casts shadows into three's shadow maps (default true). */
  castShadow?: boolean;
  /** Receives three's shadows (default true). */
  receiveShadow?: boolean;
}

/**
 * The three.js side of one crowd with `shading: 'three'`: `object` (add it to your scene) holds a
 * Mesh per primitive. A CrowdFeature of the crowd ('three-shading'), so its copies run inside
 * `crowd.encode`, after the pose pass. Owns the three objects and the three storage buffers.
 */
export class ThreeShading implements CrowdFeature {
  readonly featureName = 'three-shading';
  /** Add this to the scene: the crowd's meshes (identity transform; instances carry their own). */
  readonly object = new Group();
  private readonly kernel: CrowdKernel;
  /** One per (primitive, LOD level), primitive after primitive. */
  private readonly meshes: CrowdLevelMesh[] = [];
  private readonly materials: NodeMaterial[] = [];
  private readonly ownsMaterials: boolean;
  private readonly textures: Texture[] = [];
  private readonly geometries: BufferGeometry[] = [];
  private readonly instances: ThreeInstances;
  private readonly eight: boolean;

  constructor(private readonly crowd: Crowd, backend: WebGpuBackend, options: ThreeShadingOptions = {}) {
    if (crowd.skinning !== 'linear') {
      throw new RangeError(`${PREFIX}: shading 'three' skins with linear blending only; this crowd uses '${crowd.skinning}' skinning`);
    }
    if (crowd.device !== backend.device) throw new Error(`${PREFIX}: shading 'three' needs the crowd on three's GPUDevice`);
    const character: Character = crowd.character;
    const primitives = character.rig.primitives;
    this.eight = primitives.some((prim) => prim.influences === 8);
    this.ownsMaterials = options.material === undefined;
    this.kernel = crowd.install(this);
    this.object.name = `crowd-skin ${character.name}`;
    // Every LOD level's triangles one after another in one index buffer, as the crowd's MeshBuffers.
    const lods = character.lods?.indices ?? [];
    const levels = 1 + (lods[0]?.length ?? 0);
    const ranges: [number, number][][] = [];
    const shared: { attributes: [string, BufferAttribute][]; index: BufferAttribute }[] = [];
    primitives.forEach((prim, p) => {
      const v = primitiveVertices(prim, character.gpu.skinSlotOffset[prim.skin]);
      const attributes: [string, BufferAttribute][] = [
        ['position', new BufferAttribute(v.positions, 3)], ['normal', new BufferAttribute(v.normals, 3)], ['uv', new BufferAttribute(v.uvs, 2)],
      ];
      // Joints as u32 (WGSL has no u16), split into sets of four; weights alike.
      const vertices = prim.vertexCount;
      const sets = this.eight ? 2 : 1;
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
      const own = v.indices ?? Uint32Array.from({ length: v.drawCount }, (_, i) => i);
      const all = [own, ...(lods[p] ?? [])];
      const indices = vertices > 0x10000 ? new Uint32Array(all.reduce((n, l) => n + l.length, 0)) : new Uint16Array(all.reduce((n, l) => n + l.length, 0));
      const primitiveRanges: [number, number][] = [];
      let first = 0;
      for (const level of all) {
        indices.set(level, first);
        primitiveRanges.push([level.length, first]);
        first += level.length;
      }
      ranges.push(primitiveRanges);
      shared.push({ attributes, index: new BufferAttribute(indices, 1) });
    });
    this.instances = new ThreeInstances(backend, this.kernel.store, levels, ranges);
    this.instances.fit();
    primitives.forEach((_, p) => {
      const material = options.material ?? this.defaultMaterial(character, p);
      if (!this.materials.includes(material)) this.materials.push(material);
      for (let level = 0; level < levels; level++) {
        const geometry = new BufferGeometry();
        for (const [name, data] of shared[p].attributes) geometry.setAttribute(name, data);
        geometry.setIndex(shared[p].index);
        this.instances.attach(geometry);
        this.geometries.push(geometry);
        const mesh = new CrowdLevelMesh(geometry, material, p, level);
        mesh.name = `${this.object.name} primitive ${p} level ${level}`;
        // The instances are spread over the world; three's bounds are those of the rest pose at the origin.
        mesh.frustumCulled = false;
        // three's Mesh.raycast would hit the rest pose at the origin, not the instances: a
        // CrowdObject3D (crowd-object.ts) in the scene answers three's Raycaster for the crowd.
        mesh.raycast = () => {};
        mesh.castShadow = options.castShadow ?? true;
        mesh.receiveShadow = options.receiveShadow ?? true;
        this.meshes.push(mesh);
        this.object.add(mesh);
      }
    });
    this.setNodes();
    this.sync();
  }

  /**
   * The cameras of the coming frame (ThreeCrowdRenderer sets them before three renders): `view`,
   * the camera the crowd culls for; `caster`, the light camera it lists shadow casters for.
   */
  setCameras(view: Camera | undefined, caster: Camera | undefined): void {
    this.instances.setCameras(view, caster);
  }

  /** Whether any of the crowd's meshes casts shadows now (`castShadow`, which apps may change): only then are casters culled for a light. */
  get castsShadow(): boolean {
    for (let i = 0; i < this.meshes.length; i++) if (this.meshes[i].castShadow) return true;
    return false;
  }

  /** Sets each mesh's instance count to the crowd's, and grows the three buffers with the crowd. Call before three renders. */
  sync(): void {
    const store = this.kernel.store;
    if (this.kernel.feature('appearance')) {
      // three draws with its own materials: tints, variants and part masks would be silently dropped.
      throw new RangeError(`${PREFIX}: shading 'three' draws with three's materials, which do not read CrowdAppearance's tints, variants and parts: ` +
        'use the default shading for a crowd with per-instance appearance');
    }
    if (this.instances.fit()) {
      for (const geometry of this.geometries) this.instances.attach(geometry);
      this.setNodes();
    }
    this.instances.syncCount(store.count);
    // The draws' instance counts come from the indirect records; three skips a mesh whose count is 0.
    for (let i = 0; i < this.meshes.length; i++) this.meshes[i].count = store.count;
  }

  /** After the pose pass: what three's draws read, into three's buffers (ThreeInstances.encode). */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    if (stage === 'after-pose') this.instances.encode(encoder, frame);
  }

  /** Bytes this feature copies each frame for `count` instances without a palette (the joints dominate), lists and records aside. */
  copiedBytes(count: number): number {
    return count * (this.crowd.jointsPerInstance * JOINT_VEC4S * 16 + RECORD_VEC4S * 16);
  }

  /** The GPU buffers of three's storage attributes (gpuBytes of the crowd adds them). */
  get gpuBytes(): number {
    return this.instances.gpuBytes;
  }

  destroy(): void {
    this.object.removeFromParent();
    for (const geometry of this.geometries) geometry.dispose();
    if (this.ownsMaterials) for (const material of this.materials) material.dispose();
    for (const texture of this.textures) texture.dispose();
    this.instances.release();
  }

  restore(): void {
    throw new Error(`${PREFIX}: a crowd with shading 'three' cannot move to another device: make it again on the new renderer`);
  }

  /** The skinning nodes over the current buffers, on every material (rebuilt when they grow). */
  private setNodes(): void {
    const joints = storage(this.instances.joints, 'vec4', this.instances.joints.count).toReadOnly();
    const records = storage(this.instances.records, 'vec4', this.instances.records.count).toReadOnly();
    const slotCount = this.crowd.jointsPerInstance;
    const sets = this.eight ? 2 : 1;
    // shaders/skin.wgsl's linear path in TSL: blended rows, model-space position and normal, then
    // the instance's world matrix. The mesh's own matrix is the identity, so "local" is world here.
    const skinned = Fn(() => {
      const { slot, jointSet } = this.instances.drawnInstance();
      const base = jointSet.mul(uint(slotCount)).toVar();
      const row0 = vec4(0).toVar(), row1 = vec4(0).toVar(), row2 = vec4(0).toVar();
      for (let s = 0; s < sets; s++) {
        const j = attribute(`crowdJoints${s}`, 'uvec4');
        const w = attribute(`crowdWeights${s}`, 'vec4');
        for (const c of ['x', 'y', 'z', 'w'] as const) {
          const o = base.add(j[c]).mul(uint(JOINT_VEC4S));
          row0.addAssign(joints.element(o).mul(w[c]));
          row1.addAssign(joints.element(o.add(uint(1))).mul(w[c]));
          row2.addAssign(joints.element(o.add(uint(2))).mul(w[c]));
        }
      }
      const p = vec4(attribute('position', 'vec3'), 1);
      const n = attribute('normal', 'vec3');
      const r = slot.mul(uint(RECORD_VEC4S)).toVar();
      const world = mat4(records.element(r), records.element(r.add(uint(1))), records.element(r.add(uint(2))), records.element(r.add(uint(3))));
      const model = vec4(row0.dot(p), row1.dot(p), row2.dot(p), 1);
      const normal = vec3(row0.xyz.dot(n), row1.xyz.dot(n), row2.xyz.dot(n));
      normalLocal.assign(world.mul(vec4(normal, 0)).xyz);
      return world.mul(model).xyz;
    });
    const positionNode = skinned();
    for (const material of this.materials) {
      material.positionNode = positionNode;
      material.needsUpdate = true;
    }
  }

  /** A MeshStandardNodeMaterial of primitive `p`'s glTF material. */
  private defaultMaterial(character: Character, p: number): NodeMaterial {
    const info = character.rig.primitives[p].material as typeof character.rig.primitives[number]['material'] & { metallicFactor?: number; roughnessFactor?: number };
    const [r, g, b, a] = info.baseColorFactor;
    const material = new MeshStandardNodeMaterial({ metalness: info.metallicFactor ?? 0, roughness: info.roughnessFactor ?? 1 });
    material.color.setRGB(r, g, b);
    material.opacity = a;
    const bitmap = info.baseColorImage && character.textures.get(info.baseColorImage);
    if (bitmap) {
      const map = new Texture(bitmap);
      map.flipY = false; // glTF's UV origin is the top left
      map.colorSpace = SRGBColorSpace;
      map.needsUpdate = true;
      this.textures.push(map);
      material.map = map;
    }
    return material;
  }
}
