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


/** Decodes any image sharp reads (PNG, JPEG, WebP, AVIF) to RGBA8 texels. */
export async function decodeImage(bytes: Uint8Array): Promise<{ data: Uint8Array; width: number; height: number }> {
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * The model at `path` with every texture image scaled to `side` x `side` PNG (sharp), so that
 * the KTX2 and WebP copies made from it (below) take milliseconds to encode in the tests and
 * compare texel for texel with it.
 */
export function smallTextures(path: string, side: number): Promise<ArrayBuffer> {
  return rewrite(path, async (document) => {
    const { default: sharp } = await import('sharp');
    for (const texture of document.getRoot().listTextures()) {
      texture.setImage(new Uint8Array(await sharp(texture.getImage()!).resize(side, side, { fit: 'fill' }).png().toBuffer())).setMimeType('image/png');
    }
  });
}

/**
 * `gltf-transform uastc` / `etc1s` as ktx2-encoder (npm, Basis Universal's encoder in
 * WebAssembly, MIT) writes them: every texture a KTX2 image with its mip chain, KHR_texture_basisu
 * required. `glb`: a .glb's bytes (smallTextures' output), written to a temporary file first.
 */
export async function ktx2Compressed(glb: ArrayBuffer, mode: 'uastc' | 'etc1s' = 'uastc'): Promise<ArrayBuffer> {
  const { ktx2 } = await import('ktx2-encoder/gltf-transform');
  const document = await (await gltfIo()).readBinary(new Uint8Array(glb));
  document.setLogger(new Logger(Logger.Verbosity.ERROR));
  const log = console.log; // the encoder prints every slice it encodes, whatever enableDebug says
  console.log = () => {};
  try {
    await document.transform(ktx2({ isUASTC: mode === 'uastc', generateMipmap: true, enableDebug: false, imageDecoder: decodeImage } as never));
  } finally {
    console.log = log;
  }
  for (const extension of document.getRoot().listExtensionsUsed()) if (extension.extensionName === 'KHR_texture_basisu') extension.setRequired(true);
  const bytes = await (await gltfIo()).writeBinary(document);
  return bytes.slice().buffer as ArrayBuffer;
}

/**
 * `gltf-transform webp` / `avif` (sharp's encoders; lossless, or at `quality`): every texture a
 * WebP or AVIF image, EXT_texture_webp / EXT_texture_avif required. `glb`: a .glb's bytes.
 */
export async function webpCompressed(glb: ArrayBuffer, quality?: number, format: 'webp' | 'avif' = 'webp'): Promise<ArrayBuffer> {
  const { default: sharp } = await import('sharp');
  const { textureCompress } = await import('@gltf-transform/functions');
  const document = await (await gltfIo()).readBinary(new Uint8Array(glb));
  document.setLogger(new Logger(Logger.Verbosity.ERROR));
  await document.transform(textureCompress({ encoder: sharp, targetFormat: format, ...(quality === undefined ? { lossless: true } : { quality }) }));
  const name = format === 'webp' ? 'EXT_texture_webp' : 'EXT_texture_avif';
  for (const extension of document.getRoot().listExtensionsUsed()) if (extension.extensionName === name) extension.setRequired(true);
  const bytes = await (await gltfIo()).writeBinary(document);
  return bytes.slice().buffer as ArrayBuffer;
}
