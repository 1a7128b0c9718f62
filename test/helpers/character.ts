import { readFileSync } from 'node:fs';
import { MeshoptSimplifier } from '../../src/bake/meshopt-simplifier';
import { loadCharacter, type Character } from '../../src/character/character';
import { figureRigModel } from './figure-rig';
import { arrayBufferOf, assetToGlb } from './gltf-builder';
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

let figure: Promise<Character> | undefined;

/**
 * The box figure of helpers/figure-rig.ts (two legs with a gap, a torso, an arm on a shoulder
 * joint; clips 'rest' and 'armOut') as a Character, loaded without options (no mesh LOD): the
 * picking tests' character. Loaded once a worker and shared read-only, as testCharacter's are.
 */
export function figureCharacter(): Promise<Character> {
  return (figure ??= loadCharacter(arrayBufferOf(assetToGlb(figureRigModel().builder.build()))));
}
