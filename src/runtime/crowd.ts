import type { Character } from '../character/character';
import { show } from '../math/show';
import type { CrowdOptions, CrowdTargetFormats, InstanceId, PaletteState } from './crowd-types';
import { Visibility } from './culling/visibility';
import { type CrowdFeature, type CrowdKernel, type EncodedFrame } from './feature';
import { checkObject, checkTargetOptions } from './input';
import { InstanceStore } from './instance-store';
import { checkSkinning, JOINT_BYTES, type SkinningMethod } from './layout';
import { KernelPasses } from './passes';
import { checkNumbers } from './record-buffer';
import { CrowdCamera } from './culling/crowd-camera';

export type * from './crowd-types';

/**
 * Every instance of one Character on one device: the kernel of crowd-skin (docs/architecture.md).
 * It resolves clip names and validates, over an InstanceStore (records, stacks, masks, buffers,
 * growth, handle <-> slot), and runs the frame: the cull pass (with a camera), the pose pass, the
 * skin pass. Optional parts (props, morph targets, root motion, clip events, controllers:
 * src/features/) are objects made from the crowd (`new CrowdProps(crowd)`) that install
 * themselves and are called through the CrowdFeature hooks only. Per frame: update(dt),
 * setCamera(viewProjection, position) (optional), encode(encoder), draw(pass, vp); nothing in that
 * loop allocates, and records are uploaded only when they change. A refused call throws an error
 * naming the input (`no clip "Jog" in Fox.glb (clips: ...)`, `blend must be in [0, 1], got 1.5`)
 * and leaves the crowd as it was. Its instance methods (add, setAnimation, setLayers, ...) are
 * CrowdInstances' (crowd-instances.ts), one copy shared with the WebGL 2 backend's GLCrowd; its
 * camera side is in culling/crowd-camera.ts, the deprecated per-feature methods in legacy.ts.
 *
 * @example
 * ```ts
 * const crowd = new Crowd(device, character, { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' });
 * const id = crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.3, timeA: 0.2, transform });
 * crowd.setBlend(id, 0.8);                   // allocation-free, for per-frame fades
 * // each frame (dt in seconds):
 * crowd.update(dt);
 * const encoder = device.createCommandEncoder();
 * crowd.encode(encoder);                     // the features' passes, the cull and pose passes
 * const pass = encoder.beginRenderPass(yourPassDescriptor);
 * crowd.draw(pass, viewProjection);          // one draw per primitive (and LOD level)
 * pass.end();
 * device.queue.submit([encoder.finish()]);
 * ```
 */
export class Crowd extends CrowdCamera {
  private gpuDevice: GPUDevice;
  protected readonly passes: KernelPasses;
  protected readonly store: InstanceStore;
  protected readonly view: Visibility;
  private readonly options: CrowdOptions;
  /** What the pose pass writes and the skin pass blends (CrowdOptions.skinning). */
  private skinningMethod: SkinningMethod;
  private uploaded = 0;
  private readonly kernel: CrowdKernel;
  private readonly frame: { -readonly [K in keyof EncodedFrame]: EncodedFrame[K] } = { cullCounters: undefined, levels: 1, drawArgs: undefined, routed: undefined };

