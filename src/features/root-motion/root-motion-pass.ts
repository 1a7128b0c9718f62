import rootMotionWgsl from '../../../shaders/root-motion/root-motion.wgsl?raw';
import { TRACK_NONE } from '../../bake/bake';
import type { BakedRootMotion } from '../../bake/root-motion';
import { ROOT_ANCHOR, ROOT_MOTION_PARAMS } from '../../runtime/layout';
import { checkStorageBinding, MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import type { RootAnchorRecords } from './root-anchor-records';

/** The dispatch is 1D: one instance handle per thread, at most this many workgroups. */
const MAX_WORKGROUPS = MAX_WORKGROUPS_PER_DIMENSION;

/** vec4f per clip at the start of the tables: its facts, then its cycle (root-motion.wgsl reads clip c's at ROOT_CLIP_VEC4S * c, generated). */
export const ROOT_CLIP_VEC4S = 2;

/** The pass's read-only tables (shaders/root-motion/root-motion.wgsl `tables`), as vec4f. */
export interface RootMotionTables {
  /** Per clip 2 vec4f (facts, cycle), then the track: 4 floats per vec4 (u32 fields as their bits). */
  readonly data: Float32Array<ArrayBuffer>;
  /** vec4 index of the first track entry. */
  readonly trackBase: number;
  /** Clips of the model. */
  readonly clipCount: number;
}

/**
 * Packs a model's baked root motion for the pass: per clip c (ROOT_CLIP_VEC4S vec4 each), vec4 2c =
 * (duration s, last entry index, track offset as u32 bits, 1 with a track / 0 without: difference
 * clips), vec4 2c + 1 = (x, z, yaw) of one whole cycle; then the track (x, 0, z, yaw per entry)
 * from `trackBase`.
 */
export function rootMotionTables(motion: BakedRootMotion): RootMotionTables {
  const clipCount = motion.trackOffsets.length;
  const trackBase = ROOT_CLIP_VEC4S * clipCount;
  const data = new Float32Array((trackBase + motion.track.length / 4) * 4);
  const bits = new Uint32Array(data.buffer);
  for (let c = 0; c < clipCount; c++) {
    const o = c * ROOT_CLIP_VEC4S * 4;
    const has = motion.trackOffsets[c] !== TRACK_NONE;
    data[o] = motion.clipDurations[c];
    data[o + 1] = motion.clipEntries[c] - 1;
    bits[o + 2] = has ? motion.trackOffsets[c] : 0;
    data[o + 3] = has && motion.clipEntries[c] >= 2 ? 1 : 0;
    data[o + 4] = motion.cycle[c * 4];
    data[o + 5] = motion.cycle[c * 4 + 2];
    data[o + 6] = motion.cycle[c * 4 + 3];
  }
  data.set(motion.track, trackBase * 4);
  return { data, trackBase, clipCount };
}

/** What the pass reads and writes per instance: InstanceStore satisfies it. */
export interface RootMotionTargets {
  /** INSTANCE records: the pass reads clips, speeds and blend, and writes `world`. */
  readonly instanceBuffer: GPUBuffer;
  /** The slot of every handle (u32; 0xffffffff for a free handle). */
  readonly handleSlotBuffer: GPUBuffer;
  /** Handles the handle-slot buffer holds. */
  readonly handleCount: number;
  /** Changes whenever one of the buffers is replaced, so the pass rebinds. */
  readonly generation: number;
}

/**
 * The compute pass that moves instances by their clips' root motion (shaders/root-motion/root-motion.wgsl):
 * world = anchor * M(anchor -> now) in closed form, one thread per instance handle, before the
 * cull and pose passes read the instance records. create: the constructor uploads the tables and
 * builds the pipeline. update(): grows the anchor buffer to the handles, uploads the anchors
 * changed since the last frame (one writeBuffer) and the uniforms. encode(): one dispatch.
 * Owns its buffers; reads and writes the targets' buffers without owning them.
 */
export class RootMotionPass {
  private readonly tables: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly paramData = new ArrayBuffer(ROOT_MOTION_PARAMS.size);
  private readonly paramView = new DataView(this.paramData);
  private readonly layout: GPUBindGroupLayout;
  private readonly pipeline: GPUComputePipeline;
  private anchors: GPUBuffer;
  private bindGroup: GPUBindGroup | undefined;
  private bound: RootMotionTargets | undefined;
  private boundGeneration = -1;
  private handleCount = 0;
  /** The clock the uniforms hold (NaN: none written), so that an update at the same clock writes them once. */
  private paramClock = NaN;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'RootMotionPass' };

  constructor(readonly device: GPUDevice, tables: RootMotionTables) {
    checkStorageBinding(device, 'RootMotionPass.tables', tables.data.byteLength);
    this.tables = device.createBuffer({ label: 'RootMotionPass.tables', size: Math.max(16, tables.data.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.tables, 0, tables.data);
    this.params = device.createBuffer({ label: 'RootMotionPass.params', size: ROOT_MOTION_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.paramView.setUint32(ROOT_MOTION_PARAMS.trackBase, tables.trackBase, true);
    this.paramView.setUint32(ROOT_MOTION_PARAMS.clipCount, tables.clipCount, true);
    const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    this.layout = device.createBindGroupLayout({
      label: 'RootMotionPass.layout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        storage(1, 'read-only-storage'), storage(2, 'read-only-storage'), storage(3, 'read-only-storage'), storage(4, 'storage'),
      ],
    });
    this.pipeline = device.createComputePipeline({
      label: 'RootMotionPass.pipeline',
      layout: device.createPipelineLayout({ label: 'RootMotionPass.pipelineLayout', bindGroupLayouts: [this.layout] }),
      compute: { module: device.createShaderModule({ label: 'RootMotionPass.shader', code: rootMotionWgsl }), entryPoint: 'main', constants: { WORKGROUP_SIZE } },
    });
    this.anchors = this.createAnchorBuffer(64);
  }

  /**
   * Prepares the frame at crowd clock `clock` (seconds): grows `anchors` (and the GPU copy) to
   * the targets' handles, uploads the changed anchors and the uniforms (when the clock or the
   * handles changed). Returns the anchor bytes uploaded. Checks the sizes against the device's
   * limits before changing anything. Called again before an encode, it sends what changed since
   * (nothing, in a few comparisons, when nothing did).
   */
  update(targets: RootMotionTargets, anchors: RootAnchorRecords, clock: number): number {
    const handles = targets.handleCount;
    if (Math.ceil(handles / WORKGROUP_SIZE) > MAX_WORKGROUPS) throw new RangeError(`RootMotionPass: ${handles} instance handles need more than ${MAX_WORKGROUPS} workgroups`);
    if (handles * ROOT_ANCHOR.size > this.anchors.size) {
      const capacity = Math.max(handles, (2 * this.anchors.size) / ROOT_ANCHOR.size);
      checkStorageBinding(this.device, 'RootMotionPass.anchors', capacity * ROOT_ANCHOR.size);
      anchors.reserve(capacity);
      this.anchors.destroy();
      this.anchors = this.createAnchorBuffer(capacity);
      anchors.markAllDirty(capacity);
      this.bindGroup = undefined;
    } else {
      anchors.reserve(this.anchors.size / ROOT_ANCHOR.size);
    }
    if (targets !== this.bound || targets.generation !== this.boundGeneration || !this.bindGroup) this.bind(targets);
    if (handles !== this.handleCount || clock !== this.paramClock) {
      this.handleCount = handles;
      this.paramClock = clock;
      this.paramView.setUint32(ROOT_MOTION_PARAMS.handleCount, handles, true);
      this.paramView.setFloat32(ROOT_MOTION_PARAMS.clock, clock, true);
      this.device.queue.writeBuffer(this.params, 0, this.paramData);
    }
    return anchors.upload(this.device.queue, this.anchors);
  }

  /** Records the dispatch (after update, before the cull and pose passes). */
  encode(encoder: GPUCommandEncoder): void {
    if (this.handleCount === 0) return;
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup!);
    pass.dispatchWorkgroups(Math.ceil(this.handleCount / WORKGROUP_SIZE));
    pass.end();
  }

  /** The anchor buffer (ROOT_ANCHOR records by handle), for tests. Owned by the pass; replaced when handles outgrow it. */
  get anchorBuffer(): GPUBuffer {
    return this.anchors;
  }

  destroy(): void {
    for (const b of [this.tables, this.params, this.anchors]) b.destroy();
  }

  private bind(targets: RootMotionTargets): void {
    const buffers = [this.params, this.tables, this.anchors, targets.handleSlotBuffer, targets.instanceBuffer];
    this.bindGroup = this.device.createBindGroup({
      label: 'RootMotionPass.bindGroup', layout: this.layout, entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.bound = targets;
    this.boundGeneration = targets.generation;
  }

  /** Bytes of the pass's GPU buffers. */
  get gpuBytes(): number {
    return this.tables.size + this.params.size + this.anchors.size;
  }

  private createAnchorBuffer(capacity: number): GPUBuffer {
    return this.device.createBuffer({ label: 'RootMotionPass.anchors', size: capacity * ROOT_ANCHOR.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  }
}
