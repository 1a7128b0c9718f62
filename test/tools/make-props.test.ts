import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCharacter } from '../../src/character/character';
import { PROPS } from '../../tools/make-props';
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

  it('the Sword loads as a static mesh: one rigid one-joint skin, a primitive per material, no clips, no warnings, 1 unit long along +y', async () => {
    const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
    const sword = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    expect(sword.warnings).toEqual([]);
    expect(sword.clipNames).toEqual([]);
    expect(sword.jointNames).toEqual(['Sword']);
    expect(sword.rig.primitives.map((p) => p.material.baseColorFactor)).toEqual(SWORD_MATERIALS.map((m) => m.color));
    expect(sword.bounds.max[1] - sword.bounds.min[1]).toBeCloseTo(1, 5);
  });
});
