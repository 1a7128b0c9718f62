import type { Character } from '../character/character';
import { featureNeeds } from '../character/needs';
import { show } from '../math/show';
import type { CameraOptions, CrowdOptions, CullStats } from '../runtime/crowd-types';
import { CrowdInstances } from '../runtime/crowd-instances';
import { checkBoolean, Visibility } from '../runtime/culling/visibility';
import { frustumPlanes } from '../runtime/culling/cull-math';
import { fitLight } from '../runtime/culling/shadow-pass';
import { resolveLights, type LightOptions } from '../runtime/lights';
import type { CullSettings } from '../runtime/culling/cull-settings';
import type { CrowdFeature, CrowdKernel } from '../runtime/feature';
import { checkObject } from '../runtime/input';
import { InstanceStore } from '../runtime/instance-store';
import { JOINT_MATRIX_BYTES } from '../runtime/layout';
import { checkNumbers } from '../runtime/record-buffer';
import type { GLAppearanceSource } from './gl-appearance';
import { GLCull } from './gl-cull';
import type { GLJointTarget } from './gl-joints';
import { GLPalette, type GLFrameLists } from './gl-palette';
import { GLPosePass, type GLPoseInputs } from './gl-pose-pass';
import { GLRecordDevice, textureBytes, type GLStoreBuffer } from './gl-record-device';
import { GLShadowPass, type GLShadowMap } from './gl-shadow-pass';
import { meshLevels } from './gl-mesh';
import { GLSkinPass } from './gl-skin-pass';
import { GLRecordTexture } from './record-texture';

/**
 * What a WebGL 2 crowd takes: CrowdOptions without the WebGPU render-pass formats (the crowd
 * draws into whatever framebuffer is bound). `skinning: 'dual-quaternion'` needs WebGPU and is
 * refused by name.
 */
export type GLCrowdOptions = Omit<CrowdOptions, 'colorFormat' | 'depthFormat' | 'sampleCount'>;

/** The sentence every refusal of a WebGPU-only part ends with. */
const NEEDS_WEBGPU = 'it needs WebGPU, and this crowd runs on WebGL 2 (docs/webgl2.md)';

/**
 * Every instance of one Character on a WebGL 2 context: the crowd for browsers without WebGPU
 * (docs/webgl2.md). Its instance API is Crowd's own (CrowdInstances: add, addMany, setAnimation,
 * setBlend, setLayers, setPlacement, setTransform, remove, ids with generations, the same named
 * errors), over the same InstanceStore, whose records live in RGBA32UI textures
 * (GLRecordDevice) and are uploaded only when they change. Per frame: update(dt),
 * setCamera(viewProjection, position) (optional), encode() (CPU culling and LOD into per-level
 * lists, GLCull; then the GPU pose pass, a fragment pass into float textures, GLPosePass), then
 * draw(viewProjection) into the bound framebuffer (one instanced draw per primitive and LOD level,
 * GLSkinPass), the sun's shadow map first where CrowdOptions.shadows asks for one (GLShadowPass).
 * Features run here through their TypeScript twins (CrowdFeature.onWebGL2: clip events, CPU-driven
 * controllers, steering's twin step, CPU picking) or the GL draw (appearance); the others (props,
 * morph targets, root motion) need WebGPU, and install() refuses each by name (docs/webgl2.md).
 *
 * @example
 * ```ts
 * const gl = canvas.getContext('webgl2')!;
 * const crowd = new GLCrowd(gl, character, { capacity: 1000 });
 * crowd.add({ clipA: 'Walk', transform });
 * // each frame: bind and clear the framebuffer, set the viewport, then
 * crowd.update(dt);
 * crowd.setCamera(viewProjection, eye);
 * crowd.encode();
 * crowd.draw(viewProjection);
 * ```
 */
