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
/**
 * The test-only models (freely licensed, each with its README: source, checksum, license),
 * copied unmodified from the project's shared/models so that a clone runs every test wherever
 * it sits. The characters the demo bundles are in public/models only.
 */
export const TEST_MODELS = join(REPO_ROOT, 'test/models');
/** The characters of public/models that are also test models (Walker and Props are generated for the demo). */
const BUNDLED_TEST_MODELS = ['CesiumMan', 'Fox', 'RobotExpressive'];

/** Every test model: the test-only ones and the bundled characters (each folder holds `<name>.glb` or `<name>.gltf`). */
export function testModelNames(): string[] {
  const own = readdirSync(TEST_MODELS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  return [...own, ...BUNDLED_TEST_MODELS].sort();
}

/** Path of model `name` (folder name, e.g. 'Fox'): the bundled copy if there is one, else test/models. */
export function modelPath(name: string): string {
  for (const root of [BUNDLED_MODELS, TEST_MODELS]) {
    for (const ext of ['glb', 'gltf']) {
      const path = join(root, name, `${name}.${ext}`);
      if (existsSync(path)) return path;
    }
  }
  throw new Error(`model ${name} not found under ${BUNDLED_MODELS} or ${TEST_MODELS}`);
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
