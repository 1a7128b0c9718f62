import shownWgsl from '../../../shaders/impostors/shown.wgsl?raw';
import type { InstanceStore } from '../../runtime/instance-store';
import { LAYER_STACK } from '../../runtime/layout';
import { MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import { IMPOSTOR_SHOWN, SHOWN_PARAMS } from './impostor-layout';

/**
 * The shown pass (shaders/impostors/shown.wgsl): once a frame, before the cull pass, it finds the
 * layered instances whose stack is a blend of clips the atlas holds (no masked or additive layer
 * that weighs anything, or those left out: `leaveOut`), writes their two heaviest clips as the stack's shown record and marks
 * their records LAYERS_SHOWN, which the cull pass routes to the impostors (a controller's
 * crossfade of three clips, a 2D blend space's three, a stack of unmasked layers). Without it a
 * layered instance was a mesh at any distance. create: the constructor makes the pipeline and the
 * uniform (the atlas's clips written once); encode(): the records (grown with the store's stacks),
 * the uniform when the layered range moved, the bind group when a buffer was replaced, and the
 * dispatch: nothing while no instance is layered. Owns the shown records and the uniform.
 */
export class ImpostorShown {
  private readonly pipeline: GPUComputePipeline;
  private readonly params: GPUBuffer;
  private readonly paramData = new Uint32Array(SHOWN_PARAMS.size / 4);
  private shownRecords: GPUBuffer;
  private group: GPUBindGroup | undefined;
  private boundInstances: GPUBuffer | undefined;
  private boundStacks: GPUBuffer | undefined;
  /** The pass's descriptor, made once (no object a frame). */
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'ImpostorShown.pass' };
  /** The layered range and row length the uniform holds (-1: not written, or the policy changed). */
  private writtenFirst = -1;
  private writtenCount = -1;

  /**
   * @param clipBits bit c (word c / 32) set: the atlas holds clip c (ImpostorRoute.clipBits)
   * @param leaveOut whether partial layers are left out of what an impostor shows (ImpostorOptions.partialLayers 'leave-out'), else they keep a mesh
   */
  constructor(private readonly device: GPUDevice, clipBits: Uint32Array, leaveOut: boolean) {
    const module = device.createShaderModule({ label: 'ImpostorShown.shader', code: shownWgsl });
    this.pipeline = device.createComputePipeline({ label: 'ImpostorShown.pipeline', layout: 'auto', compute: { module, entryPoint: 'main', constants: { WORKGROUP_SIZE } } });
    this.params = device.createBuffer({ label: 'ImpostorShown.params', size: SHOWN_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.paramData.set(clipBits, SHOWN_PARAMS.clips / 4);
    this.leaveOut = leaveOut;
    this.shownRecords = this.makeRecords(1);
  }

  /** Whether partial layers are left out (written into the uniform at the next encode). */
  get leaveOut(): boolean {
    return this.paramData[SHOWN_PARAMS.leaveOut / 4] === 1;
  }

  set leaveOut(on: boolean) {
    this.paramData[SHOWN_PARAMS.leaveOut / 4] = on ? 1 : 0;
    this.writtenCount = -1;
  }

  /** The shown records, one per layer stack record at its index (impostor.wgsl `shown`): replaced when the store's stacks grow. */
  get records(): GPUBuffer {
    return this.shownRecords;
  }

  /** Bytes on the GPU: the shown records and the uniform (counted in CrowdImpostors.gpuBytes). */
  get bytes(): number {
    return this.shownRecords.size + this.params.size;
  }

  /** Records the pass over `store`'s layered instances as they stand (after the control pass, before the cull pass). */
  encode(encoder: GPUCommandEncoder, store: InstanceStore): void {
    const count = store.layeredCount;
    if (count === 0) return;
    const instances = store.instanceBuffer as GPUBuffer;
    const stacks = store.layerStackBuffer as GPUBuffer;
    const records = stacks.size / LAYER_STACK.size;
    if (this.shownRecords.size < records * IMPOSTOR_SHOWN.size) {
      this.shownRecords.destroy();
      this.shownRecords = this.makeRecords(records);
      this.group = undefined;
    }
    const first = store.plainCount;
    const groups = Math.ceil(count / WORKGROUP_SIZE);
    const row = Math.min(groups, MAX_WORKGROUPS_PER_DIMENSION);
    if (first !== this.writtenFirst || count !== this.writtenCount) {
      const u = this.paramData; // the clips and the policy (leaveOut) are there already
      u[SHOWN_PARAMS.first / 4] = first;
      u[SHOWN_PARAMS.count / 4] = count;
      u[SHOWN_PARAMS.rowLength / 4] = row * WORKGROUP_SIZE;
      this.device.queue.writeBuffer(this.params, 0, u);
      this.writtenFirst = first;
      this.writtenCount = count;
    }
    if (!this.group || this.boundInstances !== instances || this.boundStacks !== stacks) {
      this.group = this.device.createBindGroup({
        label: 'ImpostorShown.group', layout: this.pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.params } },
          { binding: 1, resource: { buffer: instances } },
          { binding: 2, resource: { buffer: stacks } },
          { binding: 3, resource: { buffer: this.shownRecords } },
        ],
      });
      this.boundInstances = instances;
      this.boundStacks = stacks;
    }
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.group);
    pass.dispatchWorkgroups(row, Math.ceil(groups / row));
    pass.end();
  }

  destroy(): void {
    this.shownRecords.destroy();
    this.params.destroy();
  }

  private makeRecords(records: number): GPUBuffer {
    return this.device.createBuffer({ label: 'ImpostorShown.records', size: Math.max(1, records) * IMPOSTOR_SHOWN.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  }
}