export class GLCrowd extends CrowdInstances<GLStoreBuffer> {
  protected readonly store: InstanceStore<GLStoreBuffer>;
  private pose: GLPosePass;
  /** The crowd's own draw; undefined for a crowd another renderer draws (crowd-skin/three: `ownDraw` false). */
  private skin: GLSkinPass | undefined;
  private readonly cull: GLCull;
  /** The joint-set assignment while the store's palette is active (CrowdOptions.paletteSize), and the lists the last encode() drew (`palette`, or `ownSets`: GLCull's). */
  private readonly palette: GLPalette;
  private lists: GLFrameLists;
  private readonly ownSets: GLFrameLists;
  private readonly settings: CullSettings;
  private readonly view: Visibility;
  private shadowPass: GLShadowPass | undefined;
  /** Whether the last encode() drew the shadow map (draw() samples it then). */
  private shadowedFrame = false;
  private readonly light = new Float32Array(16); // the light's view-projection of the frame (fitLight)
  private readonly poseInputs: GLPoseInputs; // the store as the pose pass reads it (no object made per frame)
  private readonly indicesPerLevel: number[];
  private readonly options: GLCrowdOptions;
  private device: GLRecordDevice; // the store's: record textures on `gl` (replaced by restore)
  private uploaded = 0; // bytes the last update() and encode() wrote
  private encoded = false;
  /** frameLists: the cull's lists and whether the last encode() culled with a camera. */
  private readonly listed: { readonly lists: GLCull; culled: boolean };

