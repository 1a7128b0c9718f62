/**
 * LoadOptions.lod and its check, which loadCharacter runs before it downloads anything. Apart
 * from mesh-lod.ts, which makes the levels and which loadCharacter imports only when a
 * simplifier is handed in: a page without mesh LOD ships neither the simplifier nor that code.
 */

// Types only: the simplifier's code (about 54 KB minified, mostly WebAssembly) reaches a page
// only when the page passes it in (LoadOptions.lod.simplifier), so a page without mesh LOD ships none.
import type { MeshoptSimplifier } from 'meshoptimizer/simplifier';

/**
 * What meshLods uses of meshoptimizer's simplifier: pass `MeshoptSimplifier`, exported by
 * crowd-skin (the same object as meshoptimizer/simplifier's; `ready` is awaited before use).
 */
export type MeshSimplifier = Pick<typeof MeshoptSimplifier, 'ready' | 'simplify' | 'getScale' | 'generatePositionRemap'>;

/**
 * Mesh LOD levels for loadCharacter to make (LoadOptions.lod): the simplifier that makes them,
 * how many, and how coarse each is. Handed in, as three.js's GLTFLoader takes a decoder
 * (`setMeshoptDecoder`), so that a page without mesh LOD does not ship the simplifier.
 */
export interface MeshLodOptions {
  /** meshoptimizer's simplifier: `MeshoptSimplifier`, imported from crowd-skin. */
  simplifier: MeshSimplifier;
  /** Levels including the full mesh, 2..4 (default 4). */
  levels?: number;
  /** Fraction of the previous level's triangles each level aims at, in (0, 1) (default 0.5). */
  ratio?: number;
}

/** How to ask for mesh LOD now, for the refusals below. */
const HOW = "pass meshoptimizer's simplifier: `import { MeshoptSimplifier } from 'crowd-skin'`, then `loadCharacter(url, { lod: { simplifier: MeshoptSimplifier } })` (docs/culling-lod-shadows.md)";

/**
 * LoadOptions.lod, checked before anything is downloaded: undefined or false (no mesh LOD, the
 * default) gives undefined; `{ simplifier, levels?, ratio? }` is returned as given. `true`, the
 * spelling from before mesh LOD became opt-in, is refused with the call that replaces it.
 */
export function checkMeshLodOptions(lod: unknown): MeshLodOptions | undefined {
  if (lod === undefined || lod === false) return undefined;
  if (lod === true) throw new TypeError(`lod: true no longer makes mesh LOD levels (the simplifier is no longer shipped by default); ${HOW}`);
  if (typeof lod !== 'object' || lod === null) throw new TypeError(`lod must be false or { simplifier, levels?, ratio? }, got ${JSON.stringify(lod)}; ${HOW}`);
  const { simplifier, levels, ratio } = lod as Partial<MeshLodOptions>;
  if (typeof simplifier?.simplify !== 'function' || typeof simplifier.generatePositionRemap !== 'function' || typeof simplifier.getScale !== 'function') {
    throw new TypeError(`lod.simplifier must be meshoptimizer's MeshoptSimplifier, got ${simplifier === undefined ? 'undefined' : `an ${typeof simplifier}`.replace(/^an ([^aeiou])/, 'a $1')} without simplify, getScale and generatePositionRemap; ${HOW}`);
  }
  if (levels !== undefined && (!Number.isInteger(levels) || levels < 2 || levels > 4)) throw new RangeError(`lod.levels must be an integer in [2, 4], got ${levels}`);
  if (ratio !== undefined && !(ratio > 0 && ratio < 1)) throw new RangeError(`lod.ratio must be in (0, 1), got ${ratio}`);
  return lod as MeshLodOptions;
}
