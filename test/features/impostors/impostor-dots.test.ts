import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../../src/features/impostors/impostor-atlas';
import { CrowdPicking } from '../../../src/features/picking/crowd-picking';
import { distanceForPixels, projectionScale } from '../../../src/runtime/culling/cull-math';
import { Crowd } from '../../../src/runtime/crowd';
import { readBuffer } from '../../helpers/gpu';
import { gpuSuite } from '../../helpers/gpu-suite';
import { IMPOSTOR_TARGETS } from '../../helpers/impostor-camera';
import { settlePick } from '../../helpers/picking';
import { lookAt, renderCrowd } from '../../helpers/render';

const SIZE = 256;
const SIDE = 28;
/** The framing sphere's span on screen at the grid's centre, pixels: under dotPixels 3 (dots). */
const SPAN = 2.4;

/** An 8-bit sRGB value as linear light in [0, 1]. */
const linear = (v: number) => { const c = v / 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };

/**
 * Lit pixels (anything over the black clear), their mean colour as linear light (the crowd's
 * target holds sRGB-encoded values: a dot shows its cell's mean light, encoded, where the meshes'
 * pixels each encode one point's, and the encoding is concave), and the image's summed linear light.
 */
function lit(pixels: Uint8Array): { count: number; mean: [number, number, number]; sum: number } {
  let count = 0, sum = 0;
  const mean: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < pixels.length; i += 4) {
    const s = pixels[i] + pixels[i + 1] + pixels[i + 2];
    if (s === 0) continue;
    count++;
    for (let c = 0; c < 3; c++) {
      mean[c] += linear(pixels[i + c]);
      sum += linear(pixels[i + c]);
    }
  }
  return { count, mean: mean.map((m) => m / Math.max(count, 1)) as [number, number, number], sum };
}

