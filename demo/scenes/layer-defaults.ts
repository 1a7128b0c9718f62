import type { Character } from '../../src/index';
import { MODELS, type LayerDefaults } from '../models';

/**
 * The layers scene's clips and mask joints for a model: its MODELS entry where it has one,
 * else a guess from the names (a walk as the base, another clip over the upper third of the
 * skeleton, the same clip added on the middle joint).
 */
export function layerDefaults(model: string, character: Character): LayerDefaults {
  const entry = MODELS[model]?.layers;
  const clips = character.clipNames;
  const joints = jointNames(character);
  if (entry && clips.includes(entry.base) && clips.includes(entry.overlay) && clips.includes(entry.additive)
    && joints.includes(entry.overlayJoint) && joints.includes(entry.additiveJoint)) return entry;
  const base = clips.find((n) => /walk/i.test(n)) ?? clips[0];
  const overlay = clips.find((n) => n !== base) ?? base;
  return {
    base, overlay, additive: overlay,
    overlayJoint: joints[Math.floor(joints.length / 3)] ?? '',
    additiveJoint: joints[Math.floor(joints.length / 2)] ?? '',
  };
}

/** Joints a mask can start from: every joint of the character once, in joint-matrix order. */
export function jointNames(character: Character): readonly string[] {
  return [...new Set(character.jointNames)];
}
