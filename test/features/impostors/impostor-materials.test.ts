import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { AtlasGrid, DEFAULT_IMPOSTOR_BUDGET } from '../../../src/features/impostors/impostor-atlas';
import { allUnlit, emissiveScale, hasOcclusion } from '../../../src/features/impostors/impostor-materials';
import { featureModelUrl } from '../../e2e/materials/feature-model';
import { gpuSuite } from '../../helpers/gpu-suite';
import { compare, drawFacing, loadDecoded, matches, quadsCharacter, type Quad } from '../../helpers/impostor-images';

/**
 * What the baked materials ask of the atlas (src/features/impostors/impostor-materials.ts) and
 * what the impostors then draw: alphaMode BLEND as its share of each texel, an unlit character
 * unlit, the emitted light and an occlusion map's share of the indirect light, each at the switch
 * against its mesh, with the mesh it was drawn as before as the made-up violation.
 */
const FOX_BOX = [-40.959, -7.316, -101.998, 37.388, 86.36, 82.866];

/** The materials test's sphere with an occlusion map: its primitive's and material's index in featureModelUrl. */
const OCCLUDED = 3;

/** The body: an opaque red quad, 1 x 1 model units. */
const BODY: Quad = [-0.5, 0, 0.5, 1, 0, 0];
const RED = { pbrMetallicRoughness: { baseColorFactor: [0.8, 0.2, 0.1, 1], metallicFactor: 0 } };

/**
 * The body with two cards 0.1 in front of it, each over a third of its width: one blue of alpha
 * 0.5 and one green of alpha 0 (a hair card's clear texels), both of alphaMode `cards`.
 */
function cardsOverBody(cards: 'BLEND' | 'OPAQUE'): Promise<Character> {
  return quadsCharacter([BODY, [-0.4, 0.2, -0.1, 0.8, 0.1, 1], [0.1, 0.2, 0.4, 0.8, 0.1, 2]], [
    RED,
    { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.3, 0.9, 0.5], metallicFactor: 0 }, alphaMode: cards },
    { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.9, 0.3, 0], metallicFactor: 0 }, alphaMode: cards },
  ]);
}

describe('impostor materials', () => {
  it('draws a character unlit only where every material baked is; emits at the most any material emits in a channel; takes an occlusion map\'s light; with the emissive-occlusion texture (4 bytes a texel) only then', () => {
    expect(allUnlit([{ unlit: true }, { unlit: true }])).toBe(true);
    expect(allUnlit([{ unlit: true }, { unlit: false }])).toBe(false);
    expect(allUnlit([])).toBe(false);
    expect(emissiveScale([{ emissiveFactor: [0, 0, 0] }])).toBe(0);
    expect(emissiveScale([{ emissiveFactor: [0.2, 0.6, 1] }, { emissiveFactor: [1.8, 0.4, 0] }])).toBe(1.8);
    expect(hasOcclusion([{ occlusionImage: undefined, occlusionStrength: 1 }, { occlusionImage: {} as never, occlusionStrength: 0.8 }])).toBe(true);
    expect(hasOcclusion([{ occlusionImage: {} as never, occlusionStrength: 0 }])).toBe(false);
    const dark = new AtlasGrid(3, FOX_BOX, 8192);
    const emitting = new AtlasGrid(3, FOX_BOX, 8192, {}, 256, { emissiveScale: 1.8 });
    const occluded = new AtlasGrid(3, FOX_BOX, 8192, {}, 256, { occlusion: true });
    expect([dark.emissiveOcclusion, dark.texelBytes, emitting.emissiveOcclusion, emitting.texelBytes, occluded.emissiveOcclusion, occluded.texelBytes]).toEqual([false, 9, true, 13, true, 13]);
    // The budget holds as many bytes: fewer texels a cell.
    expect(emitting.bytes).toBeLessThanOrEqual(DEFAULT_IMPOSTOR_BUDGET);
    expect(emitting.density).toBeLessThan(dark.density);
  });
});

