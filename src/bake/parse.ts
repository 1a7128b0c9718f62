import { GLBLoader } from '@loaders.gl/gltf';
import { check, ModelError } from './errors';
import { isFallbackBuffer } from './decode-meshopt';
import type { Decoders } from './extensions';
import { readContainer, type GltfContainer } from './glb';
import type { EncodedImage, GltfAsset, GltfJson } from './gltf-json';
import { checkGltfJson } from './json-shape';

/**
 * Fetches a resource that a .gltf names by URI (an external .bin or image), already resolved
 * against the file's own location and checked to lie in its folder (see uri.ts). Returns its
 * bytes. A reader that refuses a URL throws ResourceRefused (fatal, for images too); any other
 * failure of an image read leaves the image out with a warning.
 */
export type ResourceReader = (url: string) => Promise<ArrayBuffer>;

/** uri.ts, fetched by parseGltf for a file that names a uri. */
type UriModule = typeof import('./uri');

export interface ParseOptions {
  /** The model's own URL, so relative URIs of external buffers and images resolve (and stay in its folder). */
  baseUrl?: string;
  /** How to read external resources; defaults to `fetch`. Node tools pass a file reader. */
  readResource?: ResourceReader;
  /** Decoders for compressed files (extensions.ts); a file needing one not given is refused naming it. */
  decoders?: Decoders;
}

const defaultReader: ResourceReader = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.arrayBuffer();
};

/**
 * Parses .glb or .gltf bytes into a GltfAsset. First every length of the container is checked
 * against the bytes (glb.ts) and the JSON's shape, version and required extensions
 * (json-shape.ts), so that a damaged file is a ModelError naming the place; then
 * @loaders.gl/gltf parses the container and JSON it has been shown to be sound; then every
 * buffer is read under the project's uri policy (the .glb's BIN chunk, data: URIs, or files in
 * the model's folder, uri.ts). Images are not decoded here: their encoded bytes are kept for the
 * GPU side, which decodes them with the browser's image decoder.
 */
export async function parseGltf(data: ArrayBuffer, options: ParseOptions = {}): Promise<GltfAsset> {
  const read = options.readResource ?? defaultReader;
  const decoders = options.decoders ?? {};
  for (const [name, decoder] of Object.entries(decoders)) {
    if (decoder !== undefined && !decoder?.decodeAsset) {
      throw new TypeError(`decoders.${name} must be crowd-skin's MeshoptDecoder, dracoDecoder(module) or ktx2Decoder(module)`);
    }
  }
  const checked = readContainer(data);
  checkGltfJson(checked.json, decoders);
  const container: GltfContainer = checked.glb ? parseGlb(data) : { json: JSON.parse(new TextDecoder().decode(data)), glb: false };
  const json: unknown = container.json;
  selectTextureSources(json as GltfJson);
  checkGltfJson(json, decoders);
  // The uri policy and the reading of what a uri names (uri.ts, about 1.3 KB of a minified page)
  // are fetched only for a file whose buffers or images name one (a .gltf, or a .glb with data: URIs).
  const uri = hasUris(json) ? await import('./uri') : undefined;
  const buffers: Uint8Array[] = [];
  const declared = json.buffers ?? [];
  for (let i = 0; i < declared.length; i++) {
    // With the decoder, meshopt's uncompressed fallback buffers (gltfpack -cf) are not read.
    const fallback = isFallbackBuffer({ json }, i);
    if (fallback && decoders.meshopt !== undefined) buffers.push(new Uint8Array(0));
    else buffers.push(await readBuffer(json, i, container.glb ? container.bin : undefined, container.glb, options.baseUrl, read, uri).catch((e: Error) => {
      if (fallback) e.message += ' (a meshopt fallback: hand in decoders.meshopt)';
      throw e;
    }));
  }
  const asset: GltfAsset = { json, buffers, images: [] };
  // VRM's reader, the morph target reader and KHR_mesh_quantization's types (about 1.7, 1.3 and
  // 0.5 KB of a minified page) are fetched only for a file that needs them.
  if (hasVrm(json)) asset.vrm = await import('./vrm-humanoid');
  if (hasMorphTargets(json)) asset.morph = await import('./load-morph');
  if (usesQuantization(json)) asset.quantization = await import('./quantization');
  // Each takes the extensions it decoded off extensionsRequired (buildRig checks them again).
  for (const decoder of [decoders.meshopt, decoders.draco]) await decoder?.decodeAsset(asset);
  for (let i = 0; i < (json.images ?? []).length; i++) asset.images.push(await readImage(asset, i, options.baseUrl, read, uri));
  await decoders.ktx2?.decodeAsset(asset); // points textures at their KTX2 images, read above, and transcodes them
  return asset;
}

/** Whether a buffer or an image of the file names a uri (what uri.ts reads). */
function hasUris(json: GltfJson): boolean {
  return [...(json.buffers ?? []), ...(json.images ?? [])].some((item) => item.uri !== undefined);
}

/** Whether the file lists KHR_mesh_quantization in extensionsUsed (what quantization.ts reads). */
export function usesQuantization(json: GltfJson): boolean {
  return (json.extensionsUsed ?? []).includes('KHR_mesh_quantization');
}

/** Whether the file uses VRM's extensions (what vrm-humanoid.ts reads): its humanoid map (1.0 or 0.x) or MToon materials. */
export function hasVrm(json: GltfJson): boolean {
  return json.extensions?.VRMC_vrm !== undefined || json.extensions?.VRM !== undefined
    || (json.materials ?? []).some((m) => m?.extensions?.VRMC_materials_mtoon !== undefined);
}

/** Whether a primitive of the file lists morph targets (what load-morph.ts reads; json-shape.ts has checked the shapes). */
export function hasMorphTargets(json: GltfJson): boolean {
  return (json.meshes ?? []).some((mesh) => mesh.primitives.some((p) => p.targets !== undefined));
}

