import { Controls, type StateKey } from './controls';
import type { DemoDevice } from './gpu-device';
import { GpuTimer } from './gpu-timer';
import { GridPass } from './grid-pass';
import { MODELS } from './models';
import { OrbitCamera } from './orbit-camera';
import { OrbitInput } from './orbit-input';
import { MessageBox, ProgressBar } from './overlays';
import type { PopulationSettings } from './population';
import { Renderer, trackCanvasSize } from './renderer';
import { loadScene, Scene, type SceneSource } from './scene';
import { spiralHalfSide } from './spiral';
import { StatsOverlay } from './stats';
import { MAX_DEVICE_PIXEL_RATIO } from './theme';
import { writeState, type DemoState } from './url-state';

/** Longest step of the animation clock, seconds (a stalled tab does not jump ahead). */
const MAX_DT = 0.1;

/**
 * The running demo: owns the GPU objects that live as long as the page (renderer, ground,
 * timer), the current Scene, the camera and the panel. Control changes only set flags; the
 * frame applies them once, so dragging a slider costs one update per frame.
 */
export class App {
  private readonly device: GPUDevice;
  private readonly renderer: Renderer;
  private readonly grid: GridPass;
  private readonly timer: GpuTimer;
  private readonly stats: StatsOverlay;
  private readonly camera = new OrbitCamera();
  private readonly controls: Controls;
  private readonly progress = new ProgressBar();
  private scene: Scene | undefined;
  private loadToken = 0;
  private loadAbort: AbortController | undefined;
  private lastTime = -1;
  private stopped = false;
  private frameError = false;
  /** Pending changes, applied at the start of the next frame. */
  private countChanged = false;
  private respawnNeeded = false;
  private uniformChanged = false;
  private newPhases = false;
  private readonly tick = (now: number): void => this.frame(now);

  constructor(gpu: DemoDevice, canvas: HTMLCanvasElement, private readonly state: DemoState, private readonly messages: MessageBox) {
    this.device = gpu.device;
    this.renderer = new Renderer(this.device, canvas);
    trackCanvasSize(canvas, this.device, MAX_DEVICE_PIXEL_RATIO);
    this.grid = new GridPass(this.device, this.renderer);
    this.timer = new GpuTimer(this.device);
    this.stats = new StatsOverlay(this.timer, gpu.adapterName);
    new OrbitInput(canvas, this.camera);
    this.camera.frame(5, 5, 1);
    this.controls = new Controls(state, {
      changed: (key) => this.onChanged(key),
      resetCamera: () => this.frameCamera(),
      loadUrl: (url) => void this.loadUrl(url),
    });
  }

  start(): void {
    requestAnimationFrame(this.tick);
  }

  /** Stops drawing (the device was lost). */
  stop(): void {
    this.stopped = true;
    this.loadAbort?.abort();
  }

  /**
   * Loads a model from MODELS, showing clips `clips` when it has them (else its defaults);
   * on failure the current scene keeps running.
   */
  loadModel(name: string, clips?: [string, string]): Promise<boolean> {
    const entry = MODELS[name];
    if (!entry) {
      this.messages.show('error', `unknown model "${name}"`);
      return Promise.resolve(false);
    }
    return this.load(name, { model: name, url: entry.url }, clips);
  }

