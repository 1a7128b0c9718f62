import { buildMask, type MaskSpec } from './anim/masks';
import type { Character } from './character';
import type {
  AdditiveLayerInit, AnimationState, CameraOptions, CrowdOptions, CullStats, InstanceId, InstanceInit, LayerInit, LayersInit, MaskId,
} from './crowd-types';
import { CrowdMorph, type MorphWeights } from './crowd-morph';
import { CullPass } from './gpu/cull-pass';
import { CullSettings } from './gpu/cull-settings';
import { CullStatsReader } from './gpu/cull-stats';
import { MeshBuffers } from './gpu/mesh-buffers';
import { frustumPlanes } from './gpu/cull-math';
import { fitLight, ShadowPass } from './gpu/shadow-pass';
import type { InstanceAnimation } from './gpu/instance-records';
import { InstanceStore } from './gpu/instance-store';
import type { GpuAdditiveLayer, GpuLayer, LayerStackArrays } from './gpu/layer-records';
import { LAYERS_NONE, MASK_NONE } from './gpu/layout';
import { MorphPass } from './gpu/morph-pass';
import { PosePass } from './gpu/pose-pass';
import { checkFinite } from './gpu/record-buffer';
import { LIGHT_DIRECTION, SkinPass } from './gpu/skin-pass';
import { IDENTITY_MATRIX } from './math/affine';

export type * from './crowd-types';
export type { MorphWeights } from './crowd-morph';

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
}

/** The GPU clock restarts from 0 past this many seconds, keeping float32 time precise. */
const CLOCK_REBASE_SECONDS = 600;

