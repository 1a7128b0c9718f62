import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRig } from '../../src/bake/build-rig';
import { ModelError } from '../../src/bake/errors';
import { parseGltf } from '../../src/bake/parse';
import { readGltfFile } from '../../tools/node-io';
import { arrayBufferOf, assetToGlb, skinnedModel, toGlb } from '../helpers/gltf-builder';
import { modelPath } from '../helpers/models';

/** The error parseGltf (then buildRig) rejects with, or undefined when the file loads. */
async function loadError(bytes: Uint8Array, baseUrl?: string): Promise<Error | undefined> {
  try {
    buildRig(await parseGltf(arrayBufferOf(bytes), { baseUrl }));
    return undefined;
  } catch (e) {
    return e as Error;
  }
}

async function expectLoadError(bytes: Uint8Array, message: RegExp, baseUrl?: string): Promise<void> {
  const error = await loadError(bytes, baseUrl);
  expect(error, 'the file loaded').toBeInstanceOf(ModelError);
  expect(error!.message).toMatch(message);
}

const model = () => skinnedModel().builder.build();
const glbOf = (mutate: (json: any) => void, withBin = true) => {
  const asset = model();
  const json = structuredClone(asset.json) as any;
  mutate(json);
  return toGlb(json, withBin ? asset.buffers[0] : undefined);
};

// A folder with a .gltf and a secret file next to (not inside) it, for uri tests through the Node reader.
const root = mkdtempSync(join(tmpdir(), 'crowd-skin-uri-'));
const folder = join(root, 'model');
mkdirSync(folder);
writeFileSync(join(root, 'secret.bin'), new Uint8Array(4096).fill(7));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes the minimal model as model/m.gltf with buffer 0 at `uri` (its bytes written to model/m.bin). */
function writeGltf(uri: string, extra: (json: any) => void = () => {}): string {
  const asset = model();
  writeFileSync(join(folder, 'm.bin'), asset.buffers[0]);
  const json = structuredClone(asset.json) as any;
  json.buffers[0].uri = uri;
  extra(json);
  const path = join(folder, 'm.gltf');
  writeFileSync(path, JSON.stringify(json));
  return path;
}

