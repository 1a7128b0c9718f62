// Over 400 lines: growth, slot moves, the plain/layered split and every buffer the passes bind change together and must be refused together (a refused growth leaves the store exactly as it was).
import { InstanceRecords } from './instance-records';
import { LayerStackRecords, MaskTable } from './layer-records';
import { INSTANCE, JOINT_MATRIX_BYTES, LAYER_STACK, LAYERS_NONE, MAX_LOD_LEVELS } from './layout';
import { checkStorageBinding, checkStorageBindings, growthCount, largestFit, type BufferItems } from './limits';
import { show } from '../math/show';
import { SlotStamps } from './slot-stamps';
import { GENERATION_LIMIT, HANDLE_SPAN, generationOfId, handleOfId, instanceId } from './instance-ids';
import { JointPalette } from './joint-palette';
import { BUFFER_USAGE, type RecordBufferLike, type RecordDevice, type RecordQueue } from './record-device';

/**
 * Everything one crowd keeps per instance on the GPU, and its bookkeeping: the CPU mirrors of
 * the records, layer stacks and masks, their GPU buffers and the joint-matrix buffer, growth,
 * and the id -> handle <-> slot maps. Passes read from it (PosePass.bind / update, SkinPass.bind);
 * the Crowd facade resolves names and validates, then calls it.
 *
 *   id (InstanceId) --handle()--> handle --slotOf--> slot --handleOf--> handle --idOf()--> id
 *
 *   ids         handle + generation x HANDLE_SPAN (src/runtime/instance-ids.ts): handle(id) takes an
 *               id from outside to its handle, refusing one whose generation is not its handle's
 *               now (a removed instance); every other method here takes handles
 *   generations u32 per handle: its live instance's generation, or the next one's while free;
 *               bumped by remove and clear; GENERATION_LIMIT once the handle is retired
 *
 *   slots     | plain ........................ | layered ......... | free ...... |
 *             0                          plainCount              count      capacity
 *   instances   one INSTANCE record per slot: the pose pass runs [0, plainCount) in a pipeline
 *               without the stack code, then [plainCount, count) with it
 *   stacks      one LAYER_STACK record per layered instance, dense in [0, layeredCount):
 *               record.layers = stack index, stackOwner[stack] = slot (stacks never move with
 *               their instance's slot; a freed stack is filled by the last one)
 *   masks       nodeCount f32 per mask, append-only
 *   joints      joint sets of slotCount joint records (bytesPerJoint each: 48 matrix rows, 64
 *               for dual-quaternion records), written by the pose pass: one per slot while the
 *               capacity is within the palette budget, else the budget's and the shared poses
 *               (JointPalette, src/runtime/joint-palette.ts)
 *   jointEntries the joint set of every slot: the identity list (one set per slot), or the
 *               palette's entries (the palette pass hands sets to drawn slots)
 *   handleSlots the slot of every handle (u32), for passes that work per handle (control)
 *   stamps      u32 per slot, renewed whenever an instance is put into the slot (CPU-written)
 *   poseState   (stamp, frame) of the pose the joint buffer holds per slot (cull pass, GPU only)
 *   identity    u32 per slot holding its own index: the instance list of an unculled frame
 *   poseList    the slots to pose this frame: plain ones from 0, layered ones from listStride,
 *               then the two lists' lengths (words 2 listStride, 2 listStride + 1)
 *   drawLists   the slots to draw: 2 x lodLevels lists (camera, then shadow map) of listStride
 *               entries each (the cull pass writes them, SkinPass and ShadowPass read them)
 *   extras      per-slot data of features (SlotData, attach(): MorphStore's morph weights),
 *               moved, grown, uploaded and restored with the records
 *
 * Growth checks every limit first, then allocates, then swaps: a refused growth throws a
 * RangeError naming the limit and leaves the store exactly as it was. `generation` counts buffer
 * replacements so that passes rebind only when it changes. Nothing here allocates per frame.
 *
 * The device is a RecordDevice (src/runtime/record-device.ts), of which GPUDevice is one: on
 * WebGPU the buffers (B) are GPUBuffers, on WebGL 2 they are record textures
 * (src/webgl2/gl-record-device.ts), and everything above them is this one copy.
 */
export interface InstanceStoreOptions {
  /** Rig nodes per instance (mask width). */
  nodeCount: number;
  /** Joint matrices per instance. */
  slotCount: number;
  /** Seconds per clip (validation and time wrapping). */
  clipDurations: ArrayLike<number>;
  /** Instances to allocate for up front (>= 1). */
  capacity: number;
  /** Prefix of the GPU objects' labels (default 'Crowd'). */
  label?: string;
  /** Mesh LOD levels the draw lists are made for, 1..MAX_LOD_LEVELS (default 1). */
  lodLevels?: number;
  /** Bytes per joint record of the joint buffer (JOINT_BYTES of the skinning method; default JOINT_MATRIX_BYTES). */
  bytesPerJoint?: number;
  /** @internal Generations a handle lives through before it is retired (default GENERATION_LIMIT): tests lower it to reach retirement. */
  generationLimit?: number;
  /** Joint sets for drawn instances once the capacity passes it (CrowdOptions.paletteSize; default DEFAULT_PALETTE_SIZE). */
  paletteSize?: number;
}

