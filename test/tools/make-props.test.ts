import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCharacter } from '../../src/character/character';
import { PROPS } from '../../tools/make-props';
import { FLAG_MATERIALS } from '../../tools/props/flag';
import { SWORD_MATERIALS } from '../../tools/props/sword';
import { BUNDLED_MODELS } from '../helpers/models';

/** The bundled props (tools/make-props.ts): the committed files are what the generator writes, and load as static Characters. */
describe('make-props', () => {
  it('writes the committed public/models/Props files byte for byte', async () => {
    for (const prop of PROPS) {
      const committed = readFileSync(join(BUNDLED_MODELS, 'Props', prop.file));
      const fresh = Buffer.from(await prop.build());
      expect(fresh.equals(committed), `public/models/Props/${prop.file} is not what tools/make-props.ts writes: run \`npm run make-props\` and commit it`).toBe(true);
    }
  });

  it.each([['Sword', SWORD_MATERIALS], ['Flag', FLAG_MATERIALS]] as const)('the %s loads as a static mesh: one rigid one-joint skin, a primitive per material, no clips, no warnings, 1 unit long along +y', async (name, materials) => {
    const bytes = readFileSync(join(BUNDLED_MODELS, `Props/${name}.glb`));
    const prop = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    expect(prop.warnings).toEqual([]);
    expect(prop.clipNames).toEqual([]);
    expect(prop.jointNames).toEqual([name]);
    expect(prop.rig.primitives.map((p) => p.material.baseColorFactor)).toEqual(materials.map((m) => m.color));
    expect(prop.rig.primitives.map((p) => [p.material.metallicFactor, p.material.roughnessFactor])).toEqual(materials.map((m) => [m.metallic, m.roughness]));
    expect(prop.bounds.max[1] - prop.bounds.min[1]).toBeCloseTo(1, 5);
  });
});