  /**
   * Makes the crowd's textures and programs on `gl` (the crowd owns them: destroy() frees them;
   * the context stays the caller's). Throws, leaving nothing made, an error naming what is wrong:
   * a bad option, an option or a character that needs WebGPU (rootMotion 'apply', dual-quaternion
   * skinning), EXT_color_buffer_float missing, a table, the joint target or the shadow map past MAX_TEXTURE_SIZE.
   *
   * @param gl The WebGL 2 context the crowd draws with (not owned).
   * @param character The loaded character every instance shows (not copied; share it between crowds).
   * @param ownDraw @internal false for a crowd another renderer draws from frameLists (crowd-skin/three): no skin or shadow pass is made, and draw() throws.
   */
  constructor(readonly gl: WebGL2RenderingContext, readonly character: Character, options: GLCrowdOptions = {}, private readonly ownDraw = true) {
    super();
    checkObject(options, 'options', '{ capacity, culling, lod, animationLod, lights, ... } (GLCrowdOptions)');
    if (typeof (gl as { texStorage2D?: unknown } | null)?.texStorage2D !== 'function') throw new TypeError(`gl must be a WebGL2RenderingContext, got ${show(gl)}`);
    const capacity = options.capacity ?? 1024;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${show(capacity)}`);
    for (const need of featureNeeds(character)) {
      if (need.required) throw new RangeError(`${character.name} needs the ${need.name} feature (${need.why}), and ${NEEDS_WEBGPU}`);
      console.warn(`crowd-skin: ${character.name} is drawn without the ${need.name} feature (${need.why}): ${NEEDS_WEBGPU}`);
    }
    this.needsChecked = true;
    this.view = new Visibility(character, options, gl.getParameter(gl.MAX_TEXTURE_SIZE) as number);
    this.settings = this.view.settings;
    const { gpu } = character;
    this.options = options;
    this.device = new GLRecordDevice(gl);
    const store = this.store = new InstanceStore(this.device, {
      nodeCount: gpu.nodeCount, slotCount: gpu.slotCount, clipDurations: character.clipDurations, capacity, label: 'GLCrowd',
      lodLevels: character.lods?.errors.length ?? 1, bytesPerJoint: JOINT_MATRIX_BYTES, paletteSize: options.paletteSize,
    });
    this.poseInputs = {
      get instanceBuffer() { return texture(store.instanceBuffer); }, get layerStackBuffer() { return texture(store.layerStackBuffer); },
      get masksBuffer() { return texture(store.masksBuffer); }, get plainCount() { return store.plainCount; }, get layeredCount() { return store.layeredCount; },
    };
    [this.pose, this.skin, this.shadowPass] = this.createPasses(options);
    const bounds = character.animationBounds, authored = options.cullBounds === 'authored';
    const levels = meshLevels(character);
    this.cull = new GLCull(levels, authored ? bounds.box : bounds.reach, authored ? bounds.box : bounds.reachLayered);
    this.palette = new GLPalette(gl, this.cull, character.clipDurations);
    this.lists = this.ownSets = { camera: this.cull, casters: this.cull.casters };
    this.listed = { lists: this.cull, culled: false };
    this.indicesPerLevel = Array.from({ length: levels }, (_, level) => character.rig.primitives.reduce((n, p, i) =>
      n + (level === 0 ? (p.indices?.length ?? p.vertexCount) : character.lods!.indices[i][level - 1].length), 0));
  }

  /** Which backend draws: 'webgl2' (Crowd's is 'webgpu'). */
  get backend(): 'webgl2' { return 'webgl2'; }
  /**
   * Installs a feature that runs on WebGL 2 (CrowdFeature.onWebGL2: `new CrowdEvents(crowd)`,
   * CrowdControllers, CrowdSteering, CrowdPicking, CrowdAppearance) and returns the kernel's side
   * for it (backend 'webgl2'), whose WebGPU parts (device, draws) throw naming WebGPU; every other
   * feature (CrowdProps, CrowdMorph, CrowdRootMotion) is refused by name, installing nothing.
   */
  install(feature: CrowdFeature): CrowdKernel {
    if (feature?.onWebGL2 !== true) throw new Error(`the ${show(feature?.featureName)} feature is not on WebGL 2 yet: ${NEEDS_WEBGPU}`);
    this.features.add(feature);
    const self = this, gpu = (what: string) => { throw new Error(`CrowdKernel.${what}: ${NEEDS_WEBGPU}`); };
    // A feature reads the store's CPU side (records, stacks, ids), the same class on both backends,
    // and makes per-slot records on the record device (record textures a GL pass reads).
    return {
      get device(): GPUDevice { return gpu('device'); }, backend: 'webgl2', get recordDevice() { return self.device; },
      character: this.character, options: this.options as CrowdOptions,
      store: this.store as unknown as CrowdKernel['store'], get clock() { return self.clockSeconds; }, skinning: 'linear', locomotionDrive: undefined,
      feature: (name) => this.features.get(name), rebuildPasses: () => this.rebuildPasses(), routeFar: () => gpu('routeFar'), get lodSettings(): CrowdKernel['lodSettings'] { return gpu('lodSettings'); }, get draws(): CrowdKernel['draws'] { return gpu('draws'); },
    };
  }

  /** Whether a feature named `name` is installed ('clip-events', 'controllers', 'steering', 'picking', 'appearance': those that run on WebGL 2). */
  hasFeature(name: string): boolean { return this.features.has(name); }
  /** Bytes the last update() and encode() wrote into textures (records, stacks, masks, features' per-slot records). */
  get uploadedBytes(): number { return this.uploaded; }
  /** Draw calls that draw() issues: one per mesh primitive and LOD level drawn. */
  get drawCallCount(): number {
    let levels = 0;
    for (let l = 0; l < this.cull.levels; l++) if (this.cull.counts[l] > 0) levels++;
    return levels * this.character.rig.primitives.length;
  }

  /** Live instances (as Crowd.count). */
  get count(): number { return this.store.count; }
  /** Joint matrices per instance. */
  get jointsPerInstance(): number { return this.character.gpu.slotCount; }
  /** Mesh LOD levels the character has (1 when loaded without `lod`). */
  get lodLevels(): number { return this.cull.levels; }
  /** Bytes of the textures the crowd owns for its instances: records, stacks, masks, joint matrices, and the shadow map (the mesh and materials not counted, as on WebGPU). */
  get gpuBytes(): number {
    const j = this.pose.joints, map = this.shadowPass?.mapSize ?? 0;
    return textureBytes(this.store.instanceBuffer) + textureBytes(this.store.layerStackBuffer) + textureBytes(this.store.masksBuffer) + j.width * j.height * 3 * 16 + map * map * 4;
  }

  /** Whether culling runs once a camera is set (CrowdOptions.culling). Turning it off never changes a pixel. */
  get culling(): boolean { return this.settings.culling; }
  /** Turns culling on or off (for comparison: culling never changes a pixel). */
  set culling(on: boolean) { this.settings.culling = checkBoolean(on, 'culling'); }
  /** Whether mesh LOD levels are chosen by distance once a camera is set (CrowdOptions.lod). */
  get lod(): boolean { return this.settings.lod; }
  /** Turns mesh LOD on or off. */
  set lod(on: boolean) { this.settings.lod = checkBoolean(on, 'lod'); }
  /** Whether far instances are posed every 2nd / 4th frame once a camera is set (CrowdOptions.animationLod). */
  get animationLod(): boolean { return this.settings.animationLod; }
  /** Turns animation LOD on or off. */
  set animationLod(on: boolean) { this.settings.animationLod = checkBoolean(on, 'animationLod'); }

  /** Whether the shadow map is drawn and sampled (needs CrowdOptions.shadows and a camera). */
  get shadows(): boolean { return this.settings.shadows; }
  /** Turns the shadow map on or off (it needs CrowdOptions.shadows to have been given). */
  set shadows(on: boolean) {
    checkBoolean(on, 'shadows');
    if (on && !this.shadowPass) throw new Error('this crowd was created without shadows (CrowdOptions.shadows)');
    this.settings.shadows = on;
  }

  /** Replaces the lights (as Crowd.setLights: each omitted part takes its default; a bad field is refused by name and changes nothing). */
  setLights(options: LightOptions): void {
    if (this.skin) this.skin.setLights(options);
    else resolveLights(options); // checked all the same: three lights a crowd it draws
  }

  /** Makes every instance draw LOD level `level` (needs a camera), or chooses by distance again with undefined. */
  forceLodLevel(level: number | undefined): void {
    this.settings.setForcedLevel(level);
  }

  /** The camera that culling and LOD use, as Crowd.setCamera: `viewProjection` world -> clip (z in [0, 1], as WebGPU's), eye `position`. */
  setCamera(viewProjection: ArrayLike<number>, position: ArrayLike<number>, options: CameraOptions = {}): void {
    checkObject(options, 'camera options', '{ viewportHeight }');
    this.settings.setCamera(viewProjection, position, options.viewportHeight);
  }

  /** Forgets the camera: every instance is posed and drawn at full detail. */
  clearCamera(): void {
    this.settings.clearCamera();
  }

  /**
   * As Crowd.setCasterCamera: the view-projection (world -> clip, z in [0, 1]) of a light whose
   * shadow map another renderer draws (three.js under shading 'three'); encode() lists the
   * instances inside it as shadow casters (`lists.casters`). undefined forgets it.
   */
  setCasterCamera(viewProjection: ArrayLike<number> | undefined): void {
    this.settings.setCasterCamera(viewProjection);
  }

  /**
   * @internal What the last encode() decided, for a renderer that draws the crowd itself (crowd-skin/three
   * on three's WebGL 2 backend): the drawn slots per LOD level and the shadow casters (GLCull's
   * lists, valid until the next encode; read only), and `culled`: whether a camera culled them
   * (the casters are listed only then). Not owned by the reader.
   */
  get frameLists(): { readonly lists: GLCull; readonly culled: boolean } { return this.listed; }

  /** @internal The joint matrices the last encode() posed (three RGBA32F textures; a new target after growth). Read only. */
  get jointTarget(): GLJointTarget { return this.pose.joints; }
  /** @internal The instance records' texture (RGBA32UI, 112 bytes a slot, the world matrix first; null texture before the first write). Read only. */
  get recordTexture(): GLRecordTexture { return texture(this.store.instanceBuffer); }
  /** @internal Per slot, its joint set's entry (PALETTE_* in layout.ts) from the last encode() while the palette is active (CrowdOptions.paletteSize), else undefined. Read only. */
  get jointEntries(): Uint32Array | undefined { return this.store.palette.active ? this.palette.entries : undefined; }
  /** @internal The per-instance appearance a feature provides (CrowdAppearance: its records a record texture on `gl`), or undefined. */
  get appearanceSource(): import('../runtime/appearance-groups').AppearanceSource | undefined { return this.features.appearance; }

  /** What the last encode() culled, posed and drew (exact and current on WebGL 2: the lists are the CPU's); undefined before the first. */
  get cullStats(): CullStats | undefined {
    if (!this.encoded) return undefined;
    const c = this.cull, perLevel = Array.from(c.counts);
    return { visible: c.visible, posed: c.poseCount, perLevel, vertices: perLevel.reduce((n, k, l) => n + k * this.indicesPerLevel[l], 0) };
  }

  /** cullStats, as Crowd.readCullStats returns it (resolved at once; rejected before the first encode). */
  readCullStats(): Promise<CullStats> {
    const stats = this.cullStats;
    return stats ? Promise.resolve(stats) : Promise.reject(new Error('readCullStats: no frame was encoded yet'));
  }

  /**
   * Advances the clock by dt seconds and uploads the records, stacks and masks changed since the
   * last update (one texture upload per range); then the features settle (clip events fire their
   * listeners). While the context is lost it does not upload: the changes go up on restore().
   */
  update(dt: number): void {
    this.advance(dt);
    this.uploaded = (this.gl.isContextLost() ? 0 : this.store.upload(this.device.queue)) + this.features.prepare(this.clockSeconds);
    // Last, so that a listener that throws leaves the frame's uploads done (as Crowd.update).
    this.features.settle(dt, this.clockSeconds);
  }

  /**
   * The frame's work before the draw: the CPU culling, mesh LOD and animation LOD (GLCull, with
   * a camera set and any of them on; the shadow casters too, inside the light fitted to the
   * camera), the pose pass for the instances it listed (their joint matrices into the joint
   * target), then the shadow map. Puts back the framebuffers, viewport and most state it changes (docs/webgl2.md).
   */
  encode(): void {
    if (this.gl.isContextLost()) return;
    const settings = this.settings, needed = settings.needed;
    const frame = needed ? settings.fill() : undefined;
    const shadowPass = frame && settings.shadows ? this.shadowPass : undefined;
    if (frame && shadowPass) {
      const fit = this.view.shadowFit;
      fitLight(settings.cameraViewProjection, frame.cameraPosition, this.skin!.lights.direction, fit.distance, fit.reach, this.light);
      frustumPlanes(this.light, frame.lightPlanes);
      shadowPass.update(this.light);
    }
    // Features' CPU twins of their 'drive' passes (steering) write records: uploaded before the cull reads them.
    this.features.cpuDrive();
    this.uploaded += this.store.upload(this.device.queue);
    this.cull.run(this.store, frame);
    this.listed.culled = frame !== undefined;
    const instances = texture(this.store.instanceBuffer), { palette } = this.store;
    // With a palette: joint sets handed to the drawn (GLPalette), the shared poses posed once, only own sets posed.
    const shared = palette.active ? this.palette : undefined;
    shared?.assign(this.store, this.clockSeconds, this.pose, this.poseInputs);
    this.pose.update(this.poseInputs, this.clockSeconds, shared && palette.size + palette.sharedSets);
    this.pose.encode(this.cull.poseList, this.cull.poseCount, shared?.entries);
    this.lists = shared ?? this.ownSets;
    shadowPass?.draw(this.pose.joints, instances, this.lists.casters);
    this.shadowedFrame = shadowPass !== undefined;
    this.encoded = true;
  }

  /**
   * Draws the instances encode() listed into the bound framebuffer (the caller binds and clears
   * it and sets the viewport): one instanced draw per primitive and LOD level. `viewProjection`:
   * column-major, world -> clip with z in [0, 1] as Crowd.draw takes it. Puts back most state it changes (docs/webgl2.md).
   */
  draw(viewProjection: ArrayLike<number>): void {
    if (!this.skin) throw new Error('GLCrowd.draw: this crowd is drawn by another renderer (crowd-skin/three), which made it without a draw of its own');
    checkNumbers(viewProjection, 16, 'viewProjection');
    if (!this.encoded) throw new Error('GLCrowd.draw: call encode() first (it culls and poses the frame)');
    if (this.gl.isContextLost()) return;
    const shadow = this.shadowedFrame ? this.shadowPass : undefined;
    this.skin.setShadowMap(shadow?.texture, shadow?.lightViewProjection, shadow?.mapSize, this.view.shadowFit.strength);
    this.skin.draw(viewProjection, this.pose.joints, texture(this.store.instanceBuffer), this.lists.camera);
  }

  /** The shadow map the last encode() drew (owned by the crowd, read only), for a page that shades its ground with it (the demo's GL grid); undefined when none. */
  get shadowMap(): GLShadowMap | undefined {
    return this.shadowedFrame ? this.shadowPass : undefined;
  }

  /**
   * Rebuilds every texture, buffer and program on the context (after webglcontextrestored) from
   * the CPU-side data the crowd kept: every instance, its animation, layers, masks and the clock
   * are as they were, and the next encode() poses every instance again.
   */
  restore(): void {
    // The passes' objects went with the lost context: deleting them on the restored one is an INVALID_OPERATION.
    this.device = new GLRecordDevice(this.gl);
    this.store.restore(this.device);
    this.palette.restore();
    [this.pose, this.skin, this.shadowPass] = this.createPasses(this.options);
    this.shadowedFrame = false;
    this.cull.forgetPoses();
    this.store.upload(this.device.queue);
  }

  /** Frees the crowd's textures, buffers and programs; the crowd cannot be used afterwards. The context stays the caller's. */
  destroy(): void {
    this.pose.destroy();
    this.skin?.destroy();
    this.shadowPass?.destroy();
    this.palette.destroy();
    this.store.destroy();
  }

  /** Re-creates the skin and shadow passes (a feature that changes what they read: CrowdAppearance); the pose pass and the records stay. */
  private rebuildPasses(): void {
    this.skin?.destroy();
    this.shadowPass?.destroy();
    [this.skin, this.shadowPass] = this.createDraw(this.options);
    this.shadowedFrame = false;
  }

  /** The skin pass, with the features' appearance (CrowdFeature.appearance) when one provides it, and the shadow pass where the options ask for a map. */
  private createDraw(options: GLCrowdOptions): [GLSkinPass | undefined, GLShadowPass | undefined] {
    if (!this.ownDraw) return [undefined, undefined];
    const source = this.features.appearance;
    let appearance: GLAppearanceSource | undefined;
    if (source) {
      if (!source.layout) throw new Error('GLCrowd: the appearance source has no record layout (AppearanceSource.layout), which the WebGL 2 draw needs');
      appearance = { get records() { return texture(source.buffer as unknown as GLStoreBuffer); }, layout: source.layout, variantImages: source.variantImages ?? [], variedPrimitives: source.variedPrimitives };
    }
    const skin = new GLSkinPass(this.gl, this.character, { lights: options.lights, skinning: options.skinning, appearance });
    try {
      const mapSize = this.view.shadowMapSize;
      return [skin, mapSize === undefined ? undefined : new GLShadowPass(this.gl, skin, { mapSize })];
    } catch (error) {
      skin.destroy();
      throw error;
    }
  }

  /** The pose and skin passes, and the shadow pass where the options ask for a map; a failure frees those made and the store. */
  private createPasses(options: GLCrowdOptions): [GLPosePass, GLSkinPass | undefined, GLShadowPass | undefined] {
    let pose: GLPosePass | undefined;
    try {
      pose = new GLPosePass(this.gl, this.character, { skinning: options.skinning, capacity: this.store.palette.setsFor(this.store.capacity) });
      return [pose, ...this.createDraw(options)];
    } catch (error) {
      pose?.destroy();
      this.store.destroy();
      throw error;
    }
  }
}

/** A store buffer a GL pass reads (GLRecordDevice makes those as record textures). */
function texture(buffer: GLStoreBuffer): GLRecordTexture {
  if (!(buffer instanceof GLRecordTexture)) throw new Error(`${buffer.label} is not a record texture (GLRecordDevice makes one only for the buffers a GL pass reads)`);
  return buffer;
}
