import poseWgsl from '../../shaders/pose.wgsl?raw';
import { JOINT_MATRIX_BYTES, POSE_PARAMS } from './layout';
import { checkStorageBinding } from './limits';
import type { RigData } from './rig-data';

/** Threads per instance unless overridden (see the constructor). */
const DEFAULT_WORKGROUP_SIZE = 32;

/** Widest row of the 2D dispatch grid (WebGPU's maxComputeWorkgroupsPerDimension default). */
const MAX_DISPATCH_WIDTH = 65535;

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
  /** Receives slotCount joint matrices (48 bytes each) per record. */
  readonly jointBuffer: GPUBuffer;
  /** Changes whenever one of the buffers is replaced, so the pass rebinds. */
  readonly generation: number;
  readonly plainCount: number;
  readonly layeredCount: number;
}

/** One of the pass's two dispatches: plain records, or records with layer stacks. */
class Dispatch {
  readonly params: GPUBuffer;
  readonly data = new ArrayBuffer(POSE_PARAMS.size);
  readonly view = new DataView(this.data);
  bindGroup: GPUBindGroup | undefined;
  width = 1;
  height = 0;

  constructor(device: GPUDevice, readonly label: string, readonly pipeline: GPUComputePipeline) {
    this.params = device.createBuffer({ label: `${label}.params`, size: POSE_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  }
}

/**
 * The compute pass that writes every instance's joint matrices (shaders/pose.wgsl).
 * create: the constructor uploads the rig's static tables and builds two pipelines of the same
 * shader: one with the layer-stack code compiled out (LAYERS_ENABLED false) for plain records,
 * one with it for records that have stacks. The instance store keeps the layered records after
 * the plain ones, so plain records never pay for the layer code (npm run bench
 * measured 1.5-1.6x on SwiftShader for a shader that merely contains it).
 * update(): writes the per-frame uniforms (and binds the per-instance buffers when they were
 * replaced); encode(): records the dispatches.
 */
export class PosePass {
  readonly workgroupSize: number;
  private readonly plain: Dispatch;
  private readonly layered: Dispatch;
  /** Both dispatches, plain first (the order the records are laid out in). */
  private readonly dispatches: readonly Dispatch[];
  private readonly layout: GPUBindGroupLayout;
  private readonly staticBuffers: GPUBuffer[];
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'PosePass' };
  private bound: PoseInputs | undefined;
  private boundGeneration = -1;

  /**
   * `options.workgroupSize` overrides the threads per instance (default 32: one thread per rig
   * node, each looping over nodes i, i + 32, ...). npm run bench compares 32, 64, 128 and 256: on
   * SwiftShader 32 was best for both Fox (25 nodes) and RobotExpressive (57 nodes, 1.7x faster
   * than 64); on GPUs 32 is one warp (NVIDIA) or wave32 (AMD RDNA) per instance, so the level
   * barriers stay within one SIMD group. Not yet measured on a GPU.
   */
  constructor(private readonly device: GPUDevice, private readonly rig: RigData, options: { workgroupSize?: number } = {}) {
    const workgroupBytes = rig.nodeCount * 64;
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
    this.staticBuffers = [
      upload('PosePass.tracks', rig.tracks),
      upload('PosePass.trackRefs', rig.trackRefs),
      upload('PosePass.nodes', rig.nodes),
      upload('PosePass.slots', rig.slots),
    ];
    const storage = (binding: number, type: GPUBufferBindingType = 'read-only-storage'): GPUBindGroupLayoutEntry =>
      ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    // One explicit layout for both pipelines (an 'auto' layout would drop the bindings the plain pipeline never reads).
    this.layout = device.createBindGroupLayout({
      label: 'PosePass.layout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        ...[1, 2, 3, 4, 5, 6, 7].map((b) => storage(b)),
        storage(8, 'storage'),
      ],
    });
    const module = device.createShaderModule({ label: 'PosePass.shader', code: poseWgsl });
    const pipeline = (label: string, layers: boolean) => device.createComputePipeline({
      label,
      layout: device.createPipelineLayout({ label: `${label}.layout`, bindGroupLayouts: [this.layout] }),
      compute: {
        module, entryPoint: 'main',
        constants: { WORKGROUP_SIZE: this.workgroupSize, MAX_NODES: Math.max(rig.nodeCount, 1), LAYERS_ENABLED: layers ? 1 : 0 },
      },
    });
    this.plain = new Dispatch(device, 'PosePass.plain', pipeline('PosePass.plainPipeline', false));
    this.layered = new Dispatch(device, 'PosePass.layered', pipeline('PosePass.layeredPipeline', true));
    this.dispatches = [this.plain, this.layered];
  }