describe('impostor dots (GPU): the farthest impostors as points, lighting the pixels the meshes would', () => {
  let device: GPUDevice | undefined;
  let fox: Character;
  gpuSuite({ characters: ['Fox'] }, (gpu) => { device = gpu.device; fox = gpu.characters.Fox; });

  /** SIDE x SIDE Foxes, each at its own clip time and heading, seen from 37.5 degrees up so far that each framing sphere spans about SPAN pixels (an atlas of 3 rows, 8 azimuths, 4 frames, small cells). */
  async function field(dotPixels: number, samples = 1) {
    const crowd = new Crowd(device!, fox, { ...IMPOSTOR_TARGETS, sampleCount: samples });
    const impostors = new CrowdImpostors(crowd, { clips: ['Walk'], frames: 4, azimuths: 8, elevations: 3, cellSize: 32, dotPixels, band: 0 });
    const { centre, radius } = boxSphere(impostors.atlas.box);
    // Apart (6 radii): a pixel lit by two Foxes would count once for the meshes, twice for the dots.
    const spacing = 6 * radius;
    const ids: number[] = [];
    for (let i = 0; i < SIDE * SIDE; i++) {
      const x = (i % SIDE - (SIDE - 1) / 2) * spacing, z = (Math.floor(i / SIDE) - (SIDE - 1) / 2) * spacing;
      const [c, s] = [Math.cos(i * 1.4), Math.sin(i * 1.4)];
      ids.push(crowd.add({ transform: [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, x, 0, z, 1], clipA: 'Walk', timeA: (i % 7) * 0.11, speedA: 0 }));
    }
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: 0.5 });
    const d = distanceForPixels(2 * radius, SPAN, projectionScale(probe.viewProjection), SIZE);
    // On the atlas's middle elevation row (37.5 degrees).
    const e = (37.5 * Math.PI) / 180;
    const target: [number, number, number] = [centre[0], centre[1], centre[2]];
    const camera = lookAt([target[0], target[1] + Math.sin(e) * d, target[2] + Math.cos(e) * d], target, { fovY: 0.5, near: d / 4, far: 4 * d });
    crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: SIZE });
    crowd.update(0);
    await impostors.bake();
    crowd.update(0);
    const pixels = await renderCrowd(device!, crowd, camera.viewProjection, SIZE, samples);
    const stats = await crowd.readCullStats();
    return { crowd, impostors, pixels, stats, camera, ids };
  }

  /**
   * The same field drawn with meshes at full detail (its impostors turned off, then on again): the
   * reference. The coarsest LOD level, which the distance picks, has lost parts of the outline
   * (136 pixels at level 0, 116 at the distance's level, in this field).
   */
  async function meshImage(f: Awaited<ReturnType<typeof field>>, samples = 1): Promise<Uint8Array> {
    f.impostors.enabled = false;
    f.crowd.forceLodLevel(0);
    f.crowd.update(0);
    const pixels = await renderCrowd(device!, f.crowd, f.camera.viewProjection, SIZE, samples);
    f.crowd.forceLodLevel(undefined);
    f.impostors.enabled = true;
    return pixels;
  }

  it('every far Fox is one dot, one vertex; their pixels and colour match the meshes\', and a pick finds the Fox', async (context) => {
    if (!device) return context.skip();
    const n = SIDE * SIDE;
    const quads = await field(0);
    expect(quads.stats.dots, 'dotPixels 0: no dots').toBe(0);
    expect(quads.stats.vertices).toBe(6 * n);
    const dots = await field(3);
    expect(dots.impostors.dotPixels).toBe(3);
    expect(dots.stats.dots, 'every Fox a dot').toBe(n);
    expect(dots.stats.perLevel.at(-1), 'dots counted in the impostor level').toBe(n);
    expect(dots.stats.visible).toBe(n);
    expect(dots.stats.vertices, 'a vertex a dot').toBe(n);
    const meshes = lit(await meshImage(dots));
    const p = lit(dots.pixels), q = lit(quads.pixels);
    console.log(`lit pixels: meshes ${meshes.count}, quads ${q.count}, dots ${p.count}; mean linear colour meshes ${meshes.mean.map((m) => m.toFixed(3))}, quads ${q.mean.map((m) => m.toFixed(3))}, dots ${p.mean.map((m) => m.toFixed(3))}`);
    // As many pixels as the meshes light (each dot its area's share, by its threshold): within a
    // tenth (measured 3%; the quads, thinned by their few march steps out here, 12% under).
    expect(meshes.count).toBeGreaterThan(n / 4);
    expect(Math.abs(p.count - meshes.count) / meshes.count).toBeLessThan(0.1);
    // Each lit pixel the light its cell sends on average: each channel's mean light within 8% of
    // the quads' (measured 6.4%; with the sun off, 0.3%). A fixed grid of taps, the same sample of a
    // cell for every dot, read 12% and fails.
    for (let c = 0; c < 3; c++) expect(Math.abs(p.mean[c] - q.mean[c]) / q.mean[c], `channel ${c}`).toBeLessThan(0.08);

    // The draw's vertex stage ran on the dots that light a sample alone (impostor-dots.ts): no two
    // share a pixel, so as many as the pixels lit (listing every dot, 784, fails).
    const listed = new Uint32Array(await readBuffer(device, (dots.impostors as unknown as { pass: { dots: { buffer: GPUBuffer } } }).pass.dots.buffer, 16));
    expect(listed[0], 'the dots listed').toBe(p.count);
    expect(listed.slice(1), 'one instance from vertex 0').toEqual(new Uint32Array([1, 0, 0]));

    // A pick through a dot's pixel finds a Fox whose centre projects within a pixel of it (SwiftShader
    // lights the pixel before a point half a pixel off), one in the empty corner nothing.
    const picking = new CrowdPicking(dots.crowd);
    const { viewProjection } = dots.camera;
    let pixel = -1;
    for (let i = 0; i < SIZE * SIZE && pixel < 0; i++) if (dots.pixels[4 * i] + dots.pixels[4 * i + 1] + dots.pixels[4 * i + 2] > 0) pixel = i;
    const [x, y] = [pixel % SIZE, Math.floor(pixel / SIZE)];
    const hit = await settlePick(device, dots.crowd, picking.pickPointer(x + 0.5, y + 0.5, { viewProjection, width: SIZE, height: SIZE }));
    expect(hit, `a pick through the dot at (${x}, ${y}) found nothing`).not.toBeNull();
    const t = dots.crowd.getTransform(hit!.id);
    const { centre } = boxSphere(dots.impostors.atlas.box);
    const v = viewProjection, w = [t[12] + centre[0], t[13] + centre[1], t[14] + centre[2]];
    const clip = [0, 1, 3].map((r) => v[r] * w[0] + v[4 + r] * w[1] + v[8 + r] * w[2] + v[12 + r]);
    const at = [((clip[0] / clip[2]) * 0.5 + 0.5) * SIZE, (0.5 - (clip[1] / clip[2]) * 0.5) * SIZE];
    expect(Math.abs(at[0] - (x + 0.5)), `the picked Fox's centre is at ${at[0].toFixed(2)}, ${at[1].toFixed(2)}`).toBeLessThanOrEqual(1);
    expect(Math.abs(at[1] - (y + 0.5))).toBeLessThanOrEqual(1);
    expect(await settlePick(device, dots.crowd, picking.pickPointer(2.5, 2.5, { viewProjection, width: SIZE, height: SIZE })), 'a pick in the empty corner').toBeNull();
    for (const f of [quads, dots]) f.crowd.destroy();
  });

  it('at 4 samples a dot covers the samples its area takes: the image as bright as the meshes\'', async (context) => {
    if (!device) return context.skip();
    const dots = await field(3, 4);
    expect(dots.stats.dots).toBe(SIDE * SIDE);
    const meshes = lit(await meshImage(dots, 4)), p = lit(dots.pixels);
    console.log(`4 samples: summed linear light meshes ${meshes.sum.toFixed(1)}, dots ${p.sum.toFixed(1)}`);
    // Measured 1%.
    expect(Math.abs(p.sum - meshes.sum) / meshes.sum).toBeLessThan(0.05);
    dots.crowd.destroy();
  });
});
