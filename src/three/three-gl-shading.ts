/**
 * Shading 'three' on three's WebGL 2 backend (no WebGPU, or `forceWebGL: true`): three draws a
 * GLCrowd as it draws a Crowd on WebGPU (three-shading.ts), the same meshes (three-meshes.ts) and
 * the same linear skinning (three-skinning.ts's linearSkinRows), with three's lights, shadow maps
 * and fog; TSL compiles the position node to GLSL. What differs is where the vertex stage reads:
 * WebGL 2 has no storage buffers, so it reads textures that the crowd's own GL passes keep on
 * three's context, wrapped as three `ExternalTexture`s (r187 binds a WebGLTexture it did not make:
 * WebGLTextureUtils.createTexture takes `sourceTexture` as it is), so nothing is copied:
 *
 *   joint matrices  GLPosePass's three RGBA32F row textures (GLCrowd.jointTarget), posed on the GPU
 *   world matrices  the instance records' RGBA32UI texture (GLCrowd.recordTexture), uploaded by the
 *                   store only where records changed
 *   draw lists      one R32UI texture of this class: the crowd's CPU cull (GLCull) lists the view
 *                   camera's slots per LOD level and the shadow light's casters; their used prefix
 *                   is uploaded once a frame (4 bytes an instance), with the identity list after it,
 *                   then each slot's joint-set entry: the slot itself, or while the crowd's palette
 *                   is active (CrowdOptions.paletteSize) GLPalette's entry of the frame (4 bytes a
 *                   live instance uploaded), as three-instance.ts's drawnInstance() maps it on WebGPU
 *   appearance      the appearance feature's record texture (three-gl-appearance.ts), when it has one
 *
 * The list a draw reads is chosen per draw by its camera, as on WebGPU (three-instance.ts): a
 * per-object uniform (`listBase`) is refreshed by three right before each draw, shadow passes
 * included, and sets the mesh's instance count (WebGL 2 has no indirect draws: three reads
 * `mesh.count` at the draw) and each level's index range (`geometry.drawRange`).
 *
 * After a lost context: the crowd and this are adopted by a ThreeCrowdRenderer on a new
 * WebGPURenderer on the same canvas (restore(): the list texture made anew; the crowd's own
 * textures by GLCrowd.restore). Not here: what GLCrowd refuses (dual quaternions, morph targets,
 * props). Allocates nothing per frame.
 */
import {
  ExternalTexture, FloatType, NearestFilter, RedIntegerFormat, RGBAFormat, RGBAIntegerFormat, UnsignedIntType,
  type Camera, type Group,
} from 'three/webgpu';
import { attribute, Fn, instanceIndex, ivec2, mat4, normalLocal, select, textureLoad, uint, uintBitsToFloat, uniform, vec3, vec4 } from 'three/tsl';
import { PALETTE_INDEX_MASK } from '../runtime/layout';
import type { GLCrowd } from '../webgl2/gl-crowd';
import { withTextureUpload } from '../webgl2/record-texture';
import { ThreeGLAppearance } from './three-gl-appearance';
import type { ThreeShadingOptions } from './three-shading';
import { RECORD_VEC4S, type CrowdLevelMesh } from './three-instance';
import { disposeCrowdMeshes, makeCrowdMeshes, type CrowdMeshes } from './three-meshes';
import { linearSkinRows, type Influences, type TslNode } from './three-skinning';

const PREFIX = 'crowd-skin/three';

/** Texels per row of the draw-list texture (one u32 a texel): 4 KiB a row. */
const LIST_WIDTH = 1024;

/**
 * The three.js side of a GLCrowd drawn by three on its WebGL 2 backend: `object` (add it to your
 * scene) holds a Mesh per (primitive, LOD level). Owns the meshes, the draw-list texture and the
 * ExternalTextures (not the crowd's textures they wrap).
 */
