import type { Character } from './character';

/** A feature a crowd of this character needs (or should have), and how to make it. */
export interface FeatureNeed {
  /** The feature's registry name (CrowdFeature.featureName). */
  readonly name: string;
  /** The line that makes it. */
  readonly make: string;
  /** Why, in words. */
  readonly why: string;
  /** Whether the crowd refuses to run without it (else it warns once). */
  readonly required: boolean;
}

/**
 * The features a character asks of its crowd: root motion when it was loaded with rootMotion
 * mode 'apply' (the user asked for its clips to move it: a crowd without it refuses to update),
 * morph targets when it has some (without the feature they stay at rest: the crowd warns once).
 */
export function featureNeeds(character: Character): FeatureNeed[] {
  const needs: FeatureNeed[] = [];
  if (character.rootMotion?.mode === 'apply') {
    needs.push({ name: 'root-motion', make: 'new CrowdRootMotion(crowd)', why: "it was loaded with rootMotion mode 'apply'", required: true });
  }
  if (character.morphTargets.length > 0) {
    needs.push({ name: 'morph', make: 'new CrowdMorph(crowd)', why: `its clips animate ${character.morphTargets.length} morph targets`, required: false });
  }
  return needs;
}
