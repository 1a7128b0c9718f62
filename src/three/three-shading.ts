/**
 * A crowd drawn by three.js itself (`createCrowd(character, { shading: 'three' })`): three `Mesh`es
 * per primitive of the character (one per mesh LOD level), whose NodeMaterial (a
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
 * reads its joint set through the palette's entries. ThreeInstances.drawnInstance() is the one
 * place that maps three's instanceIndex to the slot and the joint set; every node here takes those.
 *
 * Per-instance appearance, morph targets and 'dual-quaternion' skinning are drawn as under the
 * default shading, each by a file of its own (three-appearance.ts, three-morph.ts,
 * three-skinning.ts) hooked in below, made only while the crowd has them (found through the
 * kernel's draws, never by a feature's name), on every LOD level's mesh alike.
 *
 * Not here: props (CrowdProps) and impostors (CrowdImpostors), which our own pass draws after three's
 * (crowd-pass.ts, Crowd.drawFeatures; docs/three.md).
 */
import type { Camera, Group, NodeMaterial } from 'three/webgpu';
import { attribute, Fn, mat4, normalLocal, select, storage, uint, uniform, vec3, vec4 } from 'three/tsl';
import type { Character, Crowd, CrowdFeature, CrowdKernel, FeatureStage } from '../index';
import type { EncodedFrame } from '../runtime/feature';
import type { SkinningMethod } from '../runtime/layout';
import type { WebGpuBackend } from './backend';
import { ThreeAppearance } from './three-appearance';
import { RECORD_VEC4S, ThreeInstances, type CrowdLevelMesh } from './three-instance';
import { disposeCrowdMeshes, makeCrowdMeshes, type CrowdMeshes } from './three-meshes';
import { ThreeMorph } from './three-morph';
import { skinningOf, type Influences, type TslNode } from './three-skinning';

const PREFIX = 'crowd-skin/three';

/** The ThreeShading of each crowd that has one (ThreeCrowdRenderer.adoptCrowd moves it). */
const shadings = new WeakMap<Crowd, ThreeShading>();

/** The three side of `crowd` when it was made with shading 'three', else undefined. */
export function threeShadingOf(crowd: Crowd): ThreeShading | undefined {
  return shadings.get(crowd);
}

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
 * Mesh per (primitive, LOD level). A CrowdFeature of the crowd ('three-shading'), so its copies run inside
 * `crowd.encode`, after the pose pass. Owns the three objects and the three storage buffers.
 */
export class ThreeShading implements CrowdFeature {
  readonly featureName = 'three-shading';
  /** Add this to the scene: the crowd's meshes (identity transform; instances carry their own). */
  readonly object: Group;
  private readonly kernel: CrowdKernel;
  /** The meshes, geometries, materials and textures (three-meshes.ts); owned. */
  private readonly made: CrowdMeshes;
  /** One per (primitive, LOD level), primitive after primitive. */
  private readonly meshes: CrowdLevelMesh[];
  private readonly materials: NodeMaterial[];
  /** three's joints, records, draw lists, palette entries and indirect records (made by the constructor). */
  private readonly instances: ThreeInstances;
  private readonly eight: boolean;
  /** The skinning method the joint records and the position node are made for (the crowd's may change: passesCreated). */
  private skinning: SkinningMethod;
  // ---- features (three-appearance.ts, three-morph.ts): made while the crowd has them (refreshFeatures);
  // not named appearance / vertexWeights, which are CrowdFeature hooks ----
  private threeAppearance: ThreeAppearance | undefined;
  private threeMorph: ThreeMorph | undefined;
  /** The slot node of the current position node (the appearance's colour node reads the same). */
  private slot!: TslNode<'uint'>;
  /** The drawn mesh's primitive index (Mesh.userData.crowdPrimitive), per object: one material may draw every primitive. */
  private readonly primitive = uniform(0, 'uint').onObjectUpdate(({ object }) => (object?.userData.crowdPrimitive as number | undefined) ?? 0);

