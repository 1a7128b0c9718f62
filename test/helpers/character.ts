import { readFileSync } from 'node:fs';
import { MeshoptSimplifier } from '../../src/bake/meshopt-simplifier';
import { loadCharacter, type Character } from '../../src/character/character';
import { modelPath } from './models';

const cache = new Map<string, Promise<Character>>();

/**
 * A Character (parsed, validated, baked) of test model `name`, loaded from its bytes with mesh
 * LOD levels (the simplifier handed in, as the demo loads its models): culling and draw tests
 * count on the levels.
 */
export function testCharacter(name: string): Promise<Character> {
  let character = cache.get(name);
  if (!character) {
    const bytes = readFileSync(modelPath(name));
    character = loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: { simplifier: MeshoptSimplifier } });
    cache.set(name, character);
  }
  return character;
}
