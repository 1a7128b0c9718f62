import { buildMask, type MaskSpec } from '../anim/masks';
import type { Character } from '../character/character';
import { CrowdRootMotion } from '../features/root-motion/crowd-root-motion';
import type {
  AnimationState, CameraOptions, CrowdOptions, CrowdTargetFormats, CullStats, InstanceId, InstanceInit, LayerStackArrays, LayerStackInit, MaskId, ShadowOptions,
} from './crowd-types';
import { isLayerStackArrays } from '../anim/layer-stack';
import type { ClipEvent } from '../anim/events/clip-events';
import { CrowdEvents, type ClipEventListener } from '../features/clip-events/crowd-events';
import { CrowdProps, type AttachmentId, type AttachOptions } from '../features/props/crowd-props';
import { CrowdMorph, type MorphWeights } from '../features/morph/crowd-morph';
import { CullPass } from './culling/cull-pass';
import { CullSettings } from './culling/cull-settings';
import { CullStatsReader } from './culling/cull-stats';
import { MeshBuffers } from './mesh-buffers';
import { frustumPlanes } from './culling/cull-math';
import { fitLight, ShadowPass } from './culling/shadow-pass';
import type { InstanceAnimation } from './instance-records';
import { InstanceStore } from './instance-store';
import { checkLayerStackArrays, requireLayerStackArrays, resolveLayers, writeLayerStackArrays } from './layer-input';
import { checkSkinning, JOINT_BYTES, LAYERS_NONE, type SkinningMethod } from './layout';
import { MorphPass } from '../features/morph/morph-pass';
import { PosePass } from './pose-pass';
import { checkFinite, checkNumbers } from './record-buffer';
import { LIGHT_DIRECTION, SkinPass } from './skin-pass';
import { IDENTITY_MATRIX } from '../math/affine';
import { show } from '../math/show';

export type * from './crowd-types';
export type { AttachmentId, AttachOptions } from '../features/props/crowd-props';
export type { MorphWeights } from '../features/morph/crowd-morph';

/**
 * A pass that runs before the pose pass in a crowd's frame (the GPU controllers' control pass).
 * @internal
 */
export interface CrowdPrepass {
  /** After the crowd's uploads in update(dt); `crowdClock` is the clock the pose records use. */
  prepare(crowdClock: number): void;
  /** In encode(), before the pose pass. */
  encode(encoder: GPUCommandEncoder): void;
  /** In restore(device), after the crowd's own objects: re-create the pass's GPU objects on `device`. */
  restore(device: GPUDevice): void;
  /** In update(dt), when the crowd clock restarts at 0 from `clock` seconds (after the records are rebased). */
  rebase?(clock: number): void;
}

/**
 * The GPU clock restarts from 0 past this many seconds: it keeps the passes' tick count well
 * inside an i32 (MAX_GPU_CLOCK_SECONDS, src/runtime/clip-clock.ts; clip times themselves are exact at
 * any clock) and the root-motion pass's float32 times since its anchors short.
 */
const CLOCK_REBASE_SECONDS = 600;

/**
 * Every instance of one Character on one device: a facade that resolves clip names and
 * validates, over an InstanceStore (records, stacks, masks, buffers, growth, handle <-> slot:
 * src/runtime/instance-store.ts) and the passes that read from it: cull, pose, skin. Per frame:
 * update(dt), setCamera(viewProjection, position) (optional: culling and LOD need it),
 * encode(encoder), draw(pass, vp). Nothing in that loop allocates; instance records are
 * uploaded only when they change. A refused call throws an error naming the input and leaves
 * the crowd as it was.
 * Bad input throws an error naming it (`no clip "Jog" in Fox.glb (clips: ...)`, `blend must be
 * in [0, 1], got 1.5`).
 *
 * @example
 * ```ts
 * const crowd = new Crowd(device, character, { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' });
 * const id = crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.3, timeA: 0.2, transform });
 * crowd.setAnimation(id, { speedA: 1.5 });   // change any subset; the rest keeps playing
 * crowd.setBlend(id, 0.8);                   // allocation-free, for per-frame fades
 * // each frame (dt in seconds):
 * crowd.update(dt);
 * crowd.setCamera(viewProjection, cameraPosition); // optional: culling and LOD
 * const encoder = device.createCommandEncoder();
 * crowd.encode(encoder);                     // the cull and pose compute passes
 * const pass = encoder.beginRenderPass(yourPassDescriptor);
 * crowd.draw(pass, viewProjection);          // one draw per primitive (and LOD level)
 * pass.end();
 * device.queue.submit([encoder.finish()]);
 * ```
 */
export class Crowd {
  // The GPU objects (re-created by restore): buffers from the CPU-side data the crowd keeps.
  private gpuDevice: GPUDevice;
  private posePass!: PosePass;
  private skinPass!: SkinPass;
  private cullPass!: CullPass;
  private mesh!: MeshBuffers;
  private stats!: CullStatsReader;
  private shadowPass: ShadowPass | undefined;
  /** Characters with morph targets: the pass that writes the weights, and the per-instance overrides. */
  private morphPass: MorphPass | undefined;
  private readonly morph: CrowdMorph | undefined;
  private readonly store: InstanceStore;
  private readonly events: CrowdEvents;
  private readonly cull: CullSettings;
  private readonly options: CrowdOptions;
  /** What the pose pass writes and the skin pass blends (CrowdOptions.skinning). */
  private skinningMethod: SkinningMethod;
  /** Texels per side of the shadow map, or undefined for a crowd made without shadows. */
  private readonly shadowMapSize: number | undefined;
  private readonly shadow = { distance: 0, reach: 0, strength: 1 };
  /** Whether the last encode drew the shadow map. */
  private shadowedFrame = false;
  /** Store generation the shadow pass is bound to (-1: never). */
  private shadowGeneration = -1;
  /** Store generation the skin pass is bound to (-1: never). */
  private skinGeneration = -1;
  private clockSeconds = 0;
  private readonly prepasses: CrowdPrepass[] = [];
  private readonly removalListeners: ((id: InstanceId) => void)[] = [];
  /** Props on joints (attach): placed after the pose pass, drawn after the crowd. */
  private readonly props: CrowdProps;
  /** Moves instances by their clips' root motion (characters loaded with rootMotion mode 'apply'), else null. */
  private readonly rootMotion: CrowdRootMotion | null = null;
  private uploaded = 0;
  /** Whether the last encode ran the cull pass (so draw() draws through its lists). */
  private culledFrame = false;
  /** The caller's timestamp writes split over the cull pass (beginning) and the pose pass (end). */
  private readonly cullTimestamps: GPUComputePassTimestampWrites = { querySet: undefined as unknown as GPUQuerySet };
  private readonly poseTimestamps: GPUComputePassTimestampWrites = { querySet: undefined as unknown as GPUQuerySet };
  /** setPlacement's world, read back for root motion's anchor. */
  private readonly placed = new Float32Array(16);

