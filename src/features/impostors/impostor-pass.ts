import impostorWgsl from '../../../shaders/impostors/impostor.wgsl?raw';
import { clockTicks } from '../../runtime/clip-clock';
import type { CrowdOptions } from '../../runtime/crowd-types';
import type { DrawShadow } from '../../runtime/feature';
import { ENVIRONMENT_LAYERS } from '../../runtime/environment-map';
import { createDfgTexture } from '../../runtime/dfg-table';
import { CAMERA, IMPOSTOR_CHUNK } from '../../runtime/layout';
import type { ResolvedLights } from '../../runtime/lights';
import { writeCamera } from '../../runtime/skin-pass';
import type { AtlasGrid } from './impostor-atlas';
import { boxSphere } from './impostor-atlas';
import type { ImpostorTextures } from './impostor-bake';
import { ImpostorDots } from './impostor-dots';
import { DOT_LIST_HEADER, IMPOSTOR_ATLAS } from './impostor-layout';
import type { ImpostorLook } from './impostor-looks';

/** What the impostor draw reads (not owned): the instance records, the cull pass's impostor list, the appearance records (or none), the atlas, the environment (or none). */
export interface ImpostorInputs {
  readonly instances: GPUBuffer;
  readonly list: GPUBuffer;
  /** Byte offset of the list in `list` (256-aligned). */
  readonly listOffset: number;
  readonly looks: GPUBuffer | undefined;
  readonly atlas: ImpostorTextures;
  /** The crowd's prefiltered environment (SkinPass.environmentView), or undefined without one. */
  readonly environment: GPUTextureView | undefined;
  /** The atlas's covered rectangles, a cell's each (ImpostorCoverage.buffer): the march steps within them. */
  readonly covered: GPUBuffer;
  /**
   * The cells' covered fractions, a (layer, cell)'s each (ImpostorCoverage.fractions): a dot's area.
   * Made and replaced with `covered` (one ImpostorCoverage), so the bind groups compare `covered` alone.
   */
  readonly fractions: GPUBuffer;
  /** The cull pass's counters (CullPass.counters): the lists' counts, past which a draw instance's quads go off screen. */
  readonly counters: GPUBuffer;
  /** The shown records, one per layer stack record (ImpostorShown.records): what a layered instance's impostor shows. */
  readonly shown: GPUBuffer;
  /** Per slot, the props of chosen instances its instance holds (CrowdProps' PropSets), or undefined without them. */
  readonly propSets: GPUBuffer | undefined;
}

/** The shadow map's depth bias the skin pass samples with (SkinPass.setShadowMap's default). */
const SHADOW_BIAS = 0.002;

/**
 * The impostor draw (shaders/impostors/impostor.wgsl): a quad (two indexed triangles) per instance
 * of the cull pass's impostor list, IMPOSTOR_CHUNK of them a draw instance, one indirect draw into
 * the crowd's render pass (and one for the band's). create: the constructor makes the
 * pipeline (for the crowd's target formats), the uniforms, a white look for a crowd without
 * appearance and a 1x1 stand-in shadow map; setLooks() (after a bake): the table of the looks the
 * atlas's layers hold; update(): the camera, the lights' and shadow's fields and the atlas uniform
 * (with the crowd clock); draw(): binds (re-made only when an input was replaced) and records the
 * draw. Owns its uniforms, the looks table and the stand-ins.
 */
