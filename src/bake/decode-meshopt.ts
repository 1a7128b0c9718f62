import { check, describeValue, ModelError } from './errors';
import type { GltfAsset, GltfBufferView } from './gltf-json';

/**
 * EXT_meshopt_compression and KHR_meshopt_compression (gltfpack -c/-cc, gltf-transform meshopt
 * and optimize): a bufferView's bytes are stored compressed by meshoptimizer's codecs in the
 * extension's own buffer range, and decoded here, once, by meshoptimizer's decoder, when the page
 * hands in crowd-skin's MeshoptDecoder (meshopt-decoder.ts, which alone imports this module).
 * Each decoded view gets a buffer of its own and loses the extension, so accessors read it as any
 * other view. The view's own `buffer` range is the uncompressed fallback (gltfpack -cf), read
 * where no decoder is handed in (parse.ts).
 */

/** meshoptimizer's decoder (meshoptimizer/decoder): the members called here. */
export interface MeshoptDecoderLike {
  /** Resolves once its WebAssembly is compiled. */
  ready: Promise<void>;
  /** False where the platform has no WebAssembly. */
  supported: boolean;
  /** Decodes `source` into `target`, `count` elements of `size` bytes; throws on malformed data. */
  decodeGltfBuffer(target: Uint8Array, count: number, size: number, source: Uint8Array, mode: string, filter?: string): void;
}

const EXTENSIONS = ['EXT_meshopt_compression', 'KHR_meshopt_compression'] as const;
const MODES = ['ATTRIBUTES', 'TRIANGLES', 'INDICES'];
const FILTERS = ['NONE', 'OCTAHEDRAL', 'QUATERNION', 'EXPONENTIAL', 'COLOR'];

/**
 * Most bytes the decoded views of one file may hold: 256 MiB. A damaged `count` could otherwise
 * ask for gigabytes before the decoder finds the data short.
 */
export const MAX_DECODED_BYTES = 1 << 28;

/** A bufferView's meshopt extension, with the extension's name; undefined for a plain view. */
interface MeshoptView {
  name: (typeof EXTENSIONS)[number];
  buffer: number;
  byteOffset?: number;
  byteLength: number;
  byteStride: number;
  count: number;
  mode: string;
  filter?: string;
}

type Extended = { extensions?: Record<string, unknown> };

function meshoptOf(view: GltfBufferView): MeshoptView | undefined {
  const extensions = (view as Extended).extensions;
  for (const name of EXTENSIONS) {
    const ext = extensions?.[name];
    if (ext !== undefined) return { ...(ext as Omit<MeshoptView, 'name'>), name };
  }
  return undefined;
}

/** True when buffer `index` is a meshopt fallback buffer (`extensions.<meshopt>.fallback`): its bytes are needed only without a decoder. */
export function isFallbackBuffer(asset: Pick<GltfAsset, 'json'>, index: number): boolean {
  const extensions = (asset.json.buffers?.[index] as Extended | undefined)?.extensions;
  return EXTENSIONS.some((name) => (extensions?.[name] as { fallback?: unknown } | undefined)?.fallback === true);
}

const isIndex = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * Decodes every meshopt-compressed bufferView of `asset` with `decoder`, in place (see above).
 * Every field is checked before anything is allocated, and a decoder that refuses the data
 * (truncated or damaged) is a ModelError naming the view.
 */
export async function decodeMeshopt(asset: GltfAsset, decoder: MeshoptDecoderLike): Promise<void> {
  const views = asset.json.bufferViews ?? [];
  dropRequired(asset, EXTENSIONS);
  if (!views.some((view) => meshoptOf(view) !== undefined)) return;
  check(decoder.supported, "meshoptimizer's decoder needs WebAssembly, which this platform does not have");
  await decoder.ready;
  let total = 0;
  for (let i = 0; i < views.length; i++) {
    const ext = meshoptOf(views[i]);
    if (!ext) continue;
    const where = `bufferView ${i}: ${ext.name}`;
    for (const field of ['buffer', 'byteLength', 'byteStride', 'count'] as const) {
      check(isIndex(ext[field]), `${where}: ${field} must be a non-negative integer, but it is ${describeValue(ext[field])}`);
    }
    check(ext.byteOffset === undefined || isIndex(ext.byteOffset), `${where}: byteOffset must be a non-negative integer`);
    check(MODES.includes(ext.mode), `${where}: mode must be one of ${MODES.join(', ')}, but it is ${describeValue(ext.mode)}`);
    const filter = ext.filter ?? 'NONE';
    check(FILTERS.includes(filter) && (filter !== 'COLOR' || ext.name === 'KHR_meshopt_compression'),
      `${where}: filter ${describeValue(filter)} is not one this extension defines`);
    const stride = ext.byteStride;
    check(ext.mode === 'ATTRIBUTES' ? stride > 0 && stride <= 256 && stride % 4 === 0 : stride === 2 || stride === 4,
      `${where}: byteStride ${stride} is not allowed for mode ${ext.mode} (ATTRIBUTES: a multiple of 4 up to 256; TRIANGLES and INDICES: 2 or 4)`);
    check(ext.mode !== 'TRIANGLES' || ext.count % 3 === 0, `${where}: count ${ext.count} of mode TRIANGLES is not a multiple of 3`);
    const source = asset.buffers[ext.buffer];
    check(source !== undefined, `${where}: buffer ${ext.buffer} does not exist (the file has ${asset.buffers.length})`);
    const start = ext.byteOffset ?? 0;
    check(start + ext.byteLength <= source.byteLength,
      `${where}: bytes ${start}..${start + ext.byteLength} lie outside buffer ${ext.buffer} (${source.byteLength} bytes); the file may be truncated`);
    const bytes = ext.count * stride;
    const view = views[i];
    check(bytes <= view.byteLength, `${where}: ${ext.count} elements of ${stride} bytes decode to ${bytes} bytes, but the bufferView is ${view.byteLength} bytes`);
    total += view.byteLength;
    check(total <= MAX_DECODED_BYTES, `${where}: the decoded bufferViews would hold more than ${MAX_DECODED_BYTES} bytes; refused`);
    const target = new Uint8Array(view.byteLength);
    try {
      decoder.decodeGltfBuffer(target.subarray(0, bytes), ext.count, stride, source.subarray(start, start + ext.byteLength), ext.mode, filter);
    } catch (e) {
      throw new ModelError(`${where}: its data could not be decoded (${(e as Error)?.message ?? String(e)}); the file is damaged or truncated`);
    }
    // The view now reads its own decoded buffer, as a plain bufferView.
    (asset.json.buffers ??= []).push({ byteLength: target.byteLength });
    asset.buffers.push(target);
    view.buffer = asset.buffers.length - 1;
    view.byteOffset = 0;
    delete (view as Extended).extensions?.[ext.name];
  }
}

/** Takes `names` off the file's extensionsRequired: a decoder that read them leaves a file that no longer needs them. */
export function dropRequired(asset: GltfAsset, names: readonly string[]): void {
  const required = asset.json.extensionsRequired;
  if (required) asset.json.extensionsRequired = required.filter((name) => !names.includes(name));
}
