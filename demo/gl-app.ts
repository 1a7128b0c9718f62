/**
 * The demo where WebGPU is missing (or with ?backend=webgl2), loaded by main.ts through a dynamic
 * import only then: the crowd scene on WebGL 2 through createCrowd, with the WebGPU demo's panel
 * (model, instances and their presets up to the 10k stress test, clips, blend, mode, speed,
 * culling, LOD, shadows, lights, appearance, another model's URL), the ground grid (GLGridPass),
 * the orbit camera, the stats overlay saying "WebGL 2", and the context's loss restored. The other
 * scenes say on the panel why they do not run here (GL_SCENES_MISSING); a feature the GL crowd
 * refuses (appearance) is switched off with the crowd's reason (docs/demo.md, "On WebGL 2").
 */
import { AppearanceSpread } from './appearance';
import { createCrowd, loadCharacter, loadClips, MeshoptDecoder, MeshoptSimplifier, type Character, type Crowd, type GLCanvasCrowd, type LoadOptions } from '../src/index';
import { Controls, type StateKey } from './controls';
import { GLGridPass } from './gl-grid-pass';
import { lightOptions } from './lights';
import { MODELS } from './models';
import { OrbitCamera } from './orbit-camera';
import { OrbitInput } from './orbit-input';
import type { MessageBox } from './overlays';
import { Population, type PopulationSettings } from './population';
import { trackCanvasSize } from './renderer';
import { SCENE_DEFAULTS, type SceneKind, type SceneState } from './scene-state';
import { spiralHalfSide } from './spiral';
import { MAX_DEVICE_PIXEL_RATIO, SKY_COLOR } from './theme';
import { writeState, type DemoState } from './url-state';

/** Milliseconds between refreshes of the stats text. */
const REFRESH_MS = 250;

/** Why each scene but the crowd scene does not run on WebGL 2 in this demo (shown when picked). */
export const GL_SCENES_MISSING: Readonly<Record<Exclude<SceneKind, 'crowd'>, string>> = {
  layers: 'its scene code drives the WebGPU demo\'s Scene (the GL pose pass itself does layers and masks)',
  clips: 'it draws three crowds in one WebGPU render pass',
  locomotion: 'it needs CrowdControllers and CrowdSteering on the crowd',
  steering: 'it needs CrowdSteering, CrowdPicking and CrowdAppearance on the crowd',
  stadium: 'it draws its far spectators with CrowdImpostors, which needs WebGPU (a bowl of a million as meshes is far past what a GL crowd draws)',
};

/** The WebGL 2 demo: one crowd on the canvas, the ground, the panel, the camera and the stats. */
export class GLApp {
  private crowd: GLCanvasCrowd | undefined;
  private population: Population | undefined;
  private appearance: AppearanceSpread | undefined;
  private character: Character | undefined;
  private grid: GLGridPass | undefined;
  private readonly camera = new OrbitCamera();
  private readonly stats: HTMLElement;
  private readonly controls: Controls;
  private loading: Promise<boolean> = Promise.resolve(true);
  /** What was refused on WebGL 2 so far (panel setting or scene -> why), shown together. */
  private readonly refusals = new Map<string, string>();
  private last = 0;
  private frames = 0;
  private windowStart = 0;
  private windowFrames = 0;
  private lastRefresh = -Infinity;
  private fps = 0;

  /** `reason`: why the demo runs on WebGL 2 (shown in the stats), e.g. "forced by ?backend=webgl2". */
  constructor(private readonly canvas: HTMLCanvasElement, private readonly state: DemoState, private readonly sceneState: SceneState,
    private readonly reason: string, private readonly messages: MessageBox) {
    const stats = document.getElementById('stats');
    if (!stats) throw new Error('index.html has no #stats');
    this.stats = stats;
    stats.dataset.backend = 'webgl2';
    new OrbitInput(canvas, this.camera);
    this.camera.frame(5, 5, 1);
    this.controls = new Controls(state, sceneState, { follow: false }, {
      changed: (key) => this.changed(key),
      resetCamera: () => this.frameCamera(),
      loadUrl: (url) => void this.loadUrl(url),
      nextCharacter: () => {},
    });
    if (sceneState.scene !== 'crowd') this.refuseScene();
    // The grid's program goes with a lost context; the crowd restores itself (GLCanvasCrowd).
    canvas.addEventListener('webglcontextrestored', () => { if (this.crowd) this.grid = new GLGridPass(this.crowd.gl); });
  }

  /** The WebGL 2 context's lose / restore extension, for the tests' context-loss hook. */
  get loseContext(): WEBGL_lose_context | null {
    return this.crowd?.gl.getExtension('WEBGL_lose_context') ?? null;
  }

