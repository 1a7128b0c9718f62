import { DOT_LIST_HEADER } from './impostor-layout';
import type { ImpostorInputs } from './impostor-pass';

/** What the dots' listing binds of the impostor draw's own (ImpostorPass: its uniforms, cell table and stand-ins; not owned). */
export interface DotListShared {
  readonly camera: GPUBuffer;
  readonly atlas: GPUBuffer;
  readonly cellTable: GPUBuffer;
  /** The looks' stand-in without CrowdAppearance, and the prop sets' without props of chosen instances. */
  readonly white: GPUBuffer;
  readonly noPropSets: GPUBuffer;
}


/**
 * The dots that light a sample (shaders/impostors/impostor.wgsl `listDots`): after the cull pass,
 * one compute dispatch over the cull pass's dots (its indirect triple, cull.wgsl finalize) lists
 * those whose area covers a sample of the target, with the drawIndirect of one point each, so the
 * dots' draw (ImpostorPass.drawDots) runs its vertex stage, and its 16 taps, on those alone.
 *
 * Why: at the bench's viewport about 40% of a million far Foxes' dots light a sample. Each other
 * one still cost a vertex run that drew nothing: on SwiftShader 0.37x of the frame went to vertex
 * runs that did nothing but return, and on any GPU a batch of vertices (4 on SwiftShader, 32 on a
 * GPU) runs the taps when one of its dots is lit, which over a crowd lit 40% is nearly every batch.
 *
 * create: the constructor makes the compute pipeline (the draw's shader module and constants, its
 * own layout: the bindings listDots reads, 8 storage buffers) and the list for `listStride` slots;
 * encode(): grows the list with the crowd's lists, resets its count, copies in the cull pass's
 * dots' quadruple and dispatches. Owns the list (256 bytes and 4 a slot of the crowd's lists) and
 * its bind group.
 */
export class ImpostorDots {
  private readonly pipeline: GPUComputePipeline;
  private readonly groupLayout: GPUBindGroupLayout;
  /** The dot list (impostor.wgsl DotList): STORAGE for listDots, INDIRECT and STORAGE for the draw. */
  private list: GPUBuffer;
  private group: GPUBindGroup | undefined;
  private readonly bound: unknown[] = [];
  /** The pass's descriptor, made once (no object a frame). */
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'ImpostorDots' };

  /**
   * @param module the impostor draw's shader module (ImpostorPass.module)
   * @param constants its override constants as the dots' draw sets them (the samples a pixel: MULTISAMPLED)
   * @param shared the draw's uniforms, cell table and stand-ins
   * @param listStride slots a list of the crowd holds (InstanceStore.listStride)
   */
  constructor(private readonly device: GPUDevice, module: GPUShaderModule, constants: Record<string, number>, private readonly shared: DotListShared, listStride: number) {
    this.groupLayout = dotListGroupLayout(device);
    this.pipeline = device.createComputePipeline({
      label: 'ImpostorDots.pipeline',
      layout: device.createPipelineLayout({ label: 'ImpostorDots.layout', bindGroupLayouts: [this.groupLayout] }),
      compute: { module, entryPoint: 'listDots', constants },
    });
    this.list = this.makeList(listStride);
  }

  /** The dot list: its drawIndirect quadruple at byte 0, its slots from DOT_LIST_HEADER (replaced when the crowd's lists grow). */
  get buffer(): GPUBuffer {
    return this.list;
  }

  /** Bytes of the dot list. */
  get bytes(): number {
    return this.list.size;
  }

  /**
   * Records the listing: the cull pass's dots' drawIndirect quadruple and dispatch triple are at
   * `dotArgsOffset` bytes of `inputs.list` (cull.wgsl finalize). It reads the draw's uniforms
   * (camera, atlas: the eye, the viewport's pixels and the clock) as written before the submit.
   */
  encode(encoder: GPUCommandEncoder, inputs: ImpostorInputs, dotArgsOffset: number, listStride: number): void {
    if (this.list.size < DOT_LIST_HEADER + 4 * listStride) {
      this.list.destroy();
      this.list = this.makeList(listStride);
    }
    // The count from 0 (instanceCount 0 until listDots's first invocation sets it: no dots, no draw).
    encoder.clearBuffer(this.list, 0, 16);
    encoder.copyBufferToBuffer(inputs.list, dotArgsOffset, this.list, 16, 16);
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup(inputs));
    pass.dispatchWorkgroupsIndirect(inputs.list, dotArgsOffset + 16);
    pass.end();
  }

  destroy(): void {
    this.list.destroy();
  }

  private makeList(listStride: number): GPUBuffer {
    this.group = undefined;
    return this.device.createBuffer({ label: 'ImpostorDots.list', size: DOT_LIST_HEADER + 4 * Math.max(1, listStride), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  }

  /** The bind group over these inputs, made again only when one of them (or the list) was replaced. */
  private bindGroup(inputs: ImpostorInputs): GPUBindGroup {
    const b = this.bound;
    const shared = this.shared;
    if (!this.group || b[0] !== inputs.instances || b[1] !== inputs.list || b[2] !== inputs.listOffset || b[3] !== inputs.looks || b[4] !== inputs.fractions || b[5] !== inputs.shown || b[6] !== inputs.propSets) {
      this.group = this.device.createBindGroup({
        label: 'ImpostorDots.group', layout: this.groupLayout, entries: [
          { binding: 0, resource: { buffer: shared.camera } },
          { binding: 1, resource: { buffer: shared.atlas } },
          { binding: 2, resource: { buffer: inputs.instances } },
          { binding: 3, resource: { buffer: inputs.list, offset: inputs.listOffset } },
          { binding: 4, resource: { buffer: inputs.looks ?? shared.white } },
          { binding: 12, resource: { buffer: inputs.propSets ?? shared.noPropSets } },
          { binding: 14, resource: { buffer: shared.cellTable } },
          { binding: 18, resource: { buffer: inputs.fractions } },
          { binding: 19, resource: { buffer: inputs.shown } },
          { binding: 20, resource: { buffer: this.list } },
        ],
      });
      b.length = 0;
      b.push(inputs.instances, inputs.list, inputs.listOffset, inputs.looks, inputs.fractions, inputs.shown, inputs.propSets);
    }
    return this.group;
  }
}

/** listDots's bindings (impostor.wgsl group 0, the numbers the draw's layout gives them): 8 storage buffers, WebGPU's default limit a stage. */
function dotListGroupLayout(device: GPUDevice): GPUBindGroupLayout {
  const visibility = GPUShaderStage.COMPUTE;
  const uniform = { buffer: { type: 'uniform' as const } };
  const storage = { buffer: { type: 'read-only-storage' as const } };
  const entries: GPUBindGroupLayoutEntry[] = [
    { binding: 0, visibility, ...uniform },
    { binding: 1, visibility, ...uniform },
    ...[2, 3, 4, 12, 14, 18, 19].map((binding) => ({ binding, visibility, ...storage })),
    { binding: 20, visibility, buffer: { type: 'storage' } },
  ];
  return device.createBindGroupLayout({ label: 'ImpostorDots.groupLayout', entries });
}
