import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRig } from '../../src/bake/build-rig';
import type { GltfAsset } from '../../src/bake/gltf-json';
import type { Rig } from '../../src/bake/rig';
import { readGltfFile } from '../../tools/node-io';

/** The repository root (this file is test/helpers/models.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Models bundled with the app. */
export const BUNDLED_MODELS = join(REPO_ROOT, 'public/models');
/** All test models: `shared/models` next to the repository root (CI clones shared/ beside it). */
export const SHARED_MODELS = resolve(REPO_ROOT, '../shared/models');

/** Every model folder under shared/models (each holds `<name>.glb` or `<name>.gltf`). */
export function sharedModelNames(): string[] {
  if (!existsSync(SHARED_MODELS)) throw new Error(`test models not found at ${SHARED_MODELS} (shared/ must sit next to the repository)`);
  return readdirSync(SHARED_MODELS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** Path of model `name` (folder name, e.g. 'Fox'): the bundled copy if there is one, else shared/models. */
export function modelPath(name: string): string {
  for (const root of [BUNDLED_MODELS, SHARED_MODELS]) {
    for (const ext of ['glb', 'gltf']) {
      const path = join(root, name, `${name}.${ext}`);
      if (existsSync(path)) return path;
    }
  }
  throw new Error(`model ${name} not found under ${BUNDLED_MODELS} or ${SHARED_MODELS}`);
}

export interface LoadedModel {
  path: string;
  asset: GltfAsset;
  rig: Rig;
}

const cache = new Map<string, Promise<LoadedModel>>();

/** Reads model `name` with the Node reader and builds its rig (cached per test file; do not mutate). */
export function loadModel(name: string): Promise<LoadedModel> {
  let loaded = cache.get(name);
  if (!loaded) {
    const path = modelPath(name);
    loaded = readGltfFile(path).then((asset) => ({ path, asset, rig: buildRig(asset) }));
    cache.set(name, loaded);
  }
  return loaded;
}