  constructor(private readonly crowd: Crowd, private backend: WebGpuBackend, options: ThreeShadingOptions = {}) {
    this.skinning = crowd.skinning;
    if (crowd.device !== backend.device) throw new Error(`${PREFIX}: shading 'three' needs the crowd on three's GPUDevice`);
    const character: Character = crowd.character;
    this.kernel = crowd.install(this);
    shadings.set(crowd, this);
    const made = makeCrowdMeshes(character, options);
    this.made = made;
    this.object = made.object;
    this.meshes = made.meshes;
    this.materials = made.materials;
    this.eight = made.eight;
    this.instances = new ThreeInstances(backend, this.kernel.store, made.levels, made.ranges);
    this.instances.fit();
    for (const geometry of made.geometries) this.instances.attach(geometry);
    this.refreshFeatures();
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
    if (this.instances.fit()) this.refit();
    this.instances.syncCount(store.count);
    // A colorNode you set since wraps again, under the tint.
    this.threeAppearance?.wrap(this.materials, this.slot, this.primitive);
    // The draws' instance counts come from the indirect records; three skips a mesh whose count is 0.
    for (let i = 0; i < this.meshes.length; i++) this.meshes[i].count = store.count;
  }

  /** After the pose pass: what three's draws read (ThreeInstances.encode), and the features' records, into three's buffers. */
  encode(encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    if (stage !== 'after-pose') return;
    this.instances.encode(encoder, frame);
    const store = this.kernel.store;
    const count = Math.min(store.count, store.capacity);
    if (count === 0) return;
    this.threeAppearance?.encode(encoder, count);
    const weights = this.kernel.draws.vertexWeights;
    if (this.threeMorph && weights) this.threeMorph.encode(encoder, weights, count);
  }

  /** The GPU buffers of three's storage attributes and the features' (gpuBytes of the crowd adds them). */
  get gpuBytes(): number {
    return this.instances.gpuBytes + (this.threeAppearance?.gpuBytes ?? 0) + (this.threeMorph?.gpuBytes ?? 0);
  }

  /**
   * The kernel re-made its passes: a feature was added (appearance, morph targets: they call
   * rebuildPasses) or the skinning method changed (the store's joint buffer was replaced, 48 or
   * 64 bytes a joint: MATRIX_VEC4S or DQ_VEC4S). Takes them up and rebuilds the nodes.
   */
  passesCreated(): void {
    if (!this.instances) return; // during construction
    const skinningChanged = this.crowd.skinning !== this.skinning;
    this.skinning = this.crowd.skinning;
    if (this.instances.fit(skinningChanged)) this.refit();
    this.refreshFeatures();
    this.setNodes();
  }

  destroy(): void {
    shadings.delete(this.crowd);
    this.threeAppearance?.destroy();
    this.threeMorph?.destroy();
    disposeCrowdMeshes(this.made);
    this.instances.release();
  }

  /**
   * Moves three's side of the crowd to another WebGPURenderer's backend (ThreeCrowdRenderer.adoptCrowd,
   * after a device loss): the meshes, geometries, materials and textures are three objects of no
   * renderer and stay; the storage buffers the crowd copies into are made anew on `backend`, now
   * when the crowd is on its device already, else in restore() (Crowd.restore onto it).
   */
  moveTo(backend: WebGpuBackend): void {
    this.backend = backend;
    this.instances.moveTo(backend);
    if (this.crowd.device === backend.device) this.rebuild();
  }

  /** Crowd.restore: the storage buffers on the new device, which must be the backend's moveTo named. */
  restore(device: GPUDevice): void {
    if (device !== this.backend.device) {
      throw new Error(`${PREFIX}: a crowd with shading 'three' copies into buffers of three's renderer, so it moves with one: ` +
        'adopt it with the new renderer\'s ThreeCrowdRenderer.adoptCrowd rather than Crowd.restore');
    }
    this.rebuild();
  }