  /**
   * Creates the crowd's pipelines and buffers on `device` (the crowd owns them: destroy() frees
   * them). Throws a RangeError naming the device limit when the character needs more than it has.
   *
   * @param device The GPUDevice the crowd creates its resources on and draws with (not owned).
   * @param character The loaded character every instance shows (not copied; share it between crowds).
   */
  constructor(device: GPUDevice, readonly character: Character, options: CrowdOptions) {
    super();
    checkObject(options, 'options', '{ colorFormat, depthFormat, capacity, ... } (CrowdOptions)');
    const { gpu } = character;
    this.gpuDevice = device;
    this.options = options;
    this.skinningMethod = checkSkinning(options.skinning);
    // Every option is checked before the first GPU object is made, and a failure while making
    // them (a device limit) destroys those already made: a refused crowd leaves nothing behind.
    this.view = new Visibility(character, options, device.limits.maxTextureDimension2D);
    this.passes = new KernelPasses(character, options, this.view);
    const capacity = checkTargetOptions(options);
    this.store = new InstanceStore(device, {
      nodeCount: gpu.nodeCount, slotCount: gpu.slotCount, clipDurations: character.clipDurations, capacity, label: 'Crowd',
      lodLevels: character.lods?.errors.length ?? 1, bytesPerJoint: JOINT_BYTES[this.skinningMethod], paletteSize: options.paletteSize,
    });
    try {
      this.createPasses(device);
    } catch (error) {
      this.store.destroy();
      throw error;
    }
    const self = this;
    this.kernel = {
      get device() { return self.gpuDevice; }, backend: 'webgpu', get recordDevice() { return self.gpuDevice; },
      character, options, store: this.store,
      get clock() { return self.clockSeconds; }, get skinning() { return self.skinningMethod; },
      get locomotionDrive() { return self.features.locomotionDrive; }, feature: (name) => this.features.get(name),
      routeFar: (route) => this.view.routeFar(route),
      get lodSettings() { return self.view.settings; },
      rebuildPasses: () => {
        this.passes.destroy();
        this.createPasses(this.gpuDevice);
      },
      draws: { get mesh() { return self.passes.mesh; }, get skin() { return self.passes.skin; }, get vertexWeights() { return self.features.vertexWeights; }, get appearance() { return self.features.appearance; } },
    };
  }

  /**
   * Adds a feature to the crowd and returns the kernel's side for it (CrowdKernel). Features call
   * it from their constructors (`new CrowdProps(crowd)`); an application never needs to. From now
   * on the crowd calls the feature's hooks (CrowdFeature), after those installed before it; the
   * instances already in the crowd are the feature's to take up (CrowdKernel.store). A second
   * feature of the same name is refused.
   */
  install(feature: CrowdFeature): CrowdKernel {
    this.features.add(feature);
    return this.kernel;
  }

  /** Whether a feature named `name` is installed ('props', 'morph', 'root-motion', 'clip-events', 'controllers', ...). */
  hasFeature(name: string): boolean {
    return this.features.has(name);
  }

  /** Which backend draws: 'webgpu' (the WebGL 2 crowd's, GLCrowd's, is 'webgl2'). */
  get backend(): 'webgpu' { return 'webgpu'; }

  /** The device the crowd's GPU objects live on (replaced by restore). Not owned: the caller destroys it. */
  get device(): GPUDevice { return this.gpuDevice; }

  /**
   * Resolves when the crowd's device is lost, with WebGPU's reason and message (the device's own
   * `lost` promise: a crowd restored onto a new device answers for that one). The crowd keeps
   * every instance, clock, layer stack, mask and feature state on the CPU, and update() keeps
   * advancing them while the device is gone; call restore() with a new device.
   */
  get lost(): Promise<GPUDeviceLostInfo> { return this.gpuDevice.lost; }

  /**
   * Rebuilds every GPU object of the crowd and its features on `device` (a new device after the
   * old one was lost, or any other device) from the CPU-side data it kept. Every instance, its
   * animation, layers, masks and the crowd clock are as they were; the next encode() poses every
   * instance again. The device must offer the limits the crowd was created under
   * (requiredCrowdLimits). Example: docs/embedding.md, "When the GPU device is lost".
   */
  restore(device: GPUDevice): void {
    if (typeof (device as { createBuffer?: unknown } | null)?.createBuffer !== 'function') throw new TypeError(`restore needs a GPUDevice, got ${show(device)}`);
    this.passes.destroy();
    this.gpuDevice = device;
    this.store.restore(device);
    this.createPasses(device);
    this.features.restore(device);
    // Drawable at once, before the next update: every record, stack and mask goes up now.
    this.store.upload(device.queue);
  }

  /** How vertices are skinned: 'linear' or 'dual-quaternion' (CrowdOptions.skinning). */
  get skinning(): SkinningMethod { return this.skinningMethod; }

