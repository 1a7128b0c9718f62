/**
 * The demo where WebGPU is missing (or with ?backend=webgl2), loaded by main.ts through a dynamic
 * import only then: the crowd, layers, locomotion, steering, clips and stadium scenes on WebGL 2 through
 * createCrowd, with the WebGPU demo's panel (model, instances and their presets up to the 10k
 * stress test, clips, blend, mode, speed, culling, LOD, shadows, lights, appearance, the layers
 * and locomotion controls, another model's URL, a dropped file), the ground grid with the crowds' shadows and rings on it (GLGround), click and box selection (CPU picking), the orbit camera, the stats
 * overlay saying "WebGL 2", and the context's loss restored. The layers, locomotion, steering and
 * stadium scenes are the WebGPU demo's own (createModelActivity over a SceneModel of the GL crowd)
 * and say in the stats what they leave out here (the stadium: its far crowd as impostors, so it
 * seats GL_STADIUM_INSTANCES, and its flags); the clips scene is the WebGPU one's CrowdActivity
 * over its bodies as GL crowds on one context (GLClipsBodies, gl-clips.ts); a feature the GL crowd
 * refuses, or that needs WebGPU, is switched off with the reason (docs/demo.md, "On WebGL 2").
 */
import { createCrowd, CrowdPicking, type GLCanvasCrowd } from '../src/index';
import { Controls, type StateKey } from './controls';
import type { DroppedModel } from './drop';
import { GLClipsBodies } from './gl-clips';
import { FLAGS_NEED_WEBGPU, GLRefusals, SKINNING_NEEDS_WEBGPU } from './gl-refusals';
import { GL_GROUND_SHADOWS } from './gl-grid-pass';
import { GLGround } from './gl-ground';
import { readGLModel, type GLModel } from './gl-load';
import { GLStats, type GLStatsScene } from './gl-stats';
import { Keyboard } from './keyboard';
import { lightOptions } from './lights';
import { MODELS, type ModelEntry } from './models';
import { OrbitCamera } from './orbit-camera';
import type { MessageBox } from './overlays';
import { Population, type PopulationSettings } from './population';
import { trackCanvasSize } from './renderer';
import type { SceneSource } from './scene';
import { SceneModel } from './scene-model';
import { SCENE_DEFAULTS, type SceneState } from './scene-state';
import { createModelActivity, isModelScene, LocomotionActivity, type ActivityContext, type SceneActivity } from './scenes';
import { bindingSummary, ClipsPicks } from './scenes/clips-picks';
import { CrowdActivity } from './scenes/crowd-scene';
import { jointNames } from './scenes/layer-defaults';
import { listenPointer, Selection } from './selection';
import { spiralHalfSide } from './spiral';
import { MAX_DEVICE_PIXEL_RATIO, SKY_COLOR } from './theme';
import { writeState, type DemoState } from './url-state';
import { WeightPlot } from './weight-plot';

/** How fast the camera catches up with a followed character, 1/seconds (as on WebGPU). */
const FOLLOW_RATE = 4;

/** The WebGL 2 demo: one crowd on the canvas (the clips scene's bodies beside it), the running scene, the ground, the panel, the camera and the stats. */
export class GLApp {
  private crowd: GLCanvasCrowd | undefined;
  /** The loaded model as the scenes take it (SceneModel over the GL crowd: picking, masks, controllers, appearance). */
  private model: SceneModel<GLCanvasCrowd> | undefined;
  /** The crowd scene's placement of instances (the crowd scene runs when no activity does). */
  private population: Population | undefined;
  /** The layers, locomotion or steering scene when one runs. */
  private activity: SceneActivity | undefined;
  private ground: GLGround | undefined;
  /** The clips scene's bodies (the first on `crowd`, the others GL crowds on its context) while that scene's model is loaded. */
  private clips: GLClipsBodies | undefined;
  /** The clips scene's body and clip-set picks (the panel's pickers and dropped files). */
  private readonly clipsPicks: ClipsPicks;
  private readonly camera = new OrbitCamera();
  private readonly stats: HTMLElement;
  private readonly overlay: GLStats;
  /** The overlay's view of the running scene (getters read at each refresh; made once). */
  private readonly statsScene: GLStatsScene;
  private readonly controls: Controls;
  private readonly selection: Selection;
  private readonly context: ActivityContext;
  private readonly view = { follow: true };
  private loading: Promise<boolean> = Promise.resolve(true);
  private last = 0;
  private frameError = false;
  /** Scratch: the followed character (x, z, ring radius), the selected one, a scene's rings (x, z, radius each). */
  private readonly followed = new Float32Array(3);
  private readonly selectedAt = new Float32Array(3);
  private readonly ringData = new Float32Array(3 * 16);
  private readonly extent = new Float32Array(3);
  /** What WebGL 2 cannot do here, said on the page (refusals, the stadium's seats, the spectators' looks). */
  private readonly refusals: GLRefusals;

