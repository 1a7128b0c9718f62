import poseWgsl from '../../shaders/pose.wgsl?raw';
import { clockResidual, clockTicks } from './clip-clock';
import { checkSkinning, COUNT_FROM_PARAMS, CULL_ARGS, JOINT_BYTES, JOINT_SLOT, NODE, POSE_PARAMS, SLOT_VEC4S, type SkinningMethod } from './layout';
import { checkStorageBinding, MAX_WORKGROUPS_PER_DIMENSION } from './limits';
import type { RigData } from '../bake/rig-data';
import { acquireTableBuffer, releaseTableBuffer } from './table-buffers';

/** Bytes of workgroup memory per rig node: pose.wgsl's `model` array holds one mat4x4f per node. */
export const WORKGROUP_BYTES_PER_NODE = 64;

/** Threads per instance unless overridden (see the constructor). */
const DEFAULT_WORKGROUP_SIZE = 32;

/**
 * What the pose pass reads per instance: InstanceStore satisfies it. The buffers are read
 * (joints written); the pass does not own them.
 */
export interface PoseInputs {
  /** INSTANCE records: plain ones in [0, plainCount), layered ones after them. */
  readonly instanceBuffer: GPUBuffer;
  /** LAYER_STACK records, indexed by each layered record's `layers`. */
  readonly layerStackBuffer: GPUBuffer;
  /** Blend masks, nodeCount f32 each. */
  readonly masksBuffer: GPUBuffer;
  /** Receives slotCount joint records per record: 48-byte matrix rows, or 64-byte JOINT_DQ records in 'dual-quaternion' mode. */
  readonly jointBuffer: GPUBuffer;
  /** u32 per slot: the joint set (palette entry) the slot is posed into; PALETTE_SHARED set: not posed, and the entry is brought to its clip A's time bucket (written). */
  readonly jointEntryBuffer: GPUBuffer;
  /** The cull pass's pose list: plain slots from 0, layered ones from listStride, their counts at words 2 listStride and 2 listStride + 1. */
  readonly poseListBuffer: GPUBuffer;
  readonly listStride: number;
  /** Changes whenever one of the buffers is replaced, so the pass rebinds. */
  readonly generation: number;
  readonly plainCount: number;
  readonly layeredCount: number;
}

/** What a cull pass (CullPass) leaves for an indirect pose pass. The pass does not own them. */
export interface PoseIndirect {
  /** CULL_ARGS words: the dispatchWorkgroupsIndirect triples. */
  readonly args: GPUBuffer;
}

/** One of the pass's two dispatches: plain records, or records with layer stacks. */
class Dispatch {
  /** Uniforms of the direct and of the indirect form. */
  readonly params: GPUBuffer;
  readonly indirectParams: GPUBuffer;
  readonly data = new ArrayBuffer(POSE_PARAMS.size);
  readonly view = new DataView(this.data);
  bindGroup: GPUBindGroup | undefined;
  indirectBindGroup: GPUBindGroup | undefined;
  width = 1;
  height = 0;