  /**
   * Changes how vertices are skinned. Not for every frame: the joint buffer is replaced (48 or 64
   * bytes per joint) and the pose, skin and shadow pipelines are re-created; every instance, its
   * animation and the clock stay, and the next encode() poses every instance again. A value other
   * than 'linear' or 'dual-quaternion' throws a RangeError and changes nothing.
   */
  set skinning(method: SkinningMethod) {
    const checked = checkSkinning(method, true);
    if (checked === this.skinningMethod) return;
    this.store.setBytesPerJoint(JOINT_BYTES[checked]);
    this.store.upload(this.gpuDevice.queue); // the records, into the buffers that replaced theirs
    this.skinningMethod = checked;
    this.passes.destroy();
    this.createPasses(this.gpuDevice);
  }

  /** The colour and depth formats and the sample count the crowd's draws are made for (CrowdOptions; sampleCount defaults to 1). */
  get targetFormats(): CrowdTargetFormats {
    const { colorFormat, depthFormat, sampleCount = 1 } = this.options;
    return { colorFormat, depthFormat, sampleCount };
  }

  /** Live instances. */
  get count(): number { return this.store.count; }

  /** Bytes the last update() wrote into GPU buffers (records, stacks, masks, handle slots, and the features' uploads), and the encode()s since (what changed between: records, stacks, masks, handle slots). */
  get uploadedBytes(): number { return this.uploaded; }

  /** Crowd clock in seconds since the last rebase (advanced by update). */
  get clock(): number { return this.clockSeconds; }

  /** Draw calls that draw() records: one per mesh primitive, times the LOD levels once a camera is set (indirect draws), plus the features' (one per primitive of each prop). */
  get drawCallCount(): number { return this.passes.skin.drawCount * (this.view.settings.needed ? this.passes.mesh.levels : 1) + this.features.drawCount; }

  /** Joint records per instance. */
  get jointsPerInstance(): number { return this.character.gpu.slotCount; }

  /** Where instance `id`'s joint records start in `jointMatrices`, in joints. Valid until the next add, remove or setLayers, which may move instances; refused while the palette is active (its joint set is chosen on the GPU each frame). */
  jointMatrixIndex(id: InstanceId): number {
    const slot = this.store.slotOfId(id), { palette } = this.store;
    if (palette.active) throw new RangeError(`instance ${id} has no fixed joint set: the crowd holds more instances than paletteSize (${palette.size}), so joint sets go to the drawn instances each frame`);
    return slot * this.character.gpu.slotCount;
  }

  /** The joint-matrix palette: `size` joint sets of their own, `active` once the crowd holds more instances than the budget (CrowdOptions.paletteSize, docs/palette.md). */
  get palette(): PaletteState { return this.store.palette; }

  /** Bytes of every GPU buffer the crowd and its features own for their instances: records, joints, lists, palette, features'; and of its material textures (docs/palette.md). */
  get gpuBytes(): number { return this.store.gpuBytes + this.view.gpuBytes + this.features.gpuBytes + this.passes.skin.textureBytes; }

  /** Bytes per joint record in `jointMatrices`: 48 with 'linear' skinning, 64 with 'dual-quaternion'. */
  get bytesPerJoint(): number { return JOINT_BYTES[this.skinningMethod]; }

  /**
   * The joint buffer, jointsPerInstance records per instance, in model space (the instance's
   * transform is applied when drawing); owned by the crowd, replaced when it grows and when
   * `skinning` changes. With 'linear' skinning each joint is its matrix model * inverseBind as 3
   * vec4f rows (48 bytes; the bottom row is 0 0 0 1). With 'dual-quaternion' each is 4 vec4f (64
   * bytes, JOINT_DQ in src/runtime/layout.ts): the unit quaternion q of the rotation, then the rows
   * of [S | t]. With a camera set, instances culled or skipped by animation LOD keep their last records. With an active palette it holds `palette.size` sets for the drawn instances, then the shared poses (docs/palette.md).
   */
  get jointMatrices(): GPUBuffer { return this.store.jointBuffer; }

  /**
   * Advances the clock by dt seconds (animations play at their speeds), uploads the instance
   * records changed since the last update (one writeBuffer per buffer) and the features' data;
   * then the features settle (clip events fire their listeners). A negative dt fires no event.
   */
  update(dt: number): void {
    this.advance(dt);
    this.uploaded = this.store.upload(this.device.queue) + this.features.prepare(this.clockSeconds);
    // Last, so that a listener that throws leaves the frame's uploads done.
    this.features.settle(dt, this.clockSeconds);
  }