export class ThreeGLShading {
  /** Add this to the scene: the crowd's meshes (identity transform; instances carry their own). */
  readonly object: Group;
  private readonly made: CrowdMeshes;
  private readonly joints: [ExternalTexture, ExternalTexture, ExternalTexture];
  private readonly records: ExternalTexture;
  private readonly lists: ExternalTexture;
  /** The draw-list texture (R32UI, LIST_WIDTH wide) and its CPU copy; re-made when the crowd outgrows it. */
  private listTexture: WebGLTexture | null = null;
  private words = new Uint32Array(0);
  /** Slots the list regions hold: view + casters in [0, 2 capacity), the identity list at 2 capacity, the joint-set entries at 3 capacity. */
  private capacity = 0;
  /** Where the joint-set entries start in the list texture (3 capacity). */
  private readonly entriesBase = uniform(0, 'uint');
  /** three's side of the crowd's appearance, made when a feature provides one (CrowdAppearance). */
  private appearance: ThreeGLAppearance | undefined;
  /** The slot node of the position node (the appearance's colour node reads the same). */
  private slot!: TslNode<'uint'>;
  /** The drawn mesh's primitive index (Mesh.userData.crowdPrimitive), per object: one material may draw every primitive. */
  private readonly primitive = uniform(0, 'uint').onObjectUpdate(({ object }) => (object?.userData.crowdPrimitive as number | undefined) ?? 0);
  /** Where this frame's caster lists start in the list texture (after the view lists). */
  private casterBase = 0;
  private viewCamera: Camera | undefined;
  private casterCamera: Camera | undefined;
  /** Texels per row of the record texture, and joint records per row of the joint textures (slotsPerRow x joints). */
  private readonly recordWidth = uniform(1, 'uint');
  private readonly jointsPerRow = uniform(1, 'uint');
  /** Per object and draw: the first list entry the draw reads (choose() sets the draw's instance count too). */
  private readonly listBase = uniform(0, 'uint').onObjectUpdate(({ object, camera }) => this.choose(object as CrowdLevelMesh, camera!));

  /**
   * @param crowd the crowd (on three's WebGL 2 context; not owned: ThreeCrowdRenderer owns it)
   * @param gl three's context (renderer.backend.gl)
   */
  constructor(private readonly crowd: GLCrowd, private readonly gl: WebGL2RenderingContext, options: ThreeShadingOptions = {}) {
    if (crowd.gl !== gl) throw new Error(`${PREFIX}: shading 'three' on WebGL 2 needs the crowd on three's WebGL 2 context`);
    this.made = makeCrowdMeshes(crowd.character, options);
    this.object = this.made.object;
    const external = (name: string, type: typeof FloatType | typeof UnsignedIntType, format: typeof RGBAFormat | typeof RGBAIntegerFormat | typeof RedIntegerFormat) => {
      const texture = new ExternalTexture(null);
      texture.name = name;
      texture.type = type;
      texture.format = format;
      texture.minFilter = texture.magFilter = NearestFilter;
      texture.generateMipmaps = false;
      texture.flipY = false;
      return texture;
    };
    this.joints = [0, 1, 2].map((r) => external(`crowd joint row ${r}`, FloatType, RGBAFormat)) as [ExternalTexture, ExternalTexture, ExternalTexture];
    this.records = external('crowd instance records', UnsignedIntType, RGBAIntegerFormat);
    this.lists = external('crowd draw lists', UnsignedIntType, RedIntegerFormat);
    this.setNodes();
    this.sync();
  }

  /** Whether any of the crowd's meshes casts shadows now (`castShadow`, which apps may change). */
  get castsShadow(): boolean {
    for (const mesh of this.made.meshes) if (mesh.castShadow) return true;
    return false;
  }

  /** The cameras of the coming frame: the one the crowd culls for, and the light camera it lists casters for (or undefined). */
  setCameras(view: Camera | undefined, caster: Camera | undefined): void {
    this.viewCamera = view;
    this.casterCamera = caster;
  }

  /** Before the crowd's encode: takes up an appearance the crowd gained (the nodes rebuilt once), grows the draw-list texture with the crowd. */
  sync(): void {
    const source = this.crowd.appearanceSource;
    if (source && !this.appearance) {
      this.appearance = new ThreeGLAppearance(source);
      this.setNodes();
    }
    // A colorNode you set since wraps again, under the tint.
    this.appearance?.wrap(this.made.materials, this.slot, this.primitive as unknown as TslNode<'uint'>);
    const count = this.crowd.count;
    if (count > this.capacity || this.listTexture === null) this.allocate(Math.max(count, this.capacity * 2, 64));
  }

