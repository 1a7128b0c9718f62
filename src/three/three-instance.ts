/**
 * Which instance three is drawing, under `shading: 'three'`: the crowd's cull pass lists the
 * slots to draw per (list, LOD level) and writes one drawIndexedIndirect record per (list,
 * level, primitive); three draws each (primitive, level) Mesh with one of those records
 * (`geometry.indirect` / `indirectOffset`), and the vertex stage maps the drawn instance to its
 * slot and the slot to its joint set in ONE place, `drawnInstance()` below:
 *
 *   instanceIndex  --(+ listBase, the drawn list's first entry)-->  lists[]  = slot
 *   slot           --(entries[], the palette's entry, or the slot itself)-->  joint set
 *
 * The list is chosen per draw, by the draw's camera: three refreshes a per-object uniform for
 * every draw of a Mesh, the shadow passes' (light cameras) included, just before it, and reads
 * `geometry.indirectOffset` at draw time. So the view camera draws the cull pass's camera lists (list 0), the light
 * camera the crowd culled casters for draws the caster lists (list 1: every instance inside
 * the light's frustum, in view or not), and any other camera (another shadow-casting light, a
 * second view) draws every instance at level 0 (the identity list). `listBase` is that uniform
 * (`onObjectUpdate`): its update makes the choice.
 *
 * three r187 binds only GPUBuffers it made, so the crowd's buffers are copied into three-owned
 * ones after the pose pass, in the crowd's own command encoder (see `encode`).
 */
import { BufferGeometry, IndirectStorageBufferAttribute, Mesh, StorageBufferAttribute, type Camera, type Material } from 'three/webgpu';
import { instanceIndex, storage, uint, uniform } from 'three/tsl';
import type { EncodedFrame } from '../runtime/feature';
import type { InstanceStore } from '../runtime/instance-store';
import { PALETTE_INDEX_MASK } from '../runtime/layout';
import type { WebGpuBackend } from './backend';

/** vec4f per instance record (INSTANCE.size 112 bytes); the world matrix is its first 4. */
export const RECORD_VEC4S = 7;
/** u32 words per drawIndexedIndirect record (indexCount, instanceCount, firstIndex, baseVertex, firstInstance). */
const RECORD_WORDS = 5;
const RECORD_BYTES = RECORD_WORDS * 4;

/** The lists a pass can draw: the view camera's, the caster light's, or every instance. */
const VIEW = 0, CASTERS = 1, EVERY = 2;

/** One (primitive, LOD level) of a crowd drawn by three: a Mesh with its own indirect record. */
export class CrowdLevelMesh extends Mesh<BufferGeometry, Material> {
  constructor(geometry: BufferGeometry, material: Material, readonly primitive: number, readonly level: number) {
    super(geometry, material);
  }
}

/** The slot (instance record, morph weights, appearance) and joint set (joint rows) of the vertex being drawn, as TSL uint nodes. */
export interface DrawnInstance {
  // TSL's node types are not exported in a form this needs: both are uint nodes.
  readonly slot: ReturnType<typeof uint>;
  readonly jointSet: ReturnType<typeof uint>;
}

/**
 * The three-owned buffers three's draws of one crowd read (joints, instance records, draw lists,
 * joint-set entries, indirect records), made for the store's current buffers and re-made when
 * they are replaced (growth: the caller then rebuilds its nodes). Owns three's attributes.
 */
export class ThreeInstances {
  joints!: StorageBufferAttribute;
  records!: StorageBufferAttribute;
  private lists!: StorageBufferAttribute;
  private entries!: StorageBufferAttribute;
  private indirect!: IndirectStorageBufferAttribute;
  private gpu!: { joints: GPUBuffer; records: GPUBuffer; lists: GPUBuffer; entries: GPUBuffer; indirect: GPUBuffer };
  /** The store generation the buffers were made for (-1: none). */
  private generation = -1;
  private stride = 0;
  private palette = false;
  /** Instance count written into the every-instance records (-1: not yet). */
  private everyCount = -1;
  /** The every-instance records (one per primitive, contiguous in `indirect`), kept to write their instance count in one writeBuffer. */
  private everyRecords = new Uint32Array(0);
  /** Whether the last encoded frame ran the cull pass (its lists are in `lists`). */
  private culled = false;
  /** The camera the cull pass culled for, and the light camera it listed casters for (ThreeCrowdRenderer sets them each frame). */
  private viewCamera: Camera | undefined;
  private casterCamera: Camera | undefined;
  /**
   * Per-object uniform: the drawn list's first entry. three refreshes it for each draw right
   * before the draw (after any shadow pass that draw triggers: three renders shadow maps from
   * inside the view pass, between an object's onBeforeRender and its draw), so the pass's choice
   * of list is made here, with the draw's own camera.
   */
  private readonly listBase = uniform(0, 'uint').onObjectUpdate(({ object, camera }) => this.choose(object as CrowdLevelMesh, camera!));