  constructor(device: GPUDevice, readonly label: string, readonly pipeline: GPUComputePipeline,
    /** Which pose list (0 plain, 1 layered), and the CULL_ARGS word of its dispatch triple. */
    readonly list: number, readonly argsWord: number) {
    const uniform = (name: string) => device.createBuffer({ label: `${label}.${name}`, size: POSE_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.params = uniform('params');
    this.indirectParams = uniform('indirectParams');
  }
}

/** Widest row of the 2D grid an indirect dispatch uses (the cull pass writes the triples with it). */
export const INDIRECT_DISPATCH_WIDTH = MAX_WORKGROUPS_PER_DIMENSION;

/**
 * The compute pass that writes every instance's joint matrices (shaders/pose.wgsl).
 * create: the constructor uploads the rig's static tables and builds the pipeline with the
 * layer-stack code compiled out (LAYERS_ENABLED false) for plain records; the one with it, for
 * records that have stacks, is built by the first update() that sees a layered record. The
 * instance store keeps the layered records after the plain ones, so plain records never pay for
 * the layer code (npm run bench measured 1.5-1.6x on SwiftShader for a shader that merely
 * contains it), and a crowd that never layers never compiles it (on SwiftShader that compile
 * took 2.2 s of a 3.4 s crowd creation for Fox; a one-time cost at the first layer stack).
 * update(): writes the per-frame uniforms (and binds the per-instance buffers when they were
 * replaced); encode(): records the dispatches.
 */
export class PosePass {
  readonly workgroupSize: number;
  /** What the pass writes per joint slot: matrix rows ('linear') or JOINT_DQ records. */
  readonly skinning: SkinningMethod;
  private readonly plain: Dispatch;
  /** Built by the first update() with a layered record (see the class comment). */
  private layered: Dispatch | undefined;
  /** The dispatches built so far, plain first (the order the records are laid out in). */
  private readonly dispatches: Dispatch[];
  private readonly module: GPUShaderModule;
  private readonly layout: GPUBindGroupLayout;
  private readonly staticBuffers: GPUBuffer[];
  /** Bound as the instance list of direct dispatches, which do not read it (slot = listBase + index): never the written entry buffer. */
  private readonly unusedList: GPUBuffer;
  /** Where the node records and joint slots start in the tracks buffer (vec4f index). */
  private readonly nodeBase: number;
  private readonly slotBase: number;
  private readonly restBase: number;
  private readonly clipBase: number;
  /** The baked entries whose shared buffer staticBuffers[0] is (released on destroy). */
  private readonly tables: Float32Array;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'PosePass' };
  private bound: PoseInputs | undefined;
  private boundIndirect: PoseIndirect | undefined;
  private boundGeneration = -1;
  /** Whether the last update() chose the indirect form. */
  private indirect: PoseIndirect | undefined;

  /**
   * `options.workgroupSize` overrides the threads per instance (default 32: one thread per rig
   * node, each looping over nodes i, i + 32, ...). npm run bench compares 32, 64, 128 and 256: on
   * SwiftShader 32 was best for both Fox (25 nodes) and RobotExpressive (57 nodes, 1.7x faster
   * than 64); on GPUs 32 is one warp (NVIDIA) or wave32 (AMD RDNA) per instance, so the level
   * barriers stay within one SIMD group. Not yet measured on a GPU.
   * `options.skinning` 'dual-quaternion' writes JOINT_DQ records (src/runtime/layout.ts) instead of
   * matrix rows (default 'linear').
   */
  constructor(private readonly device: GPUDevice, private readonly rig: RigData, options: { workgroupSize?: number; skinning?: SkinningMethod } = {}) {
    this.skinning = checkSkinning(options.skinning);
    const workgroupBytes = rig.nodeCount * WORKGROUP_BYTES_PER_NODE;
    if (workgroupBytes > device.limits.maxComputeWorkgroupStorageSize) {
      throw new RangeError(`the rig has ${rig.nodeCount} nodes, which need ${workgroupBytes} bytes of workgroup memory; ` +
        `the device's maxComputeWorkgroupStorageSize is ${device.limits.maxComputeWorkgroupStorageSize}`);
    }
    this.workgroupSize = options.workgroupSize ?? Math.min(DEFAULT_WORKGROUP_SIZE, device.limits.maxComputeInvocationsPerWorkgroup);
    if (!Number.isInteger(this.workgroupSize) || this.workgroupSize < 1 || this.workgroupSize > device.limits.maxComputeInvocationsPerWorkgroup) {
      throw new RangeError(`workgroupSize must be an integer in [1, ${device.limits.maxComputeInvocationsPerWorkgroup}], got ${this.workgroupSize}`);
    }
    const upload = (label: string, data: ArrayBuffer | ArrayBufferView) => {
      const bytes = data.byteLength;
      checkStorageBinding(device, label, bytes);
      const buffer = device.createBuffer({ label, size: Math.max(16, Math.ceil(bytes / 4) * 4), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(buffer, 0, data instanceof ArrayBuffer ? data : data.buffer, data instanceof ArrayBuffer ? 0 : data.byteOffset, bytes);
      return buffer;
    };
    const refs = refsWithRecords(rig);
    this.nodeBase = refs.nodeBase;
    this.slotBase = refs.slotBase;
    this.restBase = refs.restBase;
    this.clipBase = refs.clipBase;
    checkStorageBinding(device, 'PosePass.tracks', rig.tracks.byteLength);
    this.tables = rig.tracks;
    this.staticBuffers = [acquireTableBuffer(device, rig.tracks), upload('PosePass.trackRefs', refs.data)];
    this.unusedList = device.createBuffer({ label: 'PosePass.unusedList', size: 16, usage: GPUBufferUsage.STORAGE });
    const storage = (binding: number, type: GPUBufferBindingType = 'read-only-storage'): GPUBindGroupLayoutEntry =>
      ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    // One explicit layout for both pipelines (an 'auto' layout would drop the bindings the plain pipeline never reads).
    this.layout = device.createBindGroupLayout({
      label: 'PosePass.layout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        ...[1, 2, 3, 4, 5].map((b) => storage(b)),
        storage(6, 'storage'),
        storage(7),
        storage(8, 'storage'),
      ],
    });
    this.module = device.createShaderModule({ label: 'PosePass.shader', code: poseWgsl });
    this.plain = new Dispatch(device, 'PosePass.plain', this.pipeline('PosePass.plainPipeline', false), 0, CULL_ARGS.posePlain);
    this.dispatches = [this.plain];
  }

  private pipeline(label: string, layers: boolean): GPUComputePipeline {
    return this.device.createComputePipeline({
      label,
      layout: this.device.createPipelineLayout({ label: `${label}.layout`, bindGroupLayouts: [this.layout] }),
      compute: {
        module: this.module, entryPoint: 'main',
        constants: {
          WORKGROUP_SIZE: this.workgroupSize, MAX_NODES: Math.max(this.rig.nodeCount, 1), LAYERS_ENABLED: layers ? 1 : 0,
          DUAL_QUATERNION: this.skinning === 'dual-quaternion' ? 1 : 0,
        },
      },
    });
  }

  /** Whether the layered pipeline has been built (a layered record was seen). */
  get layersCompiled(): boolean {
    return this.layered !== undefined;
  }

  /** Joint-buffer bytes for `instances` instances. */
  jointBytes(instances: number): number {
    return instances * this.rig.slotCount * JOINT_BYTES[this.skinning];
  }

  /**
   * Writes the frame's uniforms for `inputs` at crowd clock `clock` (seconds). Without
   * `indirect`, every instance is posed: records [0, plainCount) are plain, the next
   * layeredCount have layer stacks. With it, the instances a cull pass listed are (encode then
   * dispatches indirectly with the cull pass's arguments; the cull pass must run first in the
   * same command buffer). `sharedBase`: the palette's first shared pose (JointPalette.size) while
   * it is active; a PALETTE_SHARED entry posed over is rewritten to its clip A's time bucket from
   * it. Rebinds the buffers when `inputs`, `indirect` or the generation changed (creation and
   * growth only).
   */
  update(inputs: PoseInputs, clock: number, indirect?: PoseIndirect, sharedBase = 0): void {
    const ticks = clockTicks(clock, 'PosePass.update: clock');
    const residual = clockResidual(clock, ticks);
    if (inputs.layeredCount > 0 && !this.layered) {
      this.layered = new Dispatch(this.device, 'PosePass.layered', this.pipeline('PosePass.layeredPipeline', true), 1, CULL_ARGS.poseLayered);
      this.dispatches.push(this.layered);
      this.bound = undefined;
    }
    if (inputs !== this.bound || inputs.generation !== this.boundGeneration || (indirect && indirect !== this.boundIndirect)) this.bind(inputs, indirect);
    this.indirect = indirect;
    if (indirect) {
      this.write(this.plain, 0, 0, ticks, residual, 2 * inputs.listStride, sharedBase);
      if (this.layered) this.write(this.layered, inputs.listStride, 0, ticks, residual, 2 * inputs.listStride + 1, sharedBase);
    } else {
      this.write(this.plain, 0, inputs.plainCount, ticks, residual, COUNT_FROM_PARAMS, sharedBase);
      if (this.layered) this.write(this.layered, inputs.plainCount, inputs.layeredCount, ticks, residual, COUNT_FROM_PARAMS, sharedBase);
    }
  }

  /** Records the dispatches into `encoder` (one compute pass). */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (!this.plain.bindGroup) throw new Error('PosePass.encode: call update() first');
    const indirect = this.indirect;
    if (!indirect && this.dispatches.every((d) => d.height === 0)) return;
    this.passDescriptor.timestampWrites = timestampWrites;
    const pass = encoder.beginComputePass(this.passDescriptor);
    for (const d of this.dispatches) {
      if (indirect) {
        pass.setPipeline(d.pipeline);
        pass.setBindGroup(0, d.indirectBindGroup!);
        pass.dispatchWorkgroupsIndirect(indirect.args, d.argsWord * 4);
      } else if (d.height > 0) {
        pass.setPipeline(d.pipeline);
        pass.setBindGroup(0, d.bindGroup!);
        pass.dispatchWorkgroups(d.width, d.height);
      }
    }
    pass.end();
  }

  private bind(inputs: PoseInputs, indirect: PoseIndirect | undefined): void {
    const buffers = { instances: inputs.instanceBuffer, stacks: inputs.layerStackBuffer, masks: inputs.masksBuffer, joints: inputs.jointBuffer };
    for (const [name, buffer] of Object.entries(buffers)) checkStorageBinding(this.device, `PosePass.${name}`, buffer.size);
    const group = (label: string, params: GPUBuffer, list: GPUBuffer) => this.device.createBindGroup({
      label, layout: this.layout,
      entries: [params, ...this.staticBuffers, ...Object.values(buffers), list, inputs.jointEntryBuffer].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    for (const d of this.dispatches) {
      d.bindGroup = group(`${d.label}.bindGroup`, d.params, this.unusedList);
      d.indirectBindGroup = indirect && group(`${d.label}.indirectBindGroup`, d.indirectParams, inputs.poseListBuffer);
    }
    this.bound = inputs;
    this.boundIndirect = indirect;
    this.boundGeneration = inputs.generation;
  }

  destroy(): void {
    releaseTableBuffer(this.device, this.tables);
    this.staticBuffers[1].destroy();
    this.unusedList.destroy();
    for (const d of this.dispatches) { d.params.destroy(); d.indirectParams.destroy(); }
  }

  /**
   * Writes dispatch `d`'s uniforms: list entries from `listBase`, `count` of them (direct,
   * countWord COUNT_FROM_PARAMS), or as many as word `countWord` of the list says (indirect:
   * the grid is INDIRECT_DISPATCH_WIDTH wide); the crowd clock as `ticks` and `residual` seconds
   * (src/runtime/clip-clock.ts).
   */
  private write(d: Dispatch, listBase: number, count: number, ticks: number, residual: number, countWord: number, sharedBase: number): void {
    const indirect = countWord !== COUNT_FROM_PARAMS;
    d.width = indirect ? INDIRECT_DISPATCH_WIDTH : Math.max(1, Math.min(count, MAX_WORKGROUPS_PER_DIMENSION));
    d.height = Math.ceil(count / d.width);
    const v = d.view;
    v.setUint32(POSE_PARAMS.listBase, listBase, true);
    v.setUint32(POSE_PARAMS.countIndex, countWord, true);
    v.setUint32(POSE_PARAMS.nodeBase, this.nodeBase, true);
    v.setUint32(POSE_PARAMS.slotBase, this.slotBase, true);
    v.setUint32(POSE_PARAMS.instanceCount, count, true);
    v.setUint32(POSE_PARAMS.nodeCount, this.rig.nodeCount, true);
    v.setUint32(POSE_PARAMS.slotCount, this.rig.slotCount, true);
    v.setUint32(POSE_PARAMS.clipBase, this.clipBase, true);
    v.setUint32(POSE_PARAMS.restBase, this.restBase, true);
    v.setUint32(POSE_PARAMS.maxDepth, this.rig.maxDepth, true);
    v.setInt32(POSE_PARAMS.clockTicks, ticks, true);
    v.setFloat32(POSE_PARAMS.clockResidual, residual, true);
    v.setUint32(POSE_PARAMS.sharedBase, sharedBase, true);
    v.setUint32(POSE_PARAMS.dispatchWidth, d.width, true);
    this.device.queue.writeBuffer(indirect ? d.indirectParams : d.params, 0, d.data);
  }
}

/**
 * The track references with the character's records after them (see `trackRefs` in
 * shaders/pose.wgsl), as u32 words: the references padded to a whole vec4, then rig.records (rest
 * pose, identity difference, clips), one vec4f (parent, depth, 0, 0) per node, and SLOT_VEC4S (5)
 * vec4f per slot (the inverse bind matrix's columns, then (node, 0, 0, 0)); floats as their bits,
 * integers as exact floats. Bases are vec4 indices of the words. The WebGL 2 pose pass
 * (src/webgl2/gl-pose-pass.ts) uploads the same words into a texture.
 */
export function refsWithRecords(rig: RigData): { data: Uint32Array; restBase: number; clipBase: number; nodeBase: number; slotBase: number } {
  const refVec4s = Math.max(1, Math.ceil(rig.trackRefs.length / 4));
  const nodeBase = refVec4s + rig.records.length / 4;
  const slotBase = nodeBase + rig.nodeCount;
  const words = new Uint32Array((slotBase + rig.slotCount * SLOT_VEC4S) * 4);
  words.set(rig.trackRefs);
  const floats = new Float32Array(words.buffer);
  floats.set(rig.records, refVec4s * 4);
  const nodes = new DataView(rig.nodes);
  for (let n = 0; n < rig.nodeCount; n++) {
    floats[(nodeBase + n) * 4] = nodes.getInt32(n * NODE.size + NODE.parent, true);
    floats[(nodeBase + n) * 4 + 1] = nodes.getUint32(n * NODE.size + NODE.depth, true);
  }
  const slots = new DataView(rig.slots);
  for (let s = 0; s < rig.slotCount; s++) {
    const o = s * JOINT_SLOT.size;
    for (let k = 0; k < 16; k++) floats[(slotBase + s * SLOT_VEC4S) * 4 + k] = slots.getFloat32(o + JOINT_SLOT.inverseBind + k * 4, true);
    floats[(slotBase + s * SLOT_VEC4S + 4) * 4] = slots.getUint32(o + JOINT_SLOT.node, true);
  }
  return { data: words, restBase: refVec4s + rig.restBase, clipBase: refVec4s + rig.clipBase, nodeBase, slotBase };
}
