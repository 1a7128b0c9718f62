import cullWgsl from '../../../shaders/culling/cull.wgsl?raw';
import { CULL_ARGS, CULL_COUNTERS, CULL_PARAMS, LOD_RANGE, MAX_LOD_LEVELS } from '../layout';
import { WORKGROUP_SIZE } from '../limits';
import { INDIRECT_DISPATCH_WIDTH } from '../pose-pass';
import { NEVER } from './cull-math';

/**
 * What the cull pass reads and writes per instance: InstanceStore satisfies it. The pass does
 * not own the buffers.
 */
export interface CullInputs {
  readonly instanceBuffer: GPUBuffer;
  readonly stampBuffer: GPUBuffer;
  readonly poseStateBuffer: GPUBuffer;
  readonly poseListBuffer: GPUBuffer;
  readonly drawListBuffer: GPUBuffer;
  readonly listStride: number;
  readonly lodLevels: number;
  readonly count: number;
  readonly plainCount: number;
  readonly generation: number;
}

/**
 * One frame's cull settings, filled by the caller (Crowd keeps one and refills it: no
 * allocation per frame). Planes as src/runtime/culling/cull-math.ts makes them; distances in world units
 * divided by the instance's scale.
 */
export interface CullFrame {
  /** CULL_* flags (src/runtime/layout.ts). */
  flags: number;
  /** The camera frustum's six planes (left, right, bottom, top, near, far), 4 numbers each (cull-math.ts frustumPlanes). */
  planes: Float32Array;
  /** The shadow map's light frustum's six planes, as `planes` (read with CULL_SHADOWS). */
  lightPlanes: Float32Array;
  /** The camera's position, world units (3 numbers). */
  cameraPosition: Float32Array;
  /** Instances whose bounds start farther (world units) are not drawn. */
  maxDistance: number;
  /** Where LOD levels 1..3 begin (NEVER when absent). */
  lodDistances: Float32Array;
  /** Beyond [0]: pose every 2nd frame; beyond [1]: every 4th. */
  animationDistances: Float32Array;
  /** LOD_NOT_FORCED, or the level every instance draws. */
  forcedLevel: number;
  /** Levels coarser than its camera level that a shadow caster draws in the shadow map. */
  shadowLodBias: number;
  /** Frame counter (u32, wrapping). */
  frame: number;
  /** Visible instances from this distance / scale on go to the impostor list, unposed (NEVER: none; a feature draws them). */
  impostorDistance: number;
  /** Visible instances from this distance / scale up to impostorDistance are in the impostor band: posed, listed with a fade, drawn both ways by a feature (NEVER, or impostorDistance: no band). */
  impostorBand: number;
  /** The LOD level the band's meshes draw (below the pass's levels; the feature's choice: the level its impostors show). */
  bandLevel: number;
  /** Impostors from this distance / scale on are drawn as dots, listed from the impostor list's end (NEVER: none; at least impostorDistance). */
  impostorDot: number;
  /** IMPOSTOR_CLIPS / 32 words, bit c set where clip c has impostors: a visible instance is routed (impostor or band) only while every clip it shows has (clip A below a blend of 1, clip B above 0). */
  impostorClips: Uint32Array;
}

export interface CullPassOptions {
  /** Mesh primitives: draws per LOD level. */
  primitives: number;
  /** LOD levels, 1..MAX_LOD_LEVELS. */
  levels: number;
  /** (indexCount, firstIndex) per (level, primitive), level after level. */
  lodRanges: Uint32Array<ArrayBuffer>;
  /** Model-space boxes (min x, y, z, max x, y, z): instances without, and with, a layer stack. */
  box: ArrayLike<number>;
  layeredBox: ArrayLike<number>;
}

/**
 * The compute pass that culls and chooses LOD per instance (shaders/culling/cull.wgsl), writing the
 * store's pose and draw lists and its own counters and indirect arguments.
 * create: the constructor builds both pipelines (cull, finalize) and the fixed-size buffers;
 * update(): binds the store's buffers when replaced and writes the frame's uniforms;
 * encode(): clears the counters and records the two dispatches. PosePass.encode (indirect),
 * ShadowPass and SkinPass.drawIndirect read the results later in the same command buffer.
 */