  /** Loads model `name` of MODELS (the URL's at start) and makes its crowd; false, with the reason shown, when it cannot. */
  loadModel(name: string): Promise<boolean> {
    const entry = MODELS[name];
    if (!entry) return Promise.reject(new Error(`unknown model ${name}`));
    this.state.model = name;
    return this.load(entry.url, name, entry.load ?? {}, entry.clipA, entry.clipB, entry.clips);
  }

  /** Loads a .glb/.gltf from `url` in place of the running model; a bad file leaves the running one, with the reason shown. */
  loadUrl(url: string): Promise<boolean> {
    return this.load(url, url, {}, '', '');
  }

  /** Starts the frame loop. */
  start(): void {
    const frame = (now: number) => {
      this.frame(now);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  /** `clips`: clip files the model is bound to (ModelEntry.clips), read with loadClips. */
  private load(url: string, label: string, options: LoadOptions, clipA: string, clipB: string, clips?: string[]): Promise<boolean> {
    this.loading = this.loading.catch(() => false).then(async () => {
      let character: Character;
      try {
        const decoders = { meshopt: MeshoptDecoder };
        const library = clips ? [await loadClips(clips, { decoders })] : undefined;
        character = await loadCharacter(url, { ...options, clips: library, lod: { simplifier: MeshoptSimplifier }, decoders });
      } catch (error) {
        this.messages.show('error', `${label}: ${(error as Error).message}`);
        return false;
      }
      this.destroyCrowd();
      const state = this.state;
      const crowd = await createCrowd(this.canvas, character, {
        backend: 'webgl2', capacity: Math.max(1, state.instances), clearColor: [SKY_COLOR.r, SKY_COLOR.g, SKY_COLOR.b, 1],
        culling: state.culling, lod: state.lod, animationLod: state.animationLod, shadows: state.shadows,
      }) as GLCanvasCrowd;
      if (!this.grid) trackCanvasSize(this.canvas, crowd.gl.getParameter(crowd.gl.MAX_TEXTURE_SIZE) as number, MAX_DEVICE_PIXEL_RATIO);
      this.grid ??= new GLGridPass(crowd.gl);
      if (state.skinning !== 'linear') this.refuse('skinning', 'dual-quaternion skinning needs WebGPU; this crowd skins linearly', () => { state.skinning = 'linear'; });
      crowd.setLights(lightOptions(state.lights));
      const names = character.clipNames;
      if (!names.includes(state.clipA)) state.clipA = names.includes(clipA) ? clipA : names[0];
      if (!names.includes(state.clipB)) state.clipB = names.includes(clipB) ? clipB : names[Math.min(1, names.length - 1)];
      this.crowd = crowd;
      this.character = character;
      this.population = new Population(crowd, character);
      this.appearance = new AppearanceSpread(crowd as unknown as Crowd, character, []);
      this.controls.setClips(names, []);
      this.setCount();
      this.frameCamera();
      this.stats.dataset.model = character.name;
      writeState(state, this.sceneState);
      return true;
    });
    return this.loading;
  }

  private destroyCrowd(): void {
    this.crowd?.destroy();
    this.crowd = this.population = this.appearance = undefined;
  }

  /** The panel's population settings for the loaded character. */
  private settings(): PopulationSettings {
    const { mode, blend, randomPhases, variety, clipA, clipB } = this.state;
    const character = this.character!;
    return { mode, blend, randomPhases, variety, clipA: Math.max(0, character.clipNames.indexOf(clipA)), clipB: Math.max(0, character.clipNames.indexOf(clipB)) };
  }

  /** Adds or removes instances to the panel's count; a count the crowd cannot hold keeps what was added, with the crowd's reason shown. */
  private setCount(): void {
    const population = this.population!;
    try {
      population.setCount(this.state.instances, this.settings());
    } catch (error) {
      this.messages.show('error', `WebGL 2: ${(error as Error).message}`);
      this.state.instances = population.count;
      this.controls.sync();
    }
    if (this.state.instances > 20_000) this.messages.show('info', `WebGL 2: ${this.state.instances.toLocaleString('en-US')} instances pose on the GPU but are culled on the CPU; expect a slower frame than on WebGPU.`);
    const spacing = population.spacing;
    this.grid?.cellSize.set(spacing);
    this.stats.dataset.instances = String(population.count);
  }

  private frameCamera(): void {
    const population = this.population;
    if (!population) return;
    const half = spiralHalfSide(population.count);
    this.camera.frame(half * population.spacing[0], half * population.spacing[1], population.height);
  }

  /** A panel change: applied at once (each is one call or a pass over the population, not per frame). */
  private changed(key: StateKey): void {
    const crowd = this.crowd, population = this.population, state = this.state;
    if (key === 'model') {
      void this.loadModel(state.model);
      return;
    }
    if (key === 'scene') this.refuseScene();
    if (!crowd || !population) return;
    switch (key) {
      case 'instances': this.setCount(); break;
      case 'mode': case 'variety': population.respawn(this.settings()); break;
      case 'clipA': case 'clipB':
        if (state.mode === 'crowd') population.respawn(this.settings());
        else population.applyUniform(this.settings(), false);
        break;
      case 'blend': population.applyUniform(this.settings(), false); break;
      case 'randomPhases': population.applyUniform(this.settings(), state.randomPhases); break;
      case 'culling': crowd.culling = state.culling; break;
      case 'lod': crowd.lod = state.lod; break;
      case 'animationLod': crowd.animationLod = state.animationLod; break;
      case 'shadows': crowd.shadows = state.shadows; break;
      case 'lights': crowd.setLights(lightOptions(state.lights)); break;
      case 'skinning':
        if (state.skinning !== 'linear') this.refuse('skinning', 'dual-quaternion skinning needs WebGPU; this crowd skins linearly', () => { state.skinning = 'linear'; });
        break;
      default: break; // speed, paused, grid, appearance: read every frame
    }
    this.controls.sync();
    writeState(state, this.sceneState);
  }

  /** The scene picked is not on WebGL 2 here: says why (GL_SCENES_MISSING) and goes on with the crowd scene. */
  private refuseScene(): void {
    const scene = this.sceneState.scene;
    if (scene === 'crowd') return;
    this.refuse(scene, `the ${scene} scene does not run on WebGL 2 in this demo yet: ${GL_SCENES_MISSING[scene]}. Showing the crowd scene`, () => {
      this.sceneState.scene = 'crowd';
      // The stadium's million (its default count) is not the crowd scene's: it starts with its own.
      if (scene === 'stadium' && this.state.instances === SCENE_DEFAULTS.stadium.instances) this.state.instances = SCENE_DEFAULTS.crowd.instances;
    });
  }

  /** Shows why `what` is refused on WebGL 2, with the earlier refusals (and lists them in #stats' data-gl-refused), then puts the panel back with `undo`. */
  private refuse(what: string, reason: string, undo: () => void): void {
    this.refusals.set(what, `${reason}.`);
    this.messages.show('info', `WebGL 2: ${[...this.refusals.values()].join(' ')}`);
    this.stats.dataset.glRefused = [...this.refusals.keys()].join(',');
    undo();
    this.controls.sync();
    writeState(this.state, this.sceneState);
  }

  private frame(now: number): void {
    const crowd = this.crowd;
    const dt = this.last === 0 ? 0 : Math.min(0.1, (now - this.last) / 1000);
    this.last = now;
    if (!crowd) return;
    const camera = this.camera;
    camera.update(this.canvas.width / Math.max(1, this.canvas.height));
    const started = performance.now();
    this.syncAppearance();
    crowd.update(this.state.paused ? 0 : dt * this.state.speed);
    crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: this.canvas.height });
    crowd.render(camera.viewProjection);
    if (this.state.grid && this.grid && !crowd.gl.isContextLost()) {
      this.grid.update(camera.viewProjection, camera.eye, camera.target, camera.fogStart, camera.fogEnd);
      this.grid.draw();
    }
    const cpuMs = performance.now() - started;
    if (!crowd.gl.isContextLost()) this.frames++;
    this.refresh(now, cpuMs);
  }

