/**
 * The demo where WebGPU is missing (or with ?backend=webgl2): the crowd scene on WebGL 2 through
 * createCrowd, with the orbit camera and the stats overlay saying "WebGL 2": the chosen model's
 * crowd (?model=, ?instances=, ?mode=, ...), culling, LOD and the sun's shadows as the URL sets
 * them, the context's loss restored. The WebGPU demo's ground grid, other scenes, features, picking
 * and control panel are not there (docs/webgl2.md).
 */
import { createCrowd, loadCharacter, MeshoptSimplifier, type Character, type GLCanvasCrowd } from '../src/index';
import { MODELS } from './models';
import { OrbitCamera } from './orbit-camera';
import { OrbitInput } from './orbit-input';
import { Population } from './population';
import { trackCanvasSize } from './renderer';
import { spiralHalfSide } from './spiral';
import { MAX_DEVICE_PIXEL_RATIO, SKY_COLOR } from './theme';
import type { DemoState } from './url-state';

/** Milliseconds between refreshes of the stats text. */
const REFRESH_MS = 250;

/** The WebGL 2 demo: one crowd on the canvas, its camera and stats. */
export class GLApp {
  private crowd: GLCanvasCrowd | undefined;
  private population: Population | undefined;
  private character: Character | undefined;
  private readonly camera = new OrbitCamera();
  private readonly stats: HTMLElement;
  private last = 0;
  private frames = 0;
  private windowStart = 0;
  private windowFrames = 0;
  private lastRefresh = -Infinity;
  private fps = 0;

  /** `reason`: why the demo runs on WebGL 2 (shown in the stats), e.g. "forced by ?backend=webgl2". */
  constructor(private readonly canvas: HTMLCanvasElement, private readonly state: DemoState, private readonly reason: string) {
    const stats = document.getElementById('stats');
    if (!stats) throw new Error('index.html has no #stats');
    this.stats = stats;
    stats.dataset.backend = 'webgl2';
    new OrbitInput(canvas, this.camera);
    this.camera.frame(5, 5, 1);
  }

  /** The WebGL 2 context's lose / restore extension, for the tests' context-loss hook. */
  get loseContext(): WEBGL_lose_context | null {
    return this.crowd?.gl.getExtension('WEBGL_lose_context') ?? null;
  }

  /** Loads the state's model and makes its crowd (throws with the crowd's or the loader's reason). */
  async load(): Promise<void> {
    const entry = MODELS[this.state.model];
    const character = await loadCharacter(entry.url, { ...entry.load, lod: { simplifier: MeshoptSimplifier } });
    const crowd = await createCrowd(this.canvas, character, {
      backend: 'webgl2', capacity: this.state.instances, clearColor: [SKY_COLOR.r, SKY_COLOR.g, SKY_COLOR.b, 1],
      culling: this.state.culling, lod: this.state.lod, animationLod: this.state.animationLod, shadows: this.state.shadows,
    }) as GLCanvasCrowd;
    trackCanvasSize(this.canvas, crowd.gl.getParameter(crowd.gl.MAX_TEXTURE_SIZE) as number, MAX_DEVICE_PIXEL_RATIO);
    const population = new Population(crowd, character);
    const clip = (name: string, fallback: string) => Math.max(0, character.clipNames.indexOf(name || fallback));
    population.setCount(this.state.instances, {
      mode: this.state.mode, clipA: clip(this.state.clipA, entry.clipA), clipB: clip(this.state.clipB, entry.clipB),
      blend: this.state.blend, randomPhases: this.state.randomPhases, variety: this.state.variety,
    });
    const half = spiralHalfSide(population.count);
    this.camera.frame(half * population.spacing[0], half * population.spacing[1], population.height);
    this.crowd = crowd;
    this.population = population;
    this.character = character;
    this.stats.dataset.model = character.name;
    this.stats.dataset.instances = String(population.count);
  }

  /** Starts the frame loop. */
  start(): void {
    const frame = (now: number) => {
      this.frame(now);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  private frame(now: number): void {
    const crowd = this.crowd;
    const dt = this.last === 0 ? 0 : Math.min(0.1, (now - this.last) / 1000);
    this.last = now;
    if (!crowd) return;
    const camera = this.camera;
    camera.update(this.canvas.width / Math.max(1, this.canvas.height));
    const started = performance.now();
    crowd.update(this.state.paused ? 0 : dt * this.state.speed);
    crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: this.canvas.height });
    crowd.render(camera.viewProjection);
    const cpuMs = performance.now() - started;
    if (!crowd.gl.isContextLost()) this.frames++;
    this.refresh(now, cpuMs);
  }

  /** Rewrites the stats text and data-* attributes four times a second. */
  private refresh(now: number, cpuMs: number): void {
    this.windowFrames++;
    if (now - this.windowStart >= 1000) {
      this.fps = (this.windowFrames * 1000) / (now - this.windowStart);
      this.windowStart = now;
      this.windowFrames = 0;
    }
    if (now - this.lastRefresh < REFRESH_MS) return;
    this.lastRefresh = now;
    const crowd = this.crowd!, stats = crowd.cullStats, data = this.stats.dataset;
    data.frames = String(this.frames);
    data.fps = this.fps.toFixed(1);
    data.cpuMs = cpuMs.toFixed(2);
    data.drawCalls = String(crowd.drawCallCount);
    data.gpuBytes = String(crowd.gpuBytes);
    data.restores = String(crowd.restored);
    if (stats) [data.visible, data.posed] = [String(stats.visible), String(stats.posed)];
    const lines = [
      `WebGL 2 (${this.reason})`,
      `${this.character!.name} · ${this.population!.count.toLocaleString('en-US')} instances`,
      `${this.fps.toFixed(0)} fps · CPU ${cpuMs.toFixed(2)} ms`,
      stats ? `visible ${stats.visible.toLocaleString('en-US')} · posed ${stats.posed.toLocaleString('en-US')}` : '',
      `draw calls ${crowd.drawCallCount}`,
      crowd.restored > 0 ? `context restored ${crowd.restored}x` : '',
    ];
    this.stats.textContent = lines.filter(Boolean).join('\n');
  }
}
