import { describe, expect, it } from 'vitest';
import { loadCharacter } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import { ENVIRONMENT_LAYERS, ENVIRONMENT_SIZE, EnvironmentMap, resolveEnvironment, type EnvironmentData } from '../../src/runtime/environment-map';
import { featureModelUrl } from '../e2e/materials/feature-model';
import { openTestDevice, readBuffer } from '../helpers/gpu';
import { lookAt, renderCrowd } from '../helpers/render';

const device = await openTestDevice();

/** An equirectangular environment of `width` x `height` whose texel at (x, y) is colour(x, y) (linear RGB). */
function environment(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): EnvironmentData {
  const data = new Float32Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([...colour(x, y), 1], (y * width + x) * 4);
  return { width, height, data };
}

function fromHalf(h: number): number {
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  const value = exponent === 0 ? mantissa * 2 ** -24 : (1 + mantissa / 1024) * 2 ** (exponent - 15);
  return h & 0x8000 ? -value : value;
}

/** Every layer of `map` as linear RGBA floats, layer after layer, rows top to bottom. */
async function layers(map: EnvironmentMap): Promise<Float32Array> {
  const [width, height] = ENVIRONMENT_SIZE;
  const buffer = device!.createBuffer({ size: width * height * 8 * ENVIRONMENT_LAYERS, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  const encoder = device!.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture: map.texture }, { buffer, bytesPerRow: width * 8, rowsPerImage: height }, [width, height, ENVIRONMENT_LAYERS]);
  device!.queue.submit([encoder.finish()]);
  const halves = new Uint16Array(await readBuffer(device!, buffer));
  buffer.destroy();
  return Float32Array.from(halves, fromHalf);
}

const srgbToLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

describe('resolveEnvironment (lights.environment)', () => {
  it('takes none, float data with an intensity; names what is wrong', () => {
    expect(resolveEnvironment(undefined)).toBeUndefined();
    expect(resolveEnvironment(false)).toBeUndefined();
    const image = environment(4, 2, () => [1, 2, 3]);
    expect(resolveEnvironment({ image, intensity: 2 })).toEqual({ image, intensity: 2 });
    expect(resolveEnvironment({ image })!.intensity).toBe(1);
    expect(() => resolveEnvironment({ image, intensity: -1 })).toThrow('lights.environment.intensity must be a finite number >= 0, got -1');
    expect(() => resolveEnvironment({ image, intensity: 1e26 })).toThrow(/lights.environment.intensity must be at most 1e25 \(float32 on the GPU: skin.wgsl multiplies it by the map, up to 65504, colour and tint\), got 1e\+26/); // issue 41
    expect(() => resolveEnvironment({ image, strength: 1 })).toThrow('lights.environment.strength is not a field');
    expect(() => resolveEnvironment({ image: { width: 4, height: 2, data: new Float32Array(3) } })).toThrow('lights.environment.image.data must hold width x height x 4 = 32 floats, got 3');
    expect(() => resolveEnvironment({ image: { width: 0, height: 2, data: new Float32Array(0) } })).toThrow('lights.environment.image.width and height must be positive integers');
    expect(() => resolveEnvironment({ image: { width: 1, height: 1, data: new Float32Array([0, Number.NaN, 0, 1]) } })).toThrow('lights.environment.image.data[1] must be in [0, 65504)');
    expect(() => resolveEnvironment({ image: 'sky.png' })).toThrow('lights.environment.image must be an ImageBitmap, ImageData or { width, height, data: Float32Array }');
  });
});

