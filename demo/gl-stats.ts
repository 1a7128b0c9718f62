import type { GLCanvasCrowd } from '../src/index';

/** Milliseconds between refreshes of the stats text. */
const REFRESH_MS = 250;

/** Data keys of #stats that outlive a scene (the others are a scene's describe(), cleared when it ends). */
const OWN_KEYS = new Set(['backend', 'glRefused', 'model', 'scene', 'instances', 'frames', 'fps', 'cpuMs', 'drawCalls', 'gpuBytes', 'restores', 'grid', 'visible', 'posed']);

/** What the WebGL 2 demo adds to the overlay at a refresh: the scene's and the selection's lines. */
export interface GLStatsScene {
  /** The model's name as shown: the character's (its file's), or a dropped file's name. */
  readonly name: string;
  /** The running scene's kind (SceneKind), and the kind shown in the text when a scene activity runs ('' for the crowd scene). */
  readonly scene: string;
  readonly activityKind: string;
  /** Instances the scene (or the crowd scene's population) holds. */
  readonly count: number;
  /** The panel's ground grid switch. */
  readonly grid: boolean;
  /** The clips scene's bodies beside the crowd: their draw calls and GPU bytes (0 without them). */
  readonly besideDrawCalls: number;
  readonly besideGpuBytes: number;
  /** Adds the scene's (or the selection's) lines and data-* values. */
  describe(lines: string[], data: DOMStringMap): void;
}

/**
 * The #stats overlay of the WebGL 2 demo (demo/stats.ts is the WebGPU one's): "WebGL 2" and why,
 * FPS, the CPU time of the frame function, the crowd's cull counts, draw calls and GPU memory,
 * mirrored in data-* attributes for the tests (data-backend is "webgl2"). Per frame it only adds
 * to counters; the text and attributes are rebuilt four times a second.
 */
export class GLStats {
  private frames = 0;
  private windowStart = 0;
  private windowFrames = 0;
  private lastRefresh = -Infinity;
  private fps = 0;
  /** What was refused on WebGL 2 so far (panel setting or scene -> why), shown together. */
  private readonly refusals = new Map<string, string>();

  /** `reason`: why the demo runs on WebGL 2 (shown first), e.g. "forced by ?backend=webgl2". */
  constructor(private readonly root: HTMLElement, private readonly reason: string) {
    root.dataset.backend = 'webgl2';
  }

  /** Forgets the data-* values the previous scene's describe() wrote (a scene ended). */
  clearScene(): void {
    for (const key of Object.keys(this.root.dataset)) if (!OWN_KEYS.has(key)) delete this.root.dataset[key];
  }

  /** Records that `what` (a panel setting or a scene) is refused for `reason`, lists the refused in data-gl-refused, and returns every refusal so far as one message. */
  refused(what: string, reason: string): string {
    this.refusals.set(what, `${reason}.`);
    this.root.dataset.glRefused = [...this.refusals.keys()].join(',');
    return [...this.refusals.values()].join(' ');
  }

  /** Once per frame: `now` from requestAnimationFrame, `cpuMs` the frame function's, `drawn` false while the context is lost (not counted). */
  frame(now: number, cpuMs: number, drawn: boolean, crowd: GLCanvasCrowd, scene: GLStatsScene): void {
    if (drawn) this.frames++;
    this.windowFrames++;
    if (now - this.windowStart >= 1000) {
      this.fps = (this.windowFrames * 1000) / (now - this.windowStart);
      this.windowStart = now;
      this.windowFrames = 0;
    }
    if (now - this.lastRefresh < REFRESH_MS) return;
    this.lastRefresh = now;
    const stats = crowd.cullStats, data = this.root.dataset;
    data.frames = String(this.frames);
    data.fps = this.fps.toFixed(1);
    data.cpuMs = cpuMs.toFixed(2);
    const drawCalls = crowd.drawCallCount + scene.besideDrawCalls, gpuBytes = crowd.gpuBytes + scene.besideGpuBytes;
    data.drawCalls = String(drawCalls);
    data.gpuBytes = String(gpuBytes);
    data.restores = String(crowd.restored);
    data.grid = String(scene.grid);
    data.scene = scene.scene;
    data.instances = String(scene.count);
    if (stats) [data.visible, data.posed] = [String(stats.visible), String(stats.posed)];
    const lines = [
      `WebGL 2 (${this.reason})`,
      `${scene.name} · ${scene.activityKind ? `${scene.activityKind} scene · ` : ''}${scene.count.toLocaleString('en-US')} instances · ${crowd.jointsPerInstance} joints`,
      `${this.fps.toFixed(0)} fps · CPU ${cpuMs.toFixed(2)} ms (scene, update, cull, pose and draw calls)`,
      stats ? `visible ${stats.visible.toLocaleString('en-US')} · posed ${stats.posed.toLocaleString('en-US')}` : '',
      `draw calls ${drawCalls} · GPU memory ${(gpuBytes / 2 ** 20).toFixed(1)} MiB`,
      crowd.restored > 0 ? `context restored ${crowd.restored}x` : '',
    ];
    scene.describe(lines, data);
    this.root.textContent = lines.filter(Boolean).join('\n');
  }
}