/**
 * Per-slot data that a feature keeps beside the store's records (MorphStore: morph weight
 * overrides), attached with InstanceStore.attach: the store moves, resets, grows, uploads,
 * restores and destroys it with its own records, so its slots stay those of the instances.
 */
export interface SlotData<B extends RecordBufferLike = GPUBuffer> {
  /** Throws a RangeError naming the limit when `capacity` slots would not fit the device (called before anything is allocated). */
  checkCapacity(capacity: number): void;
  /** Re-allocates for `capacity` slots (after checkCapacity passed), keeping slots [0, count). */
  grow(capacity: number, count: number): void;
  /** Copies slot `from` over slot `to`. */
  move(from: number, to: number): void;
  /** Exchanges slots `a` and `b`. */
  swap(a: number, b: number): void;
  /** Clears `slot` for a new instance. */
  reset(slot: number): void;
  /** Sends what changed since the last call to the GPU; returns the bytes sent. */
  upload(queue: RecordQueue<B>): number;
  /** Re-creates the GPU buffers on `device`; slots [0, count) are sent again by the next upload. */
  restore(device: RecordDevice<B>, count: number): void;
  /** Frees the GPU buffers. */
  destroy(): void;
  /** Bytes of its GPU buffers (Crowd.gpuBytes). */
  gpuBytes?(): number;
}

/** The per-slot buffers of the cull pass and its readers, replaced together on growth. */
interface ListBuffers<B> {
  stamps: B;
  poseState: B;
  identity: B;
  poseList: B;
  drawLists: B;
}

/** Records are written by the CPU (COPY_DST) and the control pass (STORAGE), and read back by tools and tests (COPY_SRC). */
const RECORD_USAGE = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST | BUFFER_USAGE.COPY_SRC;

/** Layer-stack records allocated before the first growth. */
const INITIAL_STACK_CAPACITY = 16;

export class InstanceStore<B extends RecordBufferLike = GPUBuffer> {
  readonly records: InstanceRecords;
  readonly stacks: LayerStackRecords;
  readonly masks: MaskTable;
  readonly stamps: SlotStamps;
  /** Mesh LOD levels of the draw lists. */
  readonly lodLevels: number;
  /** Incremented whenever a GPU buffer is replaced (growth): passes rebind when it changes. */
  generation = 0;
  private instances!: B;
  private stackBuffer!: B;
  private maskBuffer: B;
  private joints!: B;
  private lists!: ListBuffers<B>;
  private readonly label: string;
  private readonly slotCount: number;
  /** Bytes per joint record (setBytesPerJoint changes it). */
  private jointRecordBytes: number;
  private slotOf = new Int32Array(0);
  /** slotOf on the GPU (u32, 0xffffffff for a free handle), for passes indexed by handle. */
  private handleSlots: B;
  private slotsDirtyStart = Infinity;
  private slotsDirtyEnd = 0;
  private handleOf: Int32Array;
  /** Slot of the instance that owns each stack record. */
  private stackOwner: Int32Array;
  private readonly freeHandles: number[] = [];
  /** Per handle: the generation of its instance (live) or of the next one (free); generationLimit once retired. */
  private generations = new Uint32Array(0);
  /** Per handle, the reasons (MESH_ONLY_PROP, MESH_ONLY_MORPH bits) its instance may not be drawn as an impostor (setMeshOnly); the slot's stamp carries whether any is set. */
  private meshOnly = new Uint8Array(0);
  private readonly generationLimit: number;
  /** Handles retired for good (their generation reached generationLimit). */
  private retired = 0;
  /** The most instances every per-instance buffer can hold on this device (computed at the first growth). */
  private maxCapacity: number | undefined;
  private liveCount = 0;
  private layered = 0;
  /** Attached per-slot data (see SlotData). */
  private readonly extras: SlotData<B>[] = [];
  /** How many joint sets the joint buffer holds, and the palette's buffers. */
  readonly palette: JointPalette<B>;

