/**
 * The demo's decoders for compressed files (docs/loading.md, "Compressed files"): meshopt always
 * (crowd-skin's MeshoptDecoder, about 14 KB), and Draco and KTX2 only for a file that uses them.
 * Their WebAssembly builds come from npm three, a dev dependency (crowd-skin depends on neither):
 * three/examples/jsm/libs/draco/gltf (Google's Draco glTF decoder, Apache-2.0) and
 * three/examples/jsm/libs/basis (Binomial's Basis Universal transcoder, Apache-2.0). Each is a
 * classic script plus a .wasm; the script's text is a dynamic import (its own chunk) and the
 * .wasm a URL, so the demo's first load carries neither: a file that needs one fetches it once.
 */
import { dracoDecoder, ktx2Decoder, MeshoptDecoder, type Decoders, type GltfDecoder } from '../src/index';
import dracoWasmUrl from 'three/examples/jsm/libs/draco/gltf/draco_decoder.wasm?url';
import basisWasmUrl from 'three/examples/jsm/libs/basis/basis_transcoder.wasm?url';

type Asset = Parameters<GltfDecoder['decodeAsset']>[0];
type Factory = (options: { wasmBinary: ArrayBuffer }) => Promise<object>;

/** Runs an Emscripten classic script's text and returns the factory it defines as `name`. */
function factoryOf(script: string, name: string): Factory {
  return new Function(`${script}\nreturn ${name};`)() as Factory;
}

async function wasm(url: string): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not fetch ${url} (HTTP ${response.status})`);
  return response.arrayBuffer();
}

/**
 * A decoder that loads the real one (`load`, once) the first time a file uses `extension`;
 * files that do not use it cost nothing. A load that fails is tried again by the next file.
 */
function lazy(extension: string, load: () => Promise<GltfDecoder>): GltfDecoder {
  let decoder: Promise<GltfDecoder> | undefined;
  return {
    decodeAsset: async (asset: Asset) => {
      if (!asset.json.extensionsUsed?.includes(extension)) return;
      decoder ??= load().catch((error: Error) => {
        decoder = undefined;
        throw new Error(`the ${extension} decoder could not be loaded: ${error.message}`);
      });
      return (await decoder).decodeAsset(asset);
    },
  };
}

/** The decoders every load of the demo hands in. */
export const demoDecoders: Decoders = {
  meshopt: MeshoptDecoder,
  draco: lazy('KHR_draco_mesh_compression', async () => {
    const [{ default: script }, wasmBinary] = await Promise.all([import('three/examples/jsm/libs/draco/gltf/draco_wasm_wrapper.js?raw'), wasm(dracoWasmUrl)]);
    return dracoDecoder(await factoryOf(script, 'DracoDecoderModule')({ wasmBinary }));
  }),
  ktx2: lazy('KHR_texture_basisu', async () => {
    const [{ default: script }, wasmBinary] = await Promise.all([import('three/examples/jsm/libs/basis/basis_transcoder.js?raw'), wasm(basisWasmUrl)]);
    return ktx2Decoder(await factoryOf(script, 'BASIS')({ wasmBinary }));
  }),
};
