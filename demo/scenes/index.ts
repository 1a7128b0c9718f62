import type { Keyboard } from '../keyboard';
import type { Scene } from '../scene';
import type { SceneModel } from '../scene-model';
import type { SceneKind, SceneState } from '../scene-state';
import type { DemoState } from '../url-state';
import type { WeightPlot } from '../weight-plot';
import type { SceneActivity } from './activity';
import { CrowdActivity } from './crowd-scene';
import { LayersActivity } from './layers-scene';
import { LocomotionActivity } from './locomotion-scene';
import { StadiumActivity } from './stadium-scene';
import { SteeringActivity } from './steering-scene';

export type { SceneActivity } from './activity';
export { LayersActivity, LocomotionActivity, StadiumActivity };

/** What the scenes get from the App: its state objects and page-long helpers. */
export interface ActivityContext {
  state: DemoState;
  sceneState: SceneState;
  keyboard: Keyboard;
  plot: WeightPlot;
  /** Shows a sentence to the user (a setting the model cannot take, a config problem). */
  notify(message: string): void;
}

/** The scenes that run on a crowd of either backend (SceneModel); the crowd and clips scenes place a WebGPU Scene's populations. */
export type ModelSceneKind = 'layers' | 'locomotion' | 'steering' | 'stadium';

/** Whether scene `kind` runs on a SceneModel of either backend (createModelActivity). */
export function isModelScene(kind: SceneKind): kind is ModelSceneKind {
  return kind === 'layers' || kind === 'locomotion' || kind === 'steering' || kind === 'stadium';
}

/** Starts scene `kind` on a loaded model (with no instances yet: setCount adds them). */
export function createActivity(kind: SceneKind, scene: Scene, context: ActivityContext): SceneActivity {
  if (isModelScene(kind)) return createModelActivity(kind, scene, context);
  return kind === 'clips' ? new CrowdActivity(scene, context.state, 'clips') : new CrowdActivity(scene, context.state);
}

/** Starts the layers, locomotion, steering or stadium scene on a model of either backend (the WebGL 2 demo's way in: demo/gl-app.ts). */
export function createModelActivity(kind: ModelSceneKind, scene: SceneModel, context: ActivityContext): SceneActivity {
  switch (kind) {
    case 'layers':
      return new LayersActivity(scene, context.sceneState, context.notify);
    case 'locomotion':
      return new LocomotionActivity(scene, context.keyboard, context.plot, context.notify);
    case 'steering':
      return new SteeringActivity(scene);
    case 'stadium':
      return new StadiumActivity(scene, context.sceneState, context.notify);
  }
}