describe('impostor materials (GPU)', () => {
  let device: GPUDevice | undefined;
  gpuSuite({ characters: [] }, (gpu) => { device = gpu.device; });

  it('bakes alphaMode BLEND as its share of each texel: cards blended over a body (half and fully clear) match their mesh at the switch, and baked opaque they do not', async (context) => {
    if (!device) return context.skip();
    const [impostor, mesh] = await drawFacing(device, await cardsOverBody('BLEND'), true);
    // Made-up violation: the cards baked opaque (BLEND was, before).
    const [opaque] = await drawFacing(device, await cardsOverBody('OPAQUE'), false);
    const here = compare(impostor, mesh);
    const baked = compare(opaque, mesh);
    console.log(`BLEND cards over a body at the switch: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside, ${here.union.toFixed(2)} over the union (baked opaque: ${baked.mesh.toFixed(2)}, ${baked.inside.toFixed(2)}, ${baked.union.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(500);
    expect(matches(impostor, mesh)).toBe(true);
    expect(here.mesh).toBeLessThanOrEqual(8);
    expect(baked.mesh).toBeGreaterThan(8);
  }, 60_000);

  it('draws an unlit character (KHR_materials_unlit) unlit: its impostor matches its mesh at the switch, and not the mesh of it lit', async (context) => {
    if (!device) return context.skip();
    const unlit = { ...RED, extensions: { KHR_materials_unlit: {} } };
    const [impostor, mesh] = await drawFacing(device, await quadsCharacter([BODY], [unlit]), true);
    const [litMesh] = await drawFacing(device, await quadsCharacter([BODY], [RED]), 'only');
    const here = compare(impostor, mesh);
    const lit = compare(impostor, litMesh);
    console.log(`unlit quad at the switch: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside (against the lit mesh: ${lit.mesh.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(500);
    expect(matches(impostor, mesh)).toBe(true);
    // Made-up violation: the lit mesh (what the impostor drew before) against this impostor.
    expect(lit.mesh).toBeGreaterThan(8);
  }, 60_000);

  it('adds the light an emissive character emits (emissiveFactor x KHR_materials_emissive_strength), at 1 and 4 samples: its impostor matches its mesh at the switch, and not the mesh that emits nothing', async (context) => {
    if (!device) return context.skip();
    // A dim red body whose cards glow (one at strength 2: over 1 in a channel, the texture's scale), over a third of it each.
    const glowing = (emits: boolean) => quadsCharacter([BODY, [-0.4, 0.2, -0.1, 0.8, 0.1, 1], [0.1, 0.2, 0.4, 0.8, 0.1, 2]], [
      { pbrMetallicRoughness: { baseColorFactor: [0.3, 0.05, 0.05, 1], metallicFactor: 0 } },
      { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.1, 0.1, 1], metallicFactor: 0 }, ...(emits ? { emissiveFactor: [0.2, 0.6, 1], extensions: { KHR_materials_emissive_strength: { emissiveStrength: 2 } } } : {}) },
      { pbrMetallicRoughness: { baseColorFactor: [0.1, 0.1, 0.1, 1], metallicFactor: 0 }, ...(emits ? { emissiveFactor: [0.9, 0.5, 0.1] } : {}) },
    ], emits ? ['KHR_materials_emissive_strength'] : []);
    for (const samples of [1, 4]) {
      const [impostor, mesh] = await drawFacing(device, await glowing(true), true, samples);
      const [dark] = await drawFacing(device, await glowing(false), 'only', samples);
      const here = compare(impostor, mesh);
      const none = compare(impostor, dark);
      console.log(`emissive cards at ${samples} sample(s): ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside (against the mesh emitting nothing: ${none.mesh.toFixed(2)}) of ${here.pixels} pixels`);
      expect(here.pixels).toBeGreaterThan(500);
      expect(here.mesh).toBeLessThanOrEqual(8);
      expect(here.inside).toBeLessThanOrEqual(8);
      // Made-up violation: the mesh emitting nothing (what the impostor drew before) against this impostor.
      expect(none.mesh).toBeGreaterThan(8);
    }
  }, 90_000);

  it('takes the occlusion map\'s share of the indirect light, as the mesh does: the materials test\'s occlusion sphere at the switch matches its mesh, and not the mesh without the map', async (context) => {
    if (!device) return context.skip();
    // The materials test's occlusion sphere (a checker occlusion map on TEXCOORD_1, strength 0.8) under the default sun and ambient.
    const gltf = JSON.parse(Buffer.from(featureModelUrl([OCCLUDED]).split(',')[1], 'base64').toString());
    const [impostor, mesh] = await drawFacing(device, await loadDecoded(gltf), true);
    delete gltf.materials[OCCLUDED].occlusionTexture;
    const [bright] = await drawFacing(device, await loadDecoded(gltf), 'only');
    const here = compare(impostor, mesh);
    const none = compare(impostor, bright);
    console.log(`occlusion sphere at the switch: ${here.mesh.toFixed(2)}/255 over the mesh's pixels, ${here.inside.toFixed(2)} inside (against the mesh without the map: ${none.mesh.toFixed(2)}) of ${here.pixels} pixels`);
    expect(here.pixels).toBeGreaterThan(500);
    expect(matches(impostor, mesh)).toBe(true);
    // Made-up violation: the mesh without its occlusion map (what the impostor drew before) against this impostor.
    expect(none.mesh).toBeGreaterThan(8);
  }, 60_000);
});
