import poseWgsl from '../../shaders/pose.wgsl?raw';
import { INSTANCE, JOINT_MATRIX_BYTES, POSE_PARAMS } from './layout';
import { checkStorageBinding } from './limits';
import type { RigData } from './rig-data';

/** Widest row of the 2D dispatch grid (WebGPU's maxComputeWorkgroupsPerDimension default). */
const MAX_DISPATCH_WIDTH = 65535;

/**
 * The compute pass that writes every instance's joint matrices (shaders/pose.wgsl).
 * create: the constructor uploads the rig's static tables and builds the pipeline;
 * bind(): points it at the instance and joint-matrix buffers (on creation and growth only);
 * update(): writes the per-frame uniform; encode(): records the dispatch.
 */
export class PosePass {
  readonly workgroupSize: number;
  private readonly pipeline: GPUComputePipeline;
  private readonly params: GPUBuffer;
  private readonly paramsData = new ArrayBuffer(POSE_PARAMS.size);
  private readonly paramsView = new DataView(this.paramsData);
  private readonly staticBuffers: GPUBuffer[];
  private bindGroup: GPUBindGroup | undefined;
  private dispatchWidth = 1;
  private dispatchHeight = 0;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'PosePass' };

  /**
   * `options.layers` false builds the pipeline without the layer-stack branch (records' stacks
   * are then ignored); the benchmark uses it to show what the branch costs plain records.
   */
  constructor(private readonly device: GPUDevice, private readonly rig: RigData, options: { layers?: boolean } = {}) {
    const workgroupBytes = rig.nodeCount * 64;
    if (workgroupBytes > device.limits.maxComputeWorkgroupStorageSize) {
      throw new RangeError(`the rig has ${rig.nodeCount} nodes, which need ${workgroupBytes} bytes of workgroup memory; ` +
        `the device's maxComputeWorkgroupStorageSize is ${device.limits.maxComputeWorkgroupStorageSize}`);
    }
    // A thread per node, in whole 32-thread groups (measured: see README, "Thread mapping").
    this.workgroupSize = Math.min(Math.max(32, Math.ceil(rig.nodeCount / 32) * 32), device.limits.maxComputeInvocationsPerWorkgroup, 256);
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
    this.params = device.createBuffer({ label: 'PosePass.params', size: POSE_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const module = device.createShaderModule({ label: 'PosePass.shader', code: poseWgsl });
    this.pipeline = device.createComputePipeline({
      label: 'PosePass.pipeline',
      layout: 'auto',
      compute: {
        module, entryPoint: 'main',
        constants: { WORKGROUP_SIZE: this.workgroupSize, MAX_NODES: Math.max(rig.nodeCount, 1), LAYERS_ENABLED: options.layers === false ? 0 : 1 },
      },
    });
  }

  /** Joint-matrix bytes for `instances` instances. */
  jointBytes(instances: number): number {
    return instances * this.rig.slotCount * JOINT_MATRIX_BYTES;
  }

  /**
   * Points the pass at its per-instance buffers: `instances` holds INSTANCE records, `stacks`
   * LAYER_STACK records, `masks` the blend masks (nodeCount f32 each), all read; `joints`
   * receives the matrices. Called on creation and growth only. Does not own them.
   */
  bind(instances: GPUBuffer, stacks: GPUBuffer, masks: GPUBuffer, joints: GPUBuffer): void {
    const buffers = { instances, stacks, masks, joints };
    for (const [name, buffer] of Object.entries(buffers)) checkStorageBinding(this.device, `PosePass.${name}`, buffer.size);
    this.bindGroup = this.device.createBindGroup({
      label: 'PosePass.bindGroup',
      layout: this.pipeline.getBindGroupLayout(0),
      entries: [this.params, ...this.staticBuffers, instances, stacks, masks, joints].map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
  }

  /** Writes the frame's uniform: `instanceCount` records to pose, crowd clock in seconds. */
  update(instanceCount: number, clock: number): void {
    this.dispatchWidth = Math.max(1, Math.min(instanceCount, MAX_DISPATCH_WIDTH));
    this.dispatchHeight = Math.ceil(instanceCount / this.dispatchWidth);
    const v = this.paramsView;
    v.setUint32(POSE_PARAMS.instanceCount, instanceCount, true);
    v.setUint32(POSE_PARAMS.nodeCount, this.rig.nodeCount, true);
    v.setUint32(POSE_PARAMS.slotCount, this.rig.slotCount, true);
    v.setUint32(POSE_PARAMS.clipBase, this.rig.clipBase, true);
    v.setUint32(POSE_PARAMS.restBase, this.rig.restBase, true);
    v.setUint32(POSE_PARAMS.maxDepth, this.rig.maxDepth, true);
    v.setFloat32(POSE_PARAMS.clock, clock, true);
    v.setUint32(POSE_PARAMS.dispatchWidth, this.dispatchWidth, true);
    this.device.queue.writeBuffer(this.params, 0, this.paramsData);
  }

  /** Records the dispatch into `encoder` (its own compute pass). */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    if (!this.bindGroup) throw new Error('PosePass.encode: call bind() first');
    if (this.dispatchHeight === 0) return;
    this.passDescriptor.timestampWrites = timestampWrites;
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.dispatchWorkgroups(this.dispatchWidth, this.dispatchHeight);
    pass.end();
  }

  destroy(): void {
    for (const buffer of this.staticBuffers) buffer.destroy();
    this.params.destroy();
  }
}

/** Bytes per instance record, re-exported for callers sizing instance buffers. */
export const INSTANCE_BYTES = INSTANCE.size;