export class CullPass {
  /** CULL_COUNTERS words (atomic), cleared by every encode. Owned by the pass. */
  readonly counters: GPUBuffer;
  /**
   * CULL_ARGS words: indirect dispatch and draw arguments; then, while a frame routes impostors,
   * the impostor list (listStride u32 slots from impostorListOffset) and the band list (bandListOffset). Owned by the pass; replaced
   * when the list grows (read it at encode or draw time).
   */
  get args(): GPUBuffer {
    return this.argsBuffer;
  }
  readonly levels: number;
  readonly primitives: number;
  private readonly params: GPUBuffer;
  private readonly lodRanges: GPUBuffer;
  private readonly data = new ArrayBuffer(CULL_PARAMS.size);
  private readonly f32 = new Float32Array(this.data);
  private readonly u32 = new Uint32Array(this.data);
  private readonly layout: GPUBindGroupLayout;
  private readonly cullPipeline: GPUComputePipeline;
  private readonly finalizePipeline: GPUComputePipeline;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'CullPass' };
  private argsBuffer: GPUBuffer;
  /**
   * Bytes of the indirect arguments: the pose dispatches, the draws of (list 0 camera / 1 shadow,
   * level, primitive), then at argsOffset(2, 0, 0) the impostor list's drawIndexedIndirect
   * quintuple (instances of IMPOSTOR_CHUNK quads), the band's impostors' and its meshes' (one
   * drawIndexedIndirect per primitive), and the dots' drawIndirect quadruple.
   */
  private readonly argsBytes: number;
  private bindGroup: GPUBindGroup | undefined;
  private bound: CullInputs | undefined;
  private boundGeneration = -1;
  private width = 1;
  private height = 0;

  constructor(private readonly device: GPUDevice, options: CullPassOptions) {
    const { levels, primitives, lodRanges } = options;
    if (!Number.isInteger(levels) || levels < 1 || levels > MAX_LOD_LEVELS) throw new RangeError(`levels must be an integer in [1, ${MAX_LOD_LEVELS}], got ${levels}`);
    if (lodRanges.length !== levels * primitives * (LOD_RANGE.size / 4)) {
      throw new RangeError(`lodRanges has ${lodRanges.length} numbers, needs levels x primitives x 2 = ${levels * primitives * 2}`);
    }
    this.levels = levels;
    this.primitives = primitives;
    this.argsBytes = this.argsOffset(2, 0, 0) + (2 * CULL_ARGS.impostorWords + primitives * CULL_ARGS.drawWords + CULL_ARGS.dotWords) * 4;
    this.counters = device.createBuffer({ label: 'CullPass.counters', size: CULL_COUNTERS.words * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    this.argsBuffer = this.createArgs(0);
    this.params = device.createBuffer({ label: 'CullPass.params', size: CULL_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.lodRanges = device.createBuffer({ label: 'CullPass.lodRanges', size: Math.max(16, lodRanges.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.lodRanges, 0, lodRanges);
    const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    this.layout = device.createBindGroupLayout({
      label: 'CullPass.layout',
      entries: [
        entry(0, 'uniform'), entry(1, 'read-only-storage'), entry(2, 'read-only-storage'),
        ...[3, 4, 5, 6, 7].map((b) => entry(b, 'storage')), entry(8, 'read-only-storage'),
      ],
    });
    const module = device.createShaderModule({ label: 'CullPass.shader', code: cullWgsl });
    const pipelineLayout = device.createPipelineLayout({ label: 'CullPass.pipelineLayout', bindGroupLayouts: [this.layout] });
    const pipeline = (entryPoint: string) => device.createComputePipeline({
      label: `CullPass.${entryPoint}Pipeline`, layout: pipelineLayout,
      compute: { module, entryPoint, constants: { WORKGROUP_SIZE } },
    });
    this.cullPipeline = pipeline('cull');
    this.finalizePipeline = pipeline('finalize');
    this.writeBox(CULL_PARAMS.boxCentre, CULL_PARAMS.boxHalf, options.box);
    this.writeBox(CULL_PARAMS.layeredCentre, CULL_PARAMS.layeredHalf, options.layeredBox);
  }

  /** Byte offset in `args` of the drawIndexedIndirect arguments of (list 0 camera / 1 shadow, level, primitive). */
  argsOffset(list: number, level: number, primitive: number): number {
    return (CULL_ARGS.draws + ((list * this.levels + level) * this.primitives + primitive) * CULL_ARGS.drawWords) * 4;
  }

  /** Byte offset in `args` of the impostor list (u32 slots, CULL_COUNTERS.impostor of them; a storage binding's offset: 256-aligned). */
  get impostorListOffset(): number {
    return Math.ceil(this.argsBytes / 256) * 256;
  }

  /** Byte offset in `args` of the band list (listStride u32 slots, CULL_COUNTERS.band of them, then listStride f32 fades by slot), for lists of `listStride` entries. */
  bandListOffset(listStride: number): number {
    return this.impostorListOffset + listStride * 4;
  }

  /** Writes the frame's uniforms; binds `inputs`' buffers when they were replaced (creation and growth only). */
  update(inputs: CullInputs, frame: CullFrame): void {
    if (inputs.lodLevels !== this.levels) throw new RangeError(`the store's lists hold ${inputs.lodLevels} LOD levels, the pass draws ${this.levels}`);
    // The impostor list grows with the store's lists, made only for frames that route impostors.
    const listBytes = frame.impostorDistance < NEVER ? 3 * inputs.listStride * 4 : 0;
    // Replaced only to grow: the buffer without lists (argsBytes) is shorter than the lists' 256-aligned offset.
    if (this.argsBuffer.size < this.argsSize(listBytes)) {
      this.argsBuffer.destroy();
      this.argsBuffer = this.createArgs(listBytes);
      this.bound = undefined;
    }
    if (inputs !== this.bound || inputs.generation !== this.boundGeneration) this.bind(inputs);
    const groups = Math.ceil(inputs.count / WORKGROUP_SIZE);
    this.width = Math.max(1, Math.min(groups, INDIRECT_DISPATCH_WIDTH));
    this.height = Math.ceil(groups / this.width);
    const f = this.f32, u = this.u32;
    f.set(frame.planes, CULL_PARAMS.planes / 4);
    f.set(frame.lightPlanes, CULL_PARAMS.lightPlanes / 4);
    f.set(frame.cameraPosition, CULL_PARAMS.cameraPosition / 4);
    f[CULL_PARAMS.maxDistance / 4] = Math.min(frame.maxDistance, NEVER);
    f.set(frame.lodDistances, CULL_PARAMS.lodDistances / 4);
    f.set(frame.animationDistances, CULL_PARAMS.animationDistances / 4);
    u[CULL_PARAMS.instanceCount / 4] = inputs.count;
    u[CULL_PARAMS.plainCount / 4] = inputs.plainCount;
    u[CULL_PARAMS.frame / 4] = frame.frame >>> 0;
    u[CULL_PARAMS.listStride / 4] = inputs.listStride;
    u[CULL_PARAMS.flags / 4] = frame.flags;
    u[CULL_PARAMS.levels / 4] = this.levels;
    u[CULL_PARAMS.primitives / 4] = this.primitives;
    u[CULL_PARAMS.shadowLodBias / 4] = frame.shadowLodBias;
    u[CULL_PARAMS.forcedLevel / 4] = frame.forcedLevel;
    u[CULL_PARAMS.dispatchWidth / 4] = INDIRECT_DISPATCH_WIDTH;
    f[CULL_PARAMS.impostorDistance / 4] = Math.min(frame.impostorDistance, NEVER);
    u[CULL_PARAMS.impostorList / 4] = this.impostorListOffset / 4;
    f[CULL_PARAMS.impostorBand / 4] = Math.min(frame.impostorBand, frame.impostorDistance, NEVER);
    u[CULL_PARAMS.bandList / 4] = this.bandListOffset(inputs.listStride) / 4;
    u[CULL_PARAMS.bandLevel / 4] = Math.min(frame.bandLevel, this.levels - 1);
    f[CULL_PARAMS.impostorDot / 4] = Math.min(Math.max(frame.impostorDot, frame.impostorDistance), NEVER);
    u.set(frame.impostorClips, CULL_PARAMS.impostorClips / 4);
    this.device.queue.writeBuffer(this.params, 0, this.data);
  }

  /** Clears the counters and records the cull and finalize dispatches into `encoder`. */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (!this.bindGroup) throw new Error('CullPass.encode: call update() first');
    encoder.clearBuffer(this.counters);
    this.passDescriptor.timestampWrites = timestampWrites;
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setBindGroup(0, this.bindGroup);
    if (this.height > 0) {
      pass.setPipeline(this.cullPipeline);
      pass.dispatchWorkgroups(this.width, this.height);
    }
    pass.setPipeline(this.finalizePipeline);
    pass.dispatchWorkgroups(1);
    pass.end();
  }

  destroy(): void {
    for (const buffer of [this.counters, this.argsBuffer, this.params, this.lodRanges]) buffer.destroy();
  }

  private bind(inputs: CullInputs): void {
    const buffers = [
      this.params, inputs.instanceBuffer, inputs.stampBuffer, inputs.poseStateBuffer, this.counters,
      inputs.poseListBuffer, inputs.drawListBuffer, this.argsBuffer, this.lodRanges,
    ];
    this.bindGroup = this.device.createBindGroup({
      label: 'CullPass.bindGroup', layout: this.layout,
      entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.bound = inputs;
    this.boundGeneration = inputs.generation;
  }

  /** Bytes of the arguments buffer with room for the impostor and band lists of `listBytes` (0: none, and no alignment padding). */
  private argsSize(listBytes: number): number {
    return listBytes > 0 ? this.impostorListOffset + listBytes : this.argsBytes;
  }

  /** The arguments buffer with room for the impostor and band lists of `listBytes` (0: none). */
  private createArgs(listBytes: number): GPUBuffer {
    return this.device.createBuffer({
      label: 'CullPass.args', size: this.argsSize(listBytes),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_SRC,
    });
  }

  private writeBox(centre: number, half: number, box: ArrayLike<number>): void {
    for (let c = 0; c < 3; c++) {
      this.f32[centre / 4 + c] = (box[c] + box[c + 3]) / 2;
      // Rounded up so that float32 never shrinks the box.
      this.f32[half / 4 + c] = Math.fround((box[c + 3] - box[c]) / 2) * (1 + 2 ** -22);
    }
  }
}