export class ImpostorPass {
  /** The far impostors' pipeline, and the band's (impostor.wgsl BAND: each keeps the pixels its fade leaves to the impostor). */
  private readonly pipeline: GPURenderPipeline;
  private readonly bandPipeline: GPURenderPipeline;
  /** The dots' pipeline (impostor.wgsl dotVertex, dotFragment: a point each), made when the grid has dots; and its bind group. */
  private readonly dotPipeline: GPURenderPipeline | undefined;
  private readonly dotGroup: BoundGroup = { group: undefined, bound: [] };
  /** The dots that light a sample, listed before the render pass (impostor-dots.ts), made with the dots' pipeline. */
  private readonly dots: ImpostorDots | undefined;
  /**
   * Every binding of impostor.wgsl (drawGroupLayout: in both stages but three), and the one pipeline layout
   * of every pipeline here: an 'auto' layout would keep only what its stages read (the quads read
   * no cellCoverage), and each bind group is made over this one.
   */
  private readonly groupLayout: GPUBindGroupLayout;
  private readonly layout: GPUPipelineLayout;
  private readonly camera: GPUBuffer;
  private readonly atlasUniform: GPUBuffer;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);
  private readonly atlasData = new ArrayBuffer(IMPOSTOR_ATLAS.size);
  private readonly atlasView = new DataView(this.atlasData);
  private readonly inverse = new Float32Array(16);
  private readonly white: GPUBuffer;
  private readonly noShadow: GPUTexture;
  private readonly sampler: GPUSampler;
  private readonly shadowSampler: GPUSampler;
  private readonly noEnvironment: GPUTexture;
  private readonly environmentSampler: GPUSampler;
  /** three's DFG table (dfg-table.ts), which the lighting's dfgLookup reads. */
  private readonly dfgTable: GPUTexture;
  private readonly dfgView: GPUTextureView;
  /** The looks baked, (props, variant, parts, 0) u32 quadruples by layer (impostor.wgsl `bakedLook`): `capacity` of them, in the cell table from word `lookTable`. */
  private readonly lookData: Uint32Array<ArrayBuffer>;
  private readonly lookTable: number;
  /** Where each view's cells lie in the atlas (AtlasGrid.cellTable; impostor.wgsl `cellTable`), written once, then the clips' slots and the looks baked (setLooks). */
  private readonly cellTable: GPUBuffer;
  /** The prop sets' stand-in without props of chosen instances: zeros (every slot reads 0, robust access). */
  private readonly noPropSets: GPUBuffer;
  /** Per pipeline (far, band): its bind group and what it was made over (re-made only when an input was replaced). */
  private readonly groups: BoundGroup[] = [{ group: undefined, bound: [] }, { group: undefined, bound: [] }];

  /** IMPOSTOR_CHUNK quads' u16 indices (0 1 2, 2 1 3 a quad's 4 vertices), written once. */
  private readonly indices: GPUBuffer;
  /** The pick pipelines (impostor.wgsl `pick`, and `dotPick` for the dots), made at the first pick, and their bind group per pick camera with what it was made over. */
  private pickPipeline: GPURenderPipeline | undefined;
  private dotPickPipeline: GPURenderPipeline | undefined;
  private readonly pickGroups = new WeakMap<GPUBuffer, BoundGroup>();
  private readonly pickConstants: Record<string, number>;
  private readonly module: GPUShaderModule;

  /**
   * @param clips the atlas's clips, in its order (character clip indices: ImpostorOptions.clips resolved)
   * @param clipCount the character's clips
   * @param listStride slots a list of the crowd holds now (InstanceStore.listStride): the dots' list's size, grown with the crowd's
   */
  constructor(private readonly device: GPUDevice, grid: AtlasGrid, clips: readonly number[], clipCount: number, options: CrowdOptions, listStride: number) {
    const box = grid.box;
    const module = device.createShaderModule({ label: 'ImpostorPass.shader', code: impostorWgsl });
    this.groupLayout = drawGroupLayout(device);
    this.layout = device.createPipelineLayout({ label: 'ImpostorPass.layout', bindGroupLayouts: [this.groupLayout] });
    // The atlas's box's half extents (AtlasGrid.box): a far impostor's quad spans its projection (impostor.wgsl quadRect; a nearer one the shown poses' boxes).
    // Each cell frames the poses' largest half extents about its pose's centre (AtlasGrid.frameHalf; the offsets are the cell table's, poseOffset), and the march spans that frame (sampleCell).
    const [cellX, cellY, cellZ] = grid.frameHalf;
    const half = { BOX_HALF_X: (box[3] - box[0]) / 2, BOX_HALF_Y: (box[4] - box[1]) / 2, BOX_HALF_Z: (box[5] - box[2]) / 2, CELL_HALF_X: cellX, CELL_HALF_Y: cellY, CELL_HALF_Z: cellZ, POSE_FRAMES: Number(grid.posed) };
    // A multisampled target: the fragment writes the samples the atlas covers at their own
    // positions as the sample mask (impostor.wgsl coverageMask; the Fox at 4 samples at the
    // defaults, over its pixels: 5.6/255 on a view cell where alpha to coverage gave 23.8; the
    // parallax march's hits take coverage from 1/8).
    const multisampled = (options.sampleCount ?? 1) > 1;
    // The character's one roughness and metalness where the atlas leaves them out (AtlasGrid.surface, an RG8 surface texture); -1: per texel.
    // With props baked, the depth texture's G says what share of a texel the instance's tint applies to (AtlasGrid.tintMask).
    // An unlit character (AtlasGrid.unlit) shows its tinted base colour; one whose materials emit light or have an occlusion map reads the emissive-occlusion texture (AtlasGrid.emissiveOcclusion).
    const surface = {
      ROUGHNESS: grid.surface ? grid.surface[0] : -1, METALNESS: grid.surface ? grid.surface[1] : 0, TINT_MASK: Number(grid.tintMask), UNLIT: Number(grid.unlit),
      EMISSIVE_OCCLUSION: Number(grid.emissiveOcclusion), EMISSIVE_SCALE: grid.emittedUnit,
    };
    const pipeline = (band: number) => device.createRenderPipeline({
      label: `ImpostorPass.pipeline${band ? '.band' : ''}`, layout: this.layout,
      vertex: { module, entryPoint: 'vertex', constants: { BAND: band, ...half, CLIP_SLOTS: Number(!clips.every((c, i) => c === i) || clips.length !== clipCount) } },
      fragment: { module, entryPoint: 'fragment', targets: [{ format: options.colorFormat }], constants: { ENCODE_SRGB: options.colorFormat.endsWith('-srgb') ? 0 : 1, BAND: band, ...half, MULTISAMPLED: Number(multisampled), COVERED: multisampled ? 0.125 : 0.5, ...surface } },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: options.depthFormat, depthWriteEnabled: true, depthCompare: 'less' },
      multisample: { count: options.sampleCount ?? 1 },
    });
    this.pipeline = pipeline(0);
    this.bandPipeline = pipeline(1);
    this.module = module;
    this.pickConstants = { ...half, CLIP_SLOTS: Number(!clips.every((c, i) => c === i) || clips.length !== clipCount), ...surface };
    const dotConstants = { ...this.pickConstants, MULTISAMPLED: Number(multisampled) };
    if (grid.dotPixels > 0) {
      this.dotPipeline = device.createRenderPipeline({
        label: 'ImpostorPass.dotPipeline', layout: this.layout,
        vertex: { module, entryPoint: 'dotVertex', constants: { ...dotConstants, ENCODE_SRGB: options.colorFormat.endsWith('-srgb') ? 0 : 1 } },
        fragment: { module, entryPoint: 'dotFragment', targets: [{ format: options.colorFormat }] },
        primitive: { topology: 'point-list' },
        depthStencil: { format: options.depthFormat, depthWriteEnabled: true, depthCompare: 'less' },
        multisample: { count: options.sampleCount ?? 1 },
      });
    }
    const indices = quadIndices(IMPOSTOR_CHUNK);
    this.indices = device.createBuffer({ label: 'ImpostorPass.indices', size: indices.byteLength, usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.indices, 0, indices);
    this.camera = device.createBuffer({ label: 'ImpostorPass.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.atlasUniform = device.createBuffer({ label: 'ImpostorPass.atlas', size: IMPOSTOR_ATLAS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.white = device.createBuffer({ label: 'ImpostorPass.white', size: 32, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.white, 0, new Float32Array([1, 1, 1, 1, 0, 0, 0, 0]));
    this.noShadow = device.createTexture({ label: 'ImpostorPass.noShadow', size: [1, 1], format: 'depth32float', usage: GPUTextureUsage.TEXTURE_BINDING });
    this.sampler = device.createSampler({ label: 'ImpostorPass.sampler', magFilter: 'linear', minFilter: 'linear' });
    this.shadowSampler = device.createSampler({ label: 'ImpostorPass.shadowSampler', compare: 'less-equal', magFilter: 'linear', minFilter: 'linear' });
    this.noEnvironment = device.createTexture({ label: 'ImpostorPass.noEnvironment', size: [1, 1, ENVIRONMENT_LAYERS], format: 'rgba16float', usage: GPUTextureUsage.TEXTURE_BINDING });
    // As the skin pass samples it (SkinPass.environmentSampler): wrapping round in azimuth.
    this.environmentSampler = device.createSampler({ label: 'ImpostorPass.environmentSampler', addressModeU: 'repeat', magFilter: 'linear', minFilter: 'linear' });
    this.dfgTable = createDfgTexture(device, 'ImpostorPass.dfgTable');
    this.dfgView = this.dfgTable.createView();
    // The cell table, then each character clip's index among the atlas's clips (0 for one it lacks: never drawn), then the looks baked (setLooks).
    const cellTable = grid.cellTable();
    this.lookTable = cellTable.length + clipCount;
    this.lookData = new Uint32Array(4 * grid.capacity);
    const cells = new Uint32Array(this.lookTable);
    cells.set(cellTable);
    clips.forEach((clip, slot) => { cells[cellTable.length + clip] = slot; });
    this.cellTable = device.createBuffer({ label: 'ImpostorPass.cells', size: cells.byteLength + this.lookData.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.cellTable, 0, cells);
    this.noPropSets = device.createBuffer({ label: 'ImpostorPass.noPropSets', size: 16, usage: GPUBufferUsage.STORAGE });
    const { centre, radius } = boxSphere(box);
    const v = this.atlasView;
    centre.forEach((c, i) => v.setFloat32(IMPOSTOR_ATLAS.centre + 4 * i, c, true));
    v.setFloat32(IMPOSTOR_ATLAS.radius, radius, true);
    v.setUint32(IMPOSTOR_ATLAS.frames, grid.frames, true);
    v.setUint32(IMPOSTOR_ATLAS.azimuths, grid.azimuths, true);
    v.setUint32(IMPOSTOR_ATLAS.elevations, grid.elevations, true);
    v.setFloat32(IMPOSTOR_ATLAS.maxElevation, Math.max(grid.maxElevation, 1e-6), true);
    v.setUint32(IMPOSTOR_ATLAS.views, grid.views, true);
    v.setUint32(IMPOSTOR_ATLAS.clipSlots, cellTable.length, true);
    v.setUint32(IMPOSTOR_ATLAS.cells, grid.poses * grid.views, true);
    v.setUint32(IMPOSTOR_ATLAS.lookTable, this.lookTable, true);
    if (this.dotPipeline) this.dots = new ImpostorDots(device, module, dotConstants, { camera: this.camera, atlas: this.atlasUniform, cellTable: this.cellTable, white: this.white, noPropSets: this.noPropSets }, listStride);
  }

  /** Bytes of the buffers the pass owns that grow with the crowd: the dots' list (impostor-dots.ts). */
  get bytes(): number {
    return this.dots?.bytes ?? 0;
  }

  /**
   * The looks the atlas's layers hold (layer i: looks[i], sorted by props, variant, then parts; at
   * most the grid's capacity), the layer `standIn` drawn for a look without one, the parts mask
   * `varied` whose primitives a variant changes, and `plainParts`, the parts every instance shows
   * without CrowdAppearance (0 with it: the records'). Written at once (the table) and at the next update (the uniform).
   */
  setLooks(looks: readonly ImpostorLook[], standIn: number, varied: number, plainParts: number): void {
    const data = this.lookData;
    if (looks.length > data.length / 4) throw new RangeError(`ImpostorPass.setLooks: ${looks.length} looks, over the table's ${data.length / 4}`);
    looks.forEach((look, i) => data.set([look.props, look.variant, look.parts, 0], 4 * i));
    this.device.queue.writeBuffer(this.cellTable, this.lookTable * 4, data);
    const v = this.atlasView;
    v.setUint32(IMPOSTOR_ATLAS.looks, looks.length, true);
    v.setUint32(IMPOSTOR_ATLAS.standIn, standIn, true);
    v.setUint32(IMPOSTOR_ATLAS.varied, varied, true);
    v.setUint32(IMPOSTOR_ATLAS.plainParts, plainParts, true);
  }

  /**
   * Writes the camera (`viewProjection`, world -> clip), the lights, the shadow map's fields (or
   * none), the clock (crowd seconds) and the distance (model units over the instance's scale, from
   * the box's centre; 0: everywhere) out to which the parallax march takes every step, fewer past
   * it (impostor-layout.ts marchDistance and marchSteps), and the pixels a model unit spans a unit
   * from the camera (ImpostorRoute.pixelsAtUnit: the dots' areas).
   */
  update(viewProjection: ArrayLike<number>, lights: ResolvedLights, shadow: DrawShadow | undefined, clock: number, marchDistance: number, pixelsAtUnit = 0): void {
    const c = this.cameraData;
    writeCamera(c, viewProjection, lights, this.inverse);
    c[CAMERA.shadowStrength / 4] = shadow ? shadow.strength : 0;
    if (shadow) c.set(shadow.lightViewProjection, CAMERA.lightViewProjection / 4);
    c[CAMERA.shadowTexel / 4] = shadow ? 1 / shadow.mapSize : 1;
    c[CAMERA.shadowBias / 4] = SHADOW_BIAS;
    this.device.queue.writeBuffer(this.camera, 0, c);
    this.atlasView.setInt32(IMPOSTOR_ATLAS.ticks, clockTicks(clock, 'ImpostorPass.update: clock'), true);
    this.atlasView.setUint32(IMPOSTOR_ATLAS.environment, Number(lights.environment !== undefined), true);
    this.atlasView.setFloat32(IMPOSTOR_ATLAS.marchDistance, Number.isFinite(marchDistance) ? marchDistance : 0, true);
    this.atlasView.setFloat32(IMPOSTOR_ATLAS.pixelsAtUnit, Number.isFinite(pixelsAtUnit) ? pixelsAtUnit : 0, true);
    this.device.queue.writeBuffer(this.atlasUniform, 0, this.atlasData);
  }

  /** Records the impostor draw: `args` at `offset` holds its drawIndexedIndirect quintuple (cull.wgsl impostorArgs: instances of IMPOSTOR_CHUNK quads). */
  draw(pass: GPURenderPassEncoder, inputs: ImpostorInputs, shadow: GPUTextureView | undefined, args: GPUBuffer, offset: number): void {
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.group(0, inputs, shadow, inputs.listOffset, undefined));
    pass.setIndexBuffer(this.indices, 'uint16');
    pass.drawIndexedIndirect(args, offset);
  }

  /**
   * Records the band's impostor draw over the band list (`listBytes` bytes of `inputs.list` from
   * byte `listOffset`: its slots, then a fade per slot); `inputs.list` at `offset` holds its drawIndexedIndirect quintuple.
   */
  drawBand(pass: GPURenderPassEncoder, inputs: ImpostorInputs, shadow: GPUTextureView | undefined, listOffset: number, listBytes: number, offset: number): void {
    pass.setPipeline(this.bandPipeline);
    pass.setBindGroup(0, this.group(1, inputs, shadow, listOffset, listBytes));
    pass.setIndexBuffer(this.indices, 'uint16');
    pass.drawIndexedIndirect(inputs.list, offset);
  }

  /**
   * Records, before the render pass, the listing of the dots that light a sample (impostor-dots.ts;
   * `inputs.list` at `dotArgsOffset` holds the cull pass's dots' drawIndirect quadruple and
   * dispatch triple, cull.wgsl finalize). Nothing without dots (ImpostorOptions.dotPixels 0).
   */
  listDots(encoder: GPUCommandEncoder, inputs: ImpostorInputs, dotArgsOffset: number, listStride: number): void {
    this.dots?.encode(encoder, inputs, dotArgsOffset, listStride);
  }

  /** Records the dots' draw: a point each of the dots listDots listed (its list's drawIndirect). Nothing without dots. */
  drawDots(pass: GPURenderPassEncoder, inputs: ImpostorInputs, shadow: GPUTextureView | undefined): void {
    if (!this.dotPipeline || !this.dots) return;
    const list = this.dots.buffer;
    pass.setPipeline(this.dotPipeline);
    pass.setBindGroup(0, this.bindGroup(this.dotGroup, 'ImpostorPass.dotGroup', this.camera, inputs, shadow, list, DOT_LIST_HEADER, undefined));
    pass.drawIndirect(list, 0);
  }

  /**
   * Records the far impostors into a pick pass (CrowdPicking's: rg32uint, depth32float, one
   * sample) with `camera`, the pick's (its view-projection and the ray's origin as eye): each
   * impostor pixel the draw would cover writes the instance's slot + 1 and its depth (impostor.wgsl
   * `pick`, single-sampled). `args` at `offset` holds the impostor draw's quintuple.
   */
  pick(pass: GPURenderPassEncoder, inputs: ImpostorInputs, camera: GPUBuffer, args: GPUBuffer, offset: number, dotOffset: number): void {
    const pipeline = (this.pickPipeline ??= this.device.createRenderPipeline({
      label: 'ImpostorPass.pickPipeline', layout: this.layout,
      vertex: { module: this.module, entryPoint: 'vertex', constants: { BAND: 0, ...this.pickConstants } },
      fragment: { module: this.module, entryPoint: 'pick', targets: [{ format: 'rg32uint' }], constants: { BAND: 0, MULTISAMPLED: 0, COVERED: 0.5, ...this.pickConstants } },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: 'depth32float', depthWriteEnabled: true, depthCompare: 'less' },
    }));
    let g = this.pickGroups.get(camera);
    if (!g) this.pickGroups.set(camera, (g = { group: undefined, bound: [] }));
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.bindGroup(g, 'ImpostorPass.pickGroup', camera, inputs, undefined, inputs.list, inputs.listOffset, undefined));
    pass.setIndexBuffer(this.indices, 'uint16');
    pass.drawIndexedIndirect(args, offset);
    if (!this.dotPipeline) return;
    // The dots, each the pixel it draws (impostor.wgsl dotPick), over the same bind group (one layout).
    pass.setPipeline(this.dotPickPipeline ??= this.device.createRenderPipeline({
      label: 'ImpostorPass.dotPickPipeline', layout: this.layout,
      vertex: { module: this.module, entryPoint: 'dotVertex', constants: { ...this.pickConstants, DOT_PICK: 1 } },
      fragment: { module: this.module, entryPoint: 'dotPick', targets: [{ format: 'rg32uint' }] },
      primitive: { topology: 'point-list' },
      depthStencil: { format: 'depth32float', depthWriteEnabled: true, depthCompare: 'less' },
    }));
    pass.drawIndirect(args, dotOffset);
  }

  private group(which: number, inputs: ImpostorInputs, shadow: GPUTextureView | undefined, listOffset: number, listBytes: number | undefined): GPUBindGroup {
    return this.bindGroup(this.groups[which], `ImpostorPass.group${which}`, this.camera, inputs, shadow, inputs.list, listOffset, listBytes);
  }

  /**
   * `g`'s bind group over these inputs (with `camera`, and `list` from `listOffset` as the list), made again only when one of them was
   * replaced: compared one by one with what it was made over, so no array a frame. (`fractions`
   * is made and replaced with `covered`; `camera` is one buffer per BoundGroup.)
   */
  private bindGroup(g: BoundGroup, label: string, camera: GPUBuffer, inputs: ImpostorInputs, shadow: GPUTextureView | undefined, list: GPUBuffer, listOffset: number, listBytes: number | undefined): GPUBindGroup {
    const b = g.bound;
    if (!g.group || b[0] !== inputs.instances || b[1] !== list || b[2] !== listOffset || b[3] !== listBytes || b[4] !== inputs.looks || b[5] !== inputs.atlas || b[6] !== shadow || b[7] !== inputs.environment || b[8] !== inputs.covered || b[9] !== inputs.counters || b[10] !== inputs.shown || b[11] !== inputs.propSets) {
      g.group = this.device.createBindGroup({ label, layout: this.groupLayout, entries: this.entries(camera, inputs, shadow, list, listOffset, listBytes) });
      b.length = 0;
      b.push(inputs.instances, list, listOffset, listBytes, inputs.looks, inputs.atlas, shadow, inputs.environment, inputs.covered, inputs.counters, inputs.shown, inputs.propSets);
    }
    return g.group;
  }

  /** The bind group's entries (impostor.wgsl group 0) with `camera`. */
  private entries(camera: GPUBuffer, inputs: ImpostorInputs, shadow: GPUTextureView | undefined, list: GPUBuffer, listOffset: number, listBytes: number | undefined): GPUBindGroupEntry[] {
    return [
      { binding: 0, resource: { buffer: camera } },
      { binding: 1, resource: { buffer: this.atlasUniform } },
      { binding: 2, resource: { buffer: inputs.instances } },
      { binding: 3, resource: { buffer: list, offset: listOffset, size: listBytes } },
      { binding: 4, resource: { buffer: inputs.looks ?? this.white } },
      { binding: 5, resource: inputs.atlas.albedo.createView({ dimension: '2d-array' }) },
      { binding: 6, resource: inputs.atlas.surface.createView({ dimension: '2d-array' }) },
      { binding: 7, resource: this.sampler },
      { binding: 8, resource: shadow ?? this.noShadow.createView() },
      { binding: 9, resource: this.shadowSampler },
      { binding: 10, resource: inputs.environment ?? this.noEnvironment.createView({ dimension: '2d-array' }) },
      { binding: 11, resource: this.environmentSampler },
      { binding: 12, resource: { buffer: inputs.propSets ?? this.noPropSets } },
      { binding: 13, resource: inputs.atlas.depth.createView({ dimension: '2d-array' }) },
      { binding: 14, resource: { buffer: this.cellTable } },
      { binding: 15, resource: { buffer: inputs.covered } },
      { binding: 16, resource: { buffer: inputs.counters } },
      { binding: 17, resource: this.dfgView },
      { binding: 18, resource: { buffer: inputs.fractions } },
      { binding: 19, resource: { buffer: inputs.shown } },
      { binding: 21, resource: inputs.atlas.emissiveOcclusion?.createView({ dimension: '2d-array' }) ?? this.noEnvironment.createView({ dimension: '2d-array' }) },
    ];
  }

  destroy(): void {
    for (const resource of [this.indices, this.camera, this.atlasUniform, this.white, this.noShadow, this.noEnvironment, this.noPropSets, this.cellTable, this.dfgTable]) resource.destroy();
    this.dots?.destroy();
  }
}

