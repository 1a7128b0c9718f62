/**
 * Entry point of the crowd-skin demo (index.html): reads the state from the URL, opens a
 * WebGPU device, starts the App and loads the first model. Imports the library only through
 * src/index.ts (via the demo modules).
 */
import { App } from './app';
import { createDevice, WebGpuUnavailableError, type DemoDevice } from './gpu-device';
import { installDrop } from './drop';

/** Lost devices the page restores from before it asks for a reload. */
const MAX_RESTORES = 3;
import { MessageBox, showFatal } from './overlays';
import { readSceneState, type SceneState } from './scene-state';
import { readState, type DemoState } from './url-state';

declare global {
  interface Window {
    /** Hooks for the console and the end-to-end tests. */
    crowdDemo?: {
      loadModel(name: string): Promise<boolean>;
      loadModelUrl(url: string): Promise<boolean>;
      /** Destroys the GPU device as a driver reset would lose it; the demo restores onto a new one. */
      loseDevice(): void;
      /** The running scene's steering agents (ids, x-z positions and velocities as arrays, the keyboard's id or -1), or null when it steers none. */
      readAgents(): Promise<{ ids: number[]; positions: number[]; velocities: number[]; keyboard: number } | null>;
    };
  }
}

async function main(): Promise<void> {
  const canvas = document.getElementById('canvas') as HTMLCanvasElement;
  const messages = new MessageBox();
  const { state, problems } = readState(location.search);
  const sceneState = readSceneState(location.search, state, problems);
  if (problems.length > 0) messages.show('info', problems.join('. '));

  let app: App | undefined;
  let reported = 0;
  const onGpuError = (message: string) => {
    if (reported++ < 10) console.error(`WebGPU error: ${message}`);
    messages.show('error', `WebGPU error: ${message}`);
  };
  // A lost device (a driver reset, the GPU switched) is replaced by a new one, and the crowd is
  // restored onto it as it was; after MAX_RESTORES the page gives up and asks for a reload.
  let gpu: DemoDevice | undefined;
  let restores = 0;
  let lossRequested = false;
  const onLost = (message: string, reason: GPUDeviceLostReason) => {
    if (reason === 'destroyed' && !lossRequested) return; // the page destroyed it on purpose
    lossRequested = false;
    app?.stop();
    if (!app || ++restores > MAX_RESTORES) {
      console.error(message);
      showFatal('The GPU device was lost', `${message}. Reload the page to start again.`);
      return;
    }
    console.warn(`${message}; restoring the crowd on a new device`);
    messages.show('info', `${message.replace(/\.$/, '')}. Restored on a new device.`);
    createDevice(onGpuError, onLost).then((next) => {
      gpu = next;
      app!.restore(next);
    }, (error: Error) => showFatal('The GPU device was lost', `${message}, and no new one could be made: ${error.message}. Reload the page.`));
  };

  // WebGL 2 where WebGPU is missing (or ?backend=webgl2): the crowd on createCrowd's other backend.
  if (state.backend === 'webgl2') return startWebGL2(canvas, state, sceneState, messages, 'forced by ?backend=webgl2');
  try {
    gpu = await createDevice(onGpuError, onLost);
  } catch (error) {
    const hints = error instanceof WebGpuUnavailableError ? error.hints : [];
    if (error instanceof WebGpuUnavailableError && state.backend === 'auto') {
      console.info(`crowd-skin demo: ${error.message} Running on WebGL 2.`);
      return startWebGL2(canvas, state, sceneState, messages, 'WebGPU is not available here');
    }
    console.error(error);
    showFatal('WebGPU is not available', (error as Error).message, hints);
    return;
  }

  app = new App(gpu, canvas, state, sceneState, messages);
  window.crowdDemo = {
    loadModel: (name) => app.loadModel(name),
    loadModelUrl: (url) => app.loadUrl(url),
    loseDevice: () => {
      lossRequested = true;
      gpu!.device.destroy();
    },
    readAgents: async () => {
      const agents = await app.readAgents();
      return agents && { ids: [...agents.ids], positions: [...agents.positions], velocities: [...agents.velocities], keyboard: agents.keyboard };
    },
  };
  app.start();
  installDrop(document.body, (dropped) => app!.loadDropped(dropped), messages); // a dropped .glb / .gltf becomes the crowd (demo/drop.ts)
  // The named model first, so that a bad ?modelUrl= leaves it running, as a bad load later does.
  const modelUrl = state.modelUrl;
  await app.loadModel(state.model, [state.clipA, state.clipB]);
  if (modelUrl) await app.loadUrl(modelUrl);
}

/** Runs the demo on WebGL 2 (demo/gl-app.ts); `reason` is shown in the stats. */
async function startWebGL2(canvas: HTMLCanvasElement, state: DemoState, sceneState: SceneState, messages: MessageBox, reason: string): Promise<void> {
  // Fetched only here: a page on WebGPU does not load the WebGL 2 demo or backend (a chunk of their own).
  const { GLApp } = await import('./gl-app');
  const app = new GLApp(canvas, state, sceneState, reason, messages);
  window.crowdDemo = {
    loadModel: (name) => app.loadModel(name),
    loadModelUrl: (url) => app.loadUrl(url),
    loseDevice: () => {
      const lose = app.loseContext;
      if (!lose) throw new Error('no WEBGL_lose_context here');
      lose.loseContext();
      setTimeout(() => lose.restoreContext(), 100);
    },
    readAgents: async () => {
      const agents = await app.readAgents();
      return agents ? { ids: [...agents.ids], positions: [...agents.positions], velocities: [...agents.velocities], keyboard: agents.keyboard } : null;
    },
  };
  try {
    if (!await app.loadModel(state.model)) throw new Error(`the model ${state.model} did not load`);
  } catch (error) {
    console.error(error);
    showFatal('The crowd could not start on WebGL 2', (error as Error).message);
    return;
  }
  app.start();
  installDrop(document.body, (dropped) => app.loadDropped(dropped), messages); // as on WebGPU (demo/drop.ts)
  if (state.modelUrl) await app.loadUrl(state.modelUrl);
}

void main();
