import paletteWgsl from '../../../shaders/culling/palette.wgsl?raw';
import { clockTicks } from '../clip-clock';
import type { InstanceStore } from '../instance-store';
import { InstanceRecords } from '../instance-records';
import { CULL_LOD, CULL_SHADOWS, INSTANCE, LAYERS_NONE, LOD_NOT_FORCED, MAX_LOD_LEVELS, PALETTE_BUCKETS, PALETTE_PARAMS } from '../layout';
import { WORKGROUP_SIZE } from '../limits';
import { INDIRECT_DISPATCH_WIDTH, type PoseInputs, type PosePass } from '../pose-pass';

/** What the palette pass reads of the cull pass (CullPass satisfies it). Not owned. */
export interface PaletteCull {
  /** CULL_COUNTERS words: the camera and shadow list lengths per level, and the band's. */
  readonly counters: GPUBuffer;
  /** The arguments buffer, which holds the impostor band's list while impostors are routed (replaced when it grows). */
  readonly args: GPUBuffer;
  /** Byte offset in `args` of the band list for lists of `listStride` entries. */
  bandListOffset(listStride: number): number;
}

/**
 * The draw lists the cull pass can fill for `frame` (bit k: list k, camera levels 0 .. levels - 1
 * then shadow levels): a forced level or LOD off puts every drawn instance at one level (a crowd
 * without a camera draws all at level 0: flags 0), and the shadow lists stay empty without
 * CULL_SHADOWS; bit 2 x levels: the impostor band's list, while the cull pass has a band. The palette pass dispatches only these: each of its list dispatches is indirect,
 * which Dawn validates by recording a dispatch of its own (about 8 µs of CPU each in Node), and a
 * list the cull pass cannot fill has nothing to mark or acquire.
 */
export function paletteLists(frame: { flags: number; forcedLevel: number; shadowLodBias: number; impostorBand?: number; impostorDistance?: number }, levels: number): number {
  const all = (1 << levels) - 1;
  const single = frame.forcedLevel !== LOD_NOT_FORCED ? Math.min(frame.forcedLevel, levels - 1) : (frame.flags & CULL_LOD) === 0 ? 0 : -1;
  const camera = single < 0 ? all : 1 << single;
  const shadow = (frame.flags & CULL_SHADOWS) === 0 ? 0 : single < 0 ? all : 1 << Math.min(single + frame.shadowLodBias, levels - 1);
  // The impostor band's list (list 2 x levels) while the cull pass has a band.
  const band = frame.impostorBand !== undefined && frame.impostorDistance !== undefined && frame.impostorBand < frame.impostorDistance ? 1 << (2 * levels) : 0;
  return camera | (shadow << levels) | band;
}

/**
 * The compute pass that hands the joint sets of a store's palette (JointPalette) to the instances
 * being drawn, each frame between the cull pass and the pose pass (shaders/culling/palette.wgsl):
 * kept while an instance stays drawn (so animation LOD still holds its pose), given back when it
 * leaves both the camera and the shadow lists, and taken, nearest LOD level first, by drawn
 * instances without one; when none is free, the instance draws the shared pose of its clip A's
 * time bucket (clipCount x PALETTE_BUCKETS poses at the buckets' middles, posed once by the pose
 * pass whenever the joint buffer is replaced): coarser in time, never a hole.
 * create: the constructor builds the four pipelines and its fixed buffers; update(): binds the
 * store's buffers when replaced and writes the frame's uniforms; encode(): records the shared
 * poses when due, then the pass. Runs only while the store's palette is active.
 */
