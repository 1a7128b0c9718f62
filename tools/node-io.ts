import { readFile, realpath } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Decoders } from '../src/bake/extensions';
import type { GltfAsset } from '../src/bake/gltf-json';
import { parseGltf, type ResourceReader } from '../src/bake/parse';
import { ResourceRefused, resolveUri } from '../src/bake/uri';
import { nodeDecoders } from './node-decoders';

/** Reads a whole file as an ArrayBuffer of its own (not a view into Node's buffer pool). */
async function readArrayBuffer(path: string): Promise<ArrayBuffer> {
  const bytes = await readFile(path);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Where a .gltf's relative URIs resolve (the file's URL) and how they are read (from disk, its own folder only). */
export function fileResources(path: string): { baseUrl: string; readResource: ResourceReader } {
  return {
    baseUrl: pathToFileURL(path).href,
    readResource: modelFolderReader(path),
  };
}

/**
 * Reads a .glb or .gltf from disk: its bytes, and the resources for loadCharacter or parseGltf,
 * with the decoders its compression needs (node-decoders.ts).
 */
export async function readModelFile(path: string): Promise<{ data: ArrayBuffer; decoders: Decoders } & ReturnType<typeof fileResources>> {
  const data = await readArrayBuffer(path);
  return { data, ...fileResources(path), decoders: await nodeDecoders(data) };
}

/** Reads a .glb or .gltf from disk; external buffers and images are read next to it. */
export async function readGltfFile(path: string): Promise<GltfAsset> {
  const { data, ...resources } = await readModelFile(path);
  return parseGltf(data, resources);
}

/**
 * A ResourceReader for the model at `modelPath` that reads file: URLs inside the model's folder
 * and nothing else. parseGltf has already refused URIs that leave the folder (src/bake/uri.ts);
 * this checks again on disk, after following symbolic links, so a link inside the folder that
 * points outside it is refused too.
 */
export function modelFolderReader(modelPath: string): ResourceReader {
  let folder: Promise<string> | undefined;
  return async (url) => {
    if (!url.startsWith('file:')) throw new ResourceRefused(`${url} is not a file beside the model; refused`);
    const path = fileURLToPath(url);
    folder ??= realpath(dirname(modelPath));
    const [real, root] = await Promise.all([realpath(path), folder]);
    if (!real.startsWith(root + sep)) throw new ResourceRefused(`it leads outside the model's folder, to ${real}; refused`);
    const file = await readFile(real);
    return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
  };
}

/** Bytes of a buffer or image `uri` of the model at `modelPath` (same rules as readGltfFile); `where` names it. */
export async function readModelResource(modelPath: string, uri: string, where: string): Promise<Uint8Array> {
  const resolved = resolveUri(uri, pathToFileURL(modelPath).href, where);
  if (resolved.kind === 'data') return resolved.bytes;
  return new Uint8Array(await modelFolderReader(modelPath)(resolved.url));
}
