import { readFile, realpath } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GltfAsset } from '../src/bake/gltf-json';
import { parseGltf, type ResourceReader } from '../src/bake/parse';
import { ResourceRefused, resolveUri } from '../src/bake/uri';

/** Reads a .glb or .gltf from disk; external buffers and images are read from its folder only. */
export async function readGltfFile(path: string): Promise<GltfAsset> {
  const bytes = await readFile(path);
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parseGltf(data, { baseUrl: pathToFileURL(path).href, readResource: modelFolderReader(path) });
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
