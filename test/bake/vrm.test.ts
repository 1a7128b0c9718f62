import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRig } from '../../src/bake/build-rig';
import { parseGltf } from '../../src/bake/parse';
import { loadCharacter } from '../../src/character/character';
import { loadClips } from '../../src/character/clips';
import { arrayBufferOf, toGlb } from '../helpers/gltf-builder';
import { BUNDLED_MODELS } from '../helpers/models';

/**
 * VRM files as characters (docs/loading.md#vrm-files): a .vrm is a .glb, its humanoid map is
 * read (src/bake/vrm-humanoid.ts) and clips bind to it with no options; MToon materials are drawn
 * lit and diffuse, VRM 0.x's unlit shaders unlit.
 */

const vroid = () => arrayBufferOf(readFileSync(join(BUNDLED_MODELS, 'Walker', 'WalkerVRoid.glb')));

/** WalkerVRoid.glb's JSON changed by `edit`, parsed to a rig. */
async function editedRig(edit: (json: Record<string, any>) => void) {
  const asset = await parseGltf(vroid());
  const json = structuredClone(asset.json) as Record<string, any>;
  edit(json);
  delete json.buffers[0].uri;
  return buildRig(await parseGltf(arrayBufferOf(toGlb(json, asset.buffers[0]))));
}

describe('VRM files', () => {
  it('a VRM 1.0 body (VRoid names, VRMC_vrm) loads as a character and takes Mixamo-named clips with no options, baked like any clip', async () => {
    const character = await loadCharacter(vroid(), { clips: [await loadClips(arrayBufferOf(readFileSync(join(BUNDLED_MODELS, 'Walker', 'WalkerClipsMixamo.glb'))))], lod: false });
    expect(character.rig.humanoid?.source).toBe('VRMC_vrm');
    expect(character.clipNames).toContain('WalkForward');
    expect(character.warnings).toEqual([]);
    // Baked: the bound clips are tables like the file's own, so a crowd's frame does not change.
    expect(character.baked.clipNames).toEqual(character.clipNames);
    expect(character.baked.tracks.length).toBeGreaterThan(0);
  });

  it('MToon (VRMC_materials_mtoon, VRM 0.x VRM/MToon) is drawn lit with metallic 0 and roughness 1; VRM 0.x VRM/Unlit* unlit', async () => {
    const v1 = await editedRig((json) => {
      json.materials[0].extensions = { VRMC_materials_mtoon: { specVersion: '1.0', shadeColorFactor: [0.5, 0.5, 0.5] }, KHR_materials_unlit: {} };
      json.materials[0].pbrMetallicRoughness.metallicFactor = 1;
    });
    expect(v1.primitives[0].material).toMatchObject({ unlit: false, metallicFactor: 0, roughnessFactor: 1 });
    expect(v1.primitives[1].material).toMatchObject({ unlit: false, metallicFactor: 0, roughnessFactor: 0.8 }); // no MToon: as written
    const v0 = await editedRig((json) => {
      json.extensions = { VRM: { materialProperties: [{ name: 'Accent', shader: 'VRM/UnlitTexture' }, { name: 'Body', shader: 'VRM/MToon' }] } };
    });
    const byName = Object.fromEntries(v0.primitives.map((p, i) => [i === 0 ? 'Body' : 'Accent', p.material]));
    expect(byName.Body).toMatchObject({ unlit: false, metallicFactor: 0, roughnessFactor: 1 });
    expect(byName.Accent).toMatchObject({ unlit: true });
  });
});
