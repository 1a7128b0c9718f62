import { Logger, NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshoptCompression, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import { meshopt, quantize, unpartition } from '@gltf-transform/functions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Compressed copies of a model, made as web teams make them (for the tests, test/helpers/compress.ts,
 * and the load-time bench, tools/bench/load-formats.ts), with gltf-transform and gltfpack (dev dependencies):
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

/** `gltf-transform meshopt` itself (vertices reordered for size, then quantized; EXT_meshopt_compression required). */
export function gltfTransformMeshopt(path: string): Promise<ArrayBuffer> {
  return rewrite(path, async (document) => { await document.transform(meshopt({ encoder: MeshoptEncoder })); });
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