  constructor(private device: RecordDevice<B>, options: InstanceStoreOptions) {
    const { capacity, nodeCount, slotCount, clipDurations } = options;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.label = options.label ?? 'Crowd';
    this.slotCount = slotCount;
    this.jointRecordBytes = checkJointBytes(options.bytesPerJoint ?? JOINT_MATRIX_BYTES);
    this.lodLevels = options.lodLevels ?? 1;
    this.generationLimit = options.generationLimit ?? GENERATION_LIMIT;
    if (!Number.isInteger(this.generationLimit) || this.generationLimit < 1 || this.generationLimit > GENERATION_LIMIT) {
      throw new RangeError(`generationLimit must be an integer in [1, ${GENERATION_LIMIT}], got ${options.generationLimit}`);
    }
    this.palette = new JointPalette(device, slotCount * this.jointRecordBytes, clipDurations.length, options.paletteSize);
    if (!Number.isInteger(this.lodLevels) || this.lodLevels < 1 || this.lodLevels > MAX_LOD_LEVELS) {
      throw new RangeError(`lodLevels must be an integer in [1, ${MAX_LOD_LEVELS}], got ${options.lodLevels}`);
    }
    const stackCapacity = Math.min(capacity, INITIAL_STACK_CAPACITY);
    this.checkInstanceLimits(capacity);
    this.checkStackLimits(stackCapacity);
    this.records = new InstanceRecords(capacity, clipDurations);
    this.stamps = new SlotStamps(capacity);
    this.masks = new MaskTable(nodeCount, (needed, current) =>
      growthCount(device, `${this.label}.masks`, needed, current, { noun: 'masks', bytes: Math.max(1, nodeCount) * 4 }));
    this.stacks = new LayerStackRecords(stackCapacity, clipDurations, () => this.masks.count);
    this.handleOf = new Int32Array(capacity);
    this.stackOwner = new Int32Array(stackCapacity);
    this.maskBuffer = this.createMaskBuffer();
    [this.instances, this.joints, this.lists] = this.createInstanceBuffers(capacity);
    this.stackBuffer = this.createStackBuffer(stackCapacity);
    this.handleSlots = this.createHandleSlotBuffer();
  }

  /** Live instances. */
  get count(): number {
    return this.liveCount;
  }

  /**
   * Keeps `data` slot by slot with the records from now on (it must hold `capacity` slots
   * already); the store owns it from here (destroy, restore). Passes rebind (generation changes).
   */
  attach(data: SlotData<B>): void {
    data.checkCapacity(this.capacity);
    data.grow(this.capacity, this.liveCount);
    this.extras.push(data);
    this.generation++;
  }

  /** Instances without a layer stack: slots [0, plainCount). */
  get plainCount(): number {
    return this.liveCount - this.layered;
  }

  /** Instances with a layer stack: slots [plainCount, count). */
  get layeredCount(): number {
    return this.layered;
  }

  /** Instances the buffers hold before the next growth. */
  get capacity(): number {
    return this.records.capacity;
  }

  /** INSTANCE records, one per slot. Owned by the store; replaced on growth. */
  get instanceBuffer(): B {
    return this.instances;
  }

  /** LAYER_STACK records of the layered instances. Owned by the store; replaced on growth. */
  get layerStackBuffer(): B {
    return this.stackBuffer;
  }

  /** Blend masks (nodeCount f32 each). Owned by the store; replaced when masks outgrow it. */
  get masksBuffer(): B {
    return this.maskBuffer;
  }

  /** Joint sets of slotCount x bytesPerJoint (see jointEntryBuffer). Owned by the store; replaced on growth. */
  get jointBuffer(): B {
    return this.joints;
  }

  /** u32 per slot: the joint set it is posed into and drawn from (PALETTE_* in layout.ts); the identity list while every slot has its own. Owned by the store; replaced on growth. */
  get jointEntryBuffer(): B {
    return this.palette.entryBuffer ?? this.lists.identity;
  }

  /** Bytes of every GPU buffer the store owns (records, stacks, masks, joints, lists, handle slots, the palette's and the attached extras'). */
  get gpuBytes(): number {
    let bytes = this.palette.gpuBytes;
    for (const b of [this.instances, this.stackBuffer, this.maskBuffer, this.joints, this.handleSlots, ...Object.values(this.lists)]) bytes += b.size;
    for (const data of this.extras) bytes += data.gpuBytes?.() ?? 0;
    return bytes;
  }

  /** The slot of every handle as u32 (0xffffffff: free), indexed by handle. Owned by the store; replaced when handles outgrow it. */
  get handleSlotBuffer(): B {
    return this.handleSlots;
  }

  /** Handles issued so far (live or free): the length of handleSlotBuffer's contents. */
  get handleCount(): number {
    return this.slotOf.length;
  }

  /** Entries per instance list: the capacity rounded up to 64, so every list starts 256-byte aligned (a valid binding offset). */
  get listStride(): number {
    return listStride(this.records.capacity);
  }

  /** Per-slot stamps (u32, CPU-written; see SlotStamps). Owned by the store; replaced on growth. */
  get stampBuffer(): B {
    return this.lists.stamps;
  }

  /** Per-slot (stamp, frame) of the pose held in the joint buffer (vec2u, written by the cull pass). Owned by the store; replaced on growth. */
  get poseStateBuffer(): B {
    return this.lists.poseState;
  }

