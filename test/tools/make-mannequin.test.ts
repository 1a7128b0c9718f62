import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCharacter } from '../../src/character/character';
import { buildMannequinGlb, MANNEQUIN_PARTS, MANNEQUIN_VARIANT_FILES, mannequinVariantPng } from '../../tools/mannequin/build';
import { BUNDLED_MODELS } from '../helpers/models';

/** The Mannequin (tools/make-mannequin.ts): the committed files are what the generator writes, and it loads with its four parts. */
describe('make-mannequin', () => {
  it('writes the committed public/models/Mannequin files byte for byte', async () => {
    const committed = readFileSync(join(BUNDLED_MODELS, 'Mannequin/Mannequin.glb'));
    expect(Buffer.from(await buildMannequinGlb()).equals(committed), 'Mannequin.glb is not what tools/make-mannequin.ts writes: run `npm run make-mannequin` and commit it').toBe(true);
    MANNEQUIN_VARIANT_FILES.forEach((file, i) => {
      expect(Buffer.from(mannequinVariantPng((i + 1) as 1 | 2)).equals(readFileSync(join(BUNDLED_MODELS, 'Mannequin', file))), file).toBe(true);
    });
  });

  it('loads without warnings: one primitive per part, named after its node, the body textured, the Walker\'s clips', async () => {
    const bytes = readFileSync(join(BUNDLED_MODELS, 'Mannequin/Mannequin.glb'));
    const mannequin = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    expect(mannequin.warnings).toEqual([]);
    expect(mannequin.rig.primitives.map((p) => p.nodeName)).toEqual(MANNEQUIN_PARTS.map((p) => p.name));
    expect(mannequin.rig.primitives.map((p) => p.material.baseColorImage !== undefined)).toEqual([true, false, false, false]);
    expect(mannequin.clipNames).toEqual(['Idle', 'WalkForward', 'RunForward']);
  });
});
