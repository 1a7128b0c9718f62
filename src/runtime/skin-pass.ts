import skinWgsl from '../../shaders/skin.wgsl?raw';
import type { EncodedImage } from '../bake/gltf-json';
import { AppearanceGroups, type AppearanceSource } from './appearance-groups';
import { CAMERA, checkSkinning, type SkinningMethod } from './layout';
import { checkMorphLimits } from './limits';
import { createDfgTexture } from './dfg-table';
import { cullMode, materialConstants, materialConstantsKey, materialRecord, samplerCache } from './material-data';
import { FLAT_NORMAL, MaterialTextures } from './material-textures';
import { EnvironmentMap, ENVIRONMENT_LAYERS, type ResolvedEnvironment } from './environment-map';
import { copyLights, resolveLights, type LightOptions, type ResolvedLights } from './lights';
import { streamsKey, vertexConstants, vertexLayouts, type MeshBuffers, type PrimitiveBuffers } from './mesh-buffers';
import { frameBindGroup, vertexEntryPoint, writeCamera, type DrawArgs, type SkinInputs } from './skin-frame';

export { frameBindGroup, vertexEntryPoint, writeCamera, type DrawArgs, type SkinInputs } from './skin-frame';

/** The render targets a crowd draws into: fixed when its pipelines are made. */
export interface SkinPassOptions {
  /** Format of the colour attachment the crowd draws into (e.g. `navigator.gpu.getPreferredCanvasFormat()`). */
  colorFormat: GPUTextureFormat;
  /** Format of the render pass's depth attachment (e.g. 'depth24plus'); the crowd tests and writes depth with 'less'. */
  depthFormat: GPUTextureFormat;
  /** MSAA samples of the render pass it draws into (default 1). */
  sampleCount?: number;
  /** The sun, ambient and hemisphere light (docs/materials.md; default: a white sun from above and a white ambient). */
  lights?: LightOptions;
}

/** @internal One primitive's draw (SkinPass.items). */
export interface DrawItem {
  /** Index in MeshBuffers.primitives (the cull pass's argument order). */
  index: number;
  mesh: PrimitiveBuffers;
  pipeline: GPURenderPipeline;
  /** The impostor band's pipeline (skin.wgsl BAND), made at its first use (SkinPass.bandPipeline); dropped with `pipeline`. */
  bandPipeline?: GPURenderPipeline;
  material: GPUBindGroup;
}

/** The sun's default direction of travel (world space, unit length): lights.sun.direction's default. */
export const LIGHT_DIRECTION: readonly number[] = Array.from(resolveLights(undefined).direction);

/**
 * The instanced skinned draw (shaders/skin.wgsl): one draw call per mesh primitive (per LOD
 * level when a cull pass chose levels), whatever the instance count. create: the constructor
 * uploads materials and textures and builds the pipeline variants it needs (4 or 8 influences;
 * the morph entry points for primitives with morph targets, whose bind groups then also hold the
 * morph weights and targets) over the shared MeshBuffers; bind(): the store's buffers (on creation and growth); update(): the
 * camera uniform; draw() / drawIndirect(): record into the caller's pass.
 */
