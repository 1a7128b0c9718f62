import { CrowdEvents } from '../../src/features/clip-events/crowd-events';
import { CrowdMorph } from '../../src/features/morph/crowd-morph';
import { CrowdProps } from '../../src/features/props/crowd-props';
import { CrowdRootMotion } from '../../src/features/root-motion/crowd-root-motion';
import type { Crowd } from '../../src/runtime/crowd';

/**
 * `crowd` with every feature its character can take, made in the order the features need (clip
 * events before any controllers): clip events, props, morph targets (a character with some) and
 * root motion (one loaded with rootMotion mode 'apply'). The feature tests use it, as crowds had
 * all of these before features became objects of their own.
 */
export function withFeatures(crowd: Crowd): Crowd {
  new CrowdEvents(crowd);
  new CrowdProps(crowd);
  if (crowd.character.morphTargets.length > 0) new CrowdMorph(crowd);
  if (crowd.character.rootMotion?.mode === 'apply') new CrowdRootMotion(crowd);
  return crowd;
}