/**
 * Every instance of one Character on one device: a facade that resolves clip names and
 * validates, over an InstanceStore (records, stacks, masks, buffers, growth, handle <-> slot:
 * src/gpu/instance-store.ts) and the passes that read from it: cull, pose, skin. Per frame:
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
  private readonly cull: CullSettings;
  private readonly options: CrowdOptions;
  private readonly shadow = { distance: 0, reach: 0, strength: 1 };
  /** Whether the last encode drew the shadow map. */
  private shadowedFrame = false;
  /** Store generation the shadow pass is bound to (-1: never). */
  private shadowGeneration = -1;
  /** Store generation the skin pass is bound to (-1: never). */
  private skinGeneration = -1;
  private clockSeconds = 0;
  private readonly prepasses: CrowdPrepass[] = [];
  private uploaded = 0;
  /** Whether the last encode ran the cull pass (so draw() draws through its lists). */
  private culledFrame = false;
  /** The caller's timestamp writes split over the cull pass (beginning) and the pose pass (end). */
  private readonly cullTimestamps: GPUComputePassTimestampWrites = { querySet: undefined as unknown as GPUQuerySet };
  private readonly poseTimestamps: GPUComputePassTimestampWrites = { querySet: undefined as unknown as GPUQuerySet };

  /**
   * Creates the crowd's pipelines and buffers on `device` (the crowd owns them: destroy() frees
   * them). Throws a RangeError naming the device limit when the character needs more than it has.
   *
   * @param device The GPUDevice the crowd creates its resources on and draws with (not owned).
   * @param character The loaded character every instance shows (not copied; share it between crowds).
   */
  constructor(device: GPUDevice, readonly character: Character, options: CrowdOptions) {
    const { gpu, animationBounds } = character;
    this.gpuDevice = device;
    this.options = options;
    const levelErrors = character.lods?.errors ?? [0];
    this.cull = new CullSettings(levelErrors, boxHeight(animationBounds.reach));
    this.applyOptions(options);
    if (options.shadows) {
      const o = options.shadows === true ? {} : options.shadows;
      const height = boxHeight(animationBounds.reach);
      this.shadow.distance = checkPositive(o.distance ?? 20 * height, 'shadows.distance');
      this.shadow.reach = checkPositive(o.reach ?? 2 * height, 'shadows.reach');
      this.shadow.strength = o.strength ?? 1;
      if (!(this.shadow.strength >= 0 && this.shadow.strength <= 1)) throw new RangeError(`shadows.strength must be in [0, 1], got ${o.strength}`);
      this.cull.shadows = true;
    }
    this.store = new InstanceStore(device, {
      nodeCount: gpu.nodeCount, slotCount: gpu.slotCount, clipDurations: character.clipDurations, capacity: options.capacity ?? 1024, label: 'Crowd',
      lodLevels: levelErrors.length,
    });
    this.morph = character.baked.morph && new CrowdMorph(character, this.store, device);
    this.createPasses(device);
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
    this.destroyPasses();
    this.gpuDevice = device;
    this.store.restore(device);
    this.createPasses(device);
    this.skinGeneration = this.shadowGeneration = -1;
    this.culledFrame = this.shadowedFrame = false;
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].restore(device);
  }

  /** Whether the shadow map is drawn and sampled (needs CrowdOptions.shadows and a camera). */
  get shadows(): boolean {
    return this.cull.shadows;
  }

  /** Turns the shadow map on or off (it needs CrowdOptions.shadows to have been given). */
  set shadows(on: boolean) {
    if (on === true && !this.shadowPass) throw new Error('this crowd was created without shadows (CrowdOptions.shadows)');
    this.cull.shadows = on === true;
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
    this.cull.culling = on === true;
  }

  /** Whether mesh LOD levels are chosen by distance once a camera is set (CrowdOptions.lod). */
  get lod(): boolean {
    return this.cull.lod;
  }

  /** Turns mesh LOD on or off. */
  set lod(on: boolean) {
    this.cull.lod = on === true;
  }

  /** Whether far instances are posed every 2nd / 4th frame once a camera is set (CrowdOptions.animationLod). */
  get animationLod(): boolean {
    return this.cull.animationLod;
  }

  /** Turns animation LOD on or off. */
  set animationLod(on: boolean) {
    this.cull.animationLod = on === true;
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
    this.cull.setCamera(viewProjection, position, options.viewportHeight);
  }

  /** Forgets the camera (see setCamera). */
  clearCamera(): void {
    this.cull.clearCamera();
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

  /** Bytes the last update() wrote into the crowd's GPU buffers (records, stacks, masks, handle slots). */
  get uploadedBytes(): number {
    return this.uploaded;
  }

  /** Crowd clock in seconds since the last rebase (advanced by update). */
  get clock(): number {
    return this.clockSeconds;
  }

  /** Draw calls that draw() records: one per mesh primitive, times the LOD levels once a camera is set (indirect draws). */
  get drawCallCount(): number {
    return this.skinPass.drawCount * (this.cull.needed ? this.mesh.levels : 1);
  }

  /** Joint matrices per instance. */
  get jointsPerInstance(): number {
    return this.character.gpu.slotCount;
  }

  /**
   * Where instance `id`'s joint matrices start in `jointMatrices`, in matrices (each 3 vec4f
   * rows, 48 bytes). Valid until the next add, remove, setLayers or setStack, which may move instances.
   */
  jointMatrixIndex(id: InstanceId): number {
    return this.store.slot(id) * this.character.gpu.slotCount;
  }

  /**
   * The joint-matrix buffer (3 vec4f rows per joint, see src/gpu/layout.ts), in model space (the
   * instance's transform is applied when drawing); owned by the crowd, replaced when it grows.
   * With a camera set, instances culled or skipped by animation LOD keep their last matrices.
   */
  get jointMatrices(): GPUBuffer {
    return this.store.jointBuffer;
  }

  /** Adds an instance; unspecified fields default to clip 0, time 0, speed 1, blend 0. */
  add(init: InstanceInit = {}): InstanceId {
    const { transform, ...animation } = init;
    const resolved = this.resolve({
      clipA: 0, clipB: animation.clipA ?? 0, timeA: 0, timeB: 0, speedA: 1, speedB: 1, blend: 0, ...stripUndefined(animation),
    });
    const handle = this.store.add();
    try {
      const slot = this.store.slot(handle);
      this.store.records.setWorld(slot, transform ?? IDENTITY_MATRIX);
      this.store.records.setAnimation(slot, resolved, this.clockSeconds);
    } catch (error) {
      this.store.remove(handle);
      throw error;
    }
    return handle;
  }

  /** Removes an instance; its id may be reused by a later add. */
  remove(id: InstanceId): void {
    this.store.remove(id);
  }

  /** Removes every instance. */
  clear(): void {
    this.store.clear();
  }

  /** The instance's model-to-world transform (16 numbers, column-major) into `out`. */
  getTransform(id: InstanceId, out: Float32Array = new Float32Array(16)): Float32Array {
    return this.store.records.getWorld(this.store.slot(id), out);
  }

  /** Sets an instance's model-to-world transform: 16 numbers, column-major. */
  setTransform(id: InstanceId, transform: ArrayLike<number>): void {
    this.store.records.setWorld(this.store.slot(id), transform);
  }

  /** Changes any subset of an instance's animation; the rest keeps playing as it was. */
  setAnimation(id: InstanceId, change: Partial<AnimationState>): void {
    const slot = this.store.slot(id);
    const current = this.store.records.getAnimation(slot, this.clockSeconds);
    this.store.records.setAnimation(slot, this.resolve({ ...current, ...stripUndefined(change) }), this.clockSeconds);
  }

  /** Sets the weight of clip B in [0, 1]; cheaper than setAnimation and allocation-free, for per-frame fades. */
  setBlend(id: InstanceId, blend: number): void {
    this.store.records.setBlend(this.store.slot(id), blend);
  }

  /**
   * Makes a blend mask shared by any instance's layers: `{ root: 'Spine' }` (that joint and all
   * below it) or `{ weights: { Head: 1 }, default: 0 }`. Masks are kept for the crowd's life.
   */
  createMask(spec: MaskSpec): MaskId {
    return this.store.masks.add(buildMask(this.character.rig.nodes, spec));
  }

  /**
   * Gives an instance layers on top of its clip A / clip B blend (null removes them). The stack
   * is replaced whole; times are the layers' times now.
   */
  setLayers(id: InstanceId, init: LayersInit | null): void {
    this.store.slot(id);
    if (init === null) {
      this.store.makePlain(id);
      return;
    }
    const layer = (l: LayerInit): GpuLayer => ({
      clip: this.character.clipIndex(l.clip), time: l.time ?? 0, speed: l.speed ?? 1, weight: l.weight, mask: l.mask ?? MASK_NONE,
    });
    const additive = (l: AdditiveLayerInit): GpuAdditiveLayer => {
      const resolved = layer(l);
      const ref = l.reference;
      if (this.character.baked.clipIsDifference[resolved.clip]) {
        if (ref !== undefined) throw new TypeError(`clip ${JSON.stringify(l.clip)} is a difference clip (it already subtracts its reference): give it no reference`);
        return { ...resolved, reference: 'identity' };
      }
      if (ref !== 'rest' && (typeof ref !== 'object' || ref === null)) throw new TypeError(`additive layer reference must be 'rest' or { clip, time }`);
      return { ...resolved, reference: ref === 'rest' ? 'rest' : { clip: this.character.clipIndex(ref.clip), time: ref.time ?? 0, speed: ref.speed ?? 0 } };
    };
    const stack = { layers: list(init.layers, 'layers').map(layer), additive: list(init.additive, 'additive').map(additive) };
    this.store.stacks.validate(stack);
    this.store.stacks.set(this.store.makeLayered(id), stack, this.clockSeconds);
  }

  /** Sets one layer's weight (allocation-free, for per-frame fades). */
  setLayerWeight(id: InstanceId, index: number, weight: number, kind: 'override' | 'additive' = 'override'): void {
    const stack = this.store.stackOf(id);
    if (stack === LAYERS_NONE) throw new RangeError(`instance ${id} has no layers (setLayers first)`);
    this.store.stacks.setWeight(stack, kind === 'additive', index, weight);
  }

  /**
   * Replaces an instance's clips and layers with an override-only stack in arrays, the form an
   * animation controller produces each frame (see CrowdControllers, and StackOutput in
   * src/anim/control/output.ts): the base clip, then stack.layerCount override layers. Mask
   * values index `maskIds` (crowd mask ids from createMask) when given, else are mask ids; -1
   * means none. Times hold `ahead` seconds after the current clock (CrowdControllers passes the
   * dt of the update that follows). Allocation-free; everything is checked before anything changes.
   */
  setStack(id: InstanceId, stack: LayerStackArrays, maskIds?: ArrayLike<MaskId>, ahead = 0): void {
    this.store.slot(id);
    checkFinite(stack.baseTime, 'baseTime');
    checkFinite(stack.baseSpeed, 'baseSpeed');
    checkFinite(ahead, 'ahead');
    this.store.stacks.checkArrays(stack, maskIds);
    this.store.records.checkClipIndex(stack.baseClip, 'baseClip');
    const clock = this.clockSeconds + ahead;
    if (stack.layerCount === 0) {
      this.store.makePlain(id);
    } else {
      this.store.stacks.setArrays(this.store.makeLayered(id), stack, maskIds, clock);
    }
    this.store.records.setSingleClip(this.store.slot(id), stack.baseClip, stack.baseTime, stack.baseSpeed, clock);
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
    this.store.records.setPlacement(this.store.slot(id), x, y, z, yaw, scale);
  }

  /** The instance's animation now, clips as indices and times wrapped into their clips. */
  getAnimation(id: InstanceId): InstanceAnimation {
    return this.store.records.getAnimation(this.store.slot(id), this.clockSeconds);
  }

  /**
   * Advances the clock by dt seconds (animations play at their speeds) and uploads the
   * instance records changed since the last update, in one writeBuffer per buffer.
   */
  update(dt: number): void {
    if (!Number.isFinite(dt)) throw new RangeError(`dt must be a finite number of seconds, got ${dt}`);
    this.clockSeconds += dt;
    if (Math.abs(this.clockSeconds) > CLOCK_REBASE_SECONDS) {
      this.store.rebase(this.clockSeconds);
      this.clockSeconds = 0;
    }
    this.uploaded = this.store.upload(this.device.queue);
    for (let i = 0; i < this.prepasses.length; i++) this.prepasses[i].prepare(this.clockSeconds);
  }

  /**
   * Records the frame's compute work (call after update, before the render pass that draws):
   * with a camera set (setCamera), the cull pass (visibility, LOD, animation LOD), then the pose
   * pass for the instances it listed; without one, the pose pass for every instance.
   * `timestampWrites` measures both passes together (the first's beginning, the last's end).
   */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
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
  }

  /**
   * Records the draws of every instance into the caller's render pass, one per mesh primitive.
   * `viewProjection` (column-major 4x4, world to clip space) is written to a uniform buffer, so
   * one crowd draws with one camera per submitted frame.
   */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    if (this.skinGeneration !== this.store.generation) {
      this.skinPass.bind(this.store, this.morph?.store.weightBuffer);
      this.skinGeneration = this.store.generation;
    }
    const shadowPass = this.shadowedFrame ? this.shadowPass : undefined;
    this.skinPass.setShadowMap(shadowPass?.view, shadowPass?.lightViewProjection, shadowPass?.mapSize, this.shadow.strength);
    this.skinPass.update(viewProjection);
    if (this.culledFrame) this.skinPass.drawIndirect(pass, this.cullPass);
    else this.skinPass.draw(pass, this.store.count);
  }

  /** Frees the crowd's GPU buffers and pipelines; the crowd cannot be used afterwards. The device stays the caller's. */
  destroy(): void {
    this.destroyPasses();
    this.store.destroy();
  }

  /** Creates the mesh buffers and the passes on `device` (constructor and restore). */
  private createPasses(device: GPUDevice): void {
    const { gpu, rig, textures, animationBounds: bounds } = this.character;
    const options = this.options;
    const morph = this.character.baked.morph;
    this.mesh = new MeshBuffers(device, rig.primitives, gpu.skinSlotOffset, this.character.lods?.indices, morph);
    this.posePass = new PosePass(device, gpu);
    this.morphPass = morph && new MorphPass(device, this.character.baked, gpu.nodeCount);
    this.skinPass = new SkinPass(device, this.mesh, gpu.slotCount, textures, options);
    const authored = options.cullBounds === 'authored';
    this.cullPass = new CullPass(device, {
      primitives: this.mesh.primitives.length, levels: this.mesh.levels, lodRanges: this.mesh.lodRanges(),
      box: authored ? bounds.box : bounds.reach, layeredBox: authored ? bounds.box : bounds.reachLayered,
    });
    this.stats = new CullStatsReader(device, this.cullPass.counters, this.mesh.levels, this.mesh.indicesPerInstance());
    if (options.shadows) {
      const mapSize = options.shadows === true ? undefined : options.shadows.mapSize;
      this.shadowPass = new ShadowPass(device, this.skinPass, this.mesh, { mapSize });
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
  }

  private applyOptions(options: CrowdOptions): void {
    const { culling, lod, animationLod, maxDistance, cullBounds } = options;
    if (cullBounds !== undefined && cullBounds !== 'reach' && cullBounds !== 'authored') throw new RangeError(`cullBounds must be 'reach' or 'authored', got ${JSON.stringify(cullBounds)}`);
    if (culling !== undefined) this.cull.culling = culling === true;
    if (maxDistance !== undefined) this.cull.setMaxDistance(maxDistance);
    if (lod !== undefined) {
      this.cull.lod = lod !== false;
      if (typeof lod === 'object' && lod.pixelError !== undefined) this.cull.setPixelError(lod.pixelError);
    }
    if (animationLod !== undefined) {
      this.cull.animationLod = animationLod !== false;
      if (typeof animationLod === 'object') {
        this.cull.setAnimationThresholds(animationLod.every2ndBelow ?? this.cull.every2ndBelow, animationLod.every4thBelow ?? this.cull.every4thBelow);
      }
    }
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
    return { ...state, clipA: this.character.clipIndex(state.clipA), clipB: this.character.clipIndex(state.clipB) };
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `value` as an array (undefined: empty); a TypeError naming `field` otherwise. */
function list<T>(value: T[] | undefined, field: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${field} must be an array, got ${value === null ? 'null' : typeof value}`);
  return value;
}

function checkPositive(value: number, what: string): number {
  if (!(value > 0)) throw new RangeError(`${what} must be a positive number of world units, got ${value}`);
  return value;
}

/** Height (y extent) of a box (min x, y, z, max x, y, z); its largest extent when that is larger than twice the height. */
function boxHeight(box: ArrayLike<number>): number {
  return Math.max(box[4] - box[1], (Math.max(box[3] - box[0], box[5] - box[2])) / 2);
}