  /**
   * @param levels mesh LOD levels, @param ranges per primitive and level (indexCount, firstIndex)
   * in its index buffer, the crowd's MeshBuffers layout.
   */
  constructor(private backend: WebGpuBackend, private readonly store: InstanceStore, readonly levels: number, private readonly ranges: [number, number][][]) {}

  get primitives(): number {
    return this.ranges.length;
  }

  /**
   * (Re-)makes the buffers when the store's were replaced (growth, a new skinning method, a new
   * device), or now with `force`; true when it did (attach the geometries again, rebuild the nodes).
   */
  fit(force = false): boolean {
    const store = this.store;
    if (!force && store.generation === this.generation) return false;
    this.release();
    const stride = store.listStride;
    const L = this.levels, P = this.primitives;
    const identity = new Uint32Array(stride);
    for (let i = 0; i < stride; i++) identity[i] = i;
    // The store's joint buffer: its record is the skinning method's (48 or 64 bytes a joint,
    // MATRIX_VEC4S or DQ_VEC4S), and it holds every instance's set, or the palette's sets.
    this.joints = new StorageBufferAttribute(store.jointBuffer.size / 16, 4);
    this.records = new StorageBufferAttribute(store.capacity * RECORD_VEC4S, 4);
    const lists = new Uint32Array((2 * L + 1) * stride);
    lists.set(identity, 2 * L * stride);
    this.lists = new StorageBufferAttribute(lists, 1);
    this.entries = new StorageBufferAttribute(identity, 1);
    // Records: the cull pass's (list 0, 1) x level x primitive, copied each culled frame; one per
    // primitive over every instance at level 0 (instance count written by syncCount); one empty.
    const words = new Uint32Array((2 * L * P + P + 1) * RECORD_WORDS);
    for (let p = 0; p < P; p++) {
      const o = (2 * L * P + p) * RECORD_WORDS;
      words[o] = this.ranges[p][0][0];
      words[o + 2] = this.ranges[p][0][1];
    }
    this.indirect = new IndirectStorageBufferAttribute(words, 1);
    this.everyRecords = words.slice(2 * L * P * RECORD_WORDS, (2 * L * P + P) * RECORD_WORDS);
    const b = this.backend;
    this.gpu = {
      joints: b.storageBuffer(this.joints, 'crowd joints'), records: b.storageBuffer(this.records, 'crowd instance records'),
      lists: b.storageBuffer(this.lists, 'crowd draw lists'), entries: b.storageBuffer(this.entries, 'crowd joint-set entries'),
      indirect: b.indirectBuffer(this.indirect, 'crowd indirect draws'),
    };
    this.stride = stride;
    this.palette = store.palette.active;
    this.generation = store.generation;
    this.everyCount = -1;
    this.culled = false;
    return true;
  }

  /** Points `geometry` (primitive, level) at the indirect records. */
  attach(geometry: BufferGeometry): void {
    geometry.setIndirect(this.indirect, 0);
  }

  /** The cameras of the coming frame: the one culled for, and the light camera casters were listed for (or undefined). */
  setCameras(view: Camera | undefined, caster: Camera | undefined): void {
    this.viewCamera = view;
    this.casterCamera = caster;
  }

  /** Writes the instance count into the every-instance records when it changed (one writeBuffer of P records). */
  syncCount(count: number): void {
    if (count === this.everyCount) return;
    const records = this.everyRecords;
    for (let p = 0; p < this.primitives; p++) records[p * RECORD_WORDS + 1] = count;
    this.backend.device.queue.writeBuffer(this.gpu.indirect, 2 * this.levels * this.primitives * RECORD_BYTES, records);
    this.everyCount = count;
  }

