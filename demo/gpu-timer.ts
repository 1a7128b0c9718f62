/** Readback buffers in flight at most; a frame finding none free skips its measurement. */
const READBACKS = 3;
/** Query slots: compute begin, compute end, render begin, render end. */
const QUERIES = 4;
/** Weight of a new sample in the running averages. */
const SMOOTHING = 0.1;

/**
 * GPU time of the pose compute pass and of the render pass through `timestamp-query`.
 * Pass `computeWrites` / `renderWrites` to the passes, then resolve(encoder) before finish()
 * and afterSubmit() after submit. Results arrive a few frames late, as running averages in
 * milliseconds; NaN until the first one, and always NaN when the device lacks the feature.
 * Everything (query set, buffers, descriptors, callbacks) is created once.
 */
export class GpuTimer {
  readonly supported: boolean;
  readonly computeWrites: GPUComputePassTimestampWrites | undefined;
  readonly renderWrites: GPURenderPassTimestampWrites | undefined;
  computeMs = NaN;
  renderMs = NaN;
  private readonly querySet: GPUQuerySet | undefined;
  private readonly resolveBuffer: GPUBuffer | undefined;
  private readonly readbacks: GPUBuffer[] = [];
  private readonly busy: boolean[] = [];
  /** Whether the readback of each buffer includes a compute pass. */
  private readonly hasCompute: boolean[] = [];
  private readonly onMapped: (() => void)[] = [];
  private readonly onMapFailed = (): void => { /* device lost or buffer destroyed: stop quietly */ };
  private pending = -1;

  constructor(device: GPUDevice) {
    this.supported = device.features.has('timestamp-query');
    if (!this.supported) return;
    this.querySet = device.createQuerySet({ label: 'GpuTimer.querySet', type: 'timestamp', count: QUERIES });
    this.resolveBuffer = device.createBuffer({ label: 'GpuTimer.resolve', size: QUERIES * 8, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    for (let i = 0; i < READBACKS; i++) {
      this.readbacks.push(device.createBuffer({ label: `GpuTimer.readback${i}`, size: QUERIES * 8, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
      this.busy.push(false);
      this.hasCompute.push(false);
      this.onMapped.push(() => this.read(i));
    }
    this.computeWrites = { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 };
    this.renderWrites = { querySet: this.querySet, beginningOfPassWriteIndex: 2, endOfPassWriteIndex: 3 };
  }

  /** Copies this frame's timestamps towards a free readback buffer (if any). */
  resolve(encoder: GPUCommandEncoder, computeRan: boolean): void {
    this.pending = -1;
    if (!this.querySet || !this.resolveBuffer) return;
    const free = this.busy.indexOf(false);
    if (free < 0) return;
    encoder.resolveQuerySet(this.querySet, 0, QUERIES, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readbacks[free], 0, QUERIES * 8);
    this.busy[free] = true;
    this.hasCompute[free] = computeRan;
    this.pending = free;
  }

  /** Starts mapping the buffer resolved this frame (call after queue.submit). */
  afterSubmit(): void {
    if (this.pending < 0) return;
    this.readbacks[this.pending].mapAsync(GPUMapMode.READ).then(this.onMapped[this.pending], this.onMapFailed);
    this.pending = -1;
  }

  private read(index: number): void {
    const buffer = this.readbacks[index];
    // Read everything before unmap(): it detaches the mapped ArrayBuffer.
    const ticks = new BigUint64Array(buffer.getMappedRange());
    const compute = Number(ticks[1] - ticks[0]) / 1e6;
    const render = Number(ticks[3] - ticks[2]) / 1e6;
    buffer.unmap();
    this.busy[index] = false;
    // Timestamps may be reordered or reset by the implementation: ignore impossible samples.
    if (this.hasCompute[index] && compute >= 0 && compute < 1e4) this.computeMs = average(this.computeMs, compute);
    if (render >= 0 && render < 1e4) this.renderMs = average(this.renderMs, render);
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    for (const buffer of this.readbacks) buffer.destroy();
  }
}

function average(previous: number, sample: number): number {
  return Number.isNaN(previous) ? sample : previous + (sample - previous) * SMOOTHING;
}
