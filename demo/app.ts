import type { Crowd, InstanceId, SteeringAgents } from '../src/index';
import { Controls, type StateKey, type ViewSettings } from './controls';
import type { DemoDevice } from './gpu-device';
import type { DroppedModel } from './drop';
import { GpuTimer } from './gpu-timer';
import { Ground } from './ground';
import { Keyboard } from './keyboard';
import { MODELS } from './models';
import { OrbitCamera } from './orbit-camera';
import type { MessageBox } from './overlays';
import { Renderer, trackCanvasSize } from './renderer';
import type { Scene, SceneSource } from './scene';
import { SceneLoads } from './scene-loads';
import { SCENE_DEFAULTS, type SceneState } from './scene-state';
import { createActivity, LocomotionActivity, type ActivityContext, type SceneActivity } from './scenes';
import { bindingSummary, ClipsPicks } from './scenes/clips-picks';
import { jointNames } from './scenes/layer-defaults';
import { listenPointer, Selection } from './selection';
import { StatsOverlay, type LiveStats } from './stats';
import { MAX_DEVICE_PIXEL_RATIO } from './theme';
import { lightOptions } from './lights';
import { writeState, type DemoState } from './url-state';
import { WeightPlot } from './weight-plot';

/** Longest step of the animation clock, seconds (a stalled tab does not jump ahead). */
const MAX_DT = 0.1;
/** The crowds drawn while no scene is loaded. */
const NO_CROWDS: readonly Crowd[] = [];

/**
 * The running demo: owns the GPU objects that live as long as the page (renderer, ground and
 * its rings, timer), the loaded model (Scene), the scene activity running on it (crowd, layers
 * or locomotion), the camera, the keyboard and the panel. Control changes only set flags; the
 * frame applies them once, so dragging a slider costs one update per frame.
 */
export class App {
  // The device and what lives on it, re-created by restore() after a lost device.
  private device: GPUDevice;
  private renderer: Renderer;
  private readonly ground: Ground;
  private readonly selection: Selection;
  private timer: GpuTimer;
  private readonly stats: StatsOverlay;
  private readonly camera = new OrbitCamera();
  private readonly controls: Controls;
  private readonly loads = new SceneLoads();
  private readonly view: ViewSettings = { follow: true };
  private readonly context: ActivityContext;
  /** The clips scene's body and clip set (panel pickers and dropped files). */
  private readonly clipsPicks: ClipsPicks;
  private scene: Scene | undefined;
  private activity: SceneActivity | undefined;
  private lastTime = -1;
  private stopped = false;
  private frameError = false;
  /** Pending changes, applied at the start of the next frame. */
  private countChanged = false;
  private settingsChanged = false;
  /** Scratch: where the followed character stands (x, z) and its marker radius. */
  private readonly followed = new Float32Array(3);
  private readonly extent = new Float32Array(3);
  private readonly selectedAt = new Float32Array(3);
  private readonly tick = (now: number): void => this.frame(now);
  /** Rings a scene asks for (SceneActivity.rings): x, z, radius each. */
  private readonly ringData = new Float32Array(3 * 16);

  constructor(gpu: DemoDevice, canvas: HTMLCanvasElement, private readonly state: DemoState, private readonly sceneState: SceneState,
    private readonly messages: MessageBox) {
    this.device = gpu.device;
    this.renderer = new Renderer(this.device, canvas);
    trackCanvasSize(canvas, this.device.limits.maxTextureDimension2D, MAX_DEVICE_PIXEL_RATIO);
    this.ground = new Ground(this.device, this.renderer);
    this.timer = new GpuTimer(this.device);
    this.stats = new StatsOverlay(this.timer, gpu.adapterName);
    const selection = (this.selection = new Selection(canvas));
    listenPointer(canvas, this.camera, selection, () => this.activity);
    this.camera.frame(5, 5, 1);
    const plotCanvas = document.getElementById('plot') as HTMLCanvasElement | null;
    if (!plotCanvas) throw new Error('index.html has no #plot');
    this.context = {
      state, sceneState, keyboard: new Keyboard(), plot: new WeightPlot(plotCanvas),
      notify: (message) => this.messages.show('info', message),
    };
    this.clipsPicks = new ClipsPicks(sceneState);
    this.controls = new Controls(state, sceneState, this.view, {
      changed: (key) => this.onChanged(key),
      resetCamera: () => this.frameCamera(),
      loadUrl: (url) => void this.loadUrl(url),
      nextCharacter: () => { if (this.activity instanceof LocomotionActivity) this.activity.selectNext(); },
    });
    this.controls.setClipsPicks(this.clipsPicks.bodyNames, this.clipsPicks.setNames);
  }

