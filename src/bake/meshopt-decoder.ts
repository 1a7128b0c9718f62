import { MeshoptDecoder as meshoptimizer } from 'meshoptimizer/decoder';
import { decodeMeshopt } from './decode-meshopt';
import type { GltfDecoder } from './extensions';

/**
 * The decoder of files compressed with EXT_meshopt_compression or KHR_meshopt_compression
 * (gltfpack -c/-cc/-cz, gltf-transform meshopt and optimize): meshoptimizer's decoder
 * (meshoptimizer/decoder) and the code that reads the compressed bufferViews with it
 * (decode-meshopt.ts), for `loadCharacter(url, { decoders: { meshopt: MeshoptDecoder } })`
 * (docs/loading.md, "Compressed files"). About 14 KB of a minified page (mostly WebAssembly),
 * shipped only by pages that import it: this module is free of side effects (package.json
 * "sideEffects": false), so a bundler drops it, and the decoder with it, where nothing uses it.
 */
export const MeshoptDecoder: GltfDecoder = { decodeAsset: (asset) => decodeMeshopt(asset, meshoptimizer) };
