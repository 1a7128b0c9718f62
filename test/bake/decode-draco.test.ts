import { describe, expect, it } from 'vitest';
import { dracoDecoder } from '../../src/bake/draco-decoder';
import { ModelError } from '../../src/bake/errors';
import { readContainer } from '../../src/bake/glb';
import type { GltfJson } from '../../src/bake/gltf-json';
import { loadCharacter, type Character } from '../../src/character/character';
import { loadClips } from '../../src/character/clips';
import { draco3dgltf, dracoCompressed, surfaceArea, worstPointSetGap } from '../helpers/compress';
import { arrayBufferOf, assetToGlb } from '../helpers/gltf-builder';
import { modelPath } from '../helpers/models';
import { readFileSync } from 'node:fs';

/**
 * KHR_draco_mesh_compression (src/bake/decode-draco.ts, handed in as dracoDecoder(module)):
 * files written by gltf-transform's Draco writer (edgebreaker, positions at 14 bits) load with a
 * decoder module from npm (draco3dgltf here) and pose within 1e-3 of the original's size (as
 * point sets: Draco merges and reorders vertices); without it they are refused naming the option.
 */

const module = await (await draco3dgltf()).createDecoderModule();
const decoders = { draco: dracoDecoder(module) };
const TOLERANCE = 1e-3;
const original = (name: string): Promise<Character> => loadCharacter(arrayBufferOf(new Uint8Array(readFileSync(modelPath(name)))));

describe('Draco validity: what is refused, and how', () => {
  it('a file that requires KHR_draco_mesh_compression, without the decoder: the option and the packages named', async () => {
    await expect(loadCharacter(await dracoCompressed(modelPath('RiggedFigure')))).rejects.toThrow(
      /^the file requires extension KHR_draco_mesh_compression, which needs decoders: \{ draco: dracoDecoder\(await createDecoderModule\(\)\) \}, dracoDecoder from 'crowd-skin', createDecoderModule from npm draco3d \(draco3dgltf in Node\)$/);
  });

  it('dracoDecoder refuses what is not a decoder module, saying what it is', async () => {
    const draco = await draco3dgltf();
    expect(() => dracoDecoder(draco.createDecoderModule)).toThrow(/^dracoDecoder\(module\): module is a function \(call it and await the module it resolves to\); pass what createDecoderModule\(\) of npm draco3d or draco3dgltf resolves to$/);
    const pending = draco.createDecoderModule();
    expect(() => dracoDecoder(pending)).toThrow(/module is a promise \(await it\)/);
    await pending;
    expect(() => dracoDecoder({})).toThrow(/module is not a Draco decoder module/);
  });

  /** Damaged compressed data: a named ModelError every time, or (where the damage decodes) finite values; never another error or NaN. */
  it('a truncated or corrupted Draco bufferView is a named ModelError, never a crash inside the decoder or NaN', async () => {
    const ownDecoders = { draco: dracoDecoder(await (await draco3dgltf()).createDecoderModule()) }; // an abort would leave its module unusable
    const container = readContainer(await dracoCompressed(modelPath('CesiumMan')));
    const json = container.json as GltfJson;
    const views = json.meshes!.flatMap((mesh) => mesh.primitives.map((p) => (p as { extensions?: Record<string, { bufferView: number }> }).extensions?.KHR_draco_mesh_compression?.bufferView)).filter((v) => v !== undefined);
    expect(views.length).toBeGreaterThan(0);
    let refused = 0;
    for (const view of views) {
      for (const damage of ['truncate', 'corrupt', 'zero'] as const) {
        const broken = structuredClone(json);
        const bin = container.bin!.slice();
        const v = broken.bufferViews![view];
        const start = v.byteOffset ?? 0;
        if (damage === 'truncate') v.byteLength = Math.floor(v.byteLength / 3);
        else if (damage === 'corrupt') for (let b = 16; b < v.byteLength; b += 5) bin[start + b] ^= 0xa5;
        else bin.fill(0, start + 8, start + v.byteLength);
        try {
          const character = await loadCharacter(arrayBufferOf(assetToGlb({ json: broken, buffers: [bin], images: [] })), { decoders: ownDecoders });
          for (const prim of character.rig.primitives) expect(prim.positions.every(Number.isFinite)).toBe(true);
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(ModelError);
          expect((error as Error).message).toMatch(/^mesh \d+ primitive \d+: KHR_draco_mesh_compression: |^mesh \d+ primitive \d+ /);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThanOrEqual(views.length);
  });
});

describe('Draco: files that load with the decoder handed in, posed within 1e-3 of the original (point sets)', () => {
  it.each(['CesiumMan', 'RiggedFigure', 'Walker'])('%s: gltf-transform Draco (every clip, CPU twin)', async (name) => {
    const [before, after] = await Promise.all([original(name), dracoCompressed(modelPath(name)).then((file) => loadCharacter(file, { decoders }))]);
    expect(worstPointSetGap(before, after)).toBeLessThan(TOLERANCE);
    // The same triangles over those points: the surface area within 1 %.
    expect(Math.abs(surfaceArea(after) / surfaceArea(before) - 1)).toBeLessThan(0.01);
  });

  it('loadClips reads a Draco-compressed file with the decoder handed in (and refuses it without)', async () => {
    const file = await dracoCompressed(modelPath('RiggedFigure'));
    await expect(loadClips(file.slice(0))).rejects.toThrow(/^clips file 'clips0': the file requires extension KHR_draco_mesh_compression/);
    expect((await loadClips(file, { decoders })).clipNames).toEqual((await original('RiggedFigure')).clipNames);
  });
});