  /**
   * Creates the crowd's pipelines and buffers on `device` (the crowd owns them: destroy() frees
   * them). Throws a RangeError naming the device limit when the character needs more than it has.
   *
   * @param device The GPUDevice the crowd creates its resources on and draws with (not owned).
   * @param character The loaded character every instance shows (not copied; share it between crowds).
   */
  constructor(device: GPUDevice, readonly character: Character, options: CrowdOptions) {
    checkObject(options, 'options', '{ colorFormat, depthFormat, capacity, ... } (CrowdOptions)');
    const { gpu } = character;
    this.gpuDevice = device;
    this.options = options;
    this.skinningMethod = checkSkinning(options.skinning);
    // Every option is checked before the first GPU object is made, and a failure while making
    // them (a device limit) destroys those already made: a refused crowd leaves nothing behind.
    const height = boxHeight(character.animationBounds.reach);
    const levelErrors = character.lods?.errors ?? [0];
    this.cull = new CullSettings(levelErrors, height);
    this.applyOptions(options);
    this.shadowMapSize = options.shadows === undefined || options.shadows === false ? undefined : this.applyShadowOptions(options.shadows, height).mapSize;
    const capacity = options.capacity ?? 1024;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${show(capacity)}`);
    if (typeof options.colorFormat !== 'string' || typeof options.depthFormat !== 'string') {
      throw new TypeError(`colorFormat and depthFormat must name the render pass's formats, got ${show(options.colorFormat)} and ${show(options.depthFormat)}`);
    }
    if (options.sampleCount !== undefined && options.sampleCount !== 1 && options.sampleCount !== 4) throw new RangeError(`sampleCount must be 1 or 4 (WebGPU's MSAA counts), got ${show(options.sampleCount)}`);
    this.props = new CrowdProps(character, options);
    this.store = new InstanceStore(device, {
      nodeCount: gpu.nodeCount, slotCount: gpu.slotCount, clipDurations: character.clipDurations, capacity, label: 'Crowd', lodLevels: levelErrors.length,
      bytesPerJoint: JOINT_BYTES[this.skinningMethod],
    });
    this.events = new CrowdEvents(this.store, character);
    try {
      this.morph = character.baked.morph && new CrowdMorph(character, this.store, device);
      this.createPasses(device);
    } catch (error) {
      this.store.destroy();
      throw error;
    }
    this.cull.shadows = this.shadowMapSize !== undefined;
    if (character.rootMotion?.mode === 'apply') {
      try {
        this.rootMotion = new CrowdRootMotion(device, character.rootMotion, this.store);
      } catch (error) {
        this.destroy();
        throw error;
      }
      this.addPrepass(this.rootMotion);
    }
  }

  /** The device the crowd's GPU objects live on (replaced by restore). Not owned: the caller destroys it. */
  get device(): GPUDevice {
    return this.gpuDevice;
  }

  /**
   * Resolves when the crowd's device is lost, with WebGPU's reason and message (the device's
   * own `lost` promise: a crowd restored onto a new device answers for that one). The crowd
   * keeps every instance, clock, layer stack, mask and controller on the CPU, and update()
   * keeps advancing them while the device is gone; call restore() with a new device.
   */
  get lost(): Promise<GPUDeviceLostInfo> {
    return this.gpuDevice.lost;
  }

  /**
   * Rebuilds every GPU object of the crowd on `device` (a new device after the old one was lost,
   * or any other device) from the CPU-side data it kept: buffers, pipelines, textures, and the
   * passes CrowdControllers added. Every instance, its animation, layers, masks and the crowd
   * clock are as they were; the next encode() poses every instance again. GPU-driven controllers
   * resume from their last locomotion state read back (see CrowdControllers.restore). The
   * device must offer the limits the crowd was created under (requiredCrowdLimits).
   *
   * @example
   * ```ts
   * crowd.lost.then(async () => {
   *   const device = await adapterOrNew.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) });
   *   crowd.restore(device); // then re-create your own GPU objects and go on drawing
   * });
   * ```
   */
  restore(device: GPUDevice): void {
    if (typeof (device as { createBuffer?: unknown } | null)?.createBuffer !== 'function') throw new TypeError(`restore needs a GPUDevice, got ${show(device)}`);
    this.destroyPasses();
    this.gpuDevice = device;
    this.store.restore(device);
    this.createPasses(device);
    this.skinGeneration = this.shadowGeneration = -1;
    this.culledFrame = this.shadowedFrame = false;
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].restore(device);
    // Drawable at once, before the next update: every record, stack and mask goes up now.
    this.store.upload(device.queue);
  }

  /** How vertices are skinned: 'linear' or 'dual-quaternion' (CrowdOptions.skinning). */
  get skinning(): SkinningMethod {
    return this.skinningMethod;
  }

  /**
   * Changes how vertices are skinned. Not for every frame: the joint buffer is replaced (a new
   * jointMatrices buffer, 48 or 64 bytes per joint) and the pose, skin and shadow pipelines are
   * re-created; every instance, its animation and the clock stay (their records are sent again
   * at once), and the next encode() poses every instance again. A value other than 'linear' or 'dual-quaternion' throws a RangeError
   * and changes nothing.
   */
  set skinning(method: SkinningMethod) {
    const checked = checkSkinning(method, true);
    if (checked === this.skinningMethod) return;
    this.store.setBytesPerJoint(JOINT_BYTES[checked]);
    this.store.upload(this.gpuDevice.queue); // the records, into the buffers that replaced theirs
    this.skinningMethod = checked;
    this.destroyPasses();
    this.createPasses(this.gpuDevice);
    this.skinGeneration = this.shadowGeneration = -1;
    this.culledFrame = this.shadowedFrame = false;
  }

  /** Whether the shadow map is drawn and sampled (needs CrowdOptions.shadows and a camera). */
  get shadows(): boolean {
    return this.cull.shadows;
  }

  /** Turns the shadow map on or off (it needs CrowdOptions.shadows to have been given). */
  set shadows(on: boolean) {
    checkBoolean(on, 'shadows');
    if (on && !this.shadowPass) throw new Error('this crowd was created without shadows (CrowdOptions.shadows)');
    this.cull.shadows = on;
  }

  /**
   * The shadow map of the last encoded frame and the light's view-projection (world -> the
   * map's clip space), for other passes that receive the crowd's shadows (a ground); undefined
   * when no shadow map was drawn. Owned by the crowd.
   */
  get shadowMap(): {
    /** The depth texture's view (depth32float). */
    view: GPUTextureView;
    /** World to the shadow map's clip space, column-major 4x4. */
    lightViewProjection: Float32Array;
    /** Width and height of the map in texels. */
    mapSize: number;
  } | undefined {
    const pass = this.shadowPass;
    return pass && this.shadowedFrame ? { view: pass.view, lightViewProjection: pass.lightViewProjection, mapSize: pass.mapSize } : undefined;
  }

  /**
   * What the cull pass did in a recent frame (visible and posed instances, instances per LOD
   * level, indices drawn), read back without stalling: one or two frames old, undefined before
   * the first culled frame. Without a camera every instance is visible and posed.
   */
  get cullStats(): CullStats | undefined {
    if (!this.culledFrame) {
      const n = this.store.count;
      const perLevel = Array.from({ length: this.mesh.levels }, (_, l) => (l === 0 ? n : 0));
      return { visible: n, posed: n, perLevel, vertices: n * this.mesh.indicesPerInstance()[0] };
    }
    return this.stats.latest;
  }

  /** The cull pass's counts after the last submitted frame, awaited (tests and tools; not for the frame loop). */
  readCullStats(): Promise<CullStats> {
    return this.stats.read();
  }

  /** Whether culling runs once a camera is set (CrowdOptions.culling). */
  get culling(): boolean {
    return this.cull.culling;
  }

  /** Turns culling on or off (for comparison: culling never changes a pixel). */
  set culling(on: boolean) {
    checkBoolean(on, 'culling');
    this.cull.culling = on;
  }

  /** Whether mesh LOD levels are chosen by distance once a camera is set (CrowdOptions.lod). */
  get lod(): boolean {
    return this.cull.lod;
  }

  /** Turns mesh LOD on or off. */
  set lod(on: boolean) {
    checkBoolean(on, 'lod');
    this.cull.lod = on;
  }

  /** Whether far instances are posed every 2nd / 4th frame once a camera is set (CrowdOptions.animationLod). */
  get animationLod(): boolean {
    return this.cull.animationLod;
  }

  /** Turns animation LOD on or off. */
  set animationLod(on: boolean) {
    checkBoolean(on, 'animationLod');
    this.cull.animationLod = on;
  }

  /** Mesh LOD levels the character has (1 when loaded without `lod`). */
  get lodLevels(): number {
    return this.mesh.levels;
  }

  /**
   * Makes every instance draw LOD level `level` (for comparison; needs a camera), or chooses by
   * distance again with undefined.
   */
  forceLodLevel(level: number | undefined): void {
    this.cull.setForcedLevel(level);
  }

  /**
   * The camera that culling and LOD use, for the frames encoded from now on: `viewProjection`
   * (column-major 4x4, world to clip space, WebGPU's z in [0, 1]) and the eye `position` (world).
   * Call it before encode() each frame the camera moves, with the matrix draw() will get: the
   * cull pass runs in encode(), in the same command buffer as the draw. Without a camera (never
   * set, or clearCamera()) every instance is posed and drawn at full detail.
   */
  setCamera(viewProjection: ArrayLike<number>, position: ArrayLike<number>, options: CameraOptions = {}): void {
    checkObject(options, 'camera options', '{ viewportHeight }');
    this.cull.setCamera(viewProjection, position, options.viewportHeight);
  }

  /** Forgets the camera (see setCamera). */
  clearCamera(): void {
    this.cull.clearCamera();
  }

  /** The colour and depth formats and the sample count the crowd's draws are made for (CrowdOptions; sampleCount defaults to 1). */
  get targetFormats(): CrowdTargetFormats {
    const { colorFormat, depthFormat, sampleCount = 1 } = this.options;
    return { colorFormat, depthFormat, sampleCount };
  }

  /** Live instances. */
  get count(): number {
    return this.store.count;
  }

  /** @internal The instance store, for the passes that CrowdControllers adds. */
  get instanceStore(): InstanceStore {
    return this.store;
  }

  /** @internal Runs `prepass` in every frame from now on, before the pose pass. */
  addPrepass(prepass: CrowdPrepass): void {
    this.prepasses.push(prepass);
  }

  /** Bytes the last update() wrote into the crowd's GPU buffers (records, stacks, masks, handle slots, root-motion anchors). */
  get uploadedBytes(): number {
    return this.uploaded;
  }

  /** Crowd clock in seconds since the last rebase (advanced by update). */
  get clock(): number {
    return this.clockSeconds;
  }

  /** Draw calls that draw() records: one per mesh primitive, times the LOD levels once a camera is set (indirect draws), plus one per primitive of each attached prop. */
  get drawCallCount(): number {
    return this.skinPass.drawCount * (this.cull.needed ? this.mesh.levels : 1) + this.props.drawCount;
  }

  /** Joint matrices per instance. */
  get jointsPerInstance(): number {
    return this.character.gpu.slotCount;
  }

  /**
   * Where instance `id`'s joint records start in `jointMatrices`, in joints (bytesPerJoint bytes
   * each). Valid until the next add, remove, setLayers or setStack, which may move instances.
   */
  jointMatrixIndex(id: InstanceId): number {
    return this.store.slot(id) * this.character.gpu.slotCount;
  }

  /** Bytes per joint record in `jointMatrices`: 48 with 'linear' skinning, 64 with 'dual-quaternion'. */
  get bytesPerJoint(): number {
    return JOINT_BYTES[this.skinningMethod];
  }

  /**
   * The joint buffer, jointsPerInstance records per instance, in model space (the instance's
   * transform is applied when drawing); owned by the crowd, replaced when it grows and when
   * `skinning` changes. With 'linear' skinning each joint is its matrix model * inverseBind as 3
   * vec4f rows (48 bytes; the bottom row is 0 0 0 1). With 'dual-quaternion' each is 4 vec4f
   * (64 bytes, JOINT_DQ in src/runtime/layout.ts): the unit quaternion q of the matrix's rotation,
   * then the rows of [S | t], S the scale / shear left after the rotation (the identity for a
   * rigid joint) and t the translation, so that the matrix is [R(q) S | t]. With a camera set,
   * instances culled or skipped by animation LOD keep their last records.
   */
  get jointMatrices(): GPUBuffer {
    return this.store.jointBuffer;
  }

  /**
   * Adds an instance; unspecified fields default to clip 0, time 0, speed 1, blend 0. Everything
   * is checked before the crowd changes (or grows).
   */
  add(init: InstanceInit = {}): InstanceId {
    checkObject(init, 'init', '{ clipA, clipB, timeA, timeB, speedA, speedB, blend, transform }');
    checkFields(init, INIT_FIELDS, 'add');
    const { transform, ...animation } = init;
    const resolved = this.resolve({
      clipA: 0, clipB: animation.clipA ?? 0, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0, ...stripUndefined(animation),
    });
    const world = transform === undefined ? IDENTITY_MATRIX : transform;
    this.store.records.checkWorld(world);
    this.store.records.checkAnimation(resolved);
    const handle = this.store.add();
    const slot = this.store.slot(handle);
    this.store.records.setWorld(slot, world);
    this.store.records.setAnimation(slot, resolved, this.clockSeconds);
    this.rootMotion?.added(handle, slot, world, this.clockSeconds);
    this.events.changed(handle);
    return handle;
  }

  /** Removes an instance; its id may be reused by a later add. */
  remove(id: InstanceId): void {
    this.store.remove(id);
    this.props.forget(id);
    this.events.removed(id);
    for (let i = 0; i < this.removalListeners.length; i++) this.removalListeners[i](id);
  }

  /** Removes every instance. */
  clear(): void {
    const live: InstanceId[] = [];
    if (this.removalListeners.length > 0) for (let id = 0; id < this.store.handleCount; id++) if (this.store.has(id)) live.push(id);
    this.store.clear();
    this.props.forgetAll();
    this.events.cleared();
    for (const id of live) for (const listener of this.removalListeners) listener(id);
  }

  /** @internal Calls `listener` with the id of every instance removed from now on (CrowdControllers drops its controller). */
  onRemoved(listener: (id: InstanceId) => void): void {
    this.removalListeners.push(listener);
  }

  /**
   * Attaches `prop` (a Character from loadCharacter: a static glTF mesh, drawn with its
   * materials, or a skinned one, drawn in its rest pose) to joint `options.joint` of every
   * instance, or of `options.instances`: each frame the prop of every drawn instance is placed
   * on the GPU at world * joint's model matrix * `options.offset`, from the joint matrices the
   * pose pass wrote, and drawn by draw() in one instanced draw per prop primitive. With a camera
   * it is culled with its character (its bounds are the character's). A joint name that does not
   * exist, an offset that is not 16 finite numbers of an affine matrix, or an instance that does
   * not exist throws an error naming it, and nothing changes.
   *
   * @example
   * ```ts
   * const sword = await loadCharacter('/models/Props/Sword.glb');
   * const id = crowd.attach(sword, { joint: 'Hand.R', offset: mat4.translation([0, -0.08, 0]) });
   * crowd.detach(id);
   * ```
   */
  attach(prop: Character, options: AttachOptions): AttachmentId {
    return this.props.attach(this.store, prop, options);
  }

  /** Removes a prop attached by attach() and frees its GPU objects. */
  detach(id: AttachmentId): void {
    this.props.detach(id);
  }

  /** Chooses which instances show attachment `id`'s prop: a list of ids, or undefined for every instance. Checked first; a refusal changes nothing. */
  setAttachmentInstances(id: AttachmentId, instances: readonly InstanceId[] | undefined): void {
    this.props.setInstances(this.store, id, instances);
  }

  /** Live attachments (attach), in attach order. */
  get attachments(): AttachmentId[] {
    return this.props.ids;
  }

  /** @internal The prop records of attachment `id` on the GPU (INSTANCE-sized per slot, `world` first; valid for the slots drawn last frame): tests. */
  attachmentRecords(id: AttachmentId): GPUBuffer {
    return this.props.records(id);
  }

  /**
   * The instance's model-to-world transform now (16 numbers, column-major) into `out`. An
   * instance that moves by root motion (see setRootMotion) is where its clips have carried it:
   * the closed form of worldTransform, rounded to float32 as the GPU holds it.
   */
  getTransform(id: InstanceId, out: Float32Array = new Float32Array(16)): Float32Array {
    const slot = this.store.slot(id);
    if (!(out instanceof Float32Array) || out.length < 16) {
      throw new TypeError(`out must be a Float32Array of at least 16 numbers, got ${out instanceof Float32Array ? out.length : show(out)}`);
    }
    if (this.rootMotion) return this.rootMotion.transformAt(id, slot, this.clockSeconds, out);
    return this.store.records.getWorld(slot, out);
  }

  /**
   * Sets an instance's model-to-world transform: 16 numbers, column-major. An instance that
   * moves by root motion walks on from there.
   */
  setTransform(id: InstanceId, transform: ArrayLike<number>): void {
    const slot = this.store.slot(id);
    this.store.records.setWorld(slot, transform);
    this.rootMotion?.place(id, slot, transform, this.clockSeconds);
  }

  /**
   * Whether instance `id` moves by its clips' root motion: the default for every instance of a
   * crowd whose character was loaded with `rootMotion: { mode: 'apply' }` (no other crowd can
   * turn it on). CrowdControllers turns it off for the instances it controls (their locomotion
   * moves them). Turned off, the instance stays where its root motion brought it; turned on, it
   * walks on from its transform now (after a GPU-driven controller, whose placement the CPU does
   * not see, call setTransform or setPlacement first). O(1).
   */
  setRootMotion(id: InstanceId, on: boolean): void {
    const slot = this.store.slot(id);
    if (!this.rootMotion) {
      if (on) throw new Error(`instance ${id} cannot move by root motion: the character was not loaded with rootMotion mode 'apply'`);
      return;
    }
    this.rootMotion.setMoves(id, slot, on === true, this.clockSeconds);
  }

  /** Whether instance `id` moves by its clips' root motion (see setRootMotion). */
  movesByRootMotion(id: InstanceId): boolean {
    this.store.slot(id);
    return this.rootMotion?.moves(id) ?? false;
  }

  /**
   * Instance `id`'s model-to-world transform in float64 (16 numbers, column-major) into `out`,
   * `ahead` seconds from now (default 0) if nothing changes it: for an instance that moves by
   * root motion the closed form anchor * M (src/features/root-motion/crowd-root-motion.ts) that the GPU evaluates in
   * float32; for any other its transform. For gameplay queries (where is it, where will it be).
   */
  worldTransform(id: InstanceId, out: Float64Array = new Float64Array(16), ahead = 0): Float64Array {
    const slot = this.store.slot(id);
    checkFinite(ahead, 'ahead');
    if (this.rootMotion) return this.rootMotion.transformAt(id, slot, this.clockSeconds + ahead, out);
    out.set(this.store.records.getWorld(slot, this.placed));
    return out;
  }

  /** Changes any subset of an instance's animation; the rest keeps playing as it was. */
  setAnimation(id: InstanceId, change: Partial<AnimationState>): void {
    const slot = this.store.slot(id);
    checkObject(change, 'change', '{ clipA, clipB, timeA, timeB, speedA, speedB, blend } (any subset)');
    checkFields(change, ANIMATION_FIELDS, 'setAnimation');
    const current = this.store.records.getAnimation(slot, this.clockSeconds);
    const resolved = this.resolve({ ...current, ...stripUndefined(change) });
    this.rootMotion?.reanchor(id, slot, this.clockSeconds);
    this.store.records.setAnimation(slot, resolved, this.clockSeconds);
    this.rootMotion?.retime(id, slot, this.clockSeconds);
    this.events.changed(id);
  }

  /** Sets the weight of clip B in [0, 1]; cheaper than setAnimation and allocation-free, for per-frame fades. */
  setBlend(id: InstanceId, blend: number): void {
    const slot = this.store.slot(id);
    this.rootMotion?.reanchor(id, slot, this.clockSeconds);
    this.store.records.setBlend(slot, blend);
    this.events.changed(id);
  }

  /**
   * Makes a blend mask shared by any instance's layers: `{ root: 'Spine' }` (that joint and all
   * below it) or `{ weights: { Head: 1 }, default: 0 }`. Masks are kept for the crowd's life.
   */
  createMask(spec: MaskSpec): MaskId {
    return this.store.masks.add(buildMask(this.character.rig.nodes, spec));
  }

  /**
   * Gives an instance a layer stack, in either form (src/anim/layer-stack.ts), replacing the
   * one it had:
   *
   * - a LayerStackInit, `{ layers, additive }`: layers on top of the instance's clip A / clip B
   *   blend, times being the layers' times now; null removes the layers.
   * - a LayerStackArrays, the packed form an animation controller produces each frame
   *   (AnimationController.output; CrowdControllers writes it so): the base clip replaces the
   *   instance's clips, then `layerCount` override layers. Mask values index `maskIds` (MaskIds
   *   from createMask) when given, else are MaskIds; -1 means none. Times hold `ahead` seconds
   *   after the current clock (CrowdControllers passes the dt of the update that follows).
   *   Allocation-free.
   *
   * Everything is checked before anything changes.
   */
  setLayers(id: InstanceId, stack: LayerStackInit | null): void;
  /** The packed form (a controller's output), allocation-free: see the first signature. */
  setLayers(id: InstanceId, stack: LayerStackArrays, maskIds?: ArrayLike<MaskId>, ahead?: number): void;
  setLayers(id: InstanceId, stack: LayerStackInit | LayerStackArrays | null, maskIds?: ArrayLike<MaskId>, ahead = 0): void {
    const slot = this.store.slot(id);
    if (isLayerStackArrays(stack)) {
      checkLayerStackArrays(this.store, stack, maskIds, ahead);
      this.rootMotion?.reanchor(id, slot, this.clockSeconds);
      writeLayerStackArrays(this.store, id, stack, maskIds, this.clockSeconds + ahead);
      this.rootMotion?.retime(id, this.store.slot(id), this.clockSeconds);
    } else if (stack === null) {
      this.store.makePlain(id);
    } else {
      const resolved = resolveLayers(stack, (clip, field) => this.clip(clip, field), this.character.baked.clipIsDifference, this.store.stacks);
      this.store.stacks.set(this.store.makeLayered(id), resolved, this.clockSeconds);
    }
    this.events.changed(id);
  }

  /** Sets one layer's weight (allocation-free, for per-frame fades). */
  setLayerWeight(id: InstanceId, index: number, weight: number, kind: 'override' | 'additive' = 'override'): void {
    const stack = this.store.stackOf(id);
    if (kind !== 'override' && kind !== 'additive') throw new RangeError(`kind must be 'override' or 'additive', got ${show(kind)}`);
    if (stack === LAYERS_NONE) throw new RangeError(`instance ${id} has no layers (setLayers first)`);
    this.store.stacks.setWeight(stack, kind === 'additive', index, weight);
    this.events.changed(id);
  }

  /** @deprecated use setLayers, which takes the same arguments. */
  setStack(id: InstanceId, stack: LayerStackArrays, maskIds?: ArrayLike<MaskId>, ahead = 0): void {
    this.setLayers(id, requireLayerStackArrays(stack), maskIds, ahead);
  }

  /**
   * Overrides an instance's morph weights (characters with morph targets, Character.morphTargets):
   * `{ Angry: 1, Sad: 0.3 }` (target names, or "mesh/target" where two meshes share a name) sets
   * those targets and keeps the others as they were; an array sets every target in
   * Character.morphTargets order. A weight in [0, 1] replaces the animated one until changed;
   * null (or undefined; NaN in an array) gives the target back to its clips; `null` for the
   * whole argument gives every target back. A weight outside [0, 1], an unknown target or an
   * array of the wrong length throws a RangeError naming it, and nothing changes.
   */
  setMorphWeights(id: InstanceId, weights: MorphWeights | null): void {
    this.morphOf().set(id, weights);
  }

  /** Overrides one morph target's weight (name, "mesh/target" or index; null: animated again). Allocation-free. */
  setMorphWeight(id: InstanceId, target: string | number, weight: number | null): void {
    this.morphOf().setOne(id, target, weight);
  }

  /** An instance's morph weight overrides in Character.morphTargets order, NaN where its clips set the weight, into `out`. */
  getMorphWeights(id: InstanceId, out: Float32Array = new Float32Array(this.character.morphTargets.length)): Float32Array {
    return this.morphOf().get(id, out);
  }

  /** Places an instance at (x, y, z) turned `yaw` radians about +y (0 faces +z), uniformly scaled. Allocation-free. */
  setPlacement(id: InstanceId, x: number, y: number, z: number, yaw: number, scale = 1): void {
    const slot = this.store.slot(id);
    this.store.records.setPlacement(slot, x, y, z, yaw, scale);
    if (this.rootMotion?.moves(id)) this.rootMotion.place(id, slot, this.store.records.getWorld(slot, this.placed), this.clockSeconds);
  }

  /** The instance's animation now, clips as indices and times wrapped into their clips. */
  getAnimation(id: InstanceId): InstanceAnimation {
    return this.store.records.getAnimation(this.store.slot(id), this.clockSeconds);
  }

  /**
   * Sets the events of `clip` (a name or an index): named times in seconds, each in [0, the
   * clip's duration]; an empty array removes them. Every instance whose playback of the clip
   * crosses an event's time fires it to the onEvent listeners (rules: README "Clip events").
   * Validated first: a bad entry throws an error naming it (`events of clip "Walk"[1].time 1.7
   * is outside the clip (0 to 1.0667 s)`) and every table stays as it was. O(instances).
   */
  setClipEvents(clip: string | number, events: readonly ClipEvent[]): void {
    this.events.setClipEvents(clip, events);
  }

  /** The events of `clip` (a name or an index) in time order (a copy). */
  clipEvents(clip: string | number): ClipEvent[] {
    return this.events.tables.get(this.character.clipIndex(clip));
  }

  /**
   * Calls `listener(id, name, clip, time)` for every event an instance's playback crosses
   * (clip by name, time the event's time in the clip, seconds), from update(): in crossing-time
   * order within the frame, ties by instance id. Returns the function that removes it.
   */
  onEvent(listener: ClipEventListener): () => void {
    return this.events.onEvent(listener);
  }

  /**
   * Weight a clip needs at a crossing for its events to fire, in (0, 1] (default 0.5: a
   * crossfade hands the events over at its middle). Which weight: README "Clip events".
   */
  get eventWeightThreshold(): number {
    return this.events.threshold;
  }

  /** Sets the weight threshold (in (0, 1]; reschedules every instance, O(instances)). */
  set eventWeightThreshold(value: number) {
    this.events.threshold = value;
  }

  /** @internal The clip-event scheduler, for CrowdControllers. */
  get clipEventScheduler(): CrowdEvents {
    return this.events;
  }

  /**
   * Advances the clock by dt seconds (animations play at their speeds) and uploads the
   * instance records changed since the last update, in one writeBuffer per buffer; then fires
   * the clip events crossed in the step (onEvent). A negative dt fires none.
   */
  update(dt: number): void {
    if (!Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds, got ${show(dt)}`);
    this.clockSeconds += dt;
    if (Math.abs(this.clockSeconds) > CLOCK_REBASE_SECONDS) {
      this.store.rebase(this.clockSeconds);
      for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].rebase?.(this.clockSeconds);
      this.clockSeconds = 0;
    }
    this.uploaded = this.store.upload(this.device.queue);
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].prepare(this.clockSeconds);
    if (this.rootMotion) this.uploaded += this.rootMotion.uploadedBytes;
    // Last, so that a listener that throws leaves the frame's uploads done (its remaining events fire next update).
    this.events.advance(dt, this.clockSeconds);
  }

  /**
   * Records the frame's compute work (call after update, before the render pass that draws):
   * with a camera set (setCamera), the cull pass (visibility, LOD, animation LOD), then the pose
   * pass for the instances it listed; without one, the pose pass for every instance.
   * `timestampWrites` measures both passes together (the first's beginning, the last's end).
   */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (typeof encoder?.beginComputePass !== 'function') throw new TypeError(`encoder must be a GPUCommandEncoder, got ${show(encoder)}`);
    // Passes added by CrowdControllers (the control pass) write the records the cull and pose passes read.
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].encode(encoder);
    if (this.morphPass) {
      this.morphPass.update(this.store, this.morph!.store, this.clockSeconds);
      this.morphPass.encode(encoder);
    }
    this.culledFrame = this.cull.needed;
    const shadowPass = this.cull.shadows && this.culledFrame ? this.shadowPass : undefined;
    this.shadowedFrame = shadowPass !== undefined;
    if (this.culledFrame) {
      const frame = this.cull.fill();
      if (shadowPass) {
        const light = shadowPass.lightViewProjection;
        fitLight(this.cull.cameraViewProjection, frame.cameraPosition, LIGHT_DIRECTION, this.shadow.distance, this.shadow.reach, light);
        frustumPlanes(light, frame.lightPlanes);
        shadowPass.update(light);
        if (this.shadowGeneration !== this.store.generation) {
          shadowPass.bind(this.store, this.morph?.store.weightBuffer);
          this.shadowGeneration = this.store.generation;
        }
      }
      this.cullPass.update(this.store, frame);
      this.posePass.update(this.store, this.clockSeconds, this.cullPass);
      const [first, last] = this.splitTimestamps(timestampWrites);
      this.cullPass.encode(encoder, first);
      this.stats.encode(encoder);
      this.posePass.encode(encoder, last);
      shadowPass?.encode(encoder, this.cullPass);
    } else {
      this.posePass.update(this.store, this.clockSeconds);
      this.posePass.encode(encoder, timestampWrites);
    }
    this.props.encode(encoder, this.store, this.culledFrame ? this.cullPass.counters : undefined, this.mesh.levels);
  }

  /**
   * Records the draws of every instance into the caller's render pass, one per mesh primitive.
   * `viewProjection` (column-major 4x4, world to clip space) is written to a uniform buffer, so
   * one crowd draws with one camera per submitted frame.
   */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    if (typeof pass?.drawIndexed !== 'function') throw new TypeError(`pass must be a GPURenderPassEncoder, got ${show(pass)}`);
    checkNumbers(viewProjection, 16, 'viewProjection');
    if (this.skinGeneration !== this.store.generation) {
      this.skinPass.bind(this.store, this.morph?.store.weightBuffer);
      this.skinGeneration = this.store.generation;
    }
    const shadowPass = this.shadowedFrame ? this.shadowPass : undefined;
    this.skinPass.setShadowMap(shadowPass?.view, shadowPass?.lightViewProjection, shadowPass?.mapSize, this.shadow.strength);
    this.skinPass.update(viewProjection);
    if (this.culledFrame) this.skinPass.drawIndirect(pass, this.cullPass);
    else this.skinPass.draw(pass, this.store.count);
    this.props.draw(pass, viewProjection, shadowPass, this.shadow.strength);
  }

  /** Frees the crowd's GPU buffers and pipelines; the crowd cannot be used afterwards. The device stays the caller's. */
  destroy(): void {
    this.destroyPasses();
    this.rootMotion?.destroy();
    this.store.destroy();
  }

  /** Creates the mesh buffers and the passes on `device` (constructor and restore); on a failure (a device limit) destroys those it made and throws. */
  private createPasses(device: GPUDevice): void {
    const { gpu, rig, textures, animationBounds: bounds } = this.character;
    const options = this.options;
    const made: { destroy(): void }[] = [];
    const own = <T extends { destroy(): void }>(object: T): T => {
      made.push(object);
      return object;
    };
    try {
      const morph = this.character.baked.morph;
      this.mesh = own(new MeshBuffers(device, rig.primitives, gpu.skinSlotOffset, this.character.lods?.indices, morph));
      this.posePass = own(new PosePass(device, gpu, { skinning: this.skinningMethod }));
      this.morphPass = morph && own(new MorphPass(device, this.character.baked, gpu.nodeCount));
      this.skinPass = own(new SkinPass(device, this.mesh, gpu.slotCount, textures, { ...options, skinning: this.skinningMethod }));
      const authored = options.cullBounds === 'authored';
      this.cullPass = own(new CullPass(device, {
        primitives: this.mesh.primitives.length, levels: this.mesh.levels, lodRanges: this.mesh.lodRanges(),
        box: authored ? bounds.box : bounds.reach, layeredBox: authored ? bounds.box : bounds.reachLayered,
      }));
      this.stats = own(new CullStatsReader(device, this.cullPass.counters, this.mesh.levels, this.mesh.indicesPerInstance()));
      if (this.shadowMapSize !== undefined) this.shadowPass = own(new ShadowPass(device, this.skinPass, this.mesh, { mapSize: this.shadowMapSize }));
      own(this.props).create(device, this.skinningMethod);
    } catch (error) {
      for (let i = made.length - 1; i >= 0; i--) made[i].destroy();
      throw error;
    }
  }

  /** Frees what createPasses made (a no-op for objects of a lost device). */
  private destroyPasses(): void {
    this.posePass.destroy();
    this.morphPass?.destroy();
    this.skinPass.destroy();
    this.cullPass.destroy();
    this.shadowPass?.destroy();
    this.stats.destroy();
    this.mesh.destroy();
    this.props.destroy();
  }

  private applyOptions(options: CrowdOptions): void {
    const { culling, lod, animationLod, maxDistance, cullBounds } = options;
    if (cullBounds !== undefined && cullBounds !== 'reach' && cullBounds !== 'authored') throw new RangeError(`cullBounds must be 'reach' or 'authored', got ${show(cullBounds)}`);
    if (culling !== undefined) {
      checkBoolean(culling, 'culling');
      this.cull.culling = culling;
    }
    if (maxDistance !== undefined) this.cull.setMaxDistance(maxDistance);
    if (lod !== undefined) {
      checkSwitch(lod, 'lod', '{ pixelError }');
      this.cull.lod = lod !== false;
      if (typeof lod === 'object' && lod.pixelError !== undefined) this.cull.setPixelError(lod.pixelError);
    }
    if (animationLod !== undefined) {
      checkSwitch(animationLod, 'animationLod', '{ every2ndBelow, every4thBelow }');
      this.cull.animationLod = animationLod !== false;
      if (typeof animationLod === 'object') {
        this.cull.setAnimationThresholds(animationLod.every2ndBelow ?? this.cull.every2ndBelow, animationLod.every4thBelow ?? this.cull.every4thBelow);
      }
    }
  }

  /** Checks CrowdOptions.shadows (given and not false) and keeps its distances and strength; returns the map size to make. */
  private applyShadowOptions(shadows: true | ShadowOptions, height: number): { mapSize: number } {
    checkSwitch(shadows, 'shadows', '{ mapSize, distance, reach, strength }');
    const o = shadows === true ? {} : shadows;
    this.shadow.distance = checkPositive(o.distance ?? 20 * height, 'shadows.distance');
    this.shadow.reach = checkPositive(o.reach ?? 2 * height, 'shadows.reach');
    const strength = o.strength ?? 1;
    if (typeof strength !== 'number' || !(strength >= 0 && strength <= 1)) throw new RangeError(`shadows.strength must be in [0, 1], got ${show(o.strength)}`);
    this.shadow.strength = strength;
    const mapSize = o.mapSize ?? 2048;
    const largest = this.device.limits.maxTextureDimension2D;
    if (!Number.isInteger(mapSize) || mapSize < 1 || mapSize > largest) throw new RangeError(`shadows.mapSize must be an integer in [1, ${largest}], got ${show(o.mapSize)}`);
    return { mapSize };
  }

  /** The caller's timestamp writes as (beginning on the cull pass, end on the pose pass), kept in two reused objects. */
  private splitTimestamps(writes: GPUComputePassTimestampWrites | undefined): [GPUComputePassTimestampWrites | undefined, GPUComputePassTimestampWrites | undefined] {
    if (!writes) return [undefined, undefined];
    this.cullTimestamps.querySet = this.poseTimestamps.querySet = writes.querySet;
    this.cullTimestamps.beginningOfPassWriteIndex = writes.beginningOfPassWriteIndex;
    this.poseTimestamps.endOfPassWriteIndex = writes.endOfPassWriteIndex;
    return [
      writes.beginningOfPassWriteIndex === undefined ? undefined : this.cullTimestamps,
      writes.endOfPassWriteIndex === undefined ? undefined : this.poseTimestamps,
    ];
  }

  private morphOf(): CrowdMorph {
    if (!this.morph) throw new RangeError(`${this.character.name} has no morph targets`);
    return this.morph;
  }

  private resolve(state: Omit<AnimationState, 'clipA' | 'clipB'> & { clipA: string | number; clipB: string | number }): InstanceAnimation {
    return { ...state, clipA: this.clip(state.clipA, 'clipA'), clipB: this.clip(state.clipB, 'clipB') };
  }

  /** Clip index of a name or index given as `field`; a RangeError starting with the field otherwise. */
  private clip(clip: string | number, field: string): number {
    try {
      return this.character.clipIndex(clip);
    } catch (error) {
      throw new RangeError(`${field}: ${(error as Error).message}`);
    }
  }
}

/** The fields each input object may have: any other is refused (a misspelt field would otherwise be ignored). */
const ANIMATION_FIELDS = ['clipA', 'clipB', 'timeA', 'timeB', 'speedA', 'speedB', 'blend'] as const;
const INIT_FIELDS = [...ANIMATION_FIELDS, 'transform'] as const;

/** Throws a TypeError naming `what` (and its expected shape) unless `value` is an object that is not an array. */
function checkObject(value: unknown, what: string, shape: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${what} must be an object ${shape}, got ${show(value)}`);
}

/** Throws a RangeError naming the first own field of `value` that is not in `fields`. */
function checkFields(value: object, fields: readonly string[], where: string): void {
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key) && !fields.includes(key)) {
      throw new RangeError(`${where}: unknown field ${JSON.stringify(key)} (fields: ${fields.join(', ')})`);
    }
  }
}

function checkBoolean(value: unknown, what: string): void {
  if (typeof value !== 'boolean') throw new TypeError(`${what} must be true or false, got ${show(value)}`);
}

/** Throws a TypeError naming `what` unless `value` is true, false or an object of settings. */
function checkSwitch(value: unknown, what: string, shape: string): void {
  if (typeof value !== 'boolean' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new TypeError(`${what} must be true, false or ${shape}, got ${show(value)}`);
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function checkPositive(value: number, what: string): number {
  if (typeof value !== 'number' || !(value > 0)) throw new RangeError(`${what} must be a positive number of world units, got ${show(value)}`);
  return value;
}

/** Height (y extent) of a box (min x, y, z, max x, y, z); its largest extent when that is larger than twice the height. */
function boxHeight(box: ArrayLike<number>): number {
  return Math.max(box[4] - box[1], (Math.max(box[3] - box[0], box[5] - box[2])) / 2);
}
