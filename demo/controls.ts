import GUI, { type Controller, type OptionController } from 'lil-gui';
import { addLightFolder } from './lights';
import { MODEL_NAMES } from './models';
import { SCENE_KINDS, type SceneState } from './scene-state';
import { MAX_INSTANCES, SKINNING_METHODS, type DemoState } from './url-state';

/** Keys of DemoState and SceneState that the panel edits; the App reacts to each. */
export type StateKey = 'model' | 'instances' | 'mode' | 'clipA' | 'clipB' | 'blend' | 'speed' | 'paused' | 'randomPhases' | 'variety' | 'grid'
  | 'scene' | 'layerClip' | 'layerJoint' | 'layerWeight' | 'additiveWeight' | 'culling' | 'lod' | 'animationLod' | 'shadows' | 'impostors'
  | 'skinning' | 'appearance' | 'lights' | 'clipsBody' | 'clipSet' | 'legSolve' | 'flags';

/** Settings of the view that are not part of the URL. */
export interface ViewSettings {
  /** Locomotion scene: the camera follows the selected character. */
  follow: boolean;
}

export interface ControlActions {
  /** A state field was changed by the user (the new value is already in the state). */
  changed(key: StateKey): void;
  resetCamera(): void;
  /** Load a .glb/.gltf from a URL (the "Other model" folder). */
  loadUrl(url: string): void;
  /** Locomotion scene: hand the keyboard to the next character. */
  nextCharacter(): void;
}

const PRESETS = [1_000, 10_000, 100_000, 1_000_000];

/**
 * The lil-gui panel. It edits the App's DemoState and SceneState objects in place and reports
 * each change; setClips() refills the clip and joint menus when a model loads, sync() redraws
 * after the App changed the state itself and shows the controls of the current scene only.
 */
export class Controls {
  private readonly gui = new GUI({ title: 'crowd-skin' });
  private readonly clipA: OptionController;
  private readonly clipB: OptionController;
  private readonly blend: Controller;
  private readonly randomPhases: Controller;
  private readonly variety: Controller;
  private readonly crowdOnly: (Controller | GUI)[];
  private readonly presets: GUI;
  private readonly layers: GUI;
  private readonly layerClip: OptionController;
  private readonly layerJoint: OptionController;
  private readonly locomotion: GUI;
  /** The stadium scene's settings: the flags (one spectator in five waves one). */
  private readonly stadium: GUI;
  /** The clips scene's pickers (body, clip set, leg solve) and the binding found, or the refusal. */
  private readonly clipsFolder: GUI;
  private readonly clipsBody: OptionController;
  private readonly clipSet: OptionController;
  private readonly clipsReport = document.createElement('div');
  private readonly url = { address: '' };

