import { readFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { parseGltf, type ResourceReader } from '../src/bake/parse';
import type { GltfAsset } from '../src/bake/gltf-json';

/** Reads a whole file as an ArrayBuffer of its own (not a view into Node's buffer pool). */
async function readArrayBuffer(path: string): Promise<ArrayBuffer> {
  const bytes = await readFile(path);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Where a .gltf's relative URIs resolve (the file's URL) and how they are read (from disk). */
export function fileResources(path: string): { baseUrl: string; readResource: ResourceReader } {
  return {
    baseUrl: pathToFileURL(path).href,
    readResource: (url) => readArrayBuffer(url.startsWith('file:') ? fileURLToPath(url) : url),
  };
}

/** Reads a .glb or .gltf from disk: its bytes, and the resources for loadCharacter or parseGltf. */
export async function readModelFile(path: string): Promise<{ data: ArrayBuffer } & ReturnType<typeof fileResources>> {
  return { data: await readArrayBuffer(path), ...fileResources(path) };
}

/** Reads a .glb or .gltf from disk; external buffers and images are read next to it. */
export async function readGltfFile(path: string): Promise<GltfAsset> {
  const { data, ...resources } = await readModelFile(path);
  return parseGltf(data, resources);
}