  /**
   * After the pose pass: the joints the draws read (count instances' sets, or the whole palette),
   * the instance records, and after a culled frame the draw lists, the cull pass's records and the
   * palette's entries, into three's buffers.
   */
  encode(encoder: GPUCommandEncoder, frame: EncodedFrame): void {
    const store = this.store;
    const count = Math.min(store.count, store.capacity);
    const gpu = this.gpu;
    if (count > 0) {
      const jointBytes = Math.min(this.palette ? store.jointBuffer.size : store.jointBytes(count), gpu.joints.size);
      encoder.copyBufferToBuffer(store.jointBuffer, 0, gpu.joints, 0, jointBytes);
      encoder.copyBufferToBuffer(store.instanceBuffer, 0, gpu.records, 0, count * RECORD_VEC4S * 16);
      const entries = store.palette.entryBuffer;
      if (this.palette && entries) encoder.copyBufferToBuffer(entries, 0, gpu.entries, 0, count * 4);
    }
    const draws = frame.drawArgs;
    this.culled = draws !== undefined;
    if (draws) {
      encoder.copyBufferToBuffer(store.drawListBuffer, 0, gpu.lists, 0, 2 * this.levels * this.stride * 4);
      encoder.copyBufferToBuffer(draws.args, draws.argsOffset(0, 0, 0), gpu.indirect, 0, 2 * this.levels * this.primitives * RECORD_BYTES);
    }
  }

  /**
   * Picks what `mesh` draws in the pass of `camera`: the view camera's list at its level, the
   * caster light's, or every instance (level 0 only; other levels draw nothing). Sets the
   * geometry's indirectOffset (three reads it at the draw) and returns the list's first entry.
   */
  private choose(mesh: CrowdLevelMesh, camera: Camera): number {
    const list = !this.culled ? EVERY : camera === this.viewCamera ? VIEW : camera === this.casterCamera ? CASTERS : EVERY;
    const L = this.levels, P = this.primitives;
    const geometry = mesh.geometry;
    if (list === EVERY) {
      geometry.indirectOffset = (mesh.level === 0 ? 2 * L * P + mesh.primitive : 2 * L * P + P) * RECORD_BYTES;
      return 2 * L * this.stride;
    }
    geometry.indirectOffset = ((list * L + mesh.level) * P + mesh.primitive) * RECORD_BYTES;
    return (list * L + mesh.level) * this.stride;
  }

  /**
   * The drawn instance's slot and joint set: THE mapping of a drawn vertex to its instance under
   * shading 'three' (every node reading per-instance data starts from it). Nodes over the current
   * buffers: call again after fit() made new ones.
   */
  drawnInstance(): DrawnInstance {
    const lists = storage(this.lists, 'uint', this.lists.count).toReadOnly();
    const entries = storage(this.entries, 'uint', this.entries.count).toReadOnly();
    const slot = lists.element(this.listBase.add(instanceIndex));
    const jointSet = entries.element(slot).bitAnd(uint(PALETTE_INDEX_MASK));
    return { slot: slot as unknown as DrawnInstance['slot'], jointSet: jointSet as unknown as DrawnInstance['jointSet'] };
  }

  /** Bytes of three's GPU buffers this holds. */
  get gpuBytes(): number {
    const g = this.gpu;
    return g ? g.joints.size + g.records.size + g.lists.size + g.entries.size + g.indirect.size : 0;
  }

  /**
   * Moves to another renderer's backend (ThreeCrowdRenderer.adoptCrowd): the attributes are
   * disposed (the old renderer frees its buffers on their 'dispose' event, if it still lives; the
   * old backend is not asked), and the next fit() makes them on `backend`, once the store is on its device.
   */
  moveTo(backend: WebGpuBackend): void {
    this.backend = backend;
    this.release();
  }

  /** Frees three's buffers (and three's data of the attributes). */
  release(): void {
    if (this.generation < 0) return;
    for (const attribute of [this.joints, this.records, this.lists, this.entries, this.indirect]) this.backend.destroyAttribute(attribute);
    this.generation = -1;
  }
}
