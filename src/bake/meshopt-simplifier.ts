import { MeshoptSimplifier as simplifier } from 'meshoptimizer/simplifier';
import type { MeshSimplifier } from './mesh-lod-options';

/**
 * meshoptimizer's simplifier (meshoptimizer/simplifier), for `loadCharacter(url, { lod: {
 * simplifier: MeshoptSimplifier } })`: mesh LOD levels (docs/culling-lod-shadows.md). About 54 KB
 * of a minified page (mostly WebAssembly), shipped only by pages that import it: this module is
 * free of side effects (package.json "sideEffects": false), so a bundler drops it, and the
 * simplifier with it, where nothing uses it.
 */
export const MeshoptSimplifier: MeshSimplifier = simplifier;
