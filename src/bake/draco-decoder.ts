import { decodeDraco, type DracoModule } from './decode-draco';
import type { GltfDecoder } from './extensions';

/**
 * The decoder of files compressed with KHR_draco_mesh_compression (gltf-transform draco) around
 * a Draco decoder module, for `loadCharacter(url, { decoders: { draco: dracoDecoder(module) } })`
 * (docs/loading.md, "Compressed files"). `module` is what `createDecoderModule()` of the npm
 * package draco3d (browser and Node) or draco3dgltf (Node) resolves to: crowd-skin does not
 * depend on either, so a page that reads no Draco file ships no Draco (about 300 KB of
 * WebAssembly), nor the code that reads its data (decode-draco.ts). Throws a TypeError for
 * anything else (the factory itself, or its promise, not yet awaited).
 *
 * @example
 * ```ts
 * import draco3d from 'draco3d';
 * const draco = dracoDecoder(await draco3d.createDecoderModule());
 * const character = await loadCharacter('/models/hero.glb', { decoders: { draco } });
 * ```
 */
export function dracoDecoder(module: object): GltfDecoder {
  const m = module as Partial<DracoModule> | null;
  if (typeof m?.Decoder !== 'function' || typeof m._malloc !== 'function' || typeof m.destroy !== 'function') {
    const what = typeof module === 'function' ? 'a function (call it and await the module it resolves to)' : module instanceof Promise ? 'a promise (await it)' : 'not a Draco decoder module';
    throw new TypeError(`dracoDecoder(module): module is ${what}; pass what createDecoderModule() of npm draco3d or draco3dgltf resolves to`);
  }
  return { decodeAsset: (asset) => decodeDraco(asset, m as DracoModule) };
}
