import type { Character } from '../../src/character/character';
import { CrowdEvents } from '../../src/features/clip-events/crowd-events';
import { CrowdMorph } from '../../src/features/morph/crowd-morph';
import { CrowdProps } from '../../src/features/props/crowd-props';
import { CrowdRootMotion } from '../../src/features/root-motion/crowd-root-motion';
import { Crowd } from '../../src/runtime/crowd';
import type { CrowdOptions } from '../../src/runtime/crowd-types';

/**
 * A crowd with every feature its character can take (clip events, props, morph targets, root
 * motion), as every crowd was before features became objects of their own, and a joint set per
 * instance (paletteSize Infinity, the default before issue 33, unless `options` say otherwise):
 * the benchmark's rows stay comparable with the runs before those changes (like for like).
 */
export function fullCrowd(device: GPUDevice, character: Character, options: CrowdOptions): Crowd {
  const crowd = new Crowd(device, character, { paletteSize: Infinity, ...options });
  new CrowdEvents(crowd);
  new CrowdProps(crowd);
  if (character.morphTargets.length > 0) new CrowdMorph(crowd);
  if (character.rootMotion?.mode === 'apply') new CrowdRootMotion(crowd);
  return crowd;
}
