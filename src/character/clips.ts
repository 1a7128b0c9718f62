import { makeClipLibrary, readClipFile, type ClipFile, type ClipLibrary, type JointNameMap } from '../bake/clip-library';
import { ModelError } from '../bake/errors';
import type { Decoders } from '../bake/extensions';
import { parseGltf, type ResourceReader } from '../bake/parse';
import { download, type DownloadOptions } from './download';

/** A clips file: a URL (resolved against the page's location) or the file's bytes. */
export type ClipSource = string | URL | ArrayBuffer;

/** How loadClips reads its files (and reports and stops downloads: DownloadOptions). */
export interface ClipLoadOptions extends DownloadOptions {
  /** Where relative URIs of a .gltf given as bytes resolve (a URL's own location otherwise). */
  baseUrl?: string;
  /** How to read external buffers and images; defaults to fetch. */
  readResource?: ResourceReader;
  /** Decoders for compressed files, as LoadOptions.decoders (`{ meshopt: MeshoptDecoder }`, `{ draco: ... }`). */
  decoders?: Decoders;
  /** How the files' node names become a body's: a prefix taken off (`{ stripPrefix: 'mixamorig:' }`), then an explicit map. */
  jointNames?: JointNameMap;
}

/**
 * Reads the animations of one or more glTF/GLB files, with or without meshes, as a ClipLibrary
 * for LoadOptions.clips (docs/clips.md). Files are fetched, parsed and checked as characters are
 * (the same ModelErrors and uri policy, each message starting `clips file '<name>': `); a file
 * without animations is a ModelError. Clip names
 * run file after file, a repeated name renamed "Walk (2)" with a warning. The library is baked
 * once per skeleton it is bound to, and shared by characters with that skeleton.
 *
 * @example
 * ```ts
 * const moves = await loadClips(['/clips/walks.glb', '/clips/idles.glb']);
 * const tall = await loadCharacter('/bodies/tall.glb', { clips: [moves] });
 * const short = await loadCharacter('/bodies/short.glb', { clips: [moves] });
 * ```
 */
export async function loadClips(source: ClipSource | readonly ClipSource[], options: ClipLoadOptions = {}): Promise<ClipLibrary> {
  const sources = Array.isArray(source) ? source as readonly ClipSource[] : [source as ClipSource];
  const warnings: string[] = [];
  const files: ClipFile[] = [];
  for (const [i, s] of sources.entries()) {
    let data: ArrayBuffer;
    let name = `clips${i}`;
    let baseUrl = options.baseUrl;
    if (s instanceof ArrayBuffer) {
      data = s;
    } else {
      const url = new URL(String(s), globalThis.location?.href);
      name = decodeURIComponent(url.pathname.split('/').pop() ?? name);
      baseUrl = url.href;
      data = await download(url.href, options);
    }
    let asset;
    try {
      asset = await parseGltf(data, { baseUrl, readResource: options.readResource, decoders: options.decoders });
    } catch (e) {
      // Name the file: a character's errors are about its one file, a library's about one of several.
      if (e instanceof ModelError) throw new ModelError(`clips file '${name}': ${e.message}`);
      throw e;
    }
    files.push(readClipFile(asset, name, warnings, options.jointNames));
  }
  return makeClipLibrary(files, warnings);
}
