import { describe, expect, it, vi } from 'vitest';
import { MeshoptDecoder } from '../../src/bake/meshopt-decoder';
import { ModelError } from '../../src/bake/errors';
import { readContainer } from '../../src/bake/glb';
import type { GltfJson } from '../../src/bake/gltf-json';
import { parseGltf } from '../../src/bake/parse';
import { loadCharacter, type Character } from '../../src/character/character';
import { loadClips } from '../../src/character/clips';
import { gltfpacked, gltfpackFiles, gltfTransformMeshopt, meshoptCompressed, worstPointSetGap, worstPoseGap } from '../helpers/compress';
import { arrayBufferOf, assetToGlb } from '../helpers/gltf-builder';
import { modelPath } from '../helpers/models';
import { readFileSync } from 'node:fs';

/**
 * EXT_meshopt_compression and KHR_meshopt_compression (src/bake/decode-meshopt.ts): files written
 * by gltf-transform (quantize + EXT_meshopt_compression) and gltfpack (-c, -cc, -cz, -cf) load
 * with meshoptimizer's decoder handed in and pose within the quantization's error (1e-3 of the
 * model's size) of the original; without it they are refused, naming the option and the package,
 * unless the file carries a fallback.
 */

const decoders = { meshopt: MeshoptDecoder };
const TOLERANCE = 1e-3;
const bytesOf = (path: string) => arrayBufferOf(new Uint8Array(readFileSync(path)));
const original = (name: string): Promise<Character> => loadCharacter(bytesOf(modelPath(name)));

