import type { CullStats } from '../src/index';
import type { GpuTimer } from './gpu-timer';

/** Milliseconds between refreshes of the overlay's text and data-* attributes. */
const REFRESH_MS = 250;

/** data-* keys the overlay itself writes; others come from a scene's detail. */
const OWN_KEYS = new Set(['gpuBytes', 'frames', 'fps', 'cpuMs', 'gpuComputeMs', 'gpuRenderMs', 'model', 'scene', 'mode', 'instances', 'joints', 'drawCalls', 'bakedBytes',
  'visible', 'posed', 'vertices', 'impostors', 'restores']);

/** What the overlay shows about the loaded scene; set when it changes, not per frame. */
export interface SceneStats {
  model: string;
  /** crowd, layers or locomotion. */
  scene: string;
  mode: string;
  instances: number;
  jointsPerInstance: number;
  drawCalls: number;
  /** Bytes of the baked tables: tracks + trackRefs + rest. */
  bakedBytes: number;
}

/** What the overlay reads from the running crowd at each refresh. */
export interface LiveStats {
  drawCalls: number;
  /** The crowd's latest cull counts (Crowd.cullStats), undefined before the first. */
  stats: CullStats | undefined;
  gpuBytes: number;
  /**
   * Whether the crowd routes far instances to impostors (CrowdImpostors enabled): the last
   * entry of `stats.perLevel` is then the impostor level, shown as its own.
   */
  impostors: boolean;
  /** What the impostors do not show as the meshes do (CrowdImpostors.stale), [] when nothing. */
  impostorsStale: readonly string[];
}

/**
 * The #stats overlay: FPS, CPU time of the frame function, GPU time of the compute and render
 * passes (timestamp-query, else "n/a") and the scene's numbers. The same numbers are mirrored
 * as data-* attributes for tests (data-frames counts frames rendered so far). Per frame it only
 * adds to counters; text and attributes are rebuilt four times a second.
 */
export class StatsOverlay {
  private readonly root: HTMLElement;
  private frames = 0;
  /** Lost devices restored from so far (shown when any). */
  private restores = 0;
  private windowFrames = 0;
  private windowStart = 0;
  private lastRefresh = -Infinity;
  private fps = 0;
  private cpuMs = NaN;
  private scene: SceneStats | undefined;
  /** Adds the current scene's own lines and data-* values (e.g. a character's state). */
  private detail: ((lines: string[], data: DOMStringMap) => void) | undefined;
  /** The crowd's draw calls now and its latest cull counts (read back a frame or two late). */
  private cull: (() => LiveStats) | undefined;

  constructor(private timer: GpuTimer, private readonly adapter: string) {
    const root = document.getElementById('stats');
    if (!root) throw new Error('index.html has no #stats');
    this.root = root;
  }

  /** Reads GPU times from `timer` from now on: a new device's, after a lost one was restored. */
  restored(timer: GpuTimer): void {
    this.timer = timer;
    this.restores++;
    this.root.dataset.restores = String(this.restores);
    this.lastRefresh = -Infinity;
  }

  setScene(scene: SceneStats, detail?: (lines: string[], data: DOMStringMap) => void, cull?: () => LiveStats): void {
    this.scene = scene;
    this.detail = detail;
    this.cull = cull;
    this.lastRefresh = -Infinity;
    // Forget the data-* values the previous scene's detail wrote.
    for (const key of Object.keys(this.root.dataset)) if (!OWN_KEYS.has(key)) delete this.root.dataset[key];
  }

  /** Call once per rendered frame: `now` from performance.now(), `cpuMs` its frame function. */
  frame(now: number, cpuMs: number): void {
    this.frames++;
    this.windowFrames++;
    this.cpuMs = Number.isNaN(this.cpuMs) ? cpuMs : this.cpuMs + (cpuMs - this.cpuMs) * 0.1;
    if (now - this.windowStart >= 500) {
      this.fps = (this.windowFrames * 1000) / (now - this.windowStart);
      this.windowFrames = 0;
      this.windowStart = now;
    }
    if (now - this.lastRefresh >= REFRESH_MS) {
      this.lastRefresh = now;
      this.refresh();
    }
  }

  private refresh(): void {
    const s = this.scene;
    const gpu = (ms: number) => (Number.isNaN(ms) ? 'n/a' : `${ms.toFixed(2)} ms`);
    const d = this.root.dataset;
    d.frames = String(this.frames);
    const fps = this.fps.toFixed(this.fps < 1 ? 2 : 1);
    d.fps = fps;
    d.cpuMs = this.cpuMs.toFixed(3);
    d.gpuComputeMs = Number.isNaN(this.timer.computeMs) ? 'n/a' : this.timer.computeMs.toFixed(3);
    d.gpuRenderMs = Number.isNaN(this.timer.renderMs) ? 'n/a' : this.timer.renderMs.toFixed(3);
    if (s && this.cull) s.drawCalls = this.cull().drawCalls;
    if (s) {
      d.model = s.model;
      d.scene = s.scene;
      d.mode = s.mode;
      d.instances = String(s.instances);
      d.joints = String(s.jointsPerInstance);
      d.drawCalls = String(s.drawCalls);
      d.bakedBytes = String(s.bakedBytes);
    }
    const lines = [
      `${fps} fps   CPU ${this.cpuMs.toFixed(2)} ms/frame`,
      `GPU compute ${gpu(this.timer.computeMs)}   render ${gpu(this.timer.renderMs)}`,
    ];
    const live = this.cull?.();
    if (s) {
      lines.push(
        `${s.model} · ${s.scene === 'crowd' ? s.mode : `${s.scene} scene`}`,
        `${s.instances.toLocaleString('en-US')} instances × ${s.jointsPerInstance} joints`,
        `${s.drawCalls} draw call${s.drawCalls === 1 ? '' : 's'} (+1 ground)`,
        `baked tables ${formatBytes(s.bakedBytes)}`,
      );
      if (live) {
        d.gpuBytes = String(live.gpuBytes);
        lines.push(`crowd GPU memory ${formatBytes(live.gpuBytes)} (Crowd.gpuBytes)`);
      }
      const cull = live?.stats;
      if (cull) {
        d.visible = String(cull.visible);
        d.posed = String(cull.posed);
        d.vertices = String(cull.vertices);
        // With impostors the cull stats count them as one more level, the last (CullStats.perLevel).
        const meshLevels = live.impostors ? cull.perLevel.slice(0, -1) : cull.perLevel;
        const impostors = live.impostors ? cull.perLevel[cull.perLevel.length - 1] ?? 0 : 0;
        d.impostors = String(impostors);
        d.dots = String(cull.dots ?? 0);
        lines.push(
          `visible ${cull.visible.toLocaleString('en-US')}   posed this frame ${cull.posed.toLocaleString('en-US')}`,
          `vertices drawn ${formatCount(cull.vertices)}/frame (LOD ${meshLevels.map((n) => n.toLocaleString('en-US')).join(' / ')}` +
            `${live.impostors ? ` · impostors ${impostors.toLocaleString('en-US')}${cull.dots ? `, ${cull.dots.toLocaleString('en-US')} as dots` : ''}` : ''})`,
        );
        for (const stale of live.impostorsStale) lines.push(`impostors do not show: ${stale}`);
      }
      this.detail?.(lines, d);
      if (this.restores > 0) lines.push(`restored after ${this.restores} lost device${this.restores === 1 ? '' : 's'}`);
      lines.push(this.adapter);
    } else {
      lines.push('loading…');
    }
    this.root.textContent = lines.join('\n');
  }
}

function formatCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(2)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} B`;
}