describe('parseGltf validity: the container', () => {
  it('names a .glb without the BIN chunk its first buffer needs (not all-zero meshes, not "times not increasing")', async () => {
    await expectLoadError(glbOf(() => {}, false), /^buffer 0: needs the \.glb's BIN chunk \(\d+ bytes\), but the file has none; it may be truncated$/);
    // Fox cut right after its JSON chunk, with the header length fixed to match: a well-formed .glb missing BIN.
    const fox = new Uint8Array(readFileSync(modelPath('Fox')));
    const jsonEnd = 20 + new DataView(fox.buffer, fox.byteOffset).getUint32(12, true);
    const cut = fox.slice(0, jsonEnd);
    new DataView(cut.buffer).setUint32(8, jsonEnd, true);
    await expectLoadError(cut, /^buffer 0: needs the \.glb's BIN chunk \(146668 bytes\), but the file has none/);
  });

  it('names a truncated Fox.glb at every chunk boundary instead of "Invalid typed array length"', async () => {
    const fox = new Uint8Array(readFileSync(modelPath('Fox')));
    const jsonLength = new DataView(fox.buffer, fox.byteOffset).getUint32(12, true);
    for (const cut of [10, 12, 16, 20, 21, 20 + jsonLength, 28 + jsonLength, 29 + jsonLength, 1000 + jsonLength, fox.byteLength - 1]) {
      await expectLoadError(fox.subarray(0, cut), /^the \.glb is truncated: /);
    }
  });

  it('names a BIN chunk shorter than buffer 0 declares', async () => {
    await expectLoadError(glbOf((j) => { j.buffers[0].byteLength += 100; }), /^buffer 0: the BIN chunk has \d+ bytes, the file declares \d+$/);
  });

  it('names a buffer without byteLength or uri in words (not "the file declares undefined")', async () => {
    await expectLoadError(glbOf((j) => { delete j.buffers[0].byteLength; }), /^buffer 0: byteLength is missing \(glTF requires it\)$/);
    await expectLoadError(glbOf((j) => { j.buffers.push({ byteLength: 4 }); }), /^buffer 1: has no uri \(only the first buffer of a \.glb may leave it out, to use the BIN chunk\)$/);
  });

  it('names a missing asset and JSON that is not an object (not "glTF v1 is not supported")', async () => {
    await expectLoadError(glbOf((j) => { delete j.asset; }), /^not a glTF 2\.0 file: it has no asset object/);
    await expectLoadError(toGlb([1, 2]), /^not a glTF file: its JSON is an array of 2, not an object$/);
    await expectLoadError(new TextEncoder().encode('null'), /^not a glTF file: its JSON is JSON null, not an object$/);
  });

  it('names bufferViews that are not a list (not "the file has undefined")', async () => {
    await expectLoadError(glbOf((j) => { j.bufferViews = { 0: j.bufferViews[0] }; }), /^bufferViews must be an array, but it is an object$/);
  });
});

describe('parseGltf validity: buffer and image uris stay in the model folder', () => {
  it('refuses ../../../../etc/hostname and other escapes through the Node reader, naming buffer and uri', async () => {
    for (const uri of ['../../../../etc/hostname', '../secret.bin', 'file:///etc/hostname', '%2e%2e/secret.bin', '/etc/hostname']) {
      await expect(readGltfFile(writeGltf(uri)), uri).rejects.toThrow(ModelError);
      await expect(readGltfFile(writeGltf(uri)), uri).rejects.toThrow(new RegExp(`^buffer 0: uri ${JSON.stringify(uri).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} (leaves the model's folder|names a scheme)`));
    }
  });

  it('refuses an image uri that leaves the folder (a ModelError, not a missing texture)', async () => {
    const path = writeGltf('m.bin', (j) => { j.images = [{ uri: '../secret.bin' }]; });
    await expect(readGltfFile(path)).rejects.toThrow(/^image 0: uri "\.\.\/secret\.bin" leaves the model's folder/);
  });

  it('refuses a symbolic link inside the folder that points outside it', async () => {
    symlinkSync(join(root, 'secret.bin'), join(folder, 'link.bin'));
    await expect(readGltfFile(writeGltf('link.bin'))).rejects.toThrow(/^buffer 0: could not read 'link\.bin' \(it leads outside the model's folder, to .*secret\.bin; refused\)$/);
  });

  it('reads buffers in the folder and its subfolders, and names one that is missing or short', async () => {
    expect(buildRig(await readGltfFile(writeGltf('m.bin'))).clips).toHaveLength(1);
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'sub', 'm.bin'), readFileSync(join(folder, 'm.bin')));
    expect(buildRig(await readGltfFile(writeGltf('sub/../sub/m.bin'))).clips).toHaveLength(1);
    await expect(readGltfFile(writeGltf('gone.bin'))).rejects.toThrow(/^buffer 0: could not read 'gone\.bin' \(ENOENT/);
    writeFileSync(join(folder, 'short.bin'), new Uint8Array(8));
    await expect(readGltfFile(writeGltf('short.bin'))).rejects.toThrow(/^buffer 0: 'short\.bin' has 8 bytes, the file declares \d+$/);
  });

  it('refuses the same uris in the browser loader (fetch), before anything is fetched', async () => {
    const fetched: string[] = [];
    const readResource = async (url: string) => { fetched.push(url); return new ArrayBuffer(0); };
    const json = structuredClone(model().json) as any;
    json.buffers[0].uri = '../../../../etc/hostname';
    const bytes = new TextEncoder().encode(JSON.stringify(json));
    await expect(parseGltf(arrayBufferOf(bytes), { baseUrl: 'https://example.com/models/m.gltf', readResource }))
      .rejects.toThrow(/^buffer 0: uri "\.\.\/\.\.\/\.\.\/\.\.\/etc\/hostname" leaves the model's folder \(it resolves to \/etc\/hostname\); refused$/);
    json.buffers[0].uri = 'https://evil.example/m.bin';
    await expect(parseGltf(arrayBufferOf(new TextEncoder().encode(JSON.stringify(json))), { baseUrl: 'https://example.com/models/m.gltf', readResource }))
      .rejects.toThrow(/names a scheme \(https:\)/);
    expect(fetched).toEqual([]);
  });
});

describe('parseGltf', () => {
  it('reads a .glb written from a built model to the same buffers and JSON', async () => {
    const asset = model();
    const parsed = await parseGltf(arrayBufferOf(assetToGlb(asset)));
    expect(Array.from(parsed.buffers[0])).toEqual(Array.from(asset.buffers[0]));
    expect(parsed.json.accessors).toEqual(asset.json.accessors);
  });

  it('reads .gltf data: buffers, and leaves an unreadable image out rather than failing', async () => {
    const path = writeGltf(`data:application/octet-stream;base64,${Buffer.from(model().buffers[0]).toString('base64')}`,
      (j) => { j.images = [{ uri: 'missing.png' }]; });
    const asset = await readGltfFile(path);
    expect(asset.images).toEqual([undefined]);
    expect(pathToFileURL(path).href).toMatch(/m\.gltf$/);
  });

  it('points a texture at the image its texture extension names: EXT_texture_webp, then EXT_texture_avif, then source (KHR_texture_basisu only through the KTX2 decoder, decode-ktx2.test.ts)', async () => {
    const ext = (source: number) => ({ source });
    const parsed = await parseGltf(arrayBufferOf(glbOf((j) => {
      j.images = [0, 1, 2, 3].map((i) => ({ uri: `data:image/png;base64,${Buffer.from([i]).toString('base64')}` }));
      j.textures = [
        { source: 0 },
        { source: 0, extensions: { EXT_texture_avif: ext(1) } },
        { source: 0, extensions: { EXT_texture_avif: ext(1), EXT_texture_webp: ext(2) } },
        { source: 0, extensions: { KHR_texture_basisu: ext(3), EXT_texture_webp: ext(2), EXT_texture_avif: ext(1) } },
        { extensions: { EXT_texture_webp: ext(2), KHR_materials_other: ext(1) } },
        { source: 0, extensions: 'not an object' },
      ];
    })));
    expect(parsed.json.textures!.map((t) => t.source)).toEqual([0, 1, 2, 2, 2, 0]);
    await expectLoadError(glbOf((j) => { j.textures = [{ extensions: { EXT_texture_webp: { source: 'x' } } }]; }), /^texture 0: source must be/);
  });

  it('loads a file that requires EXT_texture_webp (its only image a WebP): the material reads the WebP bytes, which the platform decodes', async () => {
    const webp = 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=='; // 1 x 1, lossless
    const bytes = glbOf((j) => {
      j.extensionsUsed = j.extensionsRequired = ['EXT_texture_webp'];
      j.images = [{ uri: `data:image/webp;base64,${webp}` }];
      j.textures = [{ extensions: { EXT_texture_webp: { source: 0 } } }];
      j.materials = [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }];
      j.meshes[0].primitives[0].material = 0;
    });
    const rig = buildRig(await parseGltf(arrayBufferOf(bytes)));
    const image = rig.primitives[0].material.baseColorImage!;
    expect(image.mimeType).toBe('image/webp');
    expect(Buffer.from(image.bytes).toString('base64')).toBe(webp);
  });
});
