import { Logger, NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshoptCompression, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import { quantize, unpartition } from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CpuPoser, type TwoClipRequest } from '../../src/anim/evaluate';
import { sampleClip } from '../../src/bake/sampler';
import type { Character } from '../../src/character/character';

/**
 * Compressed copies of a model made in the test, with gltf-transform as web teams run it:
 * `quantized` is `gltf-transform quantize` with its defaults (KHR_mesh_quantization: positions
 * 14 bits, normals 10, UVs 12, weights 8; the dequantization in node transforms or inverse bind
 * matrices). Returned as .glb bytes in an ArrayBuffer of their own.
 */

let io: Promise<NodeIO> | undefined;
let draco: Promise<{ createEncoderModule(): Promise<object>; createDecoderModule(): Promise<object> }> | undefined;

/** The npm package draco3dgltf (Google's Draco for glTF, Node builds; untyped, so imported by name). */
export function draco3dgltf(): Promise<{ createEncoderModule(): Promise<object>; createDecoderModule(): Promise<object> }> {
  const name = 'draco3dgltf';
  draco ??= import(name).then((m: { default: never }) => m.default);
  return draco;
}

/** gltf-transform's Node reader and writer with every extension, meshoptimizer's codecs and Draco's. */
export function gltfIo(): Promise<NodeIO> {
  io ??= (async () => {
    const dracoModules = await draco3dgltf();
    const [encoder, decoder] = await Promise.all([dracoModules.createEncoderModule(), dracoModules.createDecoderModule(), MeshoptDecoder.ready, MeshoptEncoder.ready]);
    return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({
      'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder, 'draco3d.encoder': encoder, 'draco3d.decoder': decoder,
    });
  })();
  return io;
}

/** The .glb or .gltf at `path`, through `transform`, written as a .glb. */
export async function rewrite(path: string, transform: (document: Document) => Promise<void>): Promise<ArrayBuffer> {
  const nodeIo = await gltfIo();
  const document = await nodeIo.read(path);
  document.setLogger(new Logger(Logger.Verbosity.ERROR));
  await transform(document);
  await document.transform(unpartition()); // a .glb holds one buffer
  const bytes = await nodeIo.writeBinary(document);
  return bytes.slice().buffer as ArrayBuffer;
}

/** `gltf-transform quantize` with its defaults. */
export function quantized(path: string): Promise<ArrayBuffer> {
  return rewrite(path, async (document) => { await document.transform(quantize()); });
}

/**
 * `gltf-transform quantize`, then EXT_meshopt_compression (required) on every buffer: what
 * `gltf-transform meshopt` writes, without its vertex reordering, so vertices stay comparable
 * one by one with the original's.
 */
export function meshoptCompressed(path: string): Promise<ArrayBuffer> {
  return rewrite(path, async (document) => {
    await document.transform(quantize());
    document.createExtension(EXTMeshoptCompression).setRequired(true).setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.QUANTIZE });
  });
}

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

/** `gltf-transform draco` as its defaults write it: KHR_draco_mesh_compression (required), edgebreaker. */
export function dracoCompressed(path: string): Promise<ArrayBuffer> {
  return rewrite(path, async (document) => {
    document.createExtension(KHRDracoMeshCompression).setRequired(true);
  });
}

/**
 * `gltfpack -i <path> -o <output> <args>` (the npm package's WebAssembly build, in memory): every
 * file it writes, by name. Its defaults quantize (KHR_mesh_quantization, integer positions) and
 * merge and reorder meshes; `-c`/`-cc` add EXT_meshopt_compression, `-cz` KHR_meshopt_compression,
 * `-cf` an uncompressed fallback buffer (a file of its own beside a .gltf).
 */
export async function gltfpackFiles(path: string, args: readonly string[] = [], output = 'out.glb'): Promise<Map<string, Uint8Array>> {
  const gltfpack = 'gltfpack'; // untyped package: imported by name, typed here
  const { pack } = await import(gltfpack) as { pack: (args: string[], iface: { read(path: string): Uint8Array; write(path: string, data: Uint8Array): void }) => Promise<string> };
  const files = new Map<string, Uint8Array>();
  const input = path.endsWith('.gltf') ? 'in.gltf' : 'in.glb';
  await pack(['-i', input, '-o', output, ...args], {
    read: (name) => (name === input ? new Uint8Array(readFileSync(path)) : new Uint8Array(readFileSync(join(dirname(path), name)))),
    write: (name, data) => { files.set(name, data.slice()); },
  });
  if (!files.has(output)) throw new Error(`gltfpack wrote no ${output} (${[...files.keys()].join(', ')})`);
  return files;
}

/** The .glb `gltfpack -i <path> -o out.glb <args>` writes (gltfpackFiles). */
export async function gltfpacked(path: string, args: readonly string[] = []): Promise<ArrayBuffer> {
  return (await gltfpackFiles(path, args)).get('out.glb')!.slice().buffer as ArrayBuffer;
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