describe('meshopt validity: what is refused, and how', () => {
  it('a file that requires EXT_meshopt_compression, without the decoder: the option and the package named', async () => {
    await expect(loadCharacter(await meshoptCompressed(modelPath('Fox')))).rejects.toThrow(
      /^the file requires extension EXT_meshopt_compression, which needs decoders: \{ meshopt: MeshoptDecoder \}, MeshoptDecoder from 'crowd-skin'$/);
  });

  it('gltfpack -cf, given as bytes without baseUrl and without the decoder: its fallback file cannot be read, and the message says what would skip it', async () => {
    const file = await gltfpacked(modelPath('Fox'), ['-c', '-cf']);
    await expect(loadCharacter(file.slice(0))).rejects.toThrow(/^buffer 1: .* \(a meshopt fallback: hand in decoders\.meshopt\)$/);
    expect((await loadCharacter(file, { decoders })).clipNames).toEqual((await original('Fox')).clipNames);
  });

  it("meshoptimizer's own decoder handed in directly: a TypeError saying what to hand in", async () => {
    const { MeshoptDecoder: raw } = await import('meshoptimizer/decoder');
    await expect(loadCharacter(await meshoptCompressed(modelPath('Fox')), { decoders: { meshopt: raw as never } })).rejects.toThrow(
      /^decoders\.meshopt must be crowd-skin's MeshoptDecoder, dracoDecoder\(module\) or ktx2Decoder\(module\)$/);
  });

  it('loadClips: a clips file compressed the same way is refused without the decoder, naming the file', async () => {
    await expect(loadClips(await meshoptCompressed(modelPath('Fox')))).rejects.toThrow(/^clips file 'clips0': the file requires extension EXT_meshopt_compression, which needs decoders: /);
  });

  /** Damaged compressed data: a named ModelError every time, or (where the damage decodes) finite values; never another error or NaN. */
  it('a truncated or corrupted compressed bufferView is a named ModelError, never a crash inside the decoder or NaN', async () => {
    const container = readContainer(await gltfpacked(modelPath('Fox'), ['-cc']));
    const asset = { json: container.json as GltfJson, buffers: [container.bin!], images: [] };
    const views = asset.json.bufferViews!.map((view, i) => ({ i, ext: (view.extensions?.EXT_meshopt_compression as { byteOffset: number; byteLength: number } | undefined) })).filter((v) => v.ext);
    expect(views.length).toBeGreaterThan(3);
    const outcomes = new Set<string>();
    for (const [k, { i, ext }] of views.entries()) {
      for (const damage of ['truncate', 'corrupt'] as const) {
        const broken = structuredClone(asset.json);
        const bin = asset.buffers[0].slice();
        const e = broken.bufferViews![i].extensions!.EXT_meshopt_compression as { byteLength: number; byteOffset: number };
        if (damage === 'truncate') e.byteLength = Math.floor(ext!.byteLength / 2);
        else for (let b = 0; b < ext!.byteLength; b += 7) bin[ext!.byteOffset + b] ^= 0x5a + k;
        try {
          const character = await loadCharacter(arrayBufferOf(assetToGlb({ json: broken, buffers: [bin], images: [] })), { decoders });
          for (const prim of character.rig.primitives) expect(prim.positions.every(Number.isFinite)).toBe(true);
          outcomes.add('loaded');
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(ModelError);
          if (damage === 'truncate') expect((error as Error).message).toMatch(new RegExp(`^bufferView ${i}: EXT_meshopt_compression: its data could not be decoded \\(.+\\); the file is damaged or truncated$`));
          outcomes.add('refused');
        }
      }
    }
    expect(outcomes.has('refused')).toBe(true);
  });
});

describe('meshopt: files that load with the decoder handed in, posed within the quantization error of the original', () => {
  it.each(['CesiumMan', 'Fox', 'RobotExpressive', 'RiggedFigure'])('%s: gltf-transform quantize + EXT_meshopt_compression (vertices in order; CPU twin, every clip)', async (name) => {
    const [before, after] = await Promise.all([original(name), meshoptCompressed(modelPath(name)).then((file) => loadCharacter(file, { decoders }))]);
    expect(worstPoseGap(before, after)).toBeLessThan(TOLERANCE);
  });

  it('Fox: gltf-transform meshopt itself (vertices reordered, so as point sets)', async () => {
    const file = await gltfTransformMeshopt(modelPath('Fox'));
    expect(worstPointSetGap(await original('Fox'), await loadCharacter(file, { decoders }))).toBeLessThan(TOLERANCE);
  });

  it.each([['-c'], ['-cc'], ['-cz']])('Fox: gltfpack %s (KHR_meshopt_compression with -cz), as point sets', async (flag) => {
    const file = await gltfpacked(modelPath('Fox'), ['-af', '120', flag]);
    const asset = await parseGltf(file.slice(0), { decoders });
    expect(asset.json.extensionsUsed).toContain(flag === '-cz' ? 'KHR_meshopt_compression' : 'EXT_meshopt_compression');
    expect(worstPointSetGap(await original('Fox'), await loadCharacter(file, { decoders }))).toBeLessThan(TOLERANCE);
  });

  it('gltfpack -cf as a .gltf: without the decoder the fallback buffer is read; with it, the fallback file is never asked for', async () => {
    const files = await gltfpackFiles(modelPath('Fox'), ['-af', '120', '-c', '-cf'], 'out.gltf');
    const readResource = vi.fn(async (url: string) => {
      const file = files.get(url.split('/').pop()!);
      if (!file) throw new Error(`no ${url}`);
      return file.slice().buffer as ArrayBuffer;
    });
    const gltf = files.get('out.gltf')!.slice().buffer as ArrayBuffer;
    const before = await original('Fox');
    const plain = await loadCharacter(gltf.slice(0), { baseUrl: 'https://example.com/m/out.gltf', readResource });
    expect(readResource.mock.calls.map(([url]) => url)).toEqual(['https://example.com/m/out.bin', 'https://example.com/m/out.fallback.bin']);
    expect(worstPointSetGap(before, plain)).toBeLessThan(TOLERANCE);
    readResource.mockClear();
    const decoded = await loadCharacter(gltf.slice(0), { baseUrl: 'https://example.com/m/out.gltf', readResource, decoders });
    expect(readResource.mock.calls.map(([url]) => url)).toEqual(['https://example.com/m/out.bin']);
    expect(worstPointSetGap(before, decoded)).toBeLessThan(TOLERANCE);
  });

  it('loadClips: WalkerClips.glb compressed gives the same clips as the original', async () => {
    const path = modelPath('Walker').replace('Walker.glb', 'WalkerClips.glb');
    const [before, after] = await Promise.all([loadClips(bytesOf(path)), meshoptCompressed(path).then((file) => loadClips(file, { decoders }))]);
    expect(after.clipNames).toEqual(before.clipNames);
  });
});