  start(): void {
    requestAnimationFrame(this.tick);
  }

  /** Stops drawing (the device was lost). */
  stop(): void {
    this.stopped = true;
    this.loads.stop();
  }

  /** The running scene's steering agents (SceneActivity.readAgents), or null when it steers none. */
  async readAgents(): Promise<(SteeringAgents & { keyboard: InstanceId }) | null> {
    return (await this.activity?.readAgents?.()) ?? null;
  }

  /**
   * Goes on drawing on `gpu` (a new device after the old one was lost): re-creates the renderer,
   * ground and timer there and restores the crowd onto it (Crowd.restore, which brings
   * its controllers along), so every character carries on from where it was.
   */
  restore(gpu: DemoDevice): void {
    for (const old of [this.renderer, this.ground, this.timer]) old.destroy();
    this.device = gpu.device;
    this.renderer = new Renderer(this.device, this.renderer.canvas);
    this.ground.restore(this.device, this.renderer);
    this.timer = new GpuTimer(this.device);
    this.stats.restored(this.timer);
    this.activity?.deviceLost?.();
    for (const crowd of this.scene?.crowds ?? []) crowd.restore(this.device);
    this.stopped = false;
    this.lastTime = -1;
    this.frameError = false;
    requestAnimationFrame(this.tick);
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

  /**
   * Loads a file dropped on the page (demo/drop.ts); on failure the current scene keeps running.
   * In the clips scene a body becomes the scene's body, a file of clips only its clip set.
   */
  loadDropped(dropped: DroppedModel): Promise<boolean> {
    if (this.sceneState.scene !== 'clips') return this.load(dropped.name, dropped.source);
    this.clipsPicks.drop(dropped);
    return this.loadClipsScene();
  }

  /** The clips scene again with the picks now (body, clip set, leg solve): its model with `beside`, else the scene's default. */
  private loadClipsScene(): Promise<boolean> {
    this.controls.setClipsPicks(this.clipsPicks.bodyNames, this.clipsPicks.setNames);
    return this.loadModel(MODELS[this.state.model]?.beside ? this.state.model : SCENE_DEFAULTS.clips.model);
  }

  /** Loads `source` (SceneLoads: a newer load drops this one) and installs it; on failure the current scene keeps running. */
  private async load(label: string, source: SceneSource, clips?: [string, string]): Promise<boolean> {
    try {
      const scene = await this.loads.load(this.device, label, source, {
        crowd: {
          colorFormat: this.renderer.colorFormat, depthFormat: this.renderer.depthFormat,
          sampleCount: this.renderer.sampleCount, capacity: Math.max(1024, this.state.instances), shadows: true,
          // No paletteSize: the default budget (65,536 joint sets) serves the drawn characters past that many instances (docs/palette.md).
          skinning: this.state.skinning,
        },
        clips: this.sceneState.scene === 'clips' ? this.clipsPicks.choice() : undefined,
      });
      if (!scene) return false;
      this.install(scene, clips ?? ['', '']);
      return true;
    } catch (error) {
      const current = this.scene;
      const message = `Could not load ${label}: ${(error as Error).message}` +
        (current ? `. Still showing ${current.label}.` : '');
      console.error(message, error);
      this.messages.show('error', message);
      if (this.sceneState.scene === 'clips' && this.clipsPicks.revert(current?.clipsChoice)) {
        this.controls.setClipsPicks(this.clipsPicks.bodyNames, this.clipsPicks.setNames);
        this.controls.setClipsReport(`refused: ${(error as Error).message}`);
        // Refused at start (the URL's picks): the default picks instead, so the scene shows.
        if (!current) void this.loadClipsScene();
      }
      this.state.model = current?.source.model || this.state.model;
      this.state.modelUrl = current?.source.url && !current.source.model ? current.source.url : '';
      if (this.activity) this.sceneState.scene = this.activity.kind;
      this.controls.sync();
      if (current) writeState(this.state, this.sceneState);
      return false;
    }
  }

  /** Makes a freshly loaded model the current one and starts the scene on it. */
  private install(scene: Scene, [wantedA, wantedB]: [string, string]): void {
    const { character } = scene;
    // Loaded on a device that was lost meanwhile: bring it over.
    for (const crowd of scene.crowds) if (crowd.device !== this.device) crowd.restore(this.device);
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
    if (this.scene && this.scene.label !== scene.label) {
      // Layer settings name clips and joints of the previous model.
      this.sceneState.layerClip = this.sceneState.layerJoint = '';
    }

    const previous = this.scene;
    this.activity?.dispose(false);
    this.activity = undefined;
    this.scene = scene;
    this.applyLights();
    this.selection.setCrowd(scene.crowd, scene.picking);
    previous?.destroy();
    this.startActivity();
    this.controls.setClips(names, jointNames(character));
    const choice = scene.clipsChoice;
    this.controls.setClipsReport(choice ? scene.bodies.map((b) => `${b.label}: ${bindingSummary(b.character, choice.legSolve)}`).join('\n') : '');
  }

  /** Starts the scene kind of the state on the current model, ending the one running. */
  private startActivity(): void {
    const scene = this.scene;
    if (!scene) return;
    this.activity?.dispose(true);
    this.activity = undefined;
    const activity = createActivity(this.sceneState.scene, scene, this.context);
    this.activity = activity;
    this.ground.cellSize.set(activity.cellSize);
    this.countChanged = true;
    this.settingsChanged = false;
    this.applyChanges();
  }

  private onChanged(key: StateKey): void {
    switch (key) {
      case 'model':
        void this.loadModel(this.state.model);
        return;
      case 'scene': {
        // Each scene opens with its own model and instance count.
        const defaults = SCENE_DEFAULTS[this.sceneState.scene];
        this.state.instances = defaults.instances;
        if (defaults.model !== this.state.model || this.state.modelUrl) {
          this.state.model = defaults.model;
          void this.loadModel(defaults.model);
        } else {
          this.startActivity();
        }
        break;
      }
      case 'clipsBody':
      case 'clipSet':
      case 'legSolve':
        void this.loadClipsScene();
        break;
      case 'flags': // the stadium seats its spectators again, with or without flags (and its impostors sized for them)
        this.startActivity();
        break;
      case 'instances':
        this.countChanged = true;
        break;
      case 'lights':
        this.applyLights();
        break;
      default: // speed, paused, grid, culling, lod, animationLod, shadows, skinning: read every frame; the rest belongs to the activity
        if (this.activity?.settingChanged(key)) this.settingsChanged = true;
        break;
    }
    this.controls.sync();
    writeState(this.state, this.sceneState);
  }

  /** Sets the light panel's lights on every crowd of the scene (Crowd.setLights). */
  private applyLights(): void {
    const lights = lightOptions(this.state.lights);
    for (const crowd of this.scene?.crowds ?? []) crowd.setLights(lights);
  }

  /** Applies the changes flagged since the last frame (no work when none). */
  private applyChanges(): void {
    const scene = this.scene;
    const activity = this.activity;
    if (!scene || !activity || !(this.countChanged || this.settingsChanged)) return;
    try {
      if (this.countChanged) activity.setCount(this.state.instances);
    } catch (error) {
      const message = `Could not show ${this.state.instances.toLocaleString('en-US')} instances: ${(error as Error).message}. Showing ${activity.count.toLocaleString('en-US')}.`;
      console.error(message);
      this.messages.show('error', message);
      this.state.instances = activity.count;
    }
    try {
      if (this.settingsChanged) activity.apply();
    } catch (error) {
      const message = `Could not apply the change: ${(error as Error).message}`;
      console.error(message);
      this.messages.show('error', message);
    }
    if (this.countChanged) this.frameCamera();
    this.countChanged = this.settingsChanged = false;
    const live: LiveStats = { drawCalls: 0, stats: undefined, gpuBytes: 0, impostors: false, impostorsStale: [] };
    this.stats.setScene({
      model: scene.label, scene: activity.kind, mode: activity.kind === 'crowd' ? this.state.mode : activity.kind, instances: activity.count,
      jointsPerInstance: scene.crowd.jointsPerInstance, drawCalls: scene.drawCallCount, bakedBytes: scene.bakedBytes,
    }, (lines, data) => {
      activity.describe(lines, data);
      this.selection.describe(lines, data);
    }, () => {
      const impostors = scene.impostors;
      live.drawCalls = scene.drawCallCount;
      live.stats = scene.crowd.cullStats;
      live.gpuBytes = scene.gpuBytes;
      live.impostors = impostors?.enabled ?? false;
      live.impostorsStale = live.impostors ? impostors!.stale : [];
      return live;
    });
    this.controls.sync();
    writeState(this.state, this.sceneState);
  }

  private frameCamera(): void {
    const activity = this.activity;
    if (!activity) return;
    activity.extent(this.extent);
    this.camera.frame(this.extent[0], this.extent[1], activity.height);
    this.camera.target[2] = this.extent[2];
    activity.placeCamera?.(this.camera);
  }

  /** One frame: apply changes, advance the scene and the clock, encode the pose and render passes, submit. */
  private frame(now: number): void {
    if (this.stopped) return;
    requestAnimationFrame(this.tick);
    const start = performance.now();
    const dt = this.lastTime < 0 ? 0 : Math.min(MAX_DT, (now - this.lastTime) / 1000);
    this.lastTime = now;
    try {
      this.applyChanges();
      const camera = this.camera;
      const step = this.state.paused ? 0 : dt * this.state.speed;
      const activity = this.activity;
      activity?.update(step, camera.yaw);
      // The appearance control (crowd scene): spreads or clears tints, variants and parts when it or the population changed;
      // a scene's own spectators (the stadium's) always get their looks.
      const spectators = activity?.spectators;
      this.scene?.appearance.sync(spectators !== undefined || (this.state.appearance && activity?.kind === 'crowd'), spectators ?? this.scene.population);
      // Far characters as impostors where the scene draws them so (made and baked on first use, in the update below),
      // sized for the looks the appearance spread gives out (times the scene's own: the stadium's flags).
      if (this.scene) {
        const looks = (activity?.impostorLooks ?? 1) * this.scene.appearance.looksSpread;
        this.scene.useImpostors(this.state.impostors && (activity?.impostors ?? false), activity?.impostorClips, looks, activity?.impostorPartialLayers);
      }
      const crowds = this.scene?.crowds ?? NO_CROWDS;
      for (let i = 0; i < crowds.length; i++) crowds[i].update(step);
      const followed = this.followed;
      const following = activity !== undefined && activity.follow(followed);
      if (following && this.view.follow) camera.follow(followed[0], followed[1], dt);
      camera.update(this.renderer.aspect);
      for (let i = 0; i < crowds.length; i++) {
        const crowd = crowds[i];
        // The panel's switches, and the camera the cull pass uses (before encode, in render()).
        crowd.culling = this.state.culling;
        crowd.lod = this.state.lod;
        crowd.animationLod = this.state.animationLod;
        crowd.shadows = this.state.shadows;
        // A change re-creates the crowd's joint buffer and pipelines: only when the menu changed.
        if (crowd.skinning !== this.state.skinning) crowd.skinning = this.state.skinning;
        crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: this.renderer.canvas.height });
      }
      // The ground's rings: the followed character's, the selected one's, a scene's (the steering scene's pillars).
      const selected = this.selection.ring(this.selectedAt) ? this.selectedAt : undefined;
      const rings = activity?.rings?.(this.ringData) ?? 0;
      const grid = this.ground.update(camera, this.state.grid, activity?.height ?? 1, following ? followed : undefined, selected, this.ringData, rings);
      this.renderer.render(crowds, grid, this.ground.markers, camera.viewProjection, this.timer);
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
