import { readFileSync } from 'node:fs';
import { loadCharacter, type Character } from '../../src/character/character';
import { modelPath } from './models';

const cache = new Map<string, Promise<Character>>();

/** A Character (parsed, validated, baked) of test model `name`, loaded from its bytes. */
export function testCharacter(name: string): Promise<Character> {
  let character = cache.get(name);
  if (!character) {
    const bytes = readFileSync(modelPath(name));
    character = loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    cache.set(name, character);
  }
  return character;
}