  /** `reason`: why the demo runs on WebGL 2 (shown in the stats), e.g. "forced by ?backend=webgl2". */
  constructor(private readonly canvas: HTMLCanvasElement, private readonly state: DemoState, private readonly sceneState: SceneState,
    reason: string, private readonly messages: MessageBox) {
    const stats = document.getElementById('stats');
    const plot = document.getElementById('plot') as HTMLCanvasElement | null;
    if (!stats || !plot) throw new Error('index.html has no #stats or #plot');
    this.stats = stats;
    this.overlay = new GLStats(stats, reason);
    const app = this;
    this.statsScene = {
      get name() { return app.shownName; },
      get scene() { return app.sceneState.scene; },
      get activityKind() { return app.activity?.kind ?? ''; },
      get count() { return app.activity ? app.activity.count : app.population?.count ?? 0; },
      get grid() { return app.state.grid; },
      get besideDrawCalls() { return app.clips?.besideDrawCalls ?? 0; },
      get besideGpuBytes() { return app.clips?.besideGpuBytes ?? 0; },
      describe: (lines, data) => (app.activity ?? app.selection).describe(lines, data),
    };
    const selection = (this.selection = new Selection(canvas));
    listenPointer(canvas, this.camera, selection, () => this.activity);
    this.camera.frame(5, 5, 1);
    this.context = { state, sceneState, keyboard: new Keyboard(), plot: new WeightPlot(plot), notify: (message) => this.messages.show('info', message) };
    this.controls = new Controls(state, sceneState, this.view, {
      changed: (key) => this.changed(key),
      resetCamera: () => this.frameCamera(),
      loadUrl: (url) => void this.loadUrl(url),
      nextCharacter: () => { if (this.activity instanceof LocomotionActivity) this.activity.selectNext(); },
    });
    this.clipsPicks = new ClipsPicks(sceneState);
    this.controls.setClipsPicks(this.clipsPicks.bodyNames, this.clipsPicks.setNames);
    this.controls.unavailable('impostors', 'needs WebGPU');
    this.refusals = new GLRefusals(state, sceneState, this.overlay, messages, this.controls);
    this.refusals.adaptScene();
    // The ground's programs go with a lost context; the crowd restores itself (GLCanvasCrowd).
    canvas.addEventListener('webglcontextrestored', () => { if (this.crowd) this.ground?.restore(this.crowd.gl); });
  }

  /** The WebGL 2 context's lose / restore extension, for the tests' context-loss hook. */
  get loseContext(): WEBGL_lose_context | null {
    return this.crowd?.gl.getExtension('WEBGL_lose_context') ?? null;
  }

  /** The model's name as the stats show it: the character's (its file's), or a dropped file's name. */
  private get shownName(): string {
    const model = this.model;
    return !model ? '' : model.source.file ? model.label : model.character.name;
  }

  /** The running scene's steering agents (SceneActivity.readAgents: steering's twin on WebGL 2), or null when it steers none. */
  readAgents(): ReturnType<NonNullable<SceneActivity['readAgents']>> | null {
    return this.activity?.readAgents?.() ?? null; // undefined (no agents) reads as null
  }

  /** Loads model `name` of MODELS (the URL's at start) and makes its crowd; false, with the reason shown, when it cannot. */
  loadModel(name: string): Promise<boolean> {
    const entry = MODELS[name];
    if (!entry) return Promise.reject(new Error(`unknown model ${name}`));
    this.state.model = name;
    return this.load({ model: name, url: entry.url }, name, entry);
  }

