import { CpuPoser, type TwoClipRequest } from '../../src/anim/evaluate';
import { sampleClip } from '../../src/bake/sampler';
import type { Character } from '../../src/character/character';

/**
 * Comparing a compressed model with its original (poses of every clip, as vertex lists or point
 * sets); the compressed files come from tools/compress.ts, re-exported here.
 */
export { decodeImage, draco3dgltf, dracoCompressed, gltfIo, gltfpacked, gltfpackFiles, gltfTransformMeshopt, ktx2Compressed, meshoptCompressed, quantized, rewrite, smallTextures, webpCompressed } from '../../tools/compress';

/** Skinned (and morphed) positions of every primitive of `character` for `request`, exact sampler, 3 per vertex, concatenated. */
export function posedVertices(character: Character, request: TwoClipRequest): Float64Array {
  const rig = character.rig;
  const poser = new CpuPoser(rig, (clip, t, out) => sampleClip(rig, clip, t, out));
  poser.evaluate(request);
  return poser.positions(rig.primitives, rig.morphs.length > 0 ? poser.morphWeights(request) : undefined);
}

/** Length of the diagonal of the rest-pose bounds, model units. */
export function modelSize(character: Character): number {
  const { min, max } = character.bounds;
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** Largest distance between the vec3s of two lists of equal length. */
export function largestGap(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let v = 0; v < a.length; v += 3) worst = Math.max(worst, Math.hypot(a[v] - b[v], a[v + 1] - b[v + 1], a[v + 2] - b[v + 2]));
  return worst;
}

/** posedVertices split by primitive (rig.primitives order). */
function posedPrimitives(character: Character, request: TwoClipRequest): Float64Array[] {
  const all = posedVertices(character, request);
  let o = 0;
  return character.rig.primitives.map((p) => all.subarray(o, (o += p.vertexCount * 3)));
}

/**
 * The largest distance, over every clip of `original` at three times (start, 37 %, 81 % of the
 * clip), between its posed vertices and those of `other` (the same model compressed: the same
 * clips, and primitives with their vertices in the same order, though the primitives may come in
 * another order: gltf-transform moves a quantized mesh of an animated node to a new child node,
 * so each primitive is paired with the closest one of its vertex count at the first pose), in
 * units of the original's size.
 */
export function worstPoseGap(original: Character, other: Character): number {
  if (other.clipNames.join() !== original.clipNames.join()) throw new Error(`clips differ: ${other.clipNames.join()} vs ${original.clipNames.join()}`);
  if (other.rig.primitives.length !== original.rig.primitives.length) throw new Error(`primitive counts differ: ${other.rig.primitives.length} vs ${original.rig.primitives.length}`);
  let worst = 0;
  let pairs: number[] | undefined;
  const clips = original.clipNames.length > 0 ? original.clipNames.map((_, clip) => clip) : [];
  for (const clip of clips) {
    for (const f of [0, 0.37, 0.81]) {
      const request = { clipA: clip, timeA: f * original.clipDurations[clip] };
      const a = posedPrimitives(original, request);
      const b = posedPrimitives(other, request);
      pairs ??= pair(a, b);
      a.forEach((list, p) => { worst = Math.max(worst, largestGap(list, b[pairs![p]])); });
    }
  }
  return worst / modelSize(original);
}

/** For each list of `a`, the closest unpaired list of `b` with as many values. */
function pair(a: Float64Array[], b: Float64Array[]): number[] {
  const used = new Set<number>();
  return a.map((list, p) => {
    let best = -1;
    let bestGap = Infinity;
    b.forEach((other, q) => {
      if (used.has(q) || other.length !== list.length) return;
      const gap = largestGap(list, other);
      if (gap < bestGap) { best = q; bestGap = gap; }
    });
    if (best < 0) throw new Error(`primitive ${p} (${list.length / 3} vertices) has no counterpart`);
    used.add(best);
    return best;
  });
}

/**
 * The largest distance from a posed vertex of either character to the nearest posed vertex of
 * the other (the Hausdorff distance of the two point sets), over every clip of `original` at
 * three times, in units of the original's size: for files whose vertices were merged or
 * reordered (gltfpack, Draco).
 */
export function worstPointSetGap(original: Character, other: Character): number {
  if (other.clipNames.join() !== original.clipNames.join()) throw new Error(`clips differ: ${other.clipNames.join()} vs ${original.clipNames.join()}`);
  let worst = 0;
  original.clipNames.forEach((_, clip) => {
    for (const f of [0, 0.37, 0.81]) {
      const request = { clipA: clip, timeA: f * original.clipDurations[clip] };
      const a = posedVertices(original, request);
      const b = posedVertices(other, request);
      worst = Math.max(worst, directedGap(a, b), directedGap(b, a));
    }
  });
  return worst / modelSize(original);
}

/** Largest distance from a vec3 of `a` to its nearest vec3 of `b` (brute force: a few thousand vertices). */
function directedGap(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) {
    let nearest = Infinity;
    for (let j = 0; j < b.length && nearest > worst * worst; j += 3) {
      const dx = a[i] - b[j], dy = a[i + 1] - b[j + 1], dz = a[i + 2] - b[j + 2];
      nearest = Math.min(nearest, dx * dx + dy * dy + dz * dz);
    }
    worst = Math.max(worst, Math.sqrt(nearest));
  }
  return worst;
}

/** Total area of the triangles of every primitive posed at the start of clip 0, model units squared: a check that compressed indices still make the same surface. */
export function surfaceArea(character: Character): number {
  const rig = character.rig;
  const all = posedVertices(character, { clipA: 0, timeA: 0 });
  let area = 0;
  let o = 0;
  for (const prim of rig.primitives) {
    const indices = prim.indices ?? Uint32Array.from({ length: prim.vertexCount }, (_, i) => i);
    for (let t = 0; t < indices.length; t += 3) {
      const [a, b, c] = [indices[t], indices[t + 1], indices[t + 2]].map((v) => o + v * 3);
      const u = [all[b] - all[a], all[b + 1] - all[a + 1], all[b + 2] - all[a + 2]];
      const w = [all[c] - all[a], all[c + 1] - all[a + 1], all[c + 2] - all[a + 2]];
      area += Math.hypot(u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]) / 2;
    }
    o += prim.vertexCount * 3;
  }
  return area;
}
