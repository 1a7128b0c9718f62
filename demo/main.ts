/**
 * Entry point of the crowd-skin demo (index.html): reads the state from the URL, opens a
 * WebGPU device, starts the App and loads the first model. Imports the library only through
 * src/index.ts (via the demo modules).
 */
import { App } from './app';
import { createDevice, WebGpuUnavailableError } from './gpu-device';
import { MessageBox, showFatal } from './overlays';
import { readSceneState } from './scene-state';
import { readState } from './url-state';

declare global {
  interface Window {
    /** Hooks for the console and the end-to-end tests. */
    crowdDemo?: {
      loadModel(name: string): Promise<boolean>;
      loadModelUrl(url: string): Promise<boolean>;
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
  const onLost = (message: string) => {
    console.error(message);
    app?.stop();
    showFatal('The GPU device was lost', `${message}. Reload the page to start again.`);
  };

  let gpu;
  try {
    gpu = await createDevice(onGpuError, onLost);
  } catch (error) {
    const hints = error instanceof WebGpuUnavailableError ? error.hints : [];
    console.error(error);
    showFatal('WebGPU is not available', (error as Error).message, hints);
    return;
  }

  app = new App(gpu, canvas, state, sceneState, messages);
  window.crowdDemo = {
    loadModel: (name) => app.loadModel(name),
    loadModelUrl: (url) => app.loadUrl(url),
  };
  app.start();
  // The named model first, so that a bad ?modelUrl= leaves it running, as a bad load later does.
  const modelUrl = state.modelUrl;
  await app.loadModel(state.model, [state.clipA, state.clipB]);
  if (modelUrl) await app.loadUrl(modelUrl);
}

void main();