  /** u32 per slot holding its own index: the instance list when no cull pass runs. Owned by the store; replaced on growth. */
  get identityListBuffer(): B {
    return this.lists.identity;
  }

  /** Slots to pose (u32): plain ones from 0, layered ones from listStride. Owned by the store; replaced on growth. */
  get poseListBuffer(): B {
    return this.lists.poseList;
  }

  /** Slots to draw (u32): list (0 camera, 1 shadow) x lodLevels + level, listStride entries each. Owned by the store; replaced on growth. */
  get drawListBuffer(): B {
    return this.lists.drawLists;
  }

  /** Joint-buffer bytes for `instances` instances. */
  jointBytes(instances: number): number {
    return instances * this.slotCount * this.jointRecordBytes;
  }

  /** Bytes per joint record of the joint buffer. */
  get bytesPerJoint(): number {
    return this.jointRecordBytes;
  }

  /**
   * Changes the joint record size (a crowd's skinning method changed): the joint buffer and the
   * per-slot lists are replaced at the current capacity (so every instance is posed again on the
   * next frame); records, stacks and masks stay. Checks the limits first: a refusal throws and
   * changes nothing.
   */
  setBytesPerJoint(bytes: number): void {
    if (checkJointBytes(bytes) === this.jointRecordBytes) return;
    const previous = { bytes: this.jointRecordBytes, maxCapacity: this.maxCapacity };
    this.jointRecordBytes = bytes;
    this.palette.setBytes = this.slotCount * bytes;
    this.maxCapacity = undefined; // the most instances the joint buffer can hold changes with its stride
    try {
      this.grow(this.records.capacity);
    } catch (error) {
      this.jointRecordBytes = previous.bytes;
      this.palette.setBytes = this.slotCount * previous.bytes;
      this.maxCapacity = previous.maxCapacity;
      throw error;
    }
  }

  /**
   * Adds a plain instance (growing first if full) and returns its handle. Its record is cleared
   * to no stack; the caller writes the rest (see removeIfFailed for a failed write).
   */
  add(): number {
    // Every growth is checked before any is made: a refused add changes nothing.
    const handles = this.freeHandles.length === 0 ? this.handleGrowth() : 0;
    if (this.liveCount === this.records.capacity) this.grow(this.growthCapacity());
    if (handles > 0) this.growHandles(handles);
    // New instances are plain: the first layered instance moves to the end to make room.
    const slot = this.plainCount;
    if (this.layered > 0) this.moveSlot(slot, this.liveCount);
    this.liveCount++;
    const handle = this.freeHandles.pop()!;
    this.setSlotOf(handle, slot);
    this.handleOf[slot] = handle;
    this.stamps.renew(slot, this.meshOnly[handle] !== 0);
    this.records.setLayerStack(slot, LAYERS_NONE);
    for (const data of this.extras) data.reset(slot);
    return handle;
  }

  /**
   * Grows the per-instance buffers to hold `capacity` instances now, so that the adds up to it do
   * not grow one doubling at a time (Crowd.addMany). Checked first: a refusal changes nothing.
   */
  reserve(capacity: number): void {
    if (capacity > this.records.capacity) this.grow(capacity);
  }

  /** Removes instance `handle`; the handle may be reused by a later add, under its next generation's id. */
  remove(handle: number): void {
    const slot = this.slot(handle);
    if (slot >= this.plainCount) {
      this.freeStack(slot);
      this.moveSlot(this.liveCount - 1, slot);
      this.layered--;
    } else {
      const lastPlain = this.plainCount - 1;
      this.moveSlot(lastPlain, slot);
      this.moveSlot(this.liveCount - 1, lastPlain);
    }
    this.liveCount--;
    this.release(handle);
  }

  /** Removes every instance. */
  clear(): void {
    for (let slot = 0; slot < this.liveCount; slot++) this.release(this.handleOf[slot]);
    this.liveCount = 0;
    this.layered = 0;
  }

  /**
   * The handle of live instance `id` (an InstanceId from outside: Crowd.add, a listener's id).
   * Throws a TypeError for a non-integer, and a RangeError saying why `id` names no live instance
   * (removed, its handle perhaps holding a newer instance; never added) otherwise; changes
   * nothing. Allocation-free when it answers.
   */
  handle(id: number): number {
    const handle = this.find(id);
    if (handle < 0) {
      checkHandle(id);
      throw new RangeError(this.missing(id));
    }
    return handle;
  }

  /** The handle of live instance `id`, or -1 when `id` names none (no throw, no allocation). */
  find(id: number): number {
    if (!Number.isInteger(id) || id < 0) return -1;
    const handle = handleOfId(id);
    if (handle >= this.slotOf.length || this.slotOf[handle] < 0) return -1;
    return generationOfId(id) === this.generations[handle] ? handle : -1;
  }

