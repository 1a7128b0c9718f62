import propWgsl from '../../../shaders/props/prop.wgsl?raw';
import { checkSkinning, CULL_ARGS, CULL_COUNTERS, INSTANCE, MAX_LOD_LEVELS, PROP_CULLED, PROP_PARAMS, PROP_SELECTED, type SkinningMethod } from '../../runtime/layout';
import { checkStorageBinding, MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import type { DrawArgs } from '../../runtime/skin-pass';

/** Widest row of the 2D dispatch grid. */
const MAX_DISPATCH_WIDTH = MAX_WORKGROUPS_PER_DIMENSION;
/** Words of one drawIndexedIndirect record (the cull pass's too). */
const DRAW_WORDS = CULL_ARGS.drawWords;

/** What the prop pass reads of a crowd: InstanceStore satisfies it. The pass does not own the buffers. */
export interface PropInputs {
  /** The crowd's joint matrices (slotCount x 3 vec4f per slot; 4 vec4f JOINT_DQ records with 'dual-quaternion' skinning). */
  readonly jointBuffer: GPUBuffer;
  /** u32 per slot: the joint set (palette entry) of the slot's instance in jointBuffer. */
  readonly jointEntryBuffer: GPUBuffer;
  /** INSTANCE records (world is read). */
  readonly instanceBuffer: GPUBuffer;
  /** The cull pass's lists (camera level l at l x listStride entries). */
  readonly drawListBuffer: GPUBuffer;
  /** The slot of every handle (u32, HANDLE_FREE for a free one). */
  readonly handleSlotBuffer: GPUBuffer;
  /** Entries per list: the capacity rounded up to 64. */
  readonly listStride: number;
  /** Live instances: slots [0, count). */
  readonly count: number;
  /** Changes whenever one of the buffers is replaced. */
  readonly generation: number;
}

/** The impostor band's list this frame (CrowdImpostors routes; RoutedLists): its slots are placed too, for the band's faded draw of the prop. */
export interface PropBand {
  /** The cull pass's arguments buffer, which holds the band list (not owned). */
  readonly buffer: GPUBuffer;
  /** Byte offset of the band list's slots in `buffer` (256-aligned: RoutedLists.bandListOffset). */
  readonly offset: number;
}

export interface PropPassOptions {
  /** Joint matrices per instance of the crowd. */
  slotCount: number;
  /** The joint slot the prop follows, in [0, slotCount). */
  joint: number;
  /** Joint matrix -> prop placement in model space (16 numbers, column-major): inverse(inverseBind) x offset. */
  local: ArrayLike<number>;
  /** (indexCount, firstIndex) of each prop primitive: one indirect draw each. */
  draws: readonly (readonly [number, number])[];
  /** Prefix of the GPU objects' labels. */
  label: string;
  /** What the crowd's joint buffer holds: matrix rows ('linear', the default) or JOINT_DQ records. */
  skinning?: SkinningMethod;
}

/**
 * The compute pass that places one attachment's prop for every drawn instance (shaders/props/prop.wgsl)
 * and fills the indirect arguments of its draws. create: the constructor builds the pipelines
 * and the fixed-size buffers; setSelection(): the chosen handles (on change only); update():
 * the frame's uniforms, (re)allocating the per-slot buffers when the crowd grew and binding;
 * encode(): clears the list length, copies the cull counters in, dispatches, and copies the
 * length into each draw's instance count. It satisfies DrawArgs for SkinPass.drawIndirect.
 * Owns its buffers; `records` and `list` are replaced when the crowd grows (`generation` counts).
 */
export class PropPass implements DrawArgs {
  /** drawIndexedIndirect records, one per prop primitive. Owned by the pass. */
  readonly args: GPUBuffer;
  /** The same records for the impostor band's instances (instance count: the band list's length, copied in by encode() on a frame with a band). Owned by the pass. */
  readonly bandArgs: GPUBuffer;
  /** Bumped whenever `records` or `list` is replaced: SkinPass rebinds. */
  generation = 0;
  private readonly params: GPUBuffer;
  private readonly data = new ArrayBuffer(PROP_PARAMS.size);
  private readonly u32 = new Uint32Array(this.data);
  private readonly layout: GPUBindGroupLayout;
  private readonly markPipeline: GPUComputePipeline;
  private readonly placePipeline: GPUComputePipeline;
  private readonly bandLayout: GPUBindGroupLayout;
  private readonly bandPipeline: GPUComputePipeline;
  private bandGroup: GPUBindGroup | undefined;
  private readonly passDescriptor: GPUComputePassDescriptor;
  private readonly label: string;
  private readonly draws: number;
  private recordBuffer: GPUBuffer | undefined;
  private listBuffer: GPUBuffer | undefined;
  private selectionBuffer: GPUBuffer | undefined;
  /** List entries the per-slot buffers were made for (0: none yet). */
  private stride = 0;
  private selectionWords = 0;
  /** Chosen handles, or null for every instance; uploaded by update() when dirty. */
  private selected: Uint32Array<ArrayBuffer> | null = null;
  private selectionDirty = false;
  private bindGroup: GPUBindGroup | undefined;
  private bound: PropInputs | undefined;
  private boundGeneration = -1;
  /** The band list bandGroup binds at binding 9 (buffer, offset). */
  private boundBand: GPUBuffer | undefined;
  private boundBandOffset = 0;
  /** The selection buffer bandGroup binds at binding 5. */
  private boundSelection: GPUBuffer | undefined;
  private band: PropBand | undefined;
  private culled = false;
  private levels = 1;
  private frame = 0;
  private width = 1;
  private height = 0;
  private markWidth = 1;
  private markHeight = 0;

  constructor(private readonly device: GPUDevice, options: PropPassOptions) {
    const { slotCount, joint, local, draws, label } = options;
    const dualQuaternion = checkSkinning(options.skinning) === 'dual-quaternion' ? 1 : 0;
    if (!Number.isInteger(joint) || joint < 0 || joint >= slotCount) throw new RangeError(`joint slot must be an integer in [0, ${slotCount}), got ${joint}`);
    if (local.length !== 16) throw new RangeError(`local must have 16 numbers, got ${local.length}`);
    this.draws = draws.length;
    this.label = label;
    this.passDescriptor = { label: `${label}.pass` };
    this.params = device.createBuffer({ label: `${label}.params`, size: PROP_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const args = new Uint32Array(Math.max(1, draws.length) * DRAW_WORDS);
    draws.forEach(([indexCount, firstIndex], p) => { args[p * DRAW_WORDS] = indexCount; args[p * DRAW_WORDS + 2] = firstIndex; });
    this.args = device.createBuffer({ label: `${label}.args`, size: args.byteLength, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    device.queue.writeBuffer(this.args, 0, args);
    this.bandArgs = device.createBuffer({ label: `${label}.bandArgs`, size: args.byteLength, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    device.queue.writeBuffer(this.bandArgs, 0, args);
    new Float32Array(this.data, PROP_PARAMS.local, 16).set(local);
    this.u32[PROP_PARAMS.slotCount / 4] = slotCount;
    this.u32[PROP_PARAMS.joint / 4] = joint;
    this.u32[PROP_PARAMS.dispatchWidth / 4] = MAX_DISPATCH_WIDTH;
    const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    this.layout = device.createBindGroupLayout({
      label: `${label}.layout`,
      entries: [entry(0, 'uniform'), ...[1, 2, 3, 4].map((b) => entry(b, 'read-only-storage')), ...[5, 6, 7].map((b) => entry(b, 'storage')), entry(8, 'read-only-storage')],
    });
    // placeBand's: params, joints, instances, the selection's marks, records, joint entries and the band list.
    this.bandLayout = device.createBindGroupLayout({
      label: `${label}.bandLayout`,
      entries: [entry(0, 'uniform'), entry(1, 'read-only-storage'), entry(2, 'read-only-storage'), entry(5, 'storage'), entry(6, 'storage'), entry(8, 'read-only-storage'), entry(9, 'read-only-storage')],
    });
    const module = device.createShaderModule({ label: `${label}.shader`, code: propWgsl });
    const pipeline = (entryPoint: string, layout: GPUBindGroupLayout) => device.createComputePipeline({
      label: `${label}.${entryPoint}`, layout: device.createPipelineLayout({ label: `${label}.${entryPoint}Layout`, bindGroupLayouts: [layout] }),
      compute: { module, entryPoint, constants: { WORKGROUP_SIZE, DUAL_QUATERNION: dualQuaternion } },
    });
    this.markPipeline = pipeline('mark', this.layout);
    this.placePipeline = pipeline('place', this.layout);
    this.bandPipeline = pipeline('placeBand', this.bandLayout);
  }

  /** The prop's records, one INSTANCE-sized record per crowd slot (world = the prop's model-to-world), valid for the slots listed this frame. */
  get records(): GPUBuffer {
    if (!this.recordBuffer) throw new Error('PropPass.records: call update() first');
    return this.recordBuffer;
  }

  /** The prop's draw list (u32 slots from word 0, its length at word listStride). */
  get list(): GPUBuffer {
    if (!this.listBuffer) throw new Error('PropPass.list: call update() first');
    return this.listBuffer;
  }

  /** Entries of the draw list (its length is the word after them). */
  get listStride(): number {
    return this.stride;
  }

  /** DrawArgs: the arguments of prop primitive `primitive` (one list, one level). */
  argsOffset(_list: number, _level: number, primitive: number): number {
    return primitive * DRAW_WORDS * 4;
  }

  /** Only instances whose handle is in `handles` get the prop from the next update on; null: every instance. */
  setSelection(handles: ArrayLike<number> | null): void {
    this.selected = handles === null ? null : Uint32Array.from(handles);
    this.selectionDirty = true;
  }

  /**
   * The frame's uniforms: `culled` when the cull pass ran this frame (its camera lists of
   * `levels` LOD levels are read), else every slot in [0, inputs.count); `band` (a culled frame's,
   * for a prop every instance holds: no selection) places the impostor band's slots too, for
   * `bandArgs`. Grows the per-slot buffers with the crowd and rebinds when a buffer was replaced.
   */
  update(inputs: PropInputs, culled: boolean, levels: number, band?: PropBand): void {
    if (!Number.isInteger(levels) || levels < 1 || levels > MAX_LOD_LEVELS) throw new RangeError(`levels must be an integer in [1, ${MAX_LOD_LEVELS}], got ${levels}`);
    if (band && !culled) throw new RangeError("PropPass.update: the band's slots are placed on a culled frame (this frame was not culled)");
    if (inputs.listStride > this.stride) this.allocate(inputs.listStride);
    const selectionWords = this.stride + Math.max(4, this.selected?.length ?? 0);
    if (selectionWords > this.selectionWords) this.allocateSelection(selectionWords);
    if (this.selectionDirty) {
      if (this.selected && this.selected.length > 0) this.device.queue.writeBuffer(this.selectionBuffer!, this.stride * 4, this.selected);
      this.selectionDirty = false;
    }
    this.band = band;
    if (!this.bindGroup || inputs !== this.bound || inputs.generation !== this.boundGeneration) this.bind(inputs);
    if (band && (!this.bandGroup || band.buffer !== this.boundBand || band.offset !== this.boundBandOffset || this.selectionBuffer !== this.boundSelection)) this.bindBand(inputs, band);
    this.culled = culled;
    this.levels = culled ? levels : 1;
    this.frame = (this.frame % 0xffffffff) + 1; // never 0, the marks' initial value
    const u = this.u32;
    const lengths = PROP_PARAMS.lengths / 4;
    u.fill(0, lengths, lengths + 4);
    if (!culled) u[lengths] = inputs.count;
    u[PROP_PARAMS.listStride / 4] = this.stride;
    u[PROP_PARAMS.levels / 4] = this.levels;
    u[PROP_PARAMS.flags / 4] = (culled ? PROP_CULLED : 0) | (this.selected ? PROP_SELECTED : 0);
    u[PROP_PARAMS.bandLength / 4] = 0;
    u[PROP_PARAMS.frame / 4] = this.frame;
    u[PROP_PARAMS.selectedCount / 4] = this.selected?.length ?? 0;
    this.device.queue.writeBuffer(this.params, 0, this.data);
    [this.width, this.height] = grid(inputs.count);
    [this.markWidth, this.markHeight] = grid(this.selected?.length ?? 0);
  }

  /**
   * Records the pass: `counters` is the cull pass's CULL_COUNTERS buffer when update() was told
   * the frame was culled (the list lengths are copied from it, after the cull pass in the same
   * encoder).
   */
  encode(encoder: GPUCommandEncoder, counters?: GPUBuffer): void {
    if (!this.bindGroup) throw new Error('PropPass.encode: call update() first');
    const list = this.listBuffer!;
    const lengthOffset = this.stride * 4;
    encoder.clearBuffer(list, lengthOffset, 4);
    if (this.culled) {
      if (!counters) throw new Error('PropPass.encode: a culled frame needs the cull counters');
      encoder.copyBufferToBuffer(counters, CULL_COUNTERS.camera * 4, this.params, PROP_PARAMS.lengths, this.levels * 4);
      if (this.band) {
        encoder.copyBufferToBuffer(counters, CULL_COUNTERS.band * 4, this.params, PROP_PARAMS.bandLength, 4);
        for (let p = 0; p < this.draws; p++) encoder.copyBufferToBuffer(counters, CULL_COUNTERS.band * 4, this.bandArgs, this.argsOffset(0, 0, p) + 4, 4);
      }
    }
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setBindGroup(0, this.bindGroup);
    if (this.selected && this.markHeight > 0) {
      pass.setPipeline(this.markPipeline);
      pass.dispatchWorkgroups(this.markWidth, this.markHeight);
    }
    if (this.height > 0) {
      pass.setPipeline(this.placePipeline);
      pass.dispatchWorkgroups(this.width, this.height, this.levels);
      if (this.band) {
        pass.setBindGroup(0, this.bandGroup!);
        pass.setPipeline(this.bandPipeline);
        pass.dispatchWorkgroups(this.width, this.height);
      }
    }
    pass.end();
    for (let p = 0; p < this.draws; p++) encoder.copyBufferToBuffer(list, lengthOffset, this.args, this.argsOffset(0, 0, p) + 4, 4);
  }

  destroy(): void {
    for (const buffer of [this.params, this.args, this.bandArgs, this.recordBuffer, this.listBuffer, this.selectionBuffer]) buffer?.destroy();
  }

  /** Per-slot records and the draw list for `stride` entries (their old contents are per frame, so nothing is copied). */
  private allocate(stride: number): void {
    const label = this.label;
    checkStorageBinding(this.device, `${label}.records`, stride * INSTANCE.size);
    const records = this.device.createBuffer({ label: `${label}.records`, size: stride * INSTANCE.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    // The entries, then the length (padded to 16 bytes).
    const list = this.device.createBuffer({ label: `${label}.list`, size: (stride + 4) * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    this.recordBuffer?.destroy();
    this.listBuffer?.destroy();
    this.recordBuffer = records;
    this.listBuffer = list;
    this.stride = stride;
    this.selectionWords = 0; // the marks region grows with the stride
    this.bindGroup = undefined;
    this.generation++;
  }

  /** The selection: stride marks (zero: no frame), then the chosen handles (re-uploaded). */
  private allocateSelection(words: number): void {
    const size = Math.ceil(words / 4) * 16;
    const buffer = this.device.createBuffer({ label: `${this.label}.selection`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    this.selectionBuffer?.destroy();
    this.selectionBuffer = buffer;
    this.selectionWords = size / 4;
    this.selectionDirty = true;
    this.bindGroup = undefined;
  }

  /** Bytes of the pass's GPU buffers. */
  get gpuBytes(): number {
    return this.params.size + this.args.size + this.bandArgs.size + (this.recordBuffer?.size ?? 0) + (this.listBuffer?.size ?? 0) + (this.selectionBuffer?.size ?? 0);
  }

  private bind(inputs: PropInputs): void {
    const buffers = [
      this.params, inputs.jointBuffer, inputs.instanceBuffer, inputs.drawListBuffer, inputs.handleSlotBuffer,
      this.selectionBuffer!, this.recordBuffer!, this.listBuffer!, inputs.jointEntryBuffer,
    ];
    this.bindGroup = this.device.createBindGroup({
      label: `${this.label}.bindGroup`, layout: this.layout,
      entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.bound = inputs;
    this.boundGeneration = inputs.generation;
    this.bandGroup = undefined; // over the old records
  }

  /** placeBand's bind group over the band list `band` (the slots: stride entries from its offset). */
  private bindBand(inputs: PropInputs, band: PropBand): void {
    const buffers: [number, GPUBufferBinding][] = [
      [0, { buffer: this.params }], [1, { buffer: inputs.jointBuffer }], [2, { buffer: inputs.instanceBuffer }], [5, { buffer: this.selectionBuffer! }], [6, { buffer: this.recordBuffer! }],
      [8, { buffer: inputs.jointEntryBuffer }], [9, { buffer: band.buffer, offset: band.offset, size: this.stride * 4 }],
    ];
    this.bandGroup = this.device.createBindGroup({ label: `${this.label}.bandGroup`, layout: this.bandLayout, entries: buffers.map(([binding, resource]) => ({ binding, resource })) });
    this.boundBand = band.buffer;
    this.boundBandOffset = band.offset;
    this.boundSelection = this.selectionBuffer;
  }
}

/** A 2D grid of 64-thread workgroups covering n threads: (width, height), height 0 for none. */
function grid(n: number): [number, number] {
  const groups = Math.ceil(n / WORKGROUP_SIZE);
  const width = Math.max(1, Math.min(groups, MAX_DISPATCH_WIDTH));
  return [width, Math.ceil(groups / width)];
}