export class PalettePass {
  private readonly device: GPUDevice;
  private readonly levels: number;
  private readonly params: GPUBuffer;
  private readonly data = new ArrayBuffer((2 * MAX_LOD_LEVELS + 1) * PALETTE_PARAMS.stride);
  private readonly view = new DataView(this.data);
  /** A dispatchWorkgroupsIndirect triple per draw list (prepare writes them). */
  private readonly args: GPUBuffer;
  private readonly layout: GPUBindGroupLayout;
  /** prepare's group: the indirect arguments it writes. */
  private readonly argsGroup: GPUBindGroup;
  private readonly pipelines: Record<'prepare' | 'mark' | 'release' | 'acquire', GPUComputePipeline>;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'PalettePass' };
  /** One bind group per draw list (its uniform block); [0] also serves prepare and release. */
  private readonly groups: GPUBindGroup[] = [];
  private boundGeneration = -1;
  private bound: InstanceStore | undefined;
  private releaseWidth = 1;
  private releaseHeight = 0;
  /** The lists this frame's encode dispatches (paletteLists; bit k: list k). */
  private lists = 0;
  /** The shared poses' records, their joint-set entries and identity list, posed when `posedGeneration` is behind the store. */
  private readonly shared: { records: GPUBuffer; entries: GPUBuffer; list: GPUBuffer; data: InstanceRecords; count: number; entryWords: Uint32Array<ArrayBuffer> };
  private readonly sharedInputs: { -readonly [K in keyof PoseInputs]: PoseInputs[K] };
  private posedGeneration = -1;
  /** The cull pass's args buffer the band's group was made over. */
  private boundArgs: GPUBuffer | undefined;

  constructor(device: GPUDevice, options: { levels: number; clipDurations: ArrayLike<number> }) {
    this.device = device;
    this.levels = options.levels;
    this.params = device.createBuffer({ label: 'PalettePass.params', size: this.data.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.args = device.createBuffer({ label: 'PalettePass.args', size: (2 * MAX_LOD_LEVELS + 1) * 3 * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT });
    const entry = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    this.layout = device.createBindGroupLayout({
      label: 'PalettePass.layout',
      entries: [entry(0, 'uniform'), ...[1, 2, 3].map((b) => entry(b, 'read-only-storage')), ...[4, 5, 6, 7].map((b) => entry(b, 'storage'))],
    });
    const argsLayout = device.createBindGroupLayout({ label: 'PalettePass.argsLayout', entries: [entry(0, 'storage')] });
    this.argsGroup = device.createBindGroup({ label: 'PalettePass.argsGroup', layout: argsLayout, entries: [{ binding: 0, resource: { buffer: this.args } }] });
    const module = device.createShaderModule({ label: 'PalettePass.shader', code: paletteWgsl });
    const layout = device.createPipelineLayout({ label: 'PalettePass.pipelineLayout', bindGroupLayouts: [this.layout] });
    const prepareLayout = device.createPipelineLayout({ label: 'PalettePass.prepareLayout', bindGroupLayouts: [this.layout, argsLayout] });
    const pipeline = (entryPoint: string) => device.createComputePipeline({
      label: `PalettePass.${entryPoint}`, layout: entryPoint === 'prepare' ? prepareLayout : layout, compute: { module, entryPoint, constants: { WORKGROUP_SIZE } },
    });
    this.pipelines = { prepare: pipeline('prepare'), mark: pipeline('mark'), release: pipeline('release'), acquire: pipeline('acquire') };

    // The shared poses: clip c's bucket b at the middle of its time span, held (speed 0).
    const durations = options.clipDurations;
    const count = Math.max(1, durations.length) * PALETTE_BUCKETS;
    const data = new InstanceRecords(count, durations);
    for (let c = 0; c < durations.length; c++) {
      for (let b = 0; b < PALETTE_BUCKETS; b++) {
        const slot = c * PALETTE_BUCKETS + b;
        const time = ((b + 0.5) / PALETTE_BUCKETS) * durations[c];
        data.setWorld(slot, IDENTITY);
        data.setAnimation(slot, { clipA: c, clipB: c, timeA: time, timeB: time, speedA: 0, speedB: 0, blend: 0 }, 0);
        data.setLayerStack(slot, LAYERS_NONE);
      }
    }
    const storage = (label: string, size: number) => device.createBuffer({ label: `PalettePass.${label}`, size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const records = storage('sharedRecords', count * INSTANCE.size);
    data.upload(device.queue, records);
    const list = storage('sharedList', count * 4);
    device.queue.writeBuffer(list, 0, Uint32Array.from({ length: count }, (_, i) => i));
    this.shared = { records, entries: storage('sharedEntries', count * 4), list, data, count, entryWords: new Uint32Array(count) };
    this.sharedInputs = {
      instanceBuffer: records, layerStackBuffer: records, masksBuffer: records, jointBuffer: records, jointEntryBuffer: this.shared.entries,
      poseListBuffer: list, listStride: count, generation: -1, plainCount: count, layeredCount: 0,
    };
  }

  /** Bytes of the pass's own buffers (Crowd.gpuBytes). */
  get gpuBytes(): number {
    return this.params.size + this.args.size + this.shared.records.size + this.shared.entries.size + this.shared.list.size;
  }

  /**
   * Writes the frame's uniforms (`frame`: the cull pass's counter; `clock`: crowd seconds); binds
   * `store`'s buffers when they were replaced. `lists`: the draw lists the cull pass can fill this
   * frame (paletteLists; default all), the only ones encode dispatches.
   */
  update(store: InstanceStore, cull: PaletteCull, frame: number, clock: number, lists = (1 << (2 * this.levels)) - 1): void {
    if (store !== this.bound || store.generation !== this.boundGeneration || cull.args !== this.boundArgs) this.bind(store, cull);
    this.lists = lists;
    const ticks = clockTicks(clock, 'PalettePass.update: clock');
    const v = this.view;
    for (let list = 0; list <= 2 * this.levels; list++) {
      const o = list * PALETTE_PARAMS.stride;
      v.setUint32(o + PALETTE_PARAMS.frame, frame >>> 0, true);
      v.setUint32(o + PALETTE_PARAMS.slotTotal, store.listStride, true);
      v.setUint32(o + PALETTE_PARAMS.count, store.count, true);
      v.setUint32(o + PALETTE_PARAMS.listStride, store.listStride, true);
      v.setUint32(o + PALETTE_PARAMS.list, list, true);
      v.setUint32(o + PALETTE_PARAMS.lists, 2 * this.levels, true);
      v.setUint32(o + PALETTE_PARAMS.sharedBase, store.palette.size, true);
      v.setInt32(o + PALETTE_PARAMS.clockTicks, ticks, true);
      v.setUint32(o + PALETTE_PARAMS.dispatchWidth, INDIRECT_DISPATCH_WIDTH, true);
    }
    this.device.queue.writeBuffer(this.params, 0, this.data, 0, (2 * this.levels + 1) * PALETTE_PARAMS.stride);
    const groups = Math.ceil(store.listStride / WORKGROUP_SIZE);
    this.releaseWidth = Math.max(1, Math.min(groups, INDIRECT_DISPATCH_WIDTH));
    this.releaseHeight = Math.ceil(groups / this.releaseWidth);
  }

  /**
   * Poses the shared poses into `store`'s joint buffer when it was replaced since they were last
   * posed (a direct dispatch of `pose`, before the caller's own pose.update for the frame).
   */
  poseShared(encoder: GPUCommandEncoder, store: InstanceStore, pose: PosePass): void {
    if (this.posedGeneration === store.generation) return;
    const s = this.shared;
    for (let i = 0; i < s.count; i++) s.entryWords[i] = store.palette.size + i;
    this.device.queue.writeBuffer(s.entries, 0, s.entryWords);
    const inputs = this.sharedInputs;
    inputs.layerStackBuffer = store.layerStackBuffer;
    inputs.masksBuffer = store.masksBuffer;
    inputs.jointBuffer = store.jointBuffer;
    inputs.generation = store.generation;
    pose.update(inputs, 0);
    pose.encode(encoder);
    this.posedGeneration = store.generation;
  }

  /**
   * Records prepare, mark (per list), release, acquire (per list, camera levels near to far, then
   * the shadow lists), the per-list dispatches only for the lists update was given;
   * `timestampWrites` measures the pass.
   */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (this.groups.length === 0) throw new Error('PalettePass.encode: call update() first');
    this.passDescriptor.timestampWrites = timestampWrites;
    const pass = encoder.beginComputePass(this.passDescriptor);
    const lists = this.groups.length; // 2 x levels, and the band's while impostors are routed
    pass.setBindGroup(0, this.groups[0]);
    pass.setBindGroup(1, this.argsGroup);
    pass.setPipeline(this.pipelines.prepare);
    pass.dispatchWorkgroups(1);
    pass.setPipeline(this.pipelines.mark);
    for (let list = 0; list < lists; list++) {
      if ((this.lists & (1 << list)) === 0) continue;
      pass.setBindGroup(0, this.groups[list]);
      pass.dispatchWorkgroupsIndirect(this.args, list * 12);
    }
    if (this.releaseHeight > 0) {
      pass.setBindGroup(0, this.groups[0]);
      pass.setPipeline(this.pipelines.release);
      pass.dispatchWorkgroups(this.releaseWidth, this.releaseHeight);
    }
    pass.setPipeline(this.pipelines.acquire);
    for (let list = 0; list < lists; list++) {
      if ((this.lists & (1 << list)) === 0) continue;
      pass.setBindGroup(0, this.groups[list]);
      pass.dispatchWorkgroupsIndirect(this.args, list * 12);
    }
    pass.end();
  }

  destroy(): void {
    for (const b of [this.params, this.args, this.shared.records, this.shared.entries, this.shared.list]) b.destroy();
  }

  private bind(store: InstanceStore, cull: PaletteCull): void {
    const { palette } = store;
    if (!palette.entryBuffer || !palette.seenBuffer || !palette.freeBuffer) throw new Error('PalettePass.update: the store has no active palette');
    this.groups.length = 0;
    // The lists, then the impostor band's (list 2 x levels), bound alone at its offset while the args buffer holds it (impostors routed).
    const bandOffset = cull.bandListOffset(store.listStride), size = store.listStride * 4;
    const lists = 2 * this.levels + Number(cull.args.size >= bandOffset + size);
    for (let list = 0; list < lists; list++) {
      const band = list === 2 * this.levels;
      const buffers = [store.instanceBuffer, cull.counters, band ? cull.args : store.drawListBuffer, palette.entryBuffer, palette.seenBuffer, palette.freeBuffer, store.poseStateBuffer];
      this.groups.push(this.device.createBindGroup({
        label: `PalettePass.bindGroup${list}`, layout: this.layout,
        entries: [
          { binding: 0, resource: { buffer: this.params, offset: list * PALETTE_PARAMS.stride, size: PALETTE_PARAMS.size } },
          ...buffers.map((buffer, i) => ({ binding: i + 1, resource: band && i === 2 ? { buffer, offset: bandOffset, size } : { buffer } })),
        ],
      }));
    }
    this.bound = store;
    this.boundGeneration = store.generation;
    this.boundArgs = cull.args;
  }
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
