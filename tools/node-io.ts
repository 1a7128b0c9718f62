import { readFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { parseGltf } from '../src/bake/parse';
import type { GltfAsset } from '../src/bake/gltf-json';

/** Reads a .glb or .gltf from disk; external buffers and images are read next to it. */
export async function readGltfFile(path: string): Promise<GltfAsset> {
  const bytes = await readFile(path);
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parseGltf(data, {
    baseUrl: pathToFileURL(path).href,
    readResource: async (url) => {
      const file = await readFile(url.startsWith('file:') ? fileURLToPath(url) : url);
      return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
    },
  });
}