  /** The panel's appearance switch: CrowdAppearance on the GL crowd where it installs; else switched off with the crowd's reason. */
  private syncAppearance(): void {
    try {
      this.appearance?.sync(this.state.appearance, this.population!);
    } catch (error) {
      this.appearance = new AppearanceSpread(this.crowd as unknown as Crowd, this.character!, []);
      this.refuse('appearance', (error as Error).message.replace(/\.$/, ''), () => { this.state.appearance = false; });
    }
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
    data.grid = String(this.state.grid);
    if (stats) [data.visible, data.posed] = [String(stats.visible), String(stats.posed)];
    const lines = [
      `WebGL 2 (${this.reason})`,
      `${this.character!.name} · ${this.population!.count.toLocaleString('en-US')} instances · ${crowd.jointsPerInstance} joints`,
      `${this.fps.toFixed(0)} fps · CPU ${cpuMs.toFixed(2)} ms (update, cull, pose and draw calls)`,
      stats ? `visible ${stats.visible.toLocaleString('en-US')} · posed ${stats.posed.toLocaleString('en-US')}` : '',
      `draw calls ${crowd.drawCallCount} · GPU memory ${(crowd.gpuBytes / 2 ** 20).toFixed(1)} MiB`,
      crowd.restored > 0 ? `context restored ${crowd.restored}x` : '',
    ];
    this.stats.textContent = lines.filter(Boolean).join('\n');
  }
}
