import { CrowdSteering } from '../../src/index';
import type { AnyCrowd, SceneModel } from '../scene-model';

/** One CrowdSteering per crowd: a feature is made once and stays with its crowd across scenes. */
const steerings = new WeakMap<AnyCrowd, CrowdSteering>();

/** An agent's radius, as a share of the character's height (a person's shoulders). */
export const AGENT_RADIUS_PER_HEIGHT = 0.18;

/** Height of the scene's character, world units (its bind-pose bounds; at least 1e-6). */
export function characterHeight(scene: SceneModel): number {
  const { min, max } = scene.character.bounds;
  return Math.max(max[1] - min[1], 1e-6);
}

/**
 * The CrowdSteering of the scene's crowd, made on the first call. Its options are fixed for its
 * life, so every scene gets the same ones (from the character's height): a scene that uses
 * steering removes its agents and obstacles when it ends (removing its instances removes their
 * agents), so the next one starts with none.
 */
export function steeringOf(scene: SceneModel): CrowdSteering {
  let steering = steerings.get(scene.crowd);
  if (!steering) {
    const radius = AGENT_RADIUS_PER_HEIGHT * characterHeight(scene);
    steering = new CrowdSteering(scene.crowd, { neighbourDistance: 8 * radius, timeHorizon: 2 });
    steerings.set(scene.crowd, steering);
  }
  return steering;
}
