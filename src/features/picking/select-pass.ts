import selectWgsl from '../../../shaders/picking/select.wgsl?raw';
import { MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import { SELECT_PARAMS } from './picking-wgsl';

/** One rectangle selection's GPU objects: the list the pass appends to and its readback copy (length, then slots). Owned by the caller of SelectPass.encode, which destroys them once read (a uniform of its own: every writeBuffer of a submit lands before its first pass). */
export interface SelectTarget {
  readonly params: GPUBuffer;
  readonly list: GPUBuffer;
  readonly readback: GPUBuffer;
  /** Live instances when it was encoded: the list holds at most this many slots. */
  readonly count: number;
}

/**
 * The rectangle selection (shaders/picking/select.wgsl): a compute pass over the live slots that
 * appends to a list the slot of every instance whose reference point projects inside a rectangle,
 * reading the world matrices where the GPU holds them (after root motion's pass). create: the
 * constructor builds the pipeline; encode(): the selection's own uniform, list and readback
 * buffers (sized to the crowd now), the uniform, the dispatch and the copy.
 */
export class SelectPass {
  private readonly pipeline: GPUComputePipeline;
  private readonly data = new ArrayBuffer(SELECT_PARAMS.size);
  private readonly f32 = new Float32Array(this.data);
  private readonly u32 = new Uint32Array(this.data);

  constructor(private readonly device: GPUDevice) {
    const module = device.createShaderModule({ label: 'SelectPass.shader', code: selectWgsl });
    this.pipeline = device.createComputePipeline({ label: 'SelectPass.pipeline', layout: 'auto', compute: { module, entryPoint: 'selectInRect', constants: { WORKGROUP_SIZE } } });
  }

  /**
   * Records the selection of the first `count` slots of `instances` (INSTANCE records) whose point
   * `centre` (model space) projects through `viewProjection` inside `ndcRect` (xMin, yMin, xMax,
   * yMax) in front of the camera. Returns the new list and readback buffers.
   */
  encode(encoder: GPUCommandEncoder, instances: GPUBuffer, count: number, viewProjection: ArrayLike<number>, centre: ArrayLike<number>, ndcRect: ArrayLike<number>): SelectTarget {
    const groups = Math.ceil(count / WORKGROUP_SIZE);
    const width = Math.max(1, Math.min(groups, MAX_WORKGROUPS_PER_DIMENSION));
    const bytes = 4 * (1 + Math.max(1, count));
    const list = this.device.createBuffer({ label: 'SelectPass.list', size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    const params = this.device.createBuffer({ label: 'SelectPass.params', size: SELECT_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const readback = this.device.createBuffer({ label: 'SelectPass.readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    this.f32.set(viewProjection, SELECT_PARAMS.viewProjection / 4);
    this.f32.set([centre[0], centre[1], centre[2], 1], SELECT_PARAMS.centre / 4);
    this.f32.set(ndcRect, SELECT_PARAMS.rect / 4);
    this.u32[SELECT_PARAMS.count / 4] = count;
    this.u32[SELECT_PARAMS.dispatchWidth / 4] = width;
    this.device.queue.writeBuffer(params, 0, this.data);
    if (count > 0) {
      const group = this.device.createBindGroup({
        label: 'SelectPass.bindGroup', layout: this.pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: params } }, { binding: 1, resource: { buffer: instances } }, { binding: 2, resource: { buffer: list } }],
      });
      const pass = encoder.beginComputePass({ label: 'SelectPass' });
      pass.setPipeline(this.pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(width, Math.ceil(groups / width));
      pass.end();
    }
    encoder.copyBufferToBuffer(list, 0, readback, 0, bytes);
    return { params, list, readback, count };
  }

}