describe.skipIf(!device)('EnvironmentMap (the prefiltered environment)', () => {
  it('a constant environment gives that colour x intensity in every layer', async () => {
    const map = new EnvironmentMap(device!, { image: environment(64, 32, () => [0.25, 0.5, 1]), intensity: 2 });
    const texels = await layers(map);
    map.destroy();
    let worst = 0;
    for (let i = 0; i < texels.length; i += 4) for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(texels[i + c] - [0.5, 1, 2][c]));
    expect(worst).toBeLessThan(1e-2);
  });

  it('keeps three.js\'s orientation: the top rows of the image light up (+y), and a rough layer blurs across the horizon', async () => {
    // Bright above the horizon (image rows 0..15 of 32), black below.
    const map = new EnvironmentMap(device!, { image: environment(64, 32, (_, y) => (y < 16 ? [1, 1, 1] : [0, 0, 0])), intensity: 1 });
    const texels = await layers(map);
    map.destroy();
    const [width, height] = ENVIRONMENT_SIZE;
    const at = (layer: number, x: number, y: number) => texels[((layer * height + y) * width + x) * 4];
    expect(at(0, 10, 2)).toBeCloseTo(1, 2); // up
    expect(at(0, 10, height - 3)).toBeCloseTo(0, 2); // down
    // Roughness 1 just above the horizon sees some of the black ground; just below, some of the sky.
    expect(at(5, 10, height / 2 - 2)).toBeGreaterThan(0.5);
    expect(at(5, 10, height / 2 - 2)).toBeLessThan(0.95);
    expect(at(5, 10, height / 2 + 1)).toBeGreaterThan(0.05);
  });

  it('lights a crowd: black without it, L-bounded with a constant environment L, switched by setLights', async () => {
    const bytes = Buffer.from(featureModelUrl([0]).split(',')[1], 'base64');
    const character = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const dark = { sun: { intensity: 0 }, ambient: false as const };
    const crowd = new Crowd(device!, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity: 1, lights: dark });
    const { min, max } = character.bounds;
    const centre: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
    const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const { viewProjection } = lookAt([centre[0], centre[1], centre[2] + size * 2], centre);
    crowd.add();
    crowd.update(0);
    const sum = (pixels: Uint8Array) => pixels.reduce((a, b, i) => a + (i % 4 === 3 ? 0 : b), 0);
    expect(sum(await renderCrowd(device!, crowd, viewProjection, 64))).toBe(0);

    const L = 0.5;
    crowd.setLights({ ...dark, environment: { image: environment(16, 8, () => [L, L, L]) } });
    const lit = await renderCrowd(device!, crowd, viewProjection, 64);
    // The dielectric sphere: base (0.8, 0.15, 0.1) x COLOR_0 (blue 1), roughness 0.3. Under a
    // constant L it reflects L x (specular albedo + base x (1 - specular albedo)): at most L
    // (white), at least the 4% the specular lobe reflects; blue at least (0.1 + 0.04 x 0.9) L.
    let drawn = 0;
    for (let i = 0; i < lit.length; i += 4) {
      if (lit[i + 3] === 0 || lit[i] + lit[i + 1] + lit[i + 2] === 0) continue;
      drawn++;
      const [r, g, b] = [0, 1, 2].map((c) => srgbToLinear(lit[i + c] / 255));
      for (const c of [r, g, b]) expect(c).toBeLessThanOrEqual(L * 1.02 + 0.01);
      expect(Math.min(r, g)).toBeGreaterThanOrEqual(0.04 * L * 0.9);
      expect(b).toBeGreaterThanOrEqual((0.1 + 0.036) * L * 0.9 - 0.01);
    }
    expect(drawn).toBeGreaterThan(100);

    // Intensity scales it; leaving it out drops it.
    crowd.setLights({ ...dark, environment: { image: environment(16, 8, () => [L, L, L]), intensity: 0 } });
    expect(sum(await renderCrowd(device!, crowd, viewProjection, 64))).toBe(0);
    crowd.setLights({ ...dark, environment: { image: environment(16, 8, () => [L, L, L]) } });
    expect(sum(await renderCrowd(device!, crowd, viewProjection, 64))).toBe(sum(lit));
    expect(() => crowd.setLights({ ...dark, environment: { image: environment(16, 8, () => [L, L, L]), intensity: -1 } })).toThrow('lights.environment.intensity');
    expect(sum(await renderCrowd(device!, crowd, viewProjection, 64))).toBe(sum(lit));
    crowd.setLights(dark);
    expect(sum(await renderCrowd(device!, crowd, viewProjection, 64))).toBe(0);
    crowd.destroy();
  });
});