  /** Loads any .glb/.gltf URL; on failure the current scene keeps running. */
  loadUrl(url: string): Promise<boolean> {
    const file = decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() || url);
    return this.load(file, { model: '', url });
  }

  private async load(label: string, source: SceneSource, clips?: [string, string]): Promise<boolean> {
    const token = ++this.loadToken;
    this.loadAbort?.abort();
    const abort = (this.loadAbort = new AbortController());
    this.progress.show(`Loading ${label}…`, 0);
    const onProgress = (loaded: number, total: number) => {
      if (token !== this.loadToken) return;
      if (total > 0 && loaded >= total) this.progress.show(`Baking ${label}…`);
      else this.progress.show(`Downloading ${label}… ${(loaded / 1024).toFixed(0)} KiB`, total > 0 ? loaded / total : undefined);
    };
    try {
      const scene = await loadScene(this.device, label, source, {
        crowd: {
          colorFormat: this.renderer.colorFormat, depthFormat: this.renderer.depthFormat,
          sampleCount: this.renderer.sampleCount, capacity: Math.max(1024, this.state.instances),
        },
        onProgress, signal: abort.signal,
      });
      if (token !== this.loadToken) {
        scene.destroy();
        return false;
      }
      this.install(scene, clips ?? ['', '']);
      return true;
    } catch (error) {
      if (token !== this.loadToken) return false;
      const current = this.scene;
      const message = `Could not load ${label}: ${(error as Error).message}` +
        (current ? `. Still showing ${current.label}.` : '');
      console.error(message, error);
      this.messages.show('error', message);
      this.state.model = current?.source.model || this.state.model;
      this.state.modelUrl = current?.source.url && !current.source.model ? current.source.url : '';
      this.controls.sync();
      if (current) writeState(this.state);
      return false;
    } finally {
      if (token === this.loadToken) this.progress.hide();
    }
  }

  /** Makes a freshly loaded scene the current one and populates it. */
  private install(scene: Scene, [wantedA, wantedB]: [string, string]): void {
    const { character } = scene;
    const names = character.clipNames;
    const defaults = MODELS[scene.source.model];
    const pick = (wanted: string, fallback: string | undefined, index: number) => {
      if (names.includes(wanted)) return wanted;
      if (wanted) this.messages.show('info', `${scene.label} has no clip "${wanted}" (clips: ${names.join(', ')})`);
      return fallback && names.includes(fallback) ? fallback : names[Math.min(index, names.length - 1)];
    };
    this.state.clipA = pick(wantedA, defaults?.clipA, 0);
    this.state.clipB = pick(wantedB, defaults?.clipB, 1);
    this.state.model = scene.source.model || this.state.model;
    this.state.modelUrl = scene.source.model ? '' : scene.source.url;
    if (character.warnings.length > 0) console.info(`${scene.label}: loader notes:\n  ${character.warnings.join('\n  ')}`);

    const previous = this.scene;
    this.scene = scene;
    previous?.destroy();
    this.grid.cellSize.set(scene.population.spacing);
    this.countChanged = true;
    this.respawnNeeded = this.uniformChanged = false;
    this.applyChanges();
    this.controls.setClips(names);
  }

  private onChanged(key: StateKey): void {
    switch (key) {
      case 'model':
        void this.loadModel(this.state.model);
        return;
      case 'instances':
        this.countChanged = true;
        break;
      case 'mode':
      case 'variety':
        this.respawnNeeded = true;
        break;
      case 'clipA':
      case 'clipB':
        if (this.state.mode === 'crowd') this.respawnNeeded = true;
        else this.uniformChanged = true;
        break;
      case 'blend':
        this.uniformChanged = true;
        break;
      case 'randomPhases':
        this.uniformChanged = true;
        this.newPhases = this.state.randomPhases;
        break;
      default: // speed, paused, grid: read every frame
        break;
    }
    this.controls.sync();
    writeState(this.state);
  }

  /** Applies the changes flagged since the last frame (no work when none). */
  private applyChanges(): void {
    const scene = this.scene;
    if (!scene || !(this.countChanged || this.respawnNeeded || this.uniformChanged)) return;
    const population = scene.population;
    const settings = this.settings(scene);
    try {
      if (this.countChanged) population.setCount(this.state.instances, settings);
      if (this.respawnNeeded) population.respawn(settings);
      else if (this.uniformChanged && settings.mode === 'uniform') population.applyUniform(settings, this.newPhases);
    } catch (error) {
      const message = `Could not show ${this.state.instances.toLocaleString('en-US')} instances: ${(error as Error).message}. Showing ${population.count.toLocaleString('en-US')}.`;
      console.error(message);
      this.messages.show('error', message);
      this.state.instances = population.count;
    }
    if (this.countChanged) this.frameCamera();
    this.countChanged = this.respawnNeeded = this.uniformChanged = this.newPhases = false;
    this.stats.setScene({
      model: scene.label, mode: this.state.mode, instances: population.count,
      jointsPerInstance: scene.crowd.jointsPerInstance, drawCalls: scene.crowd.drawCallCount, bakedBytes: scene.bakedBytes,
    });
    this.controls.sync();
    writeState(this.state);
  }

  private settings(scene: Scene): PopulationSettings {
    const { character } = scene;
    const { mode, blend, randomPhases, variety } = this.state;
    return { mode, blend, randomPhases, variety, clipA: character.clipIndex(this.state.clipA), clipB: character.clipIndex(this.state.clipB) };
  }

  private frameCamera(): void {
    const population = this.scene?.population;
    if (!population) return;
    const halfSide = spiralHalfSide(population.count);
    this.camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
  }

  /** One frame: apply changes, advance the clock, encode the pose and render passes, submit. */
  private frame(now: number): void {
    if (this.stopped) return;
    requestAnimationFrame(this.tick);
    const start = performance.now();
    const dt = this.lastTime < 0 ? 0 : Math.min(MAX_DT, (now - this.lastTime) / 1000);
    this.lastTime = now;
    try {
      this.applyChanges();
      const crowd = this.scene?.crowd;
      crowd?.update(this.state.paused ? 0 : dt * this.state.speed);
      const camera = this.camera;
      camera.update(this.renderer.aspect);
      const grid = this.state.grid ? this.grid : undefined;
      grid?.update(camera.viewProjection, camera.eye, camera.target, camera.fogStart, camera.fogEnd);
      this.renderer.render(crowd, grid, camera.viewProjection, this.timer);
    } catch (error) {
      if (!this.frameError) {
        this.frameError = true; // report once, not sixty times a second
        console.error('frame failed:', error);
        this.messages.show('error', `Drawing failed: ${(error as Error).message}`);
      }
    }
    const end = performance.now();
    this.stats.frame(end, end - start);
  }
}