  /**
   * After the crowd's encode() (culled, posed): this frame's lists into the list texture (the used
   * prefix, one upload), and the crowd's textures as three binds them (a grown joint target or
   * record texture is a new WebGLTexture: its ExternalTexture is pointed at it).
   */
  afterEncode(): void {
    const { lists, culled } = this.crowd.frameLists;
    const words = this.words;
    let used = 0;
    if (culled) {
      // Copied in loops: a subarray would allocate a view a frame.
      const slots = lists.slots, visible = lists.visible, casters = lists.casters;
      for (let i = 0; i < visible; i++) words[i] = slots[i];
      let total = 0;
      for (let l = 0; l < casters.levels; l++) total += casters.counts[l];
      for (let i = 0; i < total; i++) words[visible + i] = casters.slots[i];
      this.casterBase = visible;
      used = visible + total;
    }
    this.upload(0, used);
    // With the palette active, each live slot's entry (the twin's of this frame) after the identity list.
    const entries = this.crowd.jointEntries;
    if (entries) {
      const base = 3 * this.capacity, count = Math.min(this.crowd.count, entries.length);
      for (let s = 0; s < count; s++) words[base + s] = entries[s];
      this.upload(base, count);
    }
    this.appearance?.refresh();
    const target = this.crowd.jointTarget;
    for (let r = 0; r < 3; r++) point(this.joints[r], target.rows[r]);
    this.jointsPerRow.value = target.slotsPerRow * target.jointCount;
    const records = this.crowd.recordTexture;
    point(this.records, records.texture);
    this.recordWidth.value = records.width;
  }

  /**
   * After the crowd's context was lost and restored (GLCrowd.restore made its textures anew): the
   * list texture made anew on it; the ExternalTextures follow the crowd's new textures at the next
   * afterEncode. The three objects (meshes, materials) are kept: a new renderer makes its own.
   */
  restore(): void {
    this.listTexture = null; // the lost context's: not deleted (it belongs to no context now)
    this.allocate(Math.max(this.capacity, 64));
  }

  /** Frees the meshes (and the materials and textures made for them), the list texture and the ExternalTextures. */
  destroy(): void {
    this.appearance?.destroy();
    disposeCrowdMeshes(this.made);
    for (const texture of [...this.joints, this.records, this.lists]) texture.dispose();
    this.gl.deleteTexture(this.listTexture);
    this.listTexture = null;
  }

