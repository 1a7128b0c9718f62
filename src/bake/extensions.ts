import { ModelError } from './errors';

/**
 * The glTF extensions a file may require (`extensionsRequired`) and what reads each: the loader
 * itself, or a decoder the page hands in (LoadOptions.decoders, ClipLoadOptions.decoders), so
 * that a page whose files need no decoder ships none (meshoptimizer's decoder is about 12 KB of
 * a minified page, Draco's about 300 KB of WebAssembly). A file is refused once, naming every
 * required extension that cannot be read and, for each, what would bring it.
 */

/**
 * meshoptimizer's decoder as the loader calls it: `MeshoptDecoder` from crowd-skin (or from
 * 'meshoptimizer/decoder'). Only these members are used.
 */
export interface MeshoptDecoderLike {
  /** Resolves once the decoder's WebAssembly is compiled. */
  ready: Promise<void>;
  /** False where the platform has no WebAssembly. */
  supported: boolean;
  /**
   * Decodes `source` (one EXT/KHR_meshopt_compression bufferView) into `target`, `count`
   * elements of `size` bytes; throws on malformed data.
   */
  decodeGltfBuffer(target: Uint8Array, count: number, size: number, source: Uint8Array, mode: string, filter?: string): void;
}

/**
 * A Draco decoder module as Google's Draco builds make it (`await createDecoderModule()` from the
 * npm package draco3dgltf in Node, or draco3d; three.js's DRACOLoader loads the same module).
 * Only the members the loader calls are listed; see src/bake/decode-draco.ts.
 */
export interface DracoDecoderModule {
  /** Draco's C++ classes and enums, as Emscripten exposes them; typed loosely here. */
  [member: string]: unknown;
}

/** Decoders handed in by the page for compressed files (docs/loading.md, "Compressed files"). */
export interface Decoders {
  /** meshoptimizer's decoder, for EXT_meshopt_compression and KHR_meshopt_compression: `{ meshopt: MeshoptDecoder }`. */
  meshopt?: MeshoptDecoderLike;
  /** A Draco decoder module, for KHR_draco_mesh_compression: `{ draco: await createDecoderModule() }` (npm draco3dgltf or draco3d). */
  draco?: DracoDecoderModule;
}

const MESHOPT_HOW = "hand in meshoptimizer's decoder: decoders: { meshopt: MeshoptDecoder }, with import { MeshoptDecoder } from 'crowd-skin' (or 'meshoptimizer/decoder')";
const DRACO_HOW = "hand in a Draco decoder module: decoders: { draco: await createDecoderModule() }, with import { createDecoderModule } from 'draco3dgltf' (npm package draco3dgltf in Node, draco3d in the browser)";

/**
 * Every extension the loader knows by name: what reads it (`decoder`: the Decoders member it
 * needs; none: the loader itself), or `missing` for one it knows but does not read.
 */
const KNOWN: Record<string, { decoder?: keyof Decoders; how?: string; missing?: string }> = {
  KHR_mesh_quantization: {},
  EXT_meshopt_compression: { decoder: 'meshopt', how: MESHOPT_HOW },
  KHR_meshopt_compression: { decoder: 'meshopt', how: MESHOPT_HOW },
  KHR_draco_mesh_compression: { decoder: 'draco', how: DRACO_HOW },
  KHR_texture_basisu: { missing: 'KTX2 textures are not read by this loader yet; write the textures as PNG, JPEG or WebP (gltf-transform png/webp)' },
};

/** The extensions in `required` that the loader reads, given `decoders`: the compressed ones that parse.ts decodes. */
export function decodedExtensions(required: readonly string[], decoders: Decoders): string[] {
  return required.filter((name) => KNOWN[name]?.decoder !== undefined && decoders[KNOWN[name].decoder!] !== undefined);
}

/**
 * Refuses a file that requires extensions the loader cannot read with `decoders`, naming all
 * of them at once, each with what would bring it (the option and the package), in one
 * ModelError: `the file requires extension KHR_draco_mesh_compression, which needs a decoder
 * the call did not hand in: ...`, or with several, `the file requires 2 extensions this loader
 * cannot read as called: A (...); B (...)`.
 */
export function checkRequiredExtensions(required: readonly string[], decoders: Decoders = {}): void {
  const problems: string[] = [];
  for (const name of new Set(required)) {
    const known = Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
    if (known === undefined) problems.push(`${name}, which this loader does not support`);
    else if (known.missing) problems.push(`${name}, which this loader does not support (${known.missing})`);
    else if (known.decoder && decoders[known.decoder] === undefined) problems.push(`${name}, which needs a decoder the call did not hand in (${known.how})`);
  }
  if (problems.length === 1) throw new ModelError(`the file requires extension ${problems[0]}`);
  if (problems.length > 1) throw new ModelError(`the file requires ${problems.length} extensions this loader cannot read as called: ${problems.join('; ')}`);
}
