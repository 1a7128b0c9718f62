import { ModelError } from './errors';
import type { GltfAsset } from './gltf-json';

/**
 * The glTF extensions a file may require (`extensionsRequired`) and what reads each: the loader
 * itself, or a decoder the page hands in (LoadOptions.decoders, ClipLoadOptions.decoders), so
 * that a page whose files need no decoder ships none (meshoptimizer's decoder is about 12 KB of
 * a minified page, Draco's about 300 KB of WebAssembly, Basis Universal's 530 KB), nor the code that reads their data.
 * A file is refused once, naming every required extension that cannot be read and, for each,
 * what would bring it.
 */

/**
 * A decoder of compressed glTF data, handed in by the page (LoadOptions.decoders): crowd-skin's
 * `MeshoptDecoder`, or `dracoDecoder(module)` around a Draco decoder module. The code that reads
 * the compressed data comes with it (decode-meshopt.ts, decode-draco.ts), so a page whose files
 * need no decoder ships none of that either.
 */
export interface GltfDecoder {
  /**
   * @internal Decodes, in place, every part of a parsed file (a GltfAsset) compressed with this
   * decoder's extensions, and takes them off its extensionsRequired.
   */
  readonly decodeAsset: (asset: GltfAsset) => Promise<void>;
}

/** Decoders handed in by the page for compressed files (docs/loading.md, "Compressed files"). */
export interface Decoders {
  /** For EXT_meshopt_compression and KHR_meshopt_compression: `MeshoptDecoder` from crowd-skin (meshoptimizer's decoder inside). */
  meshopt?: GltfDecoder;
  /** For KHR_draco_mesh_compression: `dracoDecoder(await createDecoderModule())`, the module from npm draco3dgltf (Node) or draco3d. */
  draco?: GltfDecoder;
  /** For KHR_texture_basisu (KTX2 textures): `ktx2Decoder(await BASIS())`, the transcoder module of basis_transcoder.js (npm three: three/examples/jsm/libs/basis). */
  ktx2?: GltfDecoder;
}

/** What brings each extension that a decoder handed in reads: the Decoders member and how to hand it in. */
const DECODED: Record<string, [keyof Decoders, string]> = {
  EXT_meshopt_compression: ['meshopt', "{ meshopt: MeshoptDecoder }, MeshoptDecoder from 'crowd-skin'"],
  KHR_draco_mesh_compression: ['draco', "{ draco: dracoDecoder(await createDecoderModule()) }, dracoDecoder from 'crowd-skin', createDecoderModule from npm draco3d (draco3dgltf in Node)"],
  KHR_texture_basisu: ['ktx2', "{ ktx2: ktx2Decoder(await BASIS()) }, ktx2Decoder from 'crowd-skin', BASIS from npm three's examples/jsm/libs/basis"],
};
DECODED.KHR_meshopt_compression = DECODED.EXT_meshopt_compression;

/**
 * Extensions the loader reads itself. A WebP or AVIF texture (parse.ts picks it over `source`)
 * is decoded by the platform's image decoder, as PNG and JPEG are; where it cannot decode one,
 * that texture is left out with a warning (character.ts).
 */
const NATIVE = ['KHR_mesh_quantization', 'EXT_texture_webp', 'EXT_texture_avif'];

/**
 * Refuses a file that requires extensions the loader cannot read with `decoders`, naming all
 * of them at once, each with what would bring it (the option and the package), in one
 * ModelError: `the file requires extension KHR_draco_mesh_compression, which needs decoders:
 * { draco: ... }, ...`, or with several, `the file requires 2 extensions this call cannot
 * read: A, which ...; B, which ...`.
 */
export function checkRequiredExtensions(required: readonly string[], decoders: Decoders = {}): void {
  const problems: string[] = [];
  for (const name of new Set(required)) {
    if (Object.hasOwn(DECODED, name)) {
      if (!decoders[DECODED[name][0]]) problems.push(`${name}, which needs decoders: ${DECODED[name][1]}`);
    } else if (!NATIVE.includes(name)) {
      problems.push(`${name}, which this loader does not support`);
    }
  }
  if (problems.length === 1) throw new ModelError(`the file requires extension ${problems[0]}`);
  if (problems.length > 1) throw new ModelError(`the file requires ${problems.length} extensions this call cannot read: ${problems.join('; ')}`);
}
