import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readAccessor } from '../../src/bake/accessor';
import { ModelError } from '../../src/bake/errors';
import { MeshoptSimplifier } from '../../src/bake/meshopt-simplifier';
import { parseGltf } from '../../src/bake/parse';
import { attributeExpectations } from '../../src/bake/quantization';
import { loadCharacter, type Character } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import { gltfpacked, largestGap, modelSize, posedVertices, quantized, worstPointSetGap, worstPoseGap } from '../helpers/compress';
import { openTestDevice } from '../helpers/gpu';
import { LARGE_BUFFERS } from '../helpers/gpu-suite';
import { arrayBufferOf, assetToGlb } from '../helpers/gltf-builder';
import { modelPath, testModelNames } from '../helpers/models';
import { drawnPixels, lookAt, renderCrowd } from '../helpers/render';
import { captureVertices } from '../helpers/vertex-capture';

/**
 * KHR_mesh_quantization (src/bake/quantization.ts): every test and bundled character written by
 * `gltf-transform quantize` with its defaults (positions 14 bits) loads without a decoder and
 * poses within the quantization's own error of the original: 1e-3 of the model's size (a 14-bit
 * step is 6e-5 of the mesh's extent; normals at 10 bits are about 1e-3 off).
 */

// RecursiveSkeletons (2.7 s here) is left out: its size, not its rig, is what sets it apart.
const MODELS = [...testModelNames().filter((name) => name !== 'RecursiveSkeletons'), 'Mannequin', 'Walker'];
const TOLERANCE = 1e-3;

async function original(name: string): Promise<Character> {
  return loadCharacter(arrayBufferOf(new Uint8Array(readFileSync(modelPath(name)))), { baseUrl: new URL(`file://${modelPath(name)}`).href });
}

describe('KHR_mesh_quantization validity', () => {
  it('refuses integer positions in a file that does not list the extension, saying what would allow them', async () => {
    const asset = await parseGltf(await quantized(modelPath('Fox')));
    asset.json.extensionsUsed = asset.json.extensionsUsed!.filter((e) => e !== 'KHR_mesh_quantization');
    asset.json.extensionsRequired = asset.json.extensionsRequired!.filter((e) => e !== 'KHR_mesh_quantization');
    await expect(loadCharacter(arrayBufferOf(assetToGlb(asset)))).rejects.toThrow(
      /^mesh 0 primitive 0 POSITION \(accessor \d+\): componentType 512[23] \(normalized\) is not allowed here \(without KHR_mesh_quantization\)$/);
  });

  it('a quantized file truncated anywhere is a named ModelError, never another error or NaN', async () => {
    const file = new Uint8Array(await quantized(modelPath('CesiumMan')));
    for (let cut = 7; cut < 40; cut++) {
      const bytes = file.slice(0, Math.floor((file.byteLength * cut) / 40));
      await expect(loadCharacter(bytes.buffer)).rejects.toThrow(ModelError);
    }
  });

  it('refuses a componentType the extension does not allow (UNSIGNED_BYTE normals)', async () => {
    const asset = await parseGltf(await quantized(modelPath('CesiumMan')));
    const normal = asset.json.accessors![asset.json.meshes![0].primitives[0].attributes.NORMAL];
    normal.componentType = 5121;
    await expect(loadCharacter(arrayBufferOf(assetToGlb(asset)))).rejects.toThrow(/^mesh 0 primitive 0 NORMAL \(accessor \d+\): componentType 5121 \(normalized\) is not allowed here$/);
  });
});

describe('KHR_mesh_quantization: attribute types', () => {
  it('reads signed integers that are not normalized (BYTE positions) with their sign, as floats', () => {
    const asset = {
      json: { extensionsUsed: ['KHR_mesh_quantization'], accessors: [{ bufferView: 0, componentType: 5120, count: 2, type: 'VEC3' as const }], bufferViews: [{ buffer: 0, byteLength: 6 }] },
      buffers: [new Uint8Array(Int8Array.of(-3, 5, -128, 127, 0, -1).buffer)], images: [],
    };
    const read = readAccessor(asset, 0, 'POSITION', attributeExpectations(asset).position);
    expect(read.values).toBeInstanceOf(Float32Array);
    expect(Array.from(read.values)).toEqual([-3, 5, -128, 127, 0, -1]);
  });
});

describe('KHR_mesh_quantization: gltf-transform quantize (defaults) of every test and bundled character', () => {
  it.each(MODELS)('%s: loads with no decoder; poses (every clip, CPU twin) and bounds within 1e-3 of the size of the original', async (name) => {
    const [before, after] = await Promise.all([original(name), quantized(modelPath(name)).then((bytes) => loadCharacter(bytes))]);
    const size = modelSize(before);
    expect(worstPoseGap(before, after)).toBeLessThan(TOLERANCE);
    for (let c = 0; c < 3; c++) {
      expect(Math.abs(after.bounds.min[c] - before.bounds.min[c]) / size).toBeLessThan(TOLERANCE);
      expect(Math.abs(after.bounds.max[c] - before.bounds.max[c]) / size).toBeLessThan(TOLERANCE);
    }
    // The culling boxes come from joint-space spheres of the dequantized positions: they hold the
    // original's (within the error) and are not much larger (morph displacements are bounded
    // through the inverse bind matrices' norms, which now carry the dequantization scale).
    const [b, a] = [before.animationBounds.reach, after.animationBounds.reach];
    for (let c = 0; c < 3; c++) {
      expect((a[c] - b[c]) / size, `reach min ${c}`).toBeLessThan(TOLERANCE);
      expect((b[3 + c] - a[3 + c]) / size, `reach max ${c}`).toBeLessThan(TOLERANCE);
      expect((b[c] - a[c] + a[3 + c] - b[3 + c]) / size, `reach growth ${c}`).toBeLessThan(0.05);
    }
  });
});