  /** Loads a .glb/.gltf from `url` in place of the running model; a bad file leaves the running one, with the reason shown. */
  loadUrl(url: string): Promise<boolean> {
    return this.load({ model: '', url }, url);
  }

  /** Starts the frame loop. */
  start(): void {
    const frame = (now: number) => { this.frame(now); requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  }

  /**
   * Loads a file dropped on the page (demo/drop.ts), as the WebGPU demo does: the crowd's model,
   * or in the clips scene its body or (a file of clips only) its clip set; a file that cannot
   * load leaves the running one, with the reason shown.
   */
  loadDropped(dropped: DroppedModel): Promise<boolean> {
    if (this.sceneState.scene !== 'clips') return this.load(dropped.source, dropped.name);
    this.clipsPicks.drop(dropped);
    this.controls.setClipsPicks(this.clipsPicks.bodyNames, this.clipsPicks.setNames);
    return this.loadModel(MODELS[this.state.model]?.beside ? this.state.model : SCENE_DEFAULTS.clips.model);
  }

  /** `entry`: the MODELS entry (its load options, default clips, clip files and controller config), none for a URL. */
  private load(source: SceneSource, label: string, entry?: ModelEntry): Promise<boolean> {
    this.loading = this.loading.catch(() => false).then(async () => {
      const clipsScene = this.sceneState.scene === 'clips';
      let read: GLModel;
      try {
        read = await readGLModel(label, source, entry, clipsScene ? this.clipsPicks.choice() : undefined);
      } catch (error) {
        // The WebGPU demo's message (App.load), and its report of refused picks.
        const shown = this.model?.label, message = (error as Error).message;
        this.messages.show('error', `Could not load ${label}: ${message}${shown ? `. Still showing ${shown}.` : ''}`);
        this.controls.setClipsReport(clipsScene ? `refused: ${message}` : '');
        // Picks that cannot bind go back to those still shown (a refused dropped file leaves its picker).
        if (clipsScene && this.clipsPicks.revert(this.clips?.clipsChoice)) {
          this.controls.setClipsPicks(this.clipsPicks.bodyNames, this.clipsPicks.setNames);
          writeState(this.state, this.sceneState);
        }
        this.controls.sync();
        return false;
      }
      const { character, bodies, config, problem } = read;
      const previous = this.model?.label;
      this.activity?.dispose(false);
      this.clips?.destroy();
      this.crowd?.destroy();
      this.crowd = this.model = this.population = this.activity = this.clips = undefined;
      const state = this.state;
      const options = { capacity: Math.max(1, state.instances), culling: state.culling, lod: state.lod, animationLod: state.animationLod, shadows: state.shadows };
      const crowd = await createCrowd(this.canvas, character, { ...options, backend: 'webgl2', clearColor: [SKY_COLOR.r, SKY_COLOR.g, SKY_COLOR.b, 1] }) as GLCanvasCrowd;
      if (!this.ground) trackCanvasSize(this.canvas, crowd.gl.getParameter(crowd.gl.MAX_TEXTURE_SIZE) as number, MAX_DEVICE_PIXEL_RATIO);
      this.ground ??= new GLGround(crowd.gl);
      if (state.skinning !== 'linear') this.refusals.refuse('skinning', SKINNING_NEEDS_WEBGPU, () => { state.skinning = 'linear'; });
      crowd.setLights(lightOptions(state.lights));
      const names = character.clipNames;
      if (!names.includes(state.clipA)) state.clipA = names.includes(entry?.clipA ?? '') ? entry!.clipA : names[0];
      if (!names.includes(state.clipB)) state.clipB = names.includes(entry?.clipB ?? '') ? entry!.clipB : names[Math.min(1, names.length - 1)];
      // Layer settings name clips and joints of the previous model.
      if (previous !== undefined && previous !== label) this.sceneState.layerClip = this.sceneState.layerJoint = '';
      this.crowd = crowd;
      const picking = new CrowdPicking(crowd);
      this.model = new SceneModel(label, source, character, crowd, picking, config, problem);
      this.population = new Population(crowd, character);
      if (bodies) {
        const clips = (this.clips = new GLClipsBodies(label, crowd, this.population, bodies, options));
        clips.configure(state, lightOptions(state.lights));
        this.controls.setClipsReport(clips.bodies.map((b) => `${b.label}: ${bindingSummary(b.character, this.sceneState.legSolve)}`).join('\n'));
      }
      this.selection.setCrowd(crowd, picking);
      this.controls.setClips(names, jointNames(character));
      this.stats.dataset.model = this.shownName;
      this.startScene();
      return true;
    });
    return this.loading;
  }

  /** Starts the state's scene on the loaded model, ending the one running: the crowd scene's population, or a scene's activity. */
  private startScene(): void {
    const model = this.model, population = this.population;
    if (!model || !population) return;
    this.activity?.dispose(true);
    this.activity = undefined;
    this.overlay.clearScene();
    const kind = this.sceneState.scene;
    if (isModelScene(kind)) {
      population.setCount(0, this.settings());
      this.activity = createModelActivity(kind, model, this.context);
      this.ground?.cellSize.set(this.activity.cellSize);
    } else if (kind === 'clips' && this.clips) {
      // The WebGPU clips scene's own placement and overlay, over the GL bodies.
      population.setCount(0, this.settings());
      const activity = (this.activity = new CrowdActivity(this.clips, this.state, 'clips'));
      this.ground?.cellSize.set(activity.cellSize);
    }
    this.setCount();
    this.frameCamera();
    this.controls.sync();
    writeState(this.state, this.sceneState);
  }

  /** The panel's population settings for the loaded character. */
  private settings(): PopulationSettings {
    const { mode, blend, randomPhases, variety, clipA, clipB } = this.state;
    const character = this.model!.character;
    return { mode, blend, randomPhases, variety, clipA: Math.max(0, character.clipNames.indexOf(clipA)), clipB: Math.max(0, character.clipNames.indexOf(clipB)) };
  }

  /**
   * Adds or removes instances to the panel's count (the scene's, or the crowd scene's population);
   * a count the crowd or the scene cannot hold keeps what was added, with the reason shown.
   */
  private setCount(): void {
    const population = this.population!, activity = this.activity;
    try {
      if (activity) activity.setCount(this.state.instances);
      else population.setCount(this.state.instances, this.settings());
    } catch (error) {
      const shown = activity ? activity.count : population.count;
      this.refusals.refuse('instances', `${(error as Error).message.replace(/\.$/, '')}; showing ${shown.toLocaleString('en-US')} instances`, () => { this.state.instances = shown; });
    }
    if (this.state.instances > 20_000) this.messages.show('info', `WebGL 2: ${this.state.instances.toLocaleString('en-US')} instances pose on the GPU but are culled on the CPU; expect a slower frame than on WebGPU.`);
    if (!activity) this.ground?.cellSize.set(population.spacing);
    this.stats.dataset.instances = String(activity ? activity.count : population.count);
  }

  private frameCamera(): void {
    const population = this.population, activity = this.activity;
    if (!population) return;
    if (activity) {
      activity.extent(this.extent);
      this.camera.frame(this.extent[0], this.extent[1], activity.height);
      this.camera.target[2] = this.extent[2];
      return;
    }
    const half = spiralHalfSide(population.count);
    this.camera.frame(half * population.spacing[0], half * population.spacing[1], population.height);
  }

  /** A panel change: applied at once (each is one call or a pass over the population or the scene, not per frame). */
  private changed(key: StateKey): void {
    const crowd = this.crowd, population = this.population, state = this.state, activity = this.activity;
    if (key === 'model') {
      void this.loadModel(state.model);
      return;
    }
    if (key === 'scene') {
      // Each scene opens with its own model and instance count, as on WebGPU (the stadium's as GLRefusals.adaptScene says).
      const defaults = SCENE_DEFAULTS[this.sceneState.scene];
      state.instances = defaults.instances;
      this.refusals.adaptScene();
      // The clips scene binds its picked clip set to its bodies: into it and out of it, the model is read again.
      if (defaults.model !== state.model || state.modelUrl || this.sceneState.scene === 'clips' || this.clips) {
        state.modelUrl = '';
        void this.loadModel(defaults.model);
      } else {
        this.startScene();
      }
      return;
    }
    if (!crowd || !population) return;
    switch (key) {
      case 'instances': this.setCount(); break;
      case 'culling': crowd.culling = state.culling; break;
      case 'lod': crowd.lod = state.lod; break;
      case 'animationLod': crowd.animationLod = state.animationLod; break;
      case 'shadows': crowd.shadows = state.shadows; break;
      case 'lights': crowd.setLights(lightOptions(state.lights)); break;
      case 'clipsBody':
      case 'clipSet':
      case 'legSolve':
        void this.loadModel(MODELS[state.model]?.beside ? state.model : SCENE_DEFAULTS.clips.model);
        return;
      case 'flags':
        if (this.sceneState.flags) this.refusals.refuse('flags', FLAGS_NEED_WEBGPU, () => { this.sceneState.flags = false; });
        break;
      case 'skinning':
        if (state.skinning !== 'linear') this.refusals.refuse('skinning', SKINNING_NEEDS_WEBGPU, () => { state.skinning = 'linear'; });
        break;
      default:
        // The layers scene's settings (layerClip, layerJoint, weights) belong to its activity; the population's to the crowd scene.
        if (activity) {
          if (activity.settingChanged(key)) activity.apply();
        } else if (key === 'mode' || key === 'variety' || ((key === 'clipA' || key === 'clipB') && state.mode === 'crowd')) {
          population.respawn(this.settings());
        } else if (key === 'clipA' || key === 'clipB' || key === 'blend' || key === 'randomPhases') {
          population.applyUniform(this.settings(), key === 'randomPhases' && state.randomPhases);
        }
        break; // speed, paused, grid, appearance: read every frame
    }
    this.clips?.configure(state, lightOptions(state.lights));
    this.controls.sync();
    writeState(state, this.sceneState);
  }

  private frame(now: number): void {
    const crowd = this.crowd;
    const dt = this.last === 0 ? 0 : Math.min(0.1, (now - this.last) / 1000);
    this.last = now;
    if (!crowd) return;
    const camera = this.camera, activity = this.activity;
    const started = performance.now();
    try {
      const step = this.state.paused ? 0 : dt * this.state.speed;
      activity?.update(step, camera.yaw);
      this.refusals.syncAppearance(this.model!, activity, this.population!);
      crowd.update(step);
      const followed = this.followed, following = activity !== undefined && activity.follow(followed);
      if (following && this.view.follow) {
        const k = 1 - Math.exp(-FOLLOW_RATE * dt);
        camera.target[0] += (followed[0] - camera.target[0]) * k;
        camera.target[2] += (followed[1] - camera.target[2]) * k;
      }
      camera.update(this.canvas.width / Math.max(1, this.canvas.height));
      crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: this.canvas.height });
      crowd.render(camera.viewProjection);
      if (!crowd.gl.isContextLost()) this.clips?.drawBeside(step, camera.viewProjection, camera.eye, this.canvas.height);
      const rings = activity?.rings?.(this.ringData) ?? 0, selected = this.selection.ring(this.selectedAt);
      if (!crowd.gl.isContextLost() && this.ground) {
        // The ground receives the sun shadows of the crowds (the clips scene's bodies, or the one crowd), as on WebGPU.
        const bodies = this.clips?.bodies;
        for (let i = 0; i < GL_GROUND_SHADOWS; i++) this.ground.setShadow(i, (bodies ? bodies[i]?.crowd : i === 0 ? crowd : undefined)?.shadowMap);
        this.ground.draw(camera, this.state.grid, activity?.height ?? this.population!.height, following ? this.followed : undefined, selected ? this.selectedAt : undefined, this.ringData, rings);
      }
    } catch (error) {
      if (!this.frameError) {
        console.error('frame failed:', error);
        this.messages.show('error', `Drawing failed: ${(error as Error).message}`);
      }
      this.frameError = true; // reported once, not sixty times a second
    }
    this.overlay.frame(now, performance.now() - started, !crowd.gl.isContextLost(), crowd, this.statsScene);
  }
}
