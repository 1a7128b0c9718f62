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
export { Crowd, type AnimationState, type CrowdOptions, type InstanceId, type InstanceInit } from './crowd';
export { requiredCrowdLimits } from './gpu/limits';
export { ModelError } from './bake/errors';
export type { InstanceAnimation } from './gpu/instance-records';
export { ROTATION_BLEND } from './anim/pose';
