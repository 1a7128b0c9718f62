/**
 * A file dropped on the demo's page becomes the crowd: a .glb or .vrm, or a .gltf dropped together with
 * its .bin and texture files (the drop's other files are what its relative uris read; a file it
 * names that was not dropped is a load error naming it). Compressed files load as by
 * ?modelUrl= (demo/decoders.ts). In the clips scene a body becomes the scene's body, and a file
 * of clips only (no mesh) its clip set (App.loadDropped). What cannot be shown (no .glb or .gltf among the files, two of
 * them, a file the loader refuses) is said in the message box; the running crowd stays.
 */
import type { ResourceReader } from '../src/index';
import type { SceneSource } from './scene';
import type { MessageBox } from './overlays';

/** The folder a dropped .gltf's relative uris resolve in (never fetched: the reader serves the dropped files). */
const DROP_FOLDER = '/dropped-files/';

/** What a drop hands the app: a label (the file's name) and the source to load. */
export interface DroppedModel {
  name: string;
  source: SceneSource;
  /** The file has animations and no mesh: a clips file (loadClips), not a body. */
  clipsOnly: boolean;
}

/** GLB's magic ('glTF') and its JSON chunk's type ('JSON'), little-endian. */
const GLB_MAGIC = 0x46546c67;
const JSON_CHUNK = 0x4e4f534a;

/**
 * Whether glTF/GLB bytes hold animations and no mesh (a clips file). Reads only the JSON; bytes
 * that are no glTF say false (the loader then names what is wrong with them).
 */
export function isClipsOnly(bytes: ArrayBuffer): boolean {
  let json: { meshes?: unknown[]; animations?: unknown[] };
  try {
    const view = new DataView(bytes);
    if (bytes.byteLength >= 20 && view.getUint32(0, true) === GLB_MAGIC) {
      if (view.getUint32(16, true) !== JSON_CHUNK) return false;
      json = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 20, view.getUint32(12, true))));
    } else {
      json = JSON.parse(new TextDecoder().decode(bytes));
    }
  } catch {
    return false;
  }
  return (json.animations?.length ?? 0) > 0 && (json.meshes?.length ?? 0) === 0;
}

/**
 * The model among `files`: the one .glb or .gltf, with a reader of the others by name (or
 * path within the dropped folder); a string saying what is wrong when there is none, or two.
 */
export async function droppedModel(files: readonly File[]): Promise<DroppedModel | string> {
  const models = files.filter((f) => /\.(glb|gltf|vrm)$/i.test(f.name));
  if (models.length === 0) {
    const names = files.map((f) => f.name).join(', ') || 'nothing';
    return `Cannot show ${names}: drop a .glb file, or a .gltf file together with its .bin and textures`;
  }
  if (models.length > 1) return `Drop one model at a time (got ${models.map((f) => f.name).join(', ')})`;
  const [model] = models;
  const byPath = new Map<string, File>();
  for (const file of files) byPath.set(file.webkitRelativePath || file.name, file).set(file.name, file);
  const readResource: ResourceReader = async (url) => {
    const path = decodeURIComponent(new URL(url).pathname.slice(DROP_FOLDER.length));
    const file = byPath.get(path) ?? byPath.get(path.split('/').pop()!);
    if (!file) throw new Error(`'${path}' was not dropped with ${model.name}; drop it together with the .gltf`);
    return file.arrayBuffer();
  };
  const baseUrl = new URL(DROP_FOLDER + encodeURIComponent(model.name), location.href).href;
  const bytes = await model.arrayBuffer();
  return { name: model.name, source: { model: '', url: '', file: { bytes, baseUrl, readResource } }, clipsOnly: isClipsOnly(bytes) };
}

/**
 * Makes `target` take dropped files: dragover shows the copy cursor, a drop of a model calls
 * `load` (the app's, which reports its own errors), anything else is explained in `messages`.
 */
export function installDrop(target: HTMLElement, load: (dropped: DroppedModel) => Promise<boolean>, messages: MessageBox): void {
  target.addEventListener('dragover', (event) => {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  });
  target.addEventListener('drop', (event) => {
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length === 0) return;
    event.preventDefault();
    void droppedModel(files).then((dropped) => {
      if (typeof dropped === 'string') messages.show('error', dropped);
      else void load(dropped);
    });
  });
}
