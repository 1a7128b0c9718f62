import type { Crowd } from '../../src/runtime/crowd';

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/**
 * Whole frames of a crowd for the benchmarks (culling, picking): update(dt), encode, draw into a
 * width x height target of FORMATS, submit, wait; each returns its GPU ms, by timestamp-query
 * from the beginning of the first compute pass to the end of the render pass where the adapter
 * has timestamps, else submit to done (`method` says which). Owns its textures and queries.
 */
export class TimedFrames {
  static readonly formats = FORMATS;
  readonly method: string;
  private readonly color: GPUTexture;
  private readonly depth: GPUTexture;
  private readonly querySet: GPUQuerySet | undefined;
  private readonly resolve: GPUBuffer;
  private readonly read: GPUBuffer;

  constructor(private readonly device: GPUDevice, width: number, height: number) {
    this.color = device.createTexture({ size: [width, height], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
    this.depth = device.createTexture({ size: [width, height], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
    const timestamps = device.features.has('timestamp-query');
    this.method = timestamps ? 'timestamp-query' : 'submit to done';
    this.querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
    this.resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  }

  /** One frame of `crowd` seen through `viewProjection`, `dt` seconds after the last; its GPU ms. */
  async frame(crowd: Crowd, viewProjection: Float32Array, dt = 1 / 60): Promise<number> {
    const { device, querySet } = this;
    crowd.update(dt);
    const encoder = device.createCommandEncoder();
    crowd.encode(encoder, querySet && { querySet, beginningOfPassWriteIndex: 0 });
    const [gpuMs] = await this.submit(encoder, querySet && { querySet, endOfPassWriteIndex: 1 }, (pass) => crowd.draw(pass, viewProjection));
    return gpuMs;
  }

  /**
   * A render pass into the same target holding what `record` draws, alone in its command buffer:
   * its GPU ms (timestamps around the pass, or submit to done), and the CPU ms this process spent
   * from submit to done (user + system, every thread: on SwiftShader the emulated GPU's work).
   */
  renderPass(record: (pass: GPURenderPassEncoder) => void): Promise<[gpu: number, cpu: number]> {
    const { querySet } = this;
    return this.submit(this.device.createCommandEncoder(), querySet && { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 }, record);
  }

  /** `encoder` with a render pass that `record` fills (timed by `timestampWrites`), submitted and waited for: its GPU ms and CPU ms. */
  private async submit(encoder: GPUCommandEncoder, timestampWrites: GPURenderPassTimestampWrites | undefined,
    record: (pass: GPURenderPassEncoder) => void): Promise<[gpu: number, cpu: number]> {
    const { device, querySet } = this;
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: this.color.createView(), loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      timestampWrites,
    });
    record(pass);
    pass.end();
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 2, this.resolve, 0);
      encoder.copyBufferToBuffer(this.resolve, 0, this.read, 0, 16);
    }
    const start = performance.now();
    const cpu = process.cpuUsage();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    if (!querySet) return [performance.now() - start, cpuMs];
    await this.read.mapAsync(GPUMapMode.READ);
    const [begin, end] = new BigUint64Array(this.read.getMappedRange());
    this.read.unmap();
    return [Number(end - begin) / 1e6, cpuMs];
  }

  destroy(): void {
    for (const r of [this.color, this.depth, this.resolve, this.read]) r.destroy();
    this.querySet?.destroy();
  }
}

/** The median of `values` (not empty). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