  /** Joint-matrix bytes for `instances` instances. */
  jointBytes(instances: number): number {
    return instances * this.rig.slotCount * JOINT_MATRIX_BYTES;
  }

  /**
   * Writes the frame's uniforms for `inputs` at crowd clock `clock` (seconds): records
   * [0, plainCount) are plain, the next layeredCount have layer stacks. Rebinds the buffers when
   * `inputs` or its generation changed since the last call (creation and growth only).
   */
  update(inputs: PoseInputs, clock: number): void {
    if (inputs !== this.bound || inputs.generation !== this.boundGeneration) this.bind(inputs);
    this.write(this.plain, 0, inputs.plainCount, clock);
    this.write(this.layered, inputs.plainCount, inputs.layeredCount, clock);
  }

  /** Records the dispatches into `encoder` (one compute pass). */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (!this.plain.bindGroup) throw new Error('PosePass.encode: call update() first');
    if (this.plain.height === 0 && this.layered.height === 0) return;
    this.passDescriptor.timestampWrites = timestampWrites;
    const pass = encoder.beginComputePass(this.passDescriptor);
    for (const d of this.dispatches) {
      if (d.height === 0) continue;
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup!);
      pass.dispatchWorkgroups(d.width, d.height);
    }
    pass.end();
  }

  private bind(inputs: PoseInputs): void {
    const buffers = { instances: inputs.instanceBuffer, stacks: inputs.layerStackBuffer, masks: inputs.masksBuffer, joints: inputs.jointBuffer };
    for (const [name, buffer] of Object.entries(buffers)) checkStorageBinding(this.device, `PosePass.${name}`, buffer.size);
    for (const d of this.dispatches) {
      d.bindGroup = this.device.createBindGroup({
        label: `${d.label}.bindGroup`,
        layout: this.layout,
        entries: [d.params, ...this.staticBuffers, ...Object.values(buffers)].map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
    }
    this.bound = inputs;
    this.boundGeneration = inputs.generation;
  }

  destroy(): void {
    for (const buffer of this.staticBuffers) buffer.destroy();
    for (const d of this.dispatches) d.params.destroy();
  }

  private write(d: Dispatch, first: number, count: number, clock: number): void {
    d.width = Math.max(1, Math.min(count, MAX_DISPATCH_WIDTH));
    d.height = Math.ceil(count / d.width);
    const v = d.view;
    v.setUint32(POSE_PARAMS.firstInstance, first, true);
    v.setUint32(POSE_PARAMS.instanceCount, count, true);
    v.setUint32(POSE_PARAMS.nodeCount, this.rig.nodeCount, true);
    v.setUint32(POSE_PARAMS.slotCount, this.rig.slotCount, true);
    v.setUint32(POSE_PARAMS.clipBase, this.rig.clipBase, true);
    v.setUint32(POSE_PARAMS.restBase, this.rig.restBase, true);
    v.setUint32(POSE_PARAMS.maxDepth, this.rig.maxDepth, true);
    v.setFloat32(POSE_PARAMS.clock, clock, true);
    v.setUint32(POSE_PARAMS.dispatchWidth, d.width, true);
    this.device.queue.writeBuffer(d.params, 0, d.data);
  }
}
