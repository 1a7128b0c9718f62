import { loadCharacter, loadClips, MeshoptSimplifier, type Character, type ControllerConfig } from '../src/index';
import { demoDecoders } from './decoders';
import type { ModelEntry } from './models';
import { loadBodies, loadControllerConfig, type ClipsChoice, type LoadedBodies, type SceneSource } from './scene';

/** What the WebGL 2 demo reads for a model (readGLModel). */
export interface GLModel {
  character: Character;
  /** The clips scene's bodies (the first is `character`), when that scene asked for them. */
  bodies?: LoadedBodies;
  config: ControllerConfig;
  /** Why the model's controller config file was not used, if it was not. */
  problem: string;
}

/**
 * Reads the WebGL 2 demo's model (gl-app.ts): with `clips` (the clips scene's picks) its bodies
 * bound to the picked clip set, as the WebGPU demo reads them (loadBodies); else the character
 * at `source.url` (or the dropped `source.file`, demo/drop.ts) with the MODELS `entry`'s load
 * options and clips, mesh LOD levels and the demo's decoders (Draco and KTX2 fetched only for a
 * file that needs them, demo/decoders.ts). Then its controller config. Throws with the reason
 * when a file cannot load or bind.
 */
export async function readGLModel(label: string, source: SceneSource, entry: ModelEntry | undefined, clips: ClipsChoice | undefined): Promise<GLModel> {
  const signal = new AbortController().signal;
  let character: Character, bodies: LoadedBodies | undefined;
  if (clips) {
    bodies = await loadBodies(label, source, { clips, onProgress: () => {}, signal });
    character = bodies.character;
  } else {
    const decoders = demoDecoders, file = source.file;
    const library = entry?.clips ? [await loadClips(entry.clips, { decoders })] : undefined;
    character = await loadCharacter(file ? file.bytes : source.url, {
      ...entry?.load, clips: library, lod: { simplifier: MeshoptSimplifier }, decoders, ...(file && { baseUrl: file.baseUrl, readResource: file.readResource }),
    });
  }
  const { config, problem } = await loadControllerConfig(entry?.controllerUrl, character.clipNames, signal);
  return { character, bodies, config, problem };
}
