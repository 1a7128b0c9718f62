import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/bake/errors';
import { modelFolderReader, readModelResource } from '../../tools/node-io';

// model/m.gltf with inside.bin beside it, outside.bin one folder up and a link to it inside.
const root = mkdtempSync(join(tmpdir(), 'crowd-skin-node-io-'));
const model = join(root, 'model', 'm.gltf');
mkdirSync(join(root, 'model'));
writeFileSync(join(root, 'model', 'inside.bin'), Uint8Array.of(1, 2, 3));
writeFileSync(join(root, 'outside.bin'), Uint8Array.of(9));
symlinkSync(join(root, 'outside.bin'), join(root, 'model', 'link.bin'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('tools/node-io: model resources come from the model folder only', () => {
  it('reads a file beside the model and a data: uri', async () => {
    expect(Array.from(await readModelResource(model, 'inside.bin', 'buffer 0'))).toEqual([1, 2, 3]);
    expect(Array.from(await readModelResource(model, 'data:;base64,BwgJ', 'buffer 1'))).toEqual([7, 8, 9]);
  });

  it('refuses uris that leave the folder, other schemes and links out of it, naming the owner', async () => {
    await expect(readModelResource(model, '../outside.bin', 'buffer 2')).rejects.toThrow(/^buffer 2: uri "\.\.\/outside\.bin" leaves the model's folder/);
    await expect(readModelResource(model, 'file:///etc/hostname', 'image 0')).rejects.toThrow(/^image 0: uri "file:\/\/\/etc\/hostname" names a scheme/);
    await expect(readModelResource(model, 'link.bin', 'buffer 3')).rejects.toThrow(ModelError);
    await expect(readModelResource(model, 'link.bin', 'buffer 3')).rejects.toThrow(/leads outside the model's folder/);
  });

  it('the reader itself refuses a URL that is not a file in the folder, even if asked directly', async () => {
    const read = modelFolderReader(model);
    await expect(read(pathToFileURL(join(root, 'outside.bin')).href)).rejects.toThrow(/leads outside the model's folder/);
    await expect(read('https://example.com/x.bin')).rejects.toThrow(/is not a file beside the model; refused/);
  });
});
