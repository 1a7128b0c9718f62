/**
 * A metallic test model for the demo's environment light (docs/demo.md, "The light panel"): the
 * bundled Fox with every material made a polished metal (metallicFactor 1, roughnessFactor 0.3,
 * its base-colour texture kept as the metal's colour). Made in memory from
 * public/models/Fox/Fox.glb with gltf-transform; test/e2e/demo.test.ts serves it to the page
 * (Playwright's page.route) at METAL_FOX_PATH, so nothing is committed and nothing downloaded.
 */
import { readFileSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { REPO_ROOT } from './harness';

/** Where the page asks for it: `?modelUrl=/metal-fox.glb` or `crowdDemo.loadModelUrl('/metal-fox.glb')`. */
export const METAL_FOX_PATH = '/metal-fox.glb';

/** The metal's roughness (a polished metal: a blurred but recognisable reflection of the sky). */
export const METAL_ROUGHNESS = 0.3;

/** The Fox's GLB with every material metallic (see the file comment). */
export async function metalFoxGlb(): Promise<Uint8Array> {
  const io = new NodeIO();
  const document = await io.readBinary(new Uint8Array(readFileSync(`${REPO_ROOT}public/models/Fox/Fox.glb`)));
  const materials = document.getRoot().listMaterials();
  if (materials.length === 0) throw new Error('public/models/Fox/Fox.glb has no material to make metallic');
  for (const material of materials) {
    material.setMetallicFactor(1).setRoughnessFactor(METAL_ROUGHNESS).setMetallicRoughnessTexture(null);
    material.setName(`${material.getName() || 'material'} (metal)`);
  }
  return io.writeBinary(document);
}
