/**
 * `--clips FILE` (repeatable) for the tools: the model's rig with the clips of other glTF files
 * bound by node name, as loadCharacter({ clips }) binds them (src/bake/clip-library.ts): the
 * model's own clips first, then each file's in command-line order, so `--clip` names and
 * indices resolve in the combined list.
 */
import { basename } from 'node:path';
import { buildRig } from '../src/bake/build-rig';
import { attachClips, makeClipLibrary, readClipFile, type ClipBinding, type ClipFile, type ClipLibrary } from '../src/bake/clip-library';
import type { Rig } from '../src/bake/rig';
import { readGltfFile } from './node-io';

/** One ClipLibrary of the glTF files at `paths` (each read with the model folder rules of node-io.ts), or undefined for none. */
export async function readClipLibrary(paths: readonly string[]): Promise<ClipLibrary | undefined> {
  if (paths.length === 0) return undefined;
  const warnings: string[] = [];
  const files: ClipFile[] = [];
  for (const path of paths) files.push(readClipFile(await readGltfFile(path), basename(path), warnings));
  return makeClipLibrary(files, warnings);
}

/** The rig of the model at `modelPath` with the clips of `clipPaths` attached, and how each file bound. */
export async function rigWithClips(modelPath: string, clipPaths: readonly string[]): Promise<{ rig: Rig; bindings: ClipBinding[] }> {
  const rig = buildRig(await readGltfFile(modelPath));
  const library = await readClipLibrary(clipPaths);
  if (!library) return { rig, bindings: [] };
  rig.warnings.push(...library.warnings);
  return { rig, bindings: attachClips(rig, [library]) };
}