/** A bind group of the draw's one layout and the inputs it was made over (ImpostorPass.bindGroup). */
interface BoundGroup {
  group: GPUBindGroup | undefined;
  bound: unknown[];
}

/** `quads` quads' triangle-list indices (u16: at most 16,384 quads): quad q's vertices 4q .. 4q + 3 as triangles (0 1 2) and (2 1 3), the strip order of impostor.wgsl CORNERS. */
function quadIndices(quads: number): Uint16Array<ArrayBuffer> {
  const indices = new Uint16Array(6 * quads);
  for (let q = 0; q < quads; q++) indices.set([4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 2, 4 * q + 1, 4 * q + 3], 6 * q);
  return indices;
}

/**
 * impostor.wgsl's group 0: every binding (ImpostorPass's one layout), visible to both stages but
 * the instance records and the shown records (the vertex stages read them) and the covered
 * rectangles (the fragment stage's march): 8 storage buffers a stage, WebGPU's default limit.
 */
function drawGroupLayout(device: GPUDevice): GPUBindGroupLayout {
  const both = GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT;
  const only: Record<number, number> = { 2: GPUShaderStage.VERTEX, 15: GPUShaderStage.FRAGMENT, 19: GPUShaderStage.VERTEX };
  const uniform = { buffer: { type: 'uniform' as const } };
  const storage = { buffer: { type: 'read-only-storage' as const } };
  const array = { texture: { viewDimension: '2d-array' as const } };
  const kinds: Omit<GPUBindGroupLayoutEntry, 'binding' | 'visibility'>[] = [
    uniform, uniform, storage, storage, storage, array, array, { sampler: {} },
    { texture: { sampleType: 'depth' } }, { sampler: { type: 'comparison' } }, array, { sampler: {} },
    storage, array, storage, storage, storage, { texture: { sampleType: 'unfilterable-float' } }, storage, storage,
  ];
  // Binding 20 is the dots' list (ImpostorDots' layout, compute only); 21 the emissive-occlusion texture (a stand-in without one).
  const entries: GPUBindGroupLayoutEntry[] = kinds.map((kind, binding) => ({ binding, visibility: only[binding] ?? both, ...kind }));
  return device.createBindGroupLayout({ label: 'ImpostorPass.groupLayout', entries: [...entries, { binding: 21, visibility: both, ...array }] });
}