  /**
   * Records the frame's compute work (call after update, before the render pass that draws): the
   * features' passes that write what posing reads (steering, controllers, root motion, morph weights), then
   * with a camera set (setCamera) the cull pass (visibility, LOD, animation LOD), the pose pass
   * for the instances it listed and the shadow map; without one, the pose pass for every
   * instance; then the features' passes that read the poses (props). `timestampWrites` measures
   * the cull and pose passes together; with `poseTimestampWrites` it measures the cull and palette passes, and that the pose pass.
   * Instances changed since update() (add, remove, setPlacement, ...) go up first, so the frame
   * draws the crowd as it is now: a remove moves the last instance into the hole, an add may
   * replace every buffer (docs/embedding.md, "The frame"). Encoding twice for one update (two
   * views) integrates nothing twice: the features' steps run once per update.
   */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites, poseTimestampWrites?: GPUComputePassTimestampWrites): void {
    if (typeof encoder?.beginComputePass !== 'function') throw new TypeError(`encoder must be a GPUCommandEncoder, got ${show(encoder)}`);
    // Nothing to write (a few comparisons) unless the crowd changed since update().
    this.uploaded += this.store.upload(this.gpuDevice.queue);
    const frame = this.frame;
    this.features.encode(encoder, 'drive', frame);
    this.features.encode(encoder, 'control', frame);
    this.features.encode(encoder, 'before-pose', frame);
    this.view.encode(encoder, this.store, this.passes.pose, this.clockSeconds, timestampWrites, this.features.vertexWeights, poseTimestampWrites);
    frame.cullCounters = this.view.counters;
    frame.drawArgs = this.view.drawArgs;
    frame.routed = this.view.routed;
    frame.levels = this.passes.mesh.levels;
    this.features.encode(encoder, 'after-pose', frame);
  }

  /**
   * Records the draws of every instance into the caller's render pass, one per mesh primitive,
   * then the features' draws (props). `viewProjection` (column-major 4x4, world to clip space) is
   * written to a uniform buffer, so one crowd draws with one camera per submitted frame.
   */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    this.prepareDraw(pass, viewProjection);
    this.view.draw(pass, this.passes.skin, this.store.count);
    this.features.draw(pass, viewProjection, this.view.frameShadow);
  }

  /**
   * @internal The features' draws alone (impostors), with the skin pass's camera, lights and
   * shadow set as draw() sets them: for a crowd whose meshes another renderer draws from its
   * lists (crowd-skin/three's shading 'three'), after that renderer's pass.
   */
  drawFeatures(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    this.prepareDraw(pass, viewProjection);
    this.features.draw(pass, viewProjection, this.view.frameShadow);
  }

  /** draw()'s and drawFeatures()'s first step: the arguments checked, the skin pass bound and given the frame's camera, lights and shadow map. */
  private prepareDraw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>): void {
    if (typeof pass?.drawIndexed !== 'function') throw new TypeError(`pass must be a GPURenderPassEncoder, got ${show(pass)}`);
    checkNumbers(viewProjection, 16, 'viewProjection');
    this.passes.bindSkin(this.store, this.features.vertexWeights);
    this.view.prepareSkin(this.passes.skin, viewProjection);
  }

  /** @internal Draw calls the features' draws record (drawFeatures): 0 while no feature draws. */
  get featureDrawCount(): number {
    return this.features.drawCount;
  }

  /** Frees the crowd's and its features' GPU buffers and pipelines; the crowd cannot be used afterwards. The device stays the caller's. */
  destroy(): void {
    this.passes.destroy();
    this.features.destroy();
    this.store.destroy();
  }

  /** Makes the passes on `device` (see KernelPasses), then lets the features re-make what depends on them. */
  private createPasses(device: GPUDevice): void {
    // Morph deltas are mesh data, drawn only when a feature provides the weights they scale.
    this.passes.create(device, this.skinningMethod, this.features.weighsVertices, this.features.appearance);
    this.features.passesCreated(device);
  }
}
