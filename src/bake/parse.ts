import { parse } from '@loaders.gl/core';
import { GLTFLoader } from '@loaders.gl/gltf';
import { check, ModelError } from './errors';
import type { EncodedImage, GltfAsset, GltfJson } from './gltf-json';

/**
 * Fetches a resource that a .gltf names by URI (an external .bin or image), already resolved
 * against the file's own location. Returns its bytes.
 */
export type ResourceReader = (url: string) => Promise<ArrayBuffer>;

export interface ParseOptions {
  /** Where the file came from, so relative URIs of external buffers and images resolve. */
  baseUrl?: string;
  /** How to read external resources; defaults to `fetch`. Node tools pass a file reader. */
  readResource?: ResourceReader;
}

const defaultReader: ResourceReader = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new ModelError(`could not fetch ${url}: HTTP ${response.status}`);
  return response.arrayBuffer();
};

/** Decodes a `data:` URI, or returns undefined for any other URI. */
function decodeDataUri(uri: string): { mimeType: string; bytes: Uint8Array } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(uri);
  if (!match) return undefined;
  const bytes = match[2].includes(';base64')
    ? Uint8Array.from(atob(match[3]), (c) => c.charCodeAt(0))
    : new TextEncoder().encode(decodeURIComponent(match[3]));
  return { mimeType: match[1] || 'application/octet-stream', bytes };
}

function resolve(uri: string, baseUrl: string | undefined): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || baseUrl === undefined) return uri;
  const base = baseUrl.endsWith('/') ? baseUrl : baseUrl.replace(/[^/]*$/, '');
  return base + decodeURIComponent(uri);
}

/**
 * Parses .glb or .gltf bytes with @loaders.gl/gltf (GLB container, JSON, embedded and
 * external buffers) into a GltfAsset. Images are not decoded here: their encoded bytes are
 * kept for the GPU side, which decodes them with the browser's image decoder.
 */
export async function parseGltf(data: ArrayBuffer, options: ParseOptions = {}): Promise<GltfAsset> {
  const readResource = options.readResource ?? defaultReader;
  const loaderFetch = async (url: string) => {
    const inline = decodeDataUri(url);
    if (inline) return new Response(inline.bytes as Uint8Array<ArrayBuffer>);
    try {
      return new Response(await readResource(url));
    } catch (e) {
      throw new ModelError(`could not read external resource ${url}: ${(e as Error).message}`);
    }
  };
  let parsed: { json: GltfJson; buffers: { arrayBuffer: ArrayBuffer; byteOffset: number; byteLength: number }[] };
  try {
    parsed = await parse(data, GLTFLoader, {
      worker: false,
      fetch: loaderFetch,
      core: { baseUrl: options.baseUrl },
      gltf: { loadBuffers: true, loadImages: false, decompressMeshes: false, postProcess: false, normalize: false },
    } as never) as never;
  } catch (e) {
    if (e instanceof ModelError) throw e;
    throw new ModelError(`not a readable glTF file: ${(e as Error).message}`);
  }
  const json = parsed.json;
  check(json !== null && typeof json === 'object', 'not a glTF file: no JSON document');
  check(json.asset?.version?.startsWith('2'), `glTF version ${json.asset?.version} is not supported (only 2.x)`);
  const buffers = (json.buffers ?? []).map((declared, i) => {
    const b = parsed.buffers[i];
    check(b?.arrayBuffer !== undefined, `buffer ${i}: could not be loaded`);
    const bytes = new Uint8Array(b.arrayBuffer, b.byteOffset ?? 0, b.byteLength);
    check(bytes.byteLength >= declared.byteLength, `buffer ${i}: has ${bytes.byteLength} bytes, the file declares ${declared.byteLength}`);
    return bytes;
  });
  const asset: GltfAsset = { json, buffers, images: [] };
  asset.images = await Promise.all((json.images ?? []).map((_, i) => readImage(asset, i, options.baseUrl, readResource)));
  return asset;
}

async function readImage(asset: GltfAsset, index: number, baseUrl: string | undefined, read: ResourceReader): Promise<EncodedImage | undefined> {
  const image = asset.json.images![index];
  if (image.bufferView !== undefined) {
    const view = asset.json.bufferViews?.[image.bufferView];
    check(view !== undefined, `image ${index}: bufferView ${image.bufferView} does not exist`);
    const buffer = asset.buffers[view.buffer];
    check(buffer !== undefined, `image ${index}: buffer ${view.buffer} does not exist`);
    const start = view.byteOffset ?? 0;
    check(start + view.byteLength <= buffer.byteLength, `image ${index}: bufferView ${image.bufferView} lies outside its buffer`);
    return { mimeType: image.mimeType ?? 'image/png', bytes: buffer.subarray(start, start + view.byteLength) };
  }
  if (image.uri === undefined) return undefined;
  const inline = decodeDataUri(image.uri);
  if (inline) return { mimeType: image.mimeType ?? inline.mimeType, bytes: inline.bytes };
  try {
    const bytes = new Uint8Array(await read(resolve(image.uri, baseUrl)));
    const mimeType = image.mimeType ?? (/\.jpe?g$/i.test(image.uri) ? 'image/jpeg' : 'image/png');
    return { mimeType, bytes };
  } catch {
    return undefined; // a missing texture is drawn untextured (the loader warns), never fatal
  }
}
