import coverageWgsl from '../../../shaders/impostors/coverage.wgsl?raw';
import { MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../runtime/limits';
import type { AtlasGrid } from './impostor-atlas';
import type { ImpostorTextures } from './impostor-bake';

/** Bytes a cell's covered rectangle takes (two u32: min x | min y << 16, max x | max y << 16). */
export const COVERED_RECT_BYTES = 8;

/** Bytes a (layer, cell)'s covered fraction takes (one f32). */
export const CELL_COVERAGE_BYTES = 4;

/**
 * The covered rectangles and fractions (shaders/impostors/coverage.wgsl), a compute pass after
 * each bake: per (pose, view) cell of the atlas, the smallest rectangle of its texels that holds
 * every texel any layer covers. The impostor draw's march (impostor.wgsl sampleCell) steps only
 * within it (and a texel's apron), so the rays of a small character's quad that meet nothing
 * return at once, and the picture is the same (the coverage outside it is 0). And per (layer,
 * cell) the covered fraction of the cell's rectangle: a dot's area (impostor.wgsl dotVertex), read
 * once rather than tapped 16 times a dot a frame. create: the constructor makes the pipeline
 * (WORKGROUP_SIZE threads a cell, striding over its texels) and the buffers (the grid's poses x
 * views cells, and as many fractions for each of the grid's `capacity` layers: fixed); encode():
 * records the pass over the atlas's textures as they stand when it runs (after the bake's copies
 * in the same encoder). Owns the buffers; the textures are the caller's.
 */
export class ImpostorCoverage {
  /** Per cell at pose x views + view: its covered texels' min x | min y << 16, max x | max y << 16 (from the cell's top-left texel); min over max where none is (impostor.wgsl coveredRects). */
  readonly buffer: GPUBuffer;
  /** Per layer and cell at layer x cells + pose x views + view: the cell's covered fraction, in [0, 1] (impostor.wgsl cellCoverage). */
  readonly fractions: GPUBuffer;
  private readonly pipeline: GPUComputePipeline;
  private readonly cells: GPUBuffer;
  private group: GPUBindGroup | undefined;
  private bound: GPUTexture | undefined;

  /** A RangeError where the grid's poses (a workgroup row each) pass WebGPU's workgroups a dimension. */
  constructor(private readonly device: GPUDevice, private readonly grid: AtlasGrid) {
    if (grid.poses > MAX_WORKGROUPS_PER_DIMENSION) throw new RangeError(`impostors: ${grid.poses} poses (clips x frames) pass the ${MAX_WORKGROUPS_PER_DIMENSION} workgroups a dimension of the covered rectangles' pass: bake fewer frames`);
    const module = device.createShaderModule({ label: 'ImpostorCoverage.shader', code: coverageWgsl });
    this.pipeline = device.createComputePipeline({ label: 'ImpostorCoverage.pipeline', layout: 'auto', compute: { module, entryPoint: 'coverage', constants: { WORKGROUP_SIZE } } });
    this.buffer = device.createBuffer({ label: 'ImpostorCoverage.rects', size: grid.poses * grid.views * COVERED_RECT_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    this.fractions = device.createBuffer({ label: 'ImpostorCoverage.fractions', size: grid.poses * grid.views * grid.capacity * CELL_COVERAGE_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    const table = grid.cellTable();
    this.cells = device.createBuffer({ label: 'ImpostorCoverage.cells', size: table.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.cells, 0, table);
  }

  /** Bytes on the GPU: the rectangles, the fractions and its copy of the cell table (counted in CrowdImpostors.gpuBytes). */
  get bytes(): number {
    return this.buffer.size + this.fractions.size + this.cells.size;
  }

  /** Records the pass: every cell's rectangle from every layer of `atlas` (one workgroup a cell). */
  encode(encoder: GPUCommandEncoder, atlas: ImpostorTextures): void {
    if (this.bound !== atlas.albedo || !this.group) {
      this.group = this.device.createBindGroup({
        label: 'ImpostorCoverage.group', layout: this.pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: atlas.albedo.createView({ dimension: '2d-array' }) },
          { binding: 1, resource: { buffer: this.cells } },
          { binding: 2, resource: { buffer: this.buffer } },
          { binding: 3, resource: { buffer: this.fractions } },
        ],
      });
      this.bound = atlas.albedo;
    }
    const pass = encoder.beginComputePass({ label: 'ImpostorCoverage.pass' });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.group);
    pass.dispatchWorkgroups(this.grid.views, this.grid.poses);
    pass.end();
  }

  destroy(): void {
    this.buffer.destroy();
    this.fractions.destroy();
    this.cells.destroy();
  }
}
