/**
 * A file dropped on the demo's page becomes the crowd: a .glb, or a .gltf dropped together with
 * its .bin and texture files (the drop's other files are what its relative uris read; a file it
 * names that was not dropped is a load error naming it). Compressed files load as by
 * ?modelUrl= (demo/decoders.ts). What cannot be shown (no .glb or .gltf among the files, two of
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
}

/**
 * The model among `files`: the one .glb or .gltf, with a reader of the others by name (or
 * path within the dropped folder); a string saying what is wrong when there is none, or two.
 */
export async function droppedModel(files: readonly File[]): Promise<DroppedModel | string> {
  const models = files.filter((f) => /\.(glb|gltf)$/i.test(f.name));
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
  return { name: model.name, source: { model: '', url: '', file: { bytes: await model.arrayBuffer(), baseUrl, readResource } } };
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