  constructor(private readonly state: DemoState, private readonly sceneState: SceneState, view: ViewSettings, actions: ControlActions) {
    const gui = this.gui;
    const on = (controller: Controller, key: StateKey) => controller.onChange(() => actions.changed(key));
    on(gui.add(sceneState, 'scene', [...SCENE_KINDS]), 'scene');
    on(gui.add(state, 'model', MODEL_NAMES), 'model');
    on(gui.add(state, 'instances', 1, MAX_INSTANCES, 1), 'instances');
    const presets = gui.addFolder('Instance presets');
    for (const count of PRESETS) {
      const name = count >= 1_000_000 ? `${count / 1_000_000}M` : `${count / 1000}k`;
      const preset = { [name]: () => { state.instances = count; this.sync(); actions.changed('instances'); } };
      presets.add(preset, name);
    }
    presets.domElement.classList.add('presets');
    const mode = on(gui.add(state, 'mode', ['crowd', 'uniform']), 'mode').name('mode');
    this.clipA = on(gui.add(state, 'clipA', [state.clipA]), 'clipA').name('clip A') as OptionController;
    this.clipB = on(gui.add(state, 'clipB', [state.clipB]), 'clipB').name('clip B') as OptionController;
    this.blend = on(gui.add(state, 'blend', 0, 1, 0.01), 'blend').name('blend A→B');
    this.randomPhases = on(gui.add(state, 'randomPhases'), 'randomPhases').name('random phases');
    this.variety = on(gui.add(state, 'variety', 0, 1, 0.01), 'variety').name('other clips');
    const appearance = on(gui.add(state, 'appearance'), 'appearance').name('appearance');
    this.presets = presets;
    this.crowdOnly = [mode, this.clipA, this.clipB, this.blend, this.randomPhases, this.variety, appearance];

    this.layers = gui.addFolder('Layers');
    this.layerClip = on(this.layers.add(sceneState, 'layerClip', [sceneState.layerClip]), 'layerClip').name('override clip') as OptionController;
    this.layerJoint = on(this.layers.add(sceneState, 'layerJoint', [sceneState.layerJoint]), 'layerJoint').name('mask root joint') as OptionController;
    on(this.layers.add(sceneState, 'layerWeight', 0, 1, 0.01), 'layerWeight').name('override weight');
    on(this.layers.add(sceneState, 'additiveWeight', 0, 1, 0.01), 'additiveWeight').name('additive weight');

    this.clipsFolder = gui.addFolder('Clips');
    this.clipsBody = on(this.clipsFolder.add(sceneState, 'clipsBody', [sceneState.clipsBody]), 'clipsBody').name('body') as OptionController;
    this.clipSet = on(this.clipsFolder.add(sceneState, 'clipSet', [sceneState.clipSet]), 'clipSet').name('clip set') as OptionController;
    on(this.clipsFolder.add(sceneState, 'legSolve'), 'legSolve').name('leg solve');
    this.clipsReport.className = 'clips-report';
    this.clipsReport.style.cssText = 'padding: 4px 8px; white-space: pre-wrap; font-size: 11px; line-height: 1.35';
    this.clipsFolder.$children.appendChild(this.clipsReport);

    this.locomotion = gui.addFolder('Locomotion');
    this.locomotion.add(view, 'follow').name('camera follows');
    this.locomotion.add({ 'next character': () => actions.nextCharacter() }, 'next character');

    this.stadium = gui.addFolder('Stadium');
    on(this.stadium.add(sceneState, 'flags'), 'flags').name('flags (1 in 5)');

    on(gui.add(state, 'speed', 0, 4, 0.01), 'speed').name('playback speed');
    on(gui.add(state, 'paused'), 'paused').name('pause');
    on(gui.add(state, 'grid'), 'grid').name('ground grid');
    const gpu = gui.addFolder('GPU culling and LOD');
    on(gpu.add(state, 'culling'), 'culling').name('frustum culling');
    on(gpu.add(state, 'lod'), 'lod').name('mesh LOD');
    on(gpu.add(state, 'animationLod'), 'animationLod').name('animation LOD');
    on(gpu.add(state, 'shadows'), 'shadows').name('shadows');
    on(gpu.add(state, 'impostors'), 'impostors').name('far crowd as impostors');
    on(gui.add(state, 'skinning', [...SKINNING_METHODS]), 'skinning').name('skinning');
    addLightFolder(gui, state.lights, () => actions.changed('lights'));
    gui.add({ 'reset camera': () => actions.resetCamera() }, 'reset camera');
    const other = gui.addFolder('Other model').close();
    other.add(this.url, 'address').name('.glb URL');
    other.add({ load: () => this.url.address && actions.loadUrl(this.url.address) }, 'load');
    this.sync();
  }

  /** Refills the clip menus (and the layers scene's joint menu) with the loaded model's. */
  setClips(names: readonly string[], joints: readonly string[]): void {
    this.clipA.options([...names]);
    this.clipB.options([...names]);
    this.layerClip.options([...names]);
    this.layerJoint.options([...joints]);
    this.sync();
  }

  /** Refills the clips scene's body and clip-set pickers (ClipsPicks: the built-in ones and those dropped). */
  setClipsPicks(bodies: readonly string[], sets: readonly string[]): void {
    this.clipsBody.options([...bodies]);
    this.clipSet.options([...sets]);
    this.sync();
  }

  /** The clips scene's report under its pickers: how the clip set bound to each body, or why it was refused. */
  setClipsReport(text: string): void {
    this.clipsReport.textContent = text;
  }

  /** Greys out the control of `key` for good, its name saying `why` (the GL demo's impostors switch: "needs WebGPU"). */
  unavailable(key: StateKey, why: string): void {
    for (const controller of this.gui.controllersRecursive()) {
      if (controller.property === key) controller.disable().name(`${controller._name} (${why})`);
    }
  }

  /** Shows the state's current values and the controls that apply to the scene and mode. */
  sync(): void {
    const scene = this.sceneState.scene;
    const uniform = this.state.mode === 'uniform';
    for (const c of this.crowdOnly) c.show(scene === 'crowd' || scene === 'clips');
    this.presets.show(scene === 'crowd' || scene === 'clips' || scene === 'stadium');
    this.layers.show(scene === 'layers');
    this.locomotion.show(scene === 'locomotion');
    this.clipsFolder.show(scene === 'clips');
    this.stadium.show(scene === 'stadium');
    this.blend.enable(uniform);
    this.randomPhases.enable(uniform);
    this.variety.enable(!uniform);
    for (const controller of this.gui.controllersRecursive()) controller.updateDisplay();
  }
}