  /** Uploads list entries [first, first + count) (the rows that hold them) from `words`. */
  private upload(first: number, count: number): void {
    if (count <= 0) return;
    const gl = this.gl, row = Math.floor(first / LIST_WIDTH), rows = Math.ceil((first + count) / LIST_WIDTH) - row;
    withTextureUpload(gl, this.listTexture!, () => gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, row, LIST_WIDTH, rows, gl.RED_INTEGER, gl.UNSIGNED_INT, this.words, row * LIST_WIDTH));
  }

  /** A list texture of 2 x `capacity` list entries, the identity list of `capacity` and `capacity` joint-set entries (the identity: uploaded now). */
  private allocate(capacity: number): void {
    const gl = this.gl;
    const rows = Math.ceil((4 * capacity) / LIST_WIDTH);
    const words = new Uint32Array(rows * LIST_WIDTH);
    for (let s = 0; s < capacity; s++) words[2 * capacity + s] = words[3 * capacity + s] = s;
    const texture = gl.createTexture();
    if (!texture) throw new Error(`${PREFIX}: the WebGL 2 context could not create the crowd's draw-list texture (context lost?)`);
    withTextureUpload(gl, texture, () => {
      gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32UI, LIST_WIDTH, rows);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, LIST_WIDTH, rows, gl.RED_INTEGER, gl.UNSIGNED_INT, words, 0);
    });
    gl.deleteTexture(this.listTexture);
    this.listTexture = texture;
    this.words = words;
    this.capacity = capacity;
    this.entriesBase.value = 3 * capacity;
    point(this.lists, texture);
  }

  /**
   * What `mesh` draws in the pass of `camera`: the view camera's list at the mesh's level, the
   * caster light's, or (any other camera, or no culled frame) every instance at level 0. Sets the
   * mesh's instance count and its level's index range; returns the list's first entry.
   */
  private choose(mesh: CrowdLevelMesh, camera: Camera): number {
    const { lists, culled } = this.crowd.frameLists;
    const range = this.made.ranges[mesh.primitive][mesh.level];
    mesh.geometry.setDrawRange(range[1], range[0]);
    if (culled && camera === this.viewCamera) {
      mesh.count = lists.counts[mesh.level];
      return lists.offsets[mesh.level];
    }
    if (culled && camera !== undefined && camera === this.casterCamera) {
      mesh.count = lists.casters.counts[mesh.level];
      return this.casterBase + lists.casters.offsets[mesh.level];
    }
    mesh.count = mesh.level === 0 ? this.crowd.count : 0;
    return 2 * this.capacity;
  }

  /** The skinning position node (linearSkinRows over the joint textures) on every material, and the appearance's colour nodes. */
  private setNodes(): void {
    const appearance = this.appearance, primitive = this.primitive as unknown as TslNode<'uint'>;
    const listWidth = uint(LIST_WIDTH) as unknown as TslNode<'uint'>;
    const J = this.crowd.jointsPerInstance;
    const sets = this.made.eight ? 2 : 1;
    const fetch = (texture: ExternalTexture, index: TslNode<'uint'>, width: TslNode<'uint'>) =>
      textureLoad(texture, ivec2(index.mod(width).toInt(), index.div(width).toInt()));
    // The drawn slot: the list entry listBase + instanceIndex (the draw's camera chose the list); its
    // joint set: the slot's entry (the palette's, or the slot itself), as drawnInstance() on WebGPU.
    // Every node below, the appearance's included, starts from these two.
    const entry = this.listBase.add(instanceIndex) as unknown as TslNode<'uint'>;
    const slot = fetch(this.lists, entry, listWidth).x as unknown as TslNode<'uint'>;
    const entryOfSlot = (this.entriesBase as unknown as TslNode<'uint'>).add(slot);
    const jointSet = (fetch(this.lists, entryOfSlot, listWidth).x as unknown as TslNode<'uint'>).bitAnd(uint(PALETTE_INDEX_MASK));
    this.slot = slot;
    const skinned = Fn(() => {
      // Joint record g = set x J + joint is texel (g % (P J), g / (P J)) of each row texture (GLJointTarget's layout).
      const rowOf = (joint: TslNode<'uint'>, row: 0 | 1 | 2) => fetch(this.joints[row], joint, this.jointsPerRow as unknown as TslNode<'uint'>) as unknown as TslNode<'vec4'>;
      const influences: Influences[] = [];
      for (let s = 0; s < sets; s++) influences.push({ joints: attribute(`crowdJoints${s}`, 'uvec4'), weights: attribute(`crowdWeights${s}`, 'vec4') });
      const vertex = { position: attribute('position', 'vec3') as TslNode<'vec3'>, normal: attribute('normal', 'vec3') as TslNode<'vec3'> };
      const model = linearSkinRows(rowOf, jointSet.mul(uint(J)), influences, vertex);
      // The world matrix: the record's first four texels (RECORD_VEC4S a slot), f32 bits in u32 words.
      const r = slot.mul(uint(RECORD_VEC4S));
      const column = (k: number) => uintBitsToFloat(fetch(this.records, r.add(uint(k)), this.recordWidth as unknown as TslNode<'uint'>)) as unknown as TslNode<'vec4'>;
      const world = mat4(column(0), column(1), column(2), column(3));
      normalLocal.assign(world.mul(vec4(model.normal, 0)).xyz);
      const placed = world.mul(vec4(model.position, 1)).xyz;
      // A part the instance does not draw: every vertex at one point, zero-area triangles (three's shadow pass too).
      return appearance ? select(appearance.shown(slot, primitive), placed, vec3(0)) : placed;
    });
    const positionNode = skinned();
    for (const material of this.made.materials) {
      material.positionNode = positionNode;
      material.needsUpdate = true;
    }
    appearance?.wrap(this.made.materials, this.slot, primitive, true);
  }
}

/** Points `external` at `texture` (three makes its binding anew when the WebGLTexture changed). */
function point(external: ExternalTexture, texture: WebGLTexture | null): void {
  if (external.sourceTexture === texture) return;
  external.sourceTexture = texture;
  external.needsUpdate = true;
}