  /** The handles of every live instance, in handle order (a new array: for clear, not per frame). */
  liveHandles(): number[] {
    const live: number[] = [];
    for (let h = 0; h < this.slotOf.length; h++) if (this.slotOf[h] >= 0) live.push(h);
    return live;
  }

  /** Whether `id` (an InstanceId) names a live instance. */
  hasId(id: number): boolean {
    return this.find(id) >= 0;
  }

  /** The id of `handle`'s instance now (live handles; for a free one, the id its next instance will get). */
  idOf(handle: number): number {
    return instanceId(handle, this.generations[handle]);
  }

  /** Slot of live instance `id` (an InstanceId): slot(handle(id)). */
  slotOfId(id: number): number {
    return this.slotOf[this.handle(id)];
  }

  /** Why integer `id` names no live instance, for errors: removed (and what its handle holds now), or never added. */
  missing(id: number): string {
    const handle = id >= 0 ? handleOfId(id) : -1;
    if (handle >= 0 && handle < this.slotOf.length && generationOfId(id) < this.generations[handle]) {
      const now = this.slotOf[handle] >= 0 ? ` (its handle now holds instance ${this.idOf(handle)})` : '';
      return `instance ${id} does not exist: it was removed${now}`;
    }
    return `instance ${id} does not exist: it was never added (ids come from Crowd.add)`;
  }

  /** Handles retired for good: their generation reached the limit (see src/runtime/instance-ids.ts). */
  get retiredHandles(): number {
    return this.retired;
  }

  /** Slot of a live handle (not an id: see handle()); throws a RangeError naming the handle otherwise. */
  slot(handle: number): number {
    const slot = Number.isInteger(handle) && handle >= 0 && handle < this.slotOf.length ? this.slotOf[handle] : -1;
    if (slot < 0) {
      checkHandle(handle);
      throw new RangeError(`handle ${handle} holds no instance`);
    }
    return slot;
  }

  /** Whether `handle` (not an id: see hasId) holds a live instance. */
  has(handle: number): boolean {
    return Number.isInteger(handle) && handle >= 0 && handle < this.slotOf.length && this.slotOf[handle] >= 0;
  }

  /**
   * Sets or clears one reason (`reason`: MESH_ONLY_PROP or MESH_ONLY_MORPH) why instance `handle`
   * may be drawn only as a mesh, never as an impostor (its props of chosen instances have no atlas
   * layer; it has morph weights of its own). While any reason holds, the instance's slot stamp has its top bit (SLOT_MESH_ONLY), which
   * the cull pass reads; it follows the instance through slot moves, and a removed instance's
   * handle drops every reason.
   */
  setMeshOnly(handle: number, reason: number, on: boolean): void {
    const slot = this.slot(handle);
    const was = this.meshOnly[handle];
    const now = on ? was | reason : was & ~reason;
    if (now === was) return;
    this.meshOnly[handle] = now;
    if ((was !== 0) !== (now !== 0)) this.stamps.renew(slot, now !== 0);
  }

  /** The handle of the instance in live slot `slot` (in [0, count)). */
  handleAtSlot(slot: number): number {
    return this.handleOf[slot];
  }

  /** Whether instance `handle` is drawn only as a mesh, for any reason (setMeshOnly). */
  isMeshOnly(handle: number): boolean {
    return this.meshOnly[handle] !== 0;
  }

  /** Stack record index of instance `handle`, or LAYERS_NONE when it is plain. */
  stackOf(handle: number): number {
    return this.records.layerStack(this.slot(handle));
  }

  /**
   * Gives instance `handle` a stack record (moving it into the layered range, growing the stack
   * buffer if needed) and returns the record's index; an instance that has one keeps it.
   */
  makeLayered(handle: number): number {
    let slot = this.slot(handle);
    const current = this.records.layerStack(slot);
    if (current !== LAYERS_NONE) return current;
    if (this.layered === this.stacks.capacity) {
      this.growStacks(Math.min(this.records.capacity, growthCount(this.device, `${this.label}.layerStacks`, this.layered + 1, this.stacks.capacity, STACK_ITEMS)));
    }
    this.swapSlots(slot, this.plainCount - 1);
    slot = this.plainCount - 1;
    const stack = this.layered++;
    this.stackOwner[stack] = slot;
    this.records.setLayerStack(slot, stack);
    return stack;
  }

  /** Takes instance `handle`'s stack record away (moving it into the plain range). */
  makePlain(handle: number): void {
    const slot = this.slot(handle);
    if (this.records.layerStack(slot) === LAYERS_NONE) return;
    this.freeStack(slot);
    this.swapSlots(slot, this.plainCount);
    this.layered--;
  }

