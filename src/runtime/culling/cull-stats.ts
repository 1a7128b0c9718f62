import type { CullStats } from '../crowd-types';
import { CULL_COUNTERS } from '../layout';
import type { CullRoute } from './cull-route';

const BYTES = CULL_COUNTERS.words * 4;

/**
 * Reads the cull pass's counters back without stalling a frame: each culled frame copies them
 * into an idle staging buffer (of two), and the next frame maps it (by then the frame that
 * copied was submitted); `latest` holds the newest result, one or two frames old. `read()`
 * is the awaited form for tests and tools. Owns its staging buffers.
 */
export class CullStatsReader {
  /** The newest counts read back, or undefined before the first. */
  latest: CullStats | undefined;
  /** A feature's routing of far instances (CullRoute: impostors), which counts what it routed; undefined: none. */
  route: CullRoute | undefined;
  private readonly staging: GPUBuffer[];
  /** Per staging buffer: 'idle', 'copied' (awaiting the submit of the frame that copied), or 'mapping'. */
  private readonly state: ('idle' | 'copied' | 'mapping')[];

  constructor(private readonly device: GPUDevice, private readonly counters: GPUBuffer, private readonly levels: number,
    private readonly indicesPerLevel: readonly number[]) {
    this.staging = [0, 1].map((i) => device.createBuffer({ label: `CullStatsReader.staging${i}`, size: BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }));
    this.state = ['idle', 'idle'];
  }

  /** In a culled frame's encoder, after the cull pass: maps what earlier frames copied, copies this frame's counters when a buffer is idle. */
  encode(encoder: GPUCommandEncoder): void {
    this.state.forEach((state, i) => {
      if (state !== 'copied') return;
      this.state[i] = 'mapping';
      const buffer = this.staging[i];
      buffer.mapAsync(GPUMapMode.READ).then(() => {
        this.latest = this.parse(new Uint32Array(buffer.getMappedRange()));
        buffer.unmap();
        this.state[i] = 'idle';
      }, () => { this.state[i] = 'idle'; }); // destroyed while mapping
    });
    const idle = this.state.indexOf('idle');
    if (idle < 0) return;
    encoder.copyBufferToBuffer(this.counters, 0, this.staging[idle], 0, BYTES);
    this.state[idle] = 'copied';
  }

  /** The counts of the last submitted cull pass, awaited (not for the frame loop). */
  async read(): Promise<CullStats> {
    const staging = this.device.createBuffer({ label: 'CullStatsReader.read', size: BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(this.counters, 0, staging, 0, BYTES);
    this.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const stats = this.parse(new Uint32Array(staging.getMappedRange()));
    staging.destroy();
    return stats;
  }

  destroy(): void {
    for (const buffer of this.staging) buffer.destroy();
  }

  private parse(words: Uint32Array): CullStats {
    const perLevel = Array.from({ length: this.levels }, (_, l) => words[CULL_COUNTERS.camera + l]);
    const vertices = perLevel.reduce((sum, n, l) => sum + n * this.indicesPerLevel[l], 0);
    const stats: CullStats = { visible: perLevel.reduce((a, b) => a + b, 0), posed: words[CULL_COUNTERS.posePlain] + words[CULL_COUNTERS.poseLayered], perLevel, vertices };
    return this.route ? this.route.count(words, stats, this.indicesPerLevel) : stats;
  }
}