export class SkinPass {
  /**
   * Draw order: opaque and MASK primitives in file order, then BLEND ones in file order (blended
   * surfaces over everything opaque; not sorted by depth: a character's parts keep the order
   * their author gave them, and instances are not sorted against each other).
   */
  /** @internal The primitives' draws in draw order (a feature that draws the crowd's meshes its own way: the impostor band). */
  readonly items: DrawItem[] = [];
  /** The lights as the shader reads them; `lights.direction` is the sun's (the shadow map follows it). */
  readonly lights: ResolvedLights;
  private readonly inverse = new Float32Array(16);
  /** @internal The camera uniform (CAMERA) update() writes, which a feature's frame bind group may bind (the impostor band). */
  readonly camera: GPUBuffer;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);
  private readonly frameLayout: GPUBindGroupLayout;
  private readonly owned: { destroy(): void }[] = [];
  private readonly images: MaterialTextures;
  /** Frame bind group over the identity list (every instance), and one per LOD level over the camera lists. */
  private direct: GPUBindGroup | undefined;
  private readonly levelGroups: GPUBindGroup[] = [];
  /** Group 2: the shadow map and its comparison sampler (a 1x1 stand-in without one), the environment and its sampler (1x1 black layers without one). */
  private readonly shadowLayout: GPUBindGroupLayout;
  /** The material group's layout (group 1). */
  private readonly materialLayout: GPUBindGroupLayout;
  private readonly shadowSampler: GPUSampler;
  private readonly noShadow: GPUTextureView;
  /** @internal Group 2 as draw() binds it (the shadow map and the environment). */
  shadowGroup: GPUBindGroup;
  private shadowView: GPUTextureView | undefined;
  private readonly environmentSampler: GPUSampler;
  private readonly noEnvironment: GPUTextureView;
  /** three's DFG table (dfg-table.ts), read by the fragment stage's dfgLookup. */
  private readonly dfgTable: GPUTextureView;
  private environment: EnvironmentMap | undefined; // the prefiltered lights.environment (owned), or undefined
  private sharedEnvironment: GPUTextureView | undefined; // another pass's prefiltered environment (followLights), not owned
  /**
   * @internal The pipeline that draws `buffers` (made at its first use, then kept): with `band`, the
   * impostor band's (skin.wgsl BAND). Changes when the environment does (setEnvironment).
   */
  readonly pipelineFor: (buffers: PrimitiveBuffers, band?: boolean) => GPURenderPipeline;
  /** @internal bind()'s inputs and morph weights, a new array at each bind(), or undefined before the first. */
  inputs: [SkinInputs, GPUBuffer | undefined] | undefined;
  /** The pipeline layout and shader module, which ShadowPass's pipelines share. */
  readonly pipelineLayout: GPUPipelineLayout;
  readonly module: GPUShaderModule;
  /** The vertex stage's pipeline constants (the skinning method), which ShadowPass's pipelines share. */
  readonly vertexConstants: Record<string, number>;
  /** Group 3 of a crowd with per-instance appearance (the *Appearance entry points), else undefined; ShadowPass binds it too. */
  readonly appearance: AppearanceGroups | undefined;

  constructor(
    private readonly device: GPUDevice,
    private readonly mesh: MeshBuffers,
    slotCount: number,
    textures: ReadonlyMap<EncodedImage, ImageBitmap>,
    /**
     * `skinning`: what the joint buffer holds (matrix rows, or JOINT_DQ records); default 'linear'.
     * `appearance`: a feature's per-instance appearance (the pipelines then use the *Appearance entry points and group 3).
     */
    options: SkinPassOptions & { skinning?: SkinningMethod; appearance?: AppearanceSource },
  ) {
    if (!options.colorFormat || !options.depthFormat) throw new TypeError('SkinPass needs colorFormat and depthFormat');
    this.lights = resolveLights(options.lights);
    this.vertexConstants = { DUAL_QUATERNION: checkSkinning(options.skinning) === 'dual-quaternion' ? 1 : 0 };
    if (mesh.morph) checkMorphLimits(device);
    this.camera = this.track(device.createBuffer({ label: 'SkinPass.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }));
    // A character with morph targets adds its morph bindings (skin.wgsl): the instances' weights
    // (frame group, binding 4) and each primitive's targets (material group, binding 3).
    const vertexStorage = (binding: number): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } });
    this.frameLayout = device.createBindGroupLayout({
      label: 'SkinPass.frameLayout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
        ...[1, 2, 3, 5].map(vertexStorage),
        ...(mesh.morph ? [vertexStorage(4)] : []),
      ],
    });
    const materialLayout = this.materialLayout = device.createBindGroupLayout({
      label: 'SkinPass.materialLayout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
        { binding: 1, visibility: GPUShaderStage.FRAGMENT, texture: {} },
        { binding: 2, visibility: GPUShaderStage.FRAGMENT, sampler: {} },
        ...(mesh.morph ? [vertexStorage(3)] : []),
        ...[4, 5, 6].map((binding) => ({ binding, visibility: GPUShaderStage.FRAGMENT, texture: {} })),
        ...[7, 8, 9].map((binding) => ({ binding, visibility: GPUShaderStage.FRAGMENT, sampler: {} })), // metal-rough, occlusion, emissive samplers
        { binding: 10, visibility: GPUShaderStage.FRAGMENT, texture: {} }, // normal map
        { binding: 11, visibility: GPUShaderStage.FRAGMENT, sampler: {} },
      ],
    });
    this.shadowLayout = device.createBindGroupLayout({
      label: 'SkinPass.shadowLayout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'depth' } },
        { binding: 1, visibility: GPUShaderStage.FRAGMENT, sampler: { type: 'comparison' } },
        { binding: 2, visibility: GPUShaderStage.FRAGMENT, texture: { viewDimension: '2d-array' } },
        { binding: 3, visibility: GPUShaderStage.FRAGMENT, sampler: {} },
        { binding: 4, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'unfilterable-float' } }, // three's DFG table
      ],
    });
    this.dfgTable = this.track(createDfgTexture(device, 'SkinPass.dfgTable')).createView();
    this.shadowSampler = device.createSampler({ label: 'SkinPass.shadowSampler', compare: 'less-equal', magFilter: 'linear', minFilter: 'linear' });
    this.noShadow = this.track(device.createTexture({ label: 'SkinPass.noShadow', size: [1, 1], format: 'depth32float', usage: GPUTextureUsage.TEXTURE_BINDING })).createView();
    this.environmentSampler = device.createSampler({ label: 'SkinPass.environmentSampler', addressModeU: 'repeat', magFilter: 'linear', minFilter: 'linear' });
    this.noEnvironment = this.track(device.createTexture({ label: 'SkinPass.noEnvironment', size: [1, 1, ENVIRONMENT_LAYERS], format: 'rgba16float', usage: GPUTextureUsage.TEXTURE_BINDING })).createView({ dimension: '2d-array' });
    this.environment = this.lights.environment && new EnvironmentMap(device, this.lights.environment);
    this.shadowGroup = this.createShadowGroup(this.noShadow);
    this.appearance = options.appearance && this.track(new AppearanceGroups(device, options.appearance, mesh.primitives.length, this.frameLayout, materialLayout));
    const groupLayouts = [this.frameLayout, materialLayout, this.shadowLayout, ...(this.appearance ? [this.appearance.layout] : [])];
    const layout = device.createPipelineLayout({ label: 'SkinPass.layout', bindGroupLayouts: groupLayouts });
    this.pipelineLayout = device.createPipelineLayout({ label: 'SkinPass.depthLayout', bindGroupLayouts: [this.frameLayout, materialLayout] });
    const module = device.createShaderModule({ label: 'SkinPass.shader', code: skinWgsl });
    this.module = module;
    const pipelines = new Map<string, GPURenderPipeline>();
    const pipelineFor = (this.pipelineFor = (buffers: PrimitiveBuffers, band = false) => {
      const key = `${pipelineKey(buffers, this.appearance?.entryPoint(buffers) ?? vertexEntryPoint(buffers))}.env${Number(this.environmentView !== undefined)}.band${Number(band)}`;
      let pipeline = pipelines.get(key);
      if (!pipeline) pipelines.set(key, (pipeline = this.createPipeline(module, layout, buffers, options, band)));
      return pipeline;
    });
    const samplerOf = samplerCache(device, 'SkinPass.sampler');
    // One texture per (image, format): colour images are sRGB, data images (metal-rough, occlusion, normal) linear.
    const images = (this.images = new MaterialTextures(device, textures, (texture) => this.track(texture)));
    const viewOf = images.view.bind(images);

    mesh.primitives.forEach((buffers, p) => {
      const label = `SkinPass.primitive${p}`;
      const m = buffers.primitive.material;
      const materialData = materialRecord(m, slotCount, buffers.tangents);
      this.items.push({
        index: p,
        mesh: buffers,
        pipeline: pipelineFor(buffers),
        material: device.createBindGroup({
          label: `${label}.material`,
          layout: materialLayout,
          entries: [
            { binding: 0, resource: { buffer: this.upload(`${label}.material`, materialData, GPUBufferUsage.UNIFORM) } },
            { binding: 1, resource: viewOf(m.baseColorImage, 'rgba8unorm-srgb', `${label}.baseColor`) },
            { binding: 2, resource: samplerOf(m.samplers[0]) },
            ...(buffers.morphTargets ? [{ binding: 3, resource: { buffer: buffers.morphTargets } }] : []),
            { binding: 4, resource: viewOf(m.metallicRoughnessImage, 'rgba8unorm', `${label}.metallicRoughness`) },
            { binding: 5, resource: viewOf(m.occlusionImage, 'rgba8unorm', `${label}.occlusion`) },
            { binding: 6, resource: viewOf(m.emissiveImage, 'rgba8unorm-srgb', `${label}.emissive`) },
            ...[1, 2, 3].map((t) => ({ binding: 6 + t, resource: samplerOf(m.samplers[t]) })),
            { binding: 10, resource: viewOf(m.normalImage, 'rgba8unorm', `${label}.normal`, FLAT_NORMAL) },
            { binding: 11, resource: samplerOf(m.samplers[4]) },
          ],
        }),
      });
    });
    const blended = (item: DrawItem) => item.mesh.primitive.material.alphaMode === 'BLEND';
    this.items.sort((a, b) => Number(blended(a)) - Number(blended(b)) || a.index - b.index);
  }

  /** Draw calls per frame without a cull pass: one per primitive. */
  get drawCount(): number { return this.items.length; }

  /** Bytes of the material textures, every mip level at its size on the GPU (Crowd.gpuBytes). */
  get textureBytes(): number { return this.images.bytes; }

  /** The frame bind group layout (camera, joints, instances, instance list), which ShadowPass shares. */
  get frameBindGroupLayout(): GPUBindGroupLayout { return this.frameLayout; }

  /** @internal The material bind group layout (group 1), which the impostor bake's own pipeline layout shares. */
  get materialBindGroupLayout(): GPUBindGroupLayout { return this.materialLayout; }

  /** @internal The prefiltered lights.environment (a 2d-array view of ENVIRONMENT_LAYERS layers), or undefined without one: the impostor pass lights with it too. */
  get environmentView(): GPUTextureView | undefined { return this.environment?.view ?? this.sharedEnvironment; }

  /** Per primitive, in MeshBuffers order: its material bind group (group 1), which ShadowPass binds too. */
  get materials(): GPUBindGroup[] {
    const out: GPUBindGroup[] = [];
    for (const item of this.items) out[item.index] = item.material;
    return out;
  }

  /**
   * Shades with a shadow map from now on (`view` of a depth32float map, `lightViewProjection`
   * world -> the map's clip space, `strength` in [0, 1]), or without one (undefined). The view is
   * not owned; the bind group is rebuilt only when the view changes.
   */
  setShadowMap(view: GPUTextureView | undefined, lightViewProjection?: ArrayLike<number>, size = 1, strength = 1, bias = 0.002): void {
    if (view !== this.shadowView) {
      this.shadowView = view;
      this.shadowGroup = this.createShadowGroup(view ?? this.noShadow);
    }
    this.cameraData[CAMERA.shadowStrength / 4] = view ? strength : 0;
    if (view && lightViewProjection) this.cameraData.set(lightViewProjection, CAMERA.lightViewProjection / 4);
    this.cameraData[CAMERA.shadowTexel / 4] = 1 / size;
    this.cameraData[CAMERA.shadowBias / 4] = bias;
  }

  /** Lights with `environment` from now on (undefined: none): prefilters it (an event), frees the old map, switches the pipelines' ENVIRONMENT. */
  setEnvironment(environment: ResolvedEnvironment | undefined): void {
    this.useEnvironment(environment && new EnvironmentMap(this.device, environment), undefined);
  }

  /**
   * Lights as `source` does from now on (a prop's pass follows its crowd's: CrowdProps): its sun
   * and hemisphere copied, its prefiltered environment shared, not owned (this pass's own freed).
   * Called per frame: allocation-free while the source's environment stays.
   */
  followLights(source: SkinPass): void {
    copyLights(source.lights, this.lights);
    const view = source.environmentView;
    if (this.environment || view !== this.sharedEnvironment) this.useEnvironment(undefined, view);
  }

  /** The environment `owned` (prefiltered here) or `shared` (another pass's view), or none: the shadow group and pipelines follow. */
  private useEnvironment(owned: EnvironmentMap | undefined, shared: GPUTextureView | undefined): void {
    this.environment?.destroy();
    this.environment = owned;
    this.sharedEnvironment = shared;
    this.shadowGroup = this.createShadowGroup(this.shadowView ?? this.noShadow);
    for (const item of this.items) {
      item.pipeline = this.pipelineFor(item.mesh);
      item.bandPipeline = undefined;
    }
  }

  /** @internal The impostor band's pipeline of `item` (pipelineFor's BAND one), kept on the item until the environment changes: no key is built in the frame loop. */
  bandPipeline(item: DrawItem): GPURenderPipeline {
    return (item.bandPipeline ??= this.pipelineFor(item.mesh, true));
  }

  /**
   * Points the pass at the store's buffers (creation and growth), and a character with morph
   * targets at its instances' morph weights (MorphStore.weightBuffer). Does not own them.
   */
  bind(inputs: SkinInputs, morphWeights?: GPUBuffer): void {
    this.inputs = [inputs, morphWeights];
    this.direct = frameBindGroup(this.device, this.frameLayout, 'SkinPass.frame', this.camera, inputs, inputs.identityListBuffer, 0, morphWeights);
    this.levelGroups.length = 0;
    for (let level = 0; level < inputs.lodLevels; level++) {
      this.levelGroups.push(frameBindGroup(this.device, this.frameLayout, `SkinPass.frameLevel${level}`, this.camera, inputs, inputs.drawListBuffer, level, morphWeights));
    }
  }

  /** Writes the camera (writeCamera): `viewProjection` is a column-major 4x4 (world -> clip space). */
  update(viewProjection: ArrayLike<number>): void {
    writeCamera(this.cameraData, viewProjection, this.lights, this.inverse);
    this.device.queue.writeBuffer(this.camera, 0, this.cameraData);
  }

  /** Records one draw per primitive of the first `instanceCount` slots into `pass`. */
  draw(pass: GPURenderPassEncoder, instanceCount: number): void {
    if (!this.direct) throw new Error('SkinPass.draw: call bind() first');
    if (instanceCount === 0) return;
    pass.setBindGroup(0, this.direct);
    pass.setBindGroup(2, this.shadowGroup);
    const looks = this.appearance?.refresh();
    let current: GPURenderPipeline | undefined;
    for (let p = 0; p < this.items.length; p++) {
      const item = this.items[p];
      if (item.pipeline !== current) pass.setPipeline((current = item.pipeline));
      pass.setBindGroup(1, item.material);
      if (looks) pass.setBindGroup(3, looks[item.index]);
      this.mesh.setBuffers(pass, item.mesh);
      pass.drawIndexed(item.mesh.ranges[0][0], instanceCount);
    }
  }

  /** Records one indirect draw per (LOD level, primitive) over the cull pass's camera lists. */
  drawIndirect(pass: GPURenderPassEncoder, draws: DrawArgs): void {
    if (this.levelGroups.length === 0) throw new Error('SkinPass.drawIndirect: call bind() first');
    pass.setBindGroup(2, this.shadowGroup);
    const looks = this.appearance?.refresh();
    let current: GPURenderPipeline | undefined;
    for (const item of this.items) {
      if (item.pipeline !== current) pass.setPipeline((current = item.pipeline));
      pass.setBindGroup(1, item.material);
      if (looks) pass.setBindGroup(3, looks[item.index]);
      this.mesh.setBuffers(pass, item.mesh);
      for (let level = 0; level < this.levelGroups.length; level++) {
        pass.setBindGroup(0, this.levelGroups[level]);
        pass.drawIndexedIndirect(draws.args, draws.argsOffset(0, level, item.index));
      }
    }
  }

  destroy(): void {
    for (const resource of this.owned) resource.destroy();
    this.environment?.destroy();
  }

  private createShadowGroup(view: GPUTextureView): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'SkinPass.shadow', layout: this.shadowLayout,
      entries: [{ binding: 0, resource: view }, { binding: 1, resource: this.shadowSampler },
        { binding: 2, resource: this.environmentView ?? this.noEnvironment }, { binding: 3, resource: this.environmentSampler },
        { binding: 4, resource: this.dfgTable }],
    });
  }

  private track<T extends { destroy(): void }>(resource: T): T {
    this.owned.push(resource);
    return resource;
  }

  private upload(label: string, data: ArrayBuffer, usage: number): GPUBuffer {
    const buffer = this.track(this.device.createBuffer({ label, size: Math.max(16, data.byteLength), usage: usage | GPUBufferUsage.COPY_DST }));
    this.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }

  private createPipeline(module: GPUShaderModule, layout: GPUPipelineLayout, buffers: PrimitiveBuffers, options: SkinPassOptions, band: boolean): GPURenderPipeline {
    const entryPoint = this.appearance?.entryPoint(buffers) ?? vertexEntryPoint(buffers);
    const streams = { ...vertexConstants(buffers), ...(band ? { BAND: 1 } : {}) };
    const material = buffers.primitive.material;
    const blend = material.alphaMode === 'BLEND';
    return this.device.createRenderPipeline({
      label: `SkinPass.pipeline.${pipelineKey(buffers, entryPoint)}${band ? '.band' : ''}`,
      layout,
      vertex: { module, entryPoint, buffers: vertexLayouts(buffers), constants: { ...this.vertexConstants, ...streams } },
      fragment: {
        module, entryPoint: this.appearance ? 'fragmentAppearance' : 'fragment',
        // BLEND: premultiplied-free "over" (three.js's NormalBlending); opaque and MASK write alpha as is.
        targets: [{ format: options.colorFormat, ...(blend ? { blend: {
          color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha' },
          alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha' },
        } } : {}) }],
        constants: { ENCODE_SRGB: options.colorFormat.endsWith('-srgb') ? 0 : 1, ENVIRONMENT: this.environmentView ? 1 : 0, ...streams, ...materialConstants(material) },
      },
      primitive: { topology: 'triangle-list', cullMode: cullMode(material) },
      // BLEND surfaces test depth but do not write it, so those behind them still show through.
      depthStencil: { format: options.depthFormat, depthWriteEnabled: !blend, depthCompare: 'less' },
      multisample: { count: options.sampleCount ?? 1 },
    });
  }
}

/** Pipelines differ by vertex entry point, alpha mode, sidedness, vertex streams (streamsKey) and the textures sampled (materialConstantsKey). */
function pipelineKey(buffers: PrimitiveBuffers, entryPoint: string): string {
  const material = buffers.primitive.material;
  return `${entryPoint}.${material.alphaMode}.${material.doubleSided ? 'double' : 'single'}.${streamsKey(buffers)}.m${materialConstantsKey(material)}`;
}