  /** Re-expresses every phase for a crowd clock restarted at 0 from `clock`; times are unchanged. */
  rebase(clock: number): void {
    this.records.rebase(this.liveCount, clock);
    this.stacks.rebase(this.layered, clock);
  }

  /** Sends what changed since the last call (records, stacks, masks, handle slots) to the GPU; returns the bytes sent. */
  upload(queue: RecordQueue<B>): number {
    let bytes = 0;
    if (this.slotOf.byteLength > this.handleSlots.size) {
      const grown = this.createHandleSlotBuffer();
      this.handleSlots.destroy();
      this.handleSlots = grown;
      this.slotsDirtyStart = 0;
      this.slotsDirtyEnd = this.slotOf.length;
      this.generation++;
    }
    if (this.slotsDirtyEnd > this.slotsDirtyStart) {
      const start = this.slotsDirtyStart * 4;
      bytes += (this.slotsDirtyEnd - this.slotsDirtyStart) * 4;
      queue.writeBuffer(this.handleSlots, start, this.slotOf.buffer, start, (this.slotsDirtyEnd - this.slotsDirtyStart) * 4);
      this.slotsDirtyStart = Infinity;
      this.slotsDirtyEnd = 0;
    }
    if (this.masks.byteLength > this.maskBuffer.size) {
      const grown = this.createMaskBuffer();
      this.maskBuffer.destroy();
      this.maskBuffer = grown;
      this.generation++;
    }
    for (const data of this.extras) bytes += data.upload(queue);
    return bytes + this.masks.upload(queue, this.maskBuffer) + this.records.upload(queue, this.instances) + this.stacks.upload(queue, this.stackBuffer) +
      this.stamps.upload(queue, this.lists.stamps);
  }

  /**
   * Re-creates every GPU buffer on `device` (a new one after the old was lost) at the current
   * capacities, from the CPU mirrors: the next upload sends every live record, stack, mask,
   * stamp and handle slot. Joint matrices are rewritten by the next pose pass. The old buffers
   * are destroyed (a no-op on a lost device).
   */
  restore(device: RecordDevice<B>): void {
    this.destroy();
    this.device = device;
    this.palette.device = device;
    this.maskBuffer = this.createMaskBuffer();
    [this.instances, this.joints, this.lists] = this.createInstanceBuffers(this.records.capacity);
    this.stackBuffer = this.createStackBuffer(this.stacks.capacity);
    this.handleSlots = this.createHandleSlotBuffer();
    this.records.markAllDirty(this.liveCount);
    this.stamps.markAllDirty(this.liveCount);
    this.stacks.markAllDirty(this.layered);
    this.slotsDirtyStart = 0;
    this.slotsDirtyEnd = this.slotOf.length;
    for (const data of this.extras) data.restore(device, this.liveCount);
    this.generation++;
  }

  destroy(): void {
    for (const buffer of [this.instances, this.stackBuffer, this.maskBuffer, this.joints, this.handleSlots, ...Object.values(this.lists)]) buffer.destroy();
    this.palette.destroy();
    for (const data of this.extras) data.destroy();
  }

  /**
   * Releases the stack record of layered `slot` (the last stack record moves into its place) and
   * marks the slot's record plain; the caller then moves the slot out of the layered range.
   */
  private freeStack(slot: number): void {
    const stack = this.records.layerStack(slot);
    const last = this.layered - 1;
    if (stack !== last) {
      this.stacks.move(last, stack);
      const owner = this.stackOwner[last];
      this.stackOwner[stack] = owner;
      this.records.setLayerStack(owner, stack);
    }
    this.records.setLayerStack(slot, LAYERS_NONE);
  }

  /** Moves the instance in slot `from` (record, handle, stack ownership) to slot `to`, which is free or being vacated. */
  private moveSlot(from: number, to: number): void {
    if (from === to) return;
    this.records.move(from, to);
    for (const data of this.extras) data.move(from, to);
    const handle = this.handleOf[from];
    this.stamps.renew(to, this.meshOnly[handle] !== 0);
    this.handleOf[to] = handle;
    this.setSlotOf(handle, to);
    const stack = this.records.layerStack(to);
    if (stack !== LAYERS_NONE) this.stackOwner[stack] = to;
  }

  /** Exchanges the instances in slots a and b (records, handles, stack ownership). */
  private swapSlots(a: number, b: number): void {
    if (a === b) return;
    this.records.swap(a, b);
    for (const data of this.extras) data.swap(a, b);
    const ha = this.handleOf[a];
    const hb = this.handleOf[b];
    this.stamps.renew(a, this.meshOnly[hb] !== 0);
    this.stamps.renew(b, this.meshOnly[ha] !== 0);
    this.handleOf[a] = hb;
    this.setSlotOf(hb, a);
    this.handleOf[b] = ha;
    this.setSlotOf(ha, b);
    for (const s of [a, b]) {
      const stack = this.records.layerStack(s);
      if (stack !== LAYERS_NONE) this.stackOwner[stack] = s;
    }
  }

