import morphWgsl from '../../../shaders/morph/morph.wgsl?raw';
import type { BakedModel, BakedMorph } from '../../bake/bake';
import { clockResidual, clockTicks } from '../../runtime/clip-clock';
import { MORPH_PARAMS } from '../../runtime/layout';
import { checkStorageBinding, MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import type { MorphStore } from './morph-store';

// One thread per instance and group of 4 weights, WORKGROUP_SIZE a workgroup, in a 2D grid at most MAX_WORKGROUPS_PER_DIMENSION wide.

/** What the morph pass reads per instance: InstanceStore satisfies it. The pass does not own the buffers. */
export interface MorphInputs {
  /** INSTANCE records, slots [0, count). */
  readonly instanceBuffer: GPUBuffer;
  readonly layerStackBuffer: GPUBuffer;
  readonly masksBuffer: GPUBuffer;
  readonly count: number;
  /** Changes whenever one of the buffers is replaced, so the pass rebinds. */
  readonly generation: number;
}

/**
 * The compute pass that writes every instance's morph weights (shaders/morph/morph.wgsl) from its
 * record and layer stack, blended like its clips, overrides applied. Created only for characters
 * with morph targets, so others pay nothing. It poses every instance every frame, culled or not
 * (a few table reads per instance, against the pose pass's per-joint work): the faces of
 * instances that animation LOD poses every 2nd or 4th frame still change every frame.
 * create: the constructor uploads the morph tables; update(): the uniforms (rebinding after
 * growth); encode(): one dispatch.
 */
export class MorphPass {
  private readonly pipeline: GPUComputePipeline;
  private readonly layout: GPUBindGroupLayout;
  private readonly params: GPUBuffer;
  private readonly tables: GPUBuffer;
  private readonly refs: GPUBuffer;
  private readonly data = new ArrayBuffer(MORPH_PARAMS.size);
  private readonly view = new DataView(this.data);
  private readonly restBase: number;
  private readonly clipBase: number;
  private readonly maskBase: number;
  /** vec4 weight groups per instance. */
  private readonly groups: number;
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'MorphPass' };
  private bindGroup: GPUBindGroup | undefined;
  private boundGeneration = -1;
  private bound: MorphInputs | undefined;
  private width = 0;
  private height = 0;

  constructor(private readonly device: GPUDevice, baked: BakedModel, private readonly nodeCount: number) {
    const morph = baked.morph;
    if (!morph) throw new Error('MorphPass: the character has no morph targets');
    this.restBase = morph.tracks.length / 4;
    this.clipBase = this.restBase + morph.groups;
    this.maskBase = morph.refs.length;
    const tables = morphTables(morph, baked);
    const refs = new Uint32Array(morph.refs.length + morph.groups);
    refs.set(morph.refs);
    refs.set(morph.maskNodes, this.maskBase);
    this.tables = this.upload('MorphPass.tables', tables);
    this.refs = this.upload('MorphPass.refs', refs);
    this.params = device.createBuffer({ label: 'MorphPass.params', size: MORPH_PARAMS.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const storage = (binding: number, type: GPUBufferBindingType = 'read-only-storage'): GPUBindGroupLayoutEntry =>
      ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    this.layout = device.createBindGroupLayout({
      label: 'MorphPass.layout',
      entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } }, ...[1, 2, 3, 4, 5, 6].map((b) => storage(b)), storage(7, 'storage')],
    });
    this.pipeline = device.createComputePipeline({
      label: 'MorphPass.pipeline',
      layout: device.createPipelineLayout({ label: 'MorphPass.pipelineLayout', bindGroupLayouts: [this.layout] }),
      compute: { module: device.createShaderModule({ label: 'MorphPass.shader', code: morphWgsl }), entryPoint: 'main', constants: { WORKGROUP_SIZE } },
    });
    this.groups = morph.groups;
  }

  /** Writes the uniforms for every instance of `inputs` at crowd clock `clock` (seconds); rebinds after growth or restore. */
  update(inputs: MorphInputs, store: MorphStore, clock: number): void {
    const ticks = clockTicks(clock, 'MorphPass.update: clock');
    if (inputs !== this.bound || inputs.generation !== this.boundGeneration) this.bind(inputs, store);
    const threads = inputs.count * this.groups;
    const workgroups = Math.ceil(threads / WORKGROUP_SIZE);
    this.width = Math.max(1, Math.min(workgroups, MAX_WORKGROUPS_PER_DIMENSION));
    this.height = Math.ceil(workgroups / this.width);
    const v = this.view;
    v.setUint32(MORPH_PARAMS.count, inputs.count, true);
    v.setUint32(MORPH_PARAMS.groups, this.groups, true);
    v.setInt32(MORPH_PARAMS.clockTicks, ticks, true);
    v.setFloat32(MORPH_PARAMS.clockResidual, clockResidual(clock, ticks), true);
    v.setUint32(MORPH_PARAMS.dispatchWidth, this.width * WORKGROUP_SIZE, true);
    v.setUint32(MORPH_PARAMS.nodeCount, this.nodeCount, true);
    v.setUint32(MORPH_PARAMS.restBase, this.restBase, true);
    v.setUint32(MORPH_PARAMS.clipBase, this.clipBase, true);
    v.setUint32(MORPH_PARAMS.maskBase, this.maskBase, true);
    this.device.queue.writeBuffer(this.params, 0, this.data);
  }

  /** Records the dispatch into `encoder` (nothing when there are no instances). */
  encode(encoder: GPUCommandEncoder): void {
    if (!this.bindGroup) throw new Error('MorphPass.encode: call update() first');
    if (this.height === 0) return;
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.dispatchWorkgroups(this.width, this.height);
    pass.end();
  }

  destroy(): void {
    this.tables.destroy();
    this.refs.destroy();
    this.params.destroy();
  }

  private bind(inputs: MorphInputs, store: MorphStore): void {
    const buffers = [this.params, this.tables, this.refs, inputs.instanceBuffer, inputs.layerStackBuffer, inputs.masksBuffer, store.overrideBuffer, store.weightBuffer];
    this.bindGroup = this.device.createBindGroup({
      label: 'MorphPass.bindGroup', layout: this.layout,
      entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    this.bound = inputs;
    this.boundGeneration = inputs.generation;
  }

  private upload(label: string, data: Float32Array | Uint32Array): GPUBuffer {
    checkStorageBinding(this.device, label, data.byteLength);
    const buffer = this.device.createBuffer({ label, size: Math.max(16, data.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    this.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return buffer;
  }
}

/** The `tables` buffer of shaders/morph/morph.wgsl: morph track entries, the default weights, then (duration, entries, difference, 0) per clip. */
export function morphTables(morph: BakedMorph, baked: BakedModel): Float32Array {
  const clipCount = baked.clipNames.length;
  const restBase = morph.tracks.length / 4;
  const clipBase = restBase + morph.groups;
  const out = new Float32Array((clipBase + clipCount) * 4);
  out.set(morph.tracks);
  out.set(morph.rest, restBase * 4);
  for (let c = 0; c < clipCount; c++) {
    out[(clipBase + c) * 4] = baked.clipDurations[c];
    out[(clipBase + c) * 4 + 1] = baked.clipEntries[c];
    out[(clipBase + c) * 4 + 2] = baked.clipIsDifference[c];
  }
  return out;
}
