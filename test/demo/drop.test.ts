import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { droppedModel, isClipsOnly } from '../../demo/drop';
import { loadCharacter } from '../../src/character/character';
import { gltfpackFiles } from '../helpers/compress';
import { BUNDLED_MODELS, modelPath } from '../helpers/models';

/**
 * The demo's dropped files (demo/drop.ts), in Node: which file is the model, what is said when
 * there is none or two, and a .gltf dropped with its .bin (gltfpack's output, meshopt-compressed
 * with -cc) loads through the reader of the dropped files, as the page then loads it. The drop
 * event itself runs in the browser test (test/e2e/demo.test.ts).
 */

Object.assign(globalThis, { location: new URL('http://localhost:5173/?instances=10') });
const file = (name: string, bytes: Uint8Array | string) => new File([bytes as BlobPart], name);

describe('a drop: the model among the files, or what is wrong', () => {
  it('no .glb or .gltf, or two of them: a message naming the files', async () => {
    expect(await droppedModel([file('notes.txt', 'x'), file('skin.png', 'y')])).toBe('Cannot show notes.txt, skin.png: drop a .glb file, or a .gltf file together with its .bin and textures');
    expect(await droppedModel([file('a.glb', 'x'), file('b.GLTF', 'y')])).toBe('Drop one model at a time (got a.glb, b.GLTF)');
  });

  it('a .gltf with its .bin loads through the dropped files; one whose .bin was not dropped is an error naming the file', async () => {
    const files = await gltfpackFiles(modelPath('RiggedFigure'), ['-cc'], 'figure.gltf');
    const dropped = [...files].map(([name, bytes]) => file(name, bytes));
    const model = await droppedModel(dropped);
    if (typeof model === 'string') throw new Error(model);
    expect(model.name).toBe('figure.gltf');
    const { MeshoptDecoder } = await import('../../src/bake/meshopt-decoder');
    const load = (m: typeof model) => loadCharacter(m.source.file!.bytes, { baseUrl: m.source.file!.baseUrl, readResource: m.source.file!.readResource, decoders: { meshopt: MeshoptDecoder } });
    expect((await load(model)).clipNames).toEqual(['clip0']);
    const alone = await droppedModel(dropped.filter((f) => f.name.endsWith('.gltf')));
    if (typeof alone === 'string') throw new Error(alone);
    await expect(load(alone)).rejects.toThrow(/^buffer 0: could not read 'figure\.bin' \('figure\.bin' was not dropped with figure\.gltf; drop it together with the \.gltf\)$/);
  });

  it('a .vrm is a model; a file of clips only (no mesh) is told from a body, as the clips scene takes it', async () => {
    const walker = (name: string) => file(name, readFileSync(join(BUNDLED_MODELS, 'Walker', name)));
    const vrm = await droppedModel([file('avatar.vrm', readFileSync(join(BUNDLED_MODELS, 'Walker', 'WalkerVRoid.glb')))]);
    if (typeof vrm === 'string') throw new Error(vrm);
    expect([vrm.name, vrm.clipsOnly]).toEqual(['avatar.vrm', false]);
    for (const [name, clipsOnly] of [['WalkerClips.glb', true], ['WalkerClipsMixamo.glb', true], ['Walker.glb', false], ['WalkerBody.glb', false]] as const) {
      const dropped = await droppedModel([walker(name)]);
      if (typeof dropped === 'string') throw new Error(dropped);
      expect(dropped.clipsOnly, name).toBe(clipsOnly);
    }
    expect(isClipsOnly(new TextEncoder().encode('{"animations":[{}]}').buffer)).toBe(true); // a .gltf's text
    expect(isClipsOnly(new TextEncoder().encode('not a glTF').buffer)).toBe(false);
  });
});