  /** Frees `handle` of a removed instance under its next generation, or retires it when that would reach the limit. */
  private release(handle: number): void {
    this.setSlotOf(handle, -1);
    this.meshOnly[handle] = 0;
    const next = this.generations[handle] + 1;
    this.generations[handle] = next;
    if (next < this.generationLimit) this.freeHandles.push(handle);
    else this.retired++;
  }

  private setSlotOf(handle: number, slot: number): void {
    this.slotOf[handle] = slot;
    if (handle < this.slotsDirtyStart) this.slotsDirtyStart = handle;
    if (handle + 1 > this.slotsDirtyEnd) this.slotsDirtyEnd = handle + 1;
  }

  private createHandleSlotBuffer(): B {
    const size = HANDLE_ITEMS.bytes(this.slotOf.length);
    checkStorageBinding(this.device, `${this.label}.handleSlots`, { ...HANDLE_ITEMS, count: this.slotOf.length });
    return this.device.createBuffer({ label: `${this.label}.handleSlots`, size, usage: BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST });
  }

  /** Handles to have once the next is issued (twice as many, at least 16, cut to what handleSlots may hold and to HANDLE_SPAN); checked, nothing changed. */
  private handleGrowth(): number {
    if (this.slotOf.length >= HANDLE_SPAN) {
      throw new RangeError(`a crowd has at most ${HANDLE_SPAN} instance handles (HANDLE_SPAN): ${this.liveCount} live, ${this.retired} retired after ${this.generationLimit} generations each`);
    }
    return Math.min(HANDLE_SPAN, growthCount(this.device, `${this.label}.handleSlots`, this.slotOf.length + 1, Math.max(8, this.slotOf.length), HANDLE_ITEMS));
  }

  /** Issues handles [slotOf.length, count) as free (the lowest is popped first); the GPU copy is replaced at the next upload. */
  private growHandles(count: number): void {
    const first = this.slotOf.length;
    const grown = new Int32Array(count).fill(-1);
    grown.set(this.slotOf);
    this.slotOf = grown;
    const generations = new Uint32Array(count);
    generations.set(this.generations);
    this.generations = generations;
    const meshOnly = new Uint8Array(count);
    meshOnly.set(this.meshOnly);
    this.meshOnly = meshOnly;
    this.slotsDirtyStart = 0;
    this.slotsDirtyEnd = grown.length;
    for (let h = count - 1; h >= first; h--) this.freeHandles.push(h);
  }

  /** The per-instance buffers (sized by capacity) and how their bytes follow it. */
  private instanceBufferItems(): { label: string; items: BufferItems }[] {
    const stride = (n: number) => listStride(n) * 4;
    const noun = 'instances';
    return [
      { label: `${this.label}.jointMatrices`, items: { noun, bytes: (n) => Math.max(16, this.jointBytes(this.palette.setsFor(n))) } },
      { label: `${this.label}.instances`, items: { noun, bytes: INSTANCE.size } },
      { label: `${this.label}.stamps`, items: { noun, bytes: stride } },
      { label: `${this.label}.identityList`, items: { noun, bytes: stride } },
      { label: `${this.label}.poseState`, items: { noun, bytes: (n) => 2 * stride(n) } },
      { label: `${this.label}.poseList`, items: { noun, bytes: (n) => 2 * stride(n) + 16 } },
      { label: `${this.label}.drawLists`, items: { noun, bytes: (n) => 2 * this.lodLevels * stride(n) } },
    ];
  }

  /** Double the capacity, cut to the most instances every per-instance buffer can hold and to the palette's full-mode end (at least one more: checked by grow). */
  private growthCapacity(): number {
    this.maxCapacity ??= Math.min(...this.instanceBufferItems().map(({ items }) => largestFit(this.device, items)));
    let target = Math.min(this.liveCount * 2, this.maxCapacity);
    // A joint set per slot as long as that fits: stop there before doubling into the palette.
    const full = this.palette.fullUpTo;
    if (this.liveCount < full && target > full) target = full;
    return Math.max(this.liveCount + 1, target);
  }

  private checkInstanceLimits(capacity: number): void {
    for (const data of this.extras) data.checkCapacity(capacity);
    checkStorageBindings(this.device, capacity, this.instanceBufferItems());
  }

  private checkStackLimits(capacity: number): void {
    checkStorageBinding(this.device, `${this.label}.layerStacks`, { ...STACK_ITEMS, count: capacity });
  }