  /** ThreeInstances made new buffers: the geometries point at its indirect records, the features' buffers grow with the store. */
  private refit(): void {
    for (const geometry of this.made.geometries) this.instances.attach(geometry);
    const capacity = Math.max(1, this.kernel.store.capacity);
    this.threeAppearance?.allocate(capacity);
    this.threeMorph?.allocate(capacity);
    this.setNodes();
  }

  /** The skinning nodes over the current buffers, on every material (rebuilt when they grow). */
  private setNodes(): void {
    const joints = storage(this.instances.joints, 'vec4', this.instances.joints.count).toReadOnly();
    const records = storage(this.instances.records, 'vec4', this.instances.records.count).toReadOnly();
    const slotCount = this.crowd.jointsPerInstance;
    const sets = this.eight ? 2 : 1;
    const skin = skinningOf(this.skinning);
    const { threeAppearance: appearance, threeMorph: morph, primitive } = this;
    // The instance slot drawn (read in the vertex stage) and the first joint record of its joint
    // set, from the one place that maps three's instanceIndex (ThreeInstances.drawnInstance: the
    // pass's draw list, then the palette's entry); every node below, the features' included, takes these two.
    const drawn = this.instances.drawnInstance();
    const slot = drawn.slot as unknown as TslNode<'uint'>;
    const jointBase = (drawn.jointSet as unknown as TslNode<'uint'>).mul(uint(slotCount));
    this.slot = slot;
    // shaders/skin.wgsl in TSL: morphed, skinned (three-skinning.ts) in model space, then the
    // instance's world matrix. The mesh's own matrix is the identity, so "local" is world here.
    const skinned = Fn(() => {
      const influences: Influences[] = [];
      for (let s = 0; s < sets; s++) influences.push({ joints: attribute(`crowdJoints${s}`, 'uvec4'), weights: attribute(`crowdWeights${s}`, 'vec4') });
      let vertex = { position: attribute('position', 'vec3') as TslNode<'vec3'>, normal: attribute('normal', 'vec3') as TslNode<'vec3'> };
      if (morph) vertex = morph.morphed(slot, primitive, vertex);
      const model = skin(joints, jointBase, influences, vertex);
      const r = slot.mul(uint(RECORD_VEC4S));
      const world = mat4(records.element(r), records.element(r.add(uint(1))), records.element(r.add(uint(2))), records.element(r.add(uint(3))));
      normalLocal.assign(world.mul(vec4(model.normal, 0)).xyz);
      const placed = world.mul(vec4(model.position, 1)).xyz;
      // A part the instance does not draw: every vertex at one point, zero-area triangles.
      return appearance ? select(appearance.shown(slot, primitive), placed, vec3(0)) : placed;
    });
    const positionNode = skinned();
    for (const material of this.materials) {
      material.positionNode = positionNode;
      material.needsUpdate = true;
    }
    appearance?.wrap(this.materials, slot, primitive, true);
  }

  /** Every three buffer made anew on the current backend (the old ones are the old renderer's), then the nodes over them. */
  private rebuild(): void {
    this.threeAppearance?.destroy();
    this.threeMorph?.destroy();
    this.threeAppearance = this.threeMorph = undefined;
    this.instances.fit(true);
    for (const geometry of this.made.geometries) this.instances.attach(geometry);
    this.refreshFeatures();
    this.setNodes();
  }

  /** Makes three's side of the features the crowd has now (found through the kernel's draws). */
  private refreshFeatures(): void {
    const capacity = Math.max(1, this.kernel.store.capacity);
    const source = this.kernel.draws.appearance;
    if (source && !this.threeAppearance) this.threeAppearance = new ThreeAppearance(source, this.backend, capacity);
    if (this.kernel.draws.vertexWeights && !this.threeMorph && this.crowd.character.baked.morph) this.threeMorph = new ThreeMorph(this.crowd.character, this.backend, capacity);
  }
}