/**
 * A .glb's JSON and BIN chunk through @loaders.gl/gltf's GLBLoader: the container reader its
 * GLTFLoader runs (parseGLBSync), without the rest of GLTFLoader, which imports Draco, Basis,
 * meshopt, image and 3D-Tiles metadata decoders this loader never runs (buffers and images are
 * read under the uri policy here, and every extension in extensionsRequired is refused), and
 * without @loaders.gl/core's loader selection and worker farm: together about 110 KB of every
 * page. The JSON of a .gltf is its text (glb.ts has checked that it decodes and parses).
 */
function parseGlb(data: ArrayBuffer): GltfContainer {
  let parsed: { json: unknown; binChunks: { arrayBuffer: ArrayBuffer; byteOffset: number; byteLength: number }[] };
  try {
    parsed = GLBLoader.parseSync!(data, {}) as never;
  } catch (e) {
    throw new ModelError(`not a readable glTF file: ${(e as Error).message}`);
  }
  const chunk = parsed.binChunks[0];
  return { json: parsed.json, glb: true, bin: chunk ? new Uint8Array(chunk.arrayBuffer, chunk.byteOffset ?? 0, chunk.byteLength) : undefined };
}

/** Texture extensions that name another image for a texture, the last applied winning. */
const TEXTURE_SOURCE_EXTENSIONS = ['EXT_texture_avif', 'EXT_texture_webp'];

/**
 * Points each texture at the image its texture extension names, as GLTFLoader's extension
 * pass did in Chromium: EXT_texture_webp over EXT_texture_avif over `source`. (GLTFLoader probed
 * the browser for WebP and AVIF, so Safari and Node kept `source` where Chromium switched; the
 * choice is now the same everywhere.) KHR_texture_basisu's KTX2 image is chosen by the KTX2
 * decoder, when one is handed in (decode-ktx2.ts); without it, a file that requires it is refused.
 */
function selectTextureSources(json: GltfJson): void {
  for (const texture of json.textures ?? []) {
    const extensions = (texture as { extensions?: Record<string, { source?: number } | undefined> }).extensions || {};
    for (const name of TEXTURE_SOURCE_EXTENSIONS) {
      const extension = extensions[name];
      if (extension) texture.source = extension.source;
    }
  }
}

/**
 * Buffer `index`: the .glb's BIN chunk (the first buffer, without uri), a data: URI, or a file
 * beside the model (through `uri`, uri.ts, which parseGltf fetched when the file names a uri).
 */
async function readBuffer(json: GltfJson, index: number, bin: Uint8Array | undefined, glb: boolean, baseUrl: string | undefined, read: ResourceReader,
  uri: UriModule | undefined): Promise<Uint8Array> {
  const declared = json.buffers![index];
  const where = `buffer ${index}`;
  let bytes: Uint8Array;
  let source: string;
  if (declared.uri === undefined) {
    check(glb && index === 0, `${where}: has no uri (only the first buffer of a .glb may leave it out, to use the BIN chunk)`);
    check(bin !== undefined,
      `${where}: needs the .glb's BIN chunk (${declared.byteLength} bytes), but the file has none; it may be truncated`);
    bytes = bin;
    source = 'the BIN chunk';
  } else {
    const resolved = uri!.resolveUri(declared.uri, baseUrl, where);
    if (resolved.kind === 'data') {
      bytes = resolved.bytes;
      source = 'its data: uri';
    } else {
      bytes = await uri!.readExternal(resolved.url, where, declared.uri, read);
      source = `'${declared.uri}'`;
    }
  }
  check(bytes.byteLength >= declared.byteLength, `${where}: ${source} has ${bytes.byteLength} bytes, the file declares ${declared.byteLength}`);
  return bytes.subarray(0, declared.byteLength);
}

/**
 * Image `index`'s encoded bytes. An image that cannot be read (a missing file) is undefined: it
 * is drawn untextured with a warning, never fatal. A uri that is not allowed (uri.ts) is an error.
 */
async function readImage(asset: GltfAsset, index: number, baseUrl: string | undefined, read: ResourceReader, uri: UriModule | undefined): Promise<EncodedImage | undefined> {
  const image = asset.json.images![index];
  const where = `image ${index}`;
  if (image.bufferView !== undefined) {
    const view = asset.json.bufferViews?.[image.bufferView];
    check(view !== undefined, `${where}: bufferView ${image.bufferView} does not exist (the file has ${asset.json.bufferViews?.length ?? 0})`);
    const buffer = asset.buffers[view.buffer];
    check(buffer !== undefined, `${where}: buffer ${view.buffer} of bufferView ${image.bufferView} does not exist (the file has ${asset.buffers.length})`);
    const start = view.byteOffset ?? 0;
    check(start + view.byteLength <= buffer.byteLength, `${where}: bufferView ${image.bufferView} lies outside its buffer`);
    return { mimeType: image.mimeType ?? 'image/png', bytes: buffer.subarray(start, start + view.byteLength) };
  }
  if (image.uri === undefined) return undefined;
  const resolved = uri!.resolveUri(image.uri, baseUrl, where);
  if (resolved.kind === 'data') return { mimeType: image.mimeType ?? resolved.mimeType, bytes: resolved.bytes };
  try {
    const bytes = await uri!.readExternal(resolved.url, where, image.uri, read);
    const mimeType = image.mimeType ?? (/\.jpe?g$/i.test(image.uri) ? 'image/jpeg' : 'image/png');
    return { mimeType, bytes };
  } catch (e) {
    if (e instanceof uri!.ResourceRefused) throw e;
    return undefined; // a missing texture is drawn untextured (the loader warns), never fatal
  }
}
