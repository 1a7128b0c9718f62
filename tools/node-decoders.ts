import { dracoDecoder } from '../src/bake/draco-decoder';
import { MeshoptDecoder } from '../src/bake/meshopt-decoder';
import { ktx2Decoder } from '../src/runtime/ktx2-decoder';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Decoders } from '../src/bake/extensions';
import { readContainer } from '../src/bake/glb';

/**
 * The decoders the Node tools hand in (LoadOptions.decoders), so that `npm run pose -- --model
 * FILE` and the other commands read files compressed by gltfpack or gltf-transform with no flag:
 * meshoptimizer's decoder always (a dependency of the package; its WebAssembly is compiled on
 * first use), and Draco's for a file (`data`, a .glb or .gltf) that uses KHR_draco_mesh_compression:
 * the module of the npm package draco3dgltf, an optional peer dependency, loaded once on first need;
 * and the Basis Universal transcoder for a file that uses KHR_texture_basisu (KTX2 textures): the
 * build npm three ships (three/examples/jsm/libs/basis, a dev dependency), loaded once on first need.
 */
export async function nodeDecoders(data: ArrayBuffer): Promise<Decoders> {
  return {
    meshopt: MeshoptDecoder,
    ...(uses(data, 'KHR_draco_mesh_compression') ? { draco: await loadDraco() } : {}),
    ...(uses(data, 'KHR_texture_basisu') ? { ktx2: await loadKtx2() } : {}),
  };
}

/** True when the file lists `extension` in extensionsUsed; a file that cannot be read says so later, in parseGltf. */
function uses(data: ArrayBuffer, extension: string): boolean {
  try {
    const json = readContainer(data).json as { extensionsUsed?: unknown };
    return Array.isArray(json?.extensionsUsed) && json.extensionsUsed.includes(extension);
  } catch {
    return false;
  }
}

let ktx2: Promise<NonNullable<Decoders['ktx2']>> | undefined;

/**
 * The Basis Universal transcoder of npm three: basis_transcoder.js (a classic script defining
 * BASIS, which three's package marks as an ES module, so it is run as the script it is, not
 * imported) and its .wasm.
 */
export function loadKtx2(): Promise<NonNullable<Decoders['ktx2']>> {
  ktx2 ??= (async () => {
    const require = createRequire(import.meta.url);
    let path: string;
    try {
      path = require.resolve('three/examples/jsm/libs/basis/basis_transcoder.js');
    } catch (e) {
      throw new Error(`this file has KTX2 textures (KHR_texture_basisu), which need the Basis Universal transcoder of the three package: npm install three (${(e as Error).message})`);
    }
    const script = `${readFileSync(path, 'utf8')}\nreturn BASIS;`;
    const BASIS = new Function('require', '__filename', '__dirname', script)(require, path, dirname(path)) as (options: { wasmBinary: Uint8Array }) => Promise<object>;
    return ktx2Decoder(await BASIS({ wasmBinary: readFileSync(path.replace(/\.js$/, '.wasm')) }));
  })();
  return ktx2;
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
