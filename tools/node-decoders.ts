import { MeshoptDecoder } from '../src/bake/meshopt-decoder';
import type { Decoders } from '../src/bake/extensions';

/**
 * The decoders the Node tools hand in (LoadOptions.decoders), so that `npm run pose -- --model
 * FILE` and the other commands read files compressed by gltfpack or gltf-transform with no flag:
 * meshoptimizer's decoder (a dependency of the package; its WebAssembly is compiled on first use).
 */
export function nodeDecoders(): Decoders {
  return { meshopt: MeshoptDecoder };
}
