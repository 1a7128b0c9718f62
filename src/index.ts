/**
 * crowd-skin: instanced skinned animation for WebGPU.
 *
 *   const character = await loadCharacter('/models/Fox/Fox.glb');
 *   const crowd = new Crowd(device, character, { colorFormat, depthFormat });
 *   crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.3, transform });
 *   // each frame:
 *   crowd.update(dt); crowd.encode(encoder); crowd.draw(renderPass, viewProjection);
 */
export { loadCharacter, type Character, type LoadOptions } from './character';
export {
  Crowd, type AdditiveLayerInit, type AnimationState, type CrowdOptions, type InstanceId, type InstanceInit, type LayerInit, type LayersInit, type MaskId,
} from './crowd';
export { CrowdControllers } from './crowd-controllers';
export { AnimationController, ControllerRuntime } from './anim/control/controller';
export {
  ControllerConfigStore, defaultControllerConfig, parseControllerConfig, serializeControllerConfig, type ControllerConfig,
} from './anim/control/config';
export { BlendSpace1D, BlendSpace2D, createBlendWeights, type BlendWeights } from './anim/blend-space';
export { weightedAverageStack } from './anim/layers';
export type { MaskSpec } from './anim/masks';
export { requiredCrowdLimits } from './gpu/limits';
export { ModelError } from './bake/errors';
export type { InstanceAnimation } from './gpu/instance-records';
export { ROTATION_BLEND } from './math/quat';
