import { dracoDecoder } from '../src/bake/draco-decoder';
import { MeshoptDecoder } from '../src/bake/meshopt-decoder';
import type { Decoders } from '../src/bake/extensions';
import { readContainer } from '../src/bake/glb';

/**
 * The decoders the Node tools hand in (LoadOptions.decoders), so that `npm run pose -- --model
 * FILE` and the other commands read files compressed by gltfpack or gltf-transform with no flag:
 * meshoptimizer's decoder always (a dependency of the package; its WebAssembly is compiled on
 * first use), and Draco's for a file (`data`, a .glb or .gltf) that uses KHR_draco_mesh_compression:
 * the module of the npm package draco3dgltf, an optional peer dependency, loaded once on first need.
 */
export async function nodeDecoders(data: ArrayBuffer): Promise<Decoders> {
  return { meshopt: MeshoptDecoder, ...(usesDraco(data) ? { draco: await loadDraco() } : {}) };
}

/** True when the file lists KHR_draco_mesh_compression in extensionsUsed; a file that cannot be read says so later, in parseGltf. */
function usesDraco(data: ArrayBuffer): boolean {
  try {
    const json = readContainer(data).json as { extensionsUsed?: unknown };
    return Array.isArray(json?.extensionsUsed) && json.extensionsUsed.includes('KHR_draco_mesh_compression');
  } catch {
    return false;
  }
}

let draco: Promise<NonNullable<Decoders['draco']>> | undefined;

async function loadDraco(): Promise<NonNullable<Decoders['draco']>> {
  draco ??= (async () => {
    const name = 'draco3dgltf'; // untyped and optional: imported by name
    let module: { createDecoderModule(): Promise<object> };
    try {
      module = ((await import(name)) as { default: typeof module }).default;
    } catch (e) {
      throw new Error(`this file is Draco-compressed (KHR_draco_mesh_compression), which needs the draco3dgltf package: npm install draco3dgltf (${(e as Error).message})`);
    }
    return dracoDecoder(await module.createDecoderModule());
  })();
  return draco;
}
