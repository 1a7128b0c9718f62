import { decodeKtx2, type BasisModule } from '../bake/decode-ktx2';
import type { GltfDecoder } from '../bake/extensions';
import { uploadKtx2, uploadKtx2GL } from './ktx2-upload';

/**
 * The decoder of KHR_texture_basisu textures (KTX2 images of Basis Universal data: gltf-transform
 * etc1s / uastc, gltfpack -tc) around a Basis Universal transcoder module, for
 * `loadCharacter(url, { decoders: { ktx2: ktx2Decoder(module) } })` (docs/loading.md,
 * "Compressed files"). `module` is what `BASIS()` of Binomial's basis_transcoder.js resolves to
 * (the build npm three ships as three/examples/jsm/libs/basis/basis_transcoder.js with its
 * .wasm, Apache-2.0): crowd-skin depends on no transcoder, so a page that reads no KTX2 file
 * ships none (about 530 KB of WebAssembly), nor the code that reads its data (decode-ktx2.ts)
 * or uploads it (ktx2-upload.ts).
 * Each image is transcoded at load to RGBA8 and, on the GPU, to BC7, ETC2 or ASTC where the
 * device has the feature. Throws a TypeError for anything else (the factory itself, or its
 * promise, not yet awaited).
 *
 * @example
 * ```ts
 * // basis_transcoder.js is a classic script: load it with a <script> tag (it defines BASIS), beside its .wasm
 * const ktx2 = ktx2Decoder(await BASIS({ locateFile: (name) => `/basis/${name}` }));
 * const character = await loadCharacter('/models/hero.glb', { decoders: { ktx2 } });
 * ```
 */
export function ktx2Decoder(module: object): GltfDecoder {
  const m = module as Partial<BasisModule> | null;
  if (typeof m?.KTX2File !== 'function' || typeof m.initializeBasis !== 'function') {
    const what = typeof module === 'function' ? 'a function (call it and await the module it resolves to)' : module instanceof Promise ? 'a promise (await it)' : 'not a Basis Universal transcoder module';
    throw new TypeError(`ktx2Decoder(module): module is ${what}; pass what BASIS() of basis_transcoder.js (npm three: three/examples/jsm/libs/basis) resolves to`);
  }
  return { decodeAsset: (asset) => decodeKtx2(asset, m as BasisModule, { upload: uploadKtx2, uploadGL: uploadKtx2GL }) };
}
