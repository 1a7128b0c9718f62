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
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: this.color.createView(), loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      timestampWrites: querySet && { querySet, endOfPassWriteIndex: 1 },
    });
    crowd.draw(pass, viewProjection);
    pass.end();
    if (querySet) {
      encoder.resolveQuerySet(querySet, 0, 2, this.resolve, 0);
      encoder.copyBufferToBuffer(this.resolve, 0, this.read, 0, 16);
    }
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (!querySet) return performance.now() - start;
    await this.read.mapAsync(GPUMapMode.READ);
    const [begin, end] = new BigUint64Array(this.read.getMappedRange());
    this.read.unmap();
    return Number(end - begin) / 1e6;
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