describe('KHR_mesh_quantization: culling spheres and LOD errors in model units', () => {
  it('CesiumMan quantized: joint-space spheres within 1e-3 of the size of the original, mesh LOD errors within 5 %', async () => {
    const path = modelPath('CesiumMan');
    const lod = { simplifier: MeshoptSimplifier };
    const [before, after] = await Promise.all([loadCharacter(arrayBufferOf(new Uint8Array(readFileSync(path))), { lod }), quantized(path).then((bytes) => loadCharacter(bytes, { lod }))]);
    const size = modelSize(before);
    const spheres = [before.animationBounds.jointSpheres, after.animationBounds.jointSpheres];
    expect(spheres[1].length).toBe(spheres[0].length);
    expect(Math.max(...spheres[0].map((v, i) => Math.abs(v - spheres[1][i]))) / size).toBeLessThan(TOLERANCE);
    const errors = [before.lods!.errors, after.lods!.errors];
    expect(errors[0][3]).toBeGreaterThan(1e-3 * size); // levels that simplified something
    errors[0].forEach((e, l) => expect(Math.abs(errors[1][l] - e)).toBeLessThanOrEqual(0.05 * e));
  });
});

describe('KHR_mesh_quantization: gltfpack (integer positions; meshes merged and reordered)', () => {
  // gltfpack also resamples clips (30 Hz by default, off by up to 6e-3 of Fox's size on its own):
  // at 120 Hz its resampling stays under the tolerance, so the test sees the geometry.
  it.each(['Fox', 'RiggedFigure'])('%s: every posed vertex within 1e-3 of the size of the nearest original one, and back', async (name) => {
    const [before, after] = await Promise.all([original(name), gltfpacked(modelPath(name), ['-af', '120']).then((bytes) => loadCharacter(bytes))]);
    expect(worstPointSetGap(before, after)).toBeLessThan(TOLERANCE);
  });
});

const device = await openTestDevice(LARGE_BUFFERS);

describe.skipIf(!device)('KHR_mesh_quantization on the GPU (Dawn): the skin shader draws the quantized file where the CPU poses the original', () => {
  it('CesiumMan quantized: every vertex within 1e-3 of the model size', async () => {
    const [before, after] = await Promise.all([original('CesiumMan'), quantized(modelPath('CesiumMan')).then((bytes) => loadCharacter(bytes))]);
    const crowd = new Crowd(device!, after, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', lod: false });
    const request = { clipA: 0, timeA: 0.61 };
    const id = crowd.add({ ...request, clipB: 0, timeB: 0.61, speedA: 0, speedB: 0 });
    crowd.update(0);
    const gpu = await captureVertices(crowd, id);
    const all = new Float32Array(gpu.positions.reduce((n, p) => n + p.length, 0));
    gpu.positions.reduce((o, p) => { all.set(p, o); return o + p.length; }, 0);
    expect(largestGap(all, posedVertices(before, request)) / modelSize(before)).toBeLessThan(TOLERANCE);
    crowd.destroy();
  });

  it('CesiumMan quantized: the picture is the original\'s (pixels off by more than 8 of 255: under 1 % of those drawn)', async () => {
    const [before, after] = await Promise.all([original('CesiumMan'), quantized(modelPath('CesiumMan')).then((bytes) => loadCharacter(bytes))]);
    const { min, max } = before.bounds;
    const centre: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
    const camera = lookAt([centre[0] + 0.5, centre[1] + 0.15, centre[2] + 1.0], centre, { near: 0.05, far: 100 });
    const pictures = await Promise.all([before, after].map(async (character) => {
      const crowd = new Crowd(device!, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', lod: false });
      crowd.add({ clipA: 0, timeA: 0.61, clipB: 0, timeB: 0.61, speedA: 0, speedB: 0 });
      crowd.update(0);
      const pixels = await renderCrowd(device!, crowd, camera.viewProjection, 128);
      crowd.destroy();
      return pixels;
    }));
    const drawn = drawnPixels(pictures[0]);
    expect(drawn).toBeGreaterThan(128 * 128 * 0.15);
    let off = 0;
    for (let i = 0; i < pictures[0].length; i += 4) {
      if (Math.max(...[0, 1, 2].map((c) => Math.abs(pictures[0][i + c] - pictures[1][i + c]))) > 8) off++;
    }
    expect(off / drawn).toBeLessThan(0.01);
  });
});