  /** Check, allocate, swap: a refused growth leaves every buffer and record as it was. */
  private grow(capacity: number): void {
    this.checkInstanceLimits(capacity);
    const [instances, joints, lists] = this.createInstanceBuffers(capacity);
    this.records.reserve(capacity);
    this.stamps.reserve(capacity);
    const handles = new Int32Array(capacity);
    handles.set(this.handleOf.subarray(0, this.liveCount));
    this.handleOf = handles;
    this.instances.destroy();
    this.joints.destroy();
    for (const buffer of Object.values(this.lists)) buffer.destroy();
    this.destroyOldPalette();
    this.instances = instances;
    this.joints = joints;
    this.lists = lists;
    for (const data of this.extras) data.grow(capacity, this.liveCount);
    this.records.markAllDirty(this.liveCount);
    this.stamps.markAllDirty(this.liveCount);
    this.generation++;
  }

  private growStacks(capacity: number): void {
    this.checkStackLimits(capacity);
    const buffer = this.createStackBuffer(capacity);
    this.stacks.reserve(capacity);
    const owners = new Int32Array(capacity);
    owners.set(this.stackOwner.subarray(0, this.layered));
    this.stackOwner = owners;
    this.stackBuffer.destroy();
    this.stackBuffer = buffer;
    this.stacks.markAllDirty(this.layered);
    this.generation++;
  }

  /** Frees the palette buffers that the last createInstanceBuffers replaced. */
  private destroyOldPalette: () => void = () => {};

  private createInstanceBuffers(capacity: number): [B, B, ListBuffers<B>] {
    const stride = listStride(capacity);
    this.destroyOldPalette = this.palette.create(this.device, this.label, capacity, stride);
    const list = (name: string, bytes: number, usage = 0) =>
      this.device.createBuffer({ label: `${this.label}.${name}`, size: bytes, usage: BUFFER_USAGE.STORAGE | usage });
    const identity = list('identityList', stride * 4, BUFFER_USAGE.COPY_DST);
    const iota = new Uint32Array(stride);
    for (let i = 0; i < stride; i++) iota[i] = i;
    this.device.queue.writeBuffer(identity, 0, iota);
    const lists: ListBuffers<B> = {
      stamps: list('stamps', stride * 4, BUFFER_USAGE.COPY_DST),
      // COPY_SRC: tests read back what the cull pass decided.
      poseState: list('poseState', stride * 8, BUFFER_USAGE.COPY_SRC),
      identity,
      // Two lists, then their two lengths (padded to 16 bytes).
      poseList: list('poseList', (2 * stride + 4) * 4, BUFFER_USAGE.COPY_SRC),
      drawLists: list('drawLists', 2 * this.lodLevels * stride * 4, BUFFER_USAGE.COPY_SRC),
    };
    return [
      this.device.createBuffer({ label: `${this.label}.instances`, size: capacity * INSTANCE.size, usage: RECORD_USAGE }),
      this.device.createBuffer({
        label: `${this.label}.jointMatrices`, size: Math.max(16, this.jointBytes(this.palette.setsFor(capacity))),
        // COPY_DST: tools fill it with NaN first, so a matrix the shader fails to write shows.
        usage: BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_SRC | BUFFER_USAGE.COPY_DST,
      }),
      lists,
    ];
  }

  private createStackBuffer(capacity: number): B {
    return this.device.createBuffer({ label: `${this.label}.layerStacks`, size: capacity * LAYER_STACK.size, usage: RECORD_USAGE });
  }

  private createMaskBuffer(): B {
    this.masks.markDirty();
    checkStorageBinding(this.device, `${this.label}.masks`, { noun: 'masks', bytes: this.masks.byteLength / this.masks.capacity, count: this.masks.capacity });
    return this.device.createBuffer({ label: `${this.label}.masks`, size: this.masks.byteLength, usage: BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_DST });
  }
}

/** `bytes` when it is a positive multiple of 16 (whole vec4f); a RangeError naming bytesPerJoint otherwise. */
function checkJointBytes(bytes: number): number {
  if (!Number.isInteger(bytes) || bytes < 16 || bytes % 16 !== 0) throw new RangeError(`bytesPerJoint must be a positive multiple of 16, got ${bytes}`);
  return bytes;
}

/** Throws a TypeError naming `handle` unless it is an integer (the form of every InstanceId). */
export function checkHandle(handle: number): void {
  if (!Number.isInteger(handle)) throw new TypeError(`instance id must be an integer from Crowd.add, got ${show(handle)}`);
}

/** A handleSlots buffer: a u32 per handle, at least 64 bytes. */
const HANDLE_ITEMS = { noun: 'handles', bytes: (n: number) => Math.max(64, n * 4) } as const;
/** A layerStacks buffer: one LAYER_STACK record per layered instance. */
const STACK_ITEMS: BufferItems = { noun: 'layered instances', bytes: LAYER_STACK.size };

/** Entries per instance list for `capacity` instances: rounded up to 64 (256 bytes, the largest minStorageBufferOffsetAlignment). */
function listStride(capacity: number): number {
  return Math.ceil(capacity / 64) * 64;
}
