/**
 * glTF materials against three.js (docs/materials.md): each model is drawn by three.js
 * (GLTFLoader -> MeshStandardMaterial, WebGLRenderer, no tone mapping, sRGB output) and by
 * crowd-skin from the same camera, pose (first clip at time 0) and lights, in headless Chromium
 * on SwiftShader (test/e2e/materials/page.ts), and the two images are compared over the pixels
 * either one covers. Screenshots: test-results/e2e/materials-<model>-{three,crowd}.png.
 *
 * Tolerance (materials/compare.ts), per model: mean absolute difference <= MEAN_TOLERANCE (0-255 per channel) and at
 * most SHARE_TOLERANCE of the covered pixels differ by more than PIXEL_THRESHOLD in a channel.
 * Why not 0: three samples its 16 x 16 DFG table as a half-float texture, crowd-skin the same
 * numbers from a float32 WGSL array; textures are mipmapped by different code; the skinned positions come from baked float32 joint matrices (silhouette pixels
 * move by one), and three's WebGL 2 runs through ANGLE while crowd-skin runs on WebGPU.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightOptions } from '../../src/runtime/lights';
import { chromiumAvailable, collectProblems, launchBrowser, RESULTS_DIR, pageServerUrl } from './harness';
import { featureModelUrl, NORMAL_MAPPED } from './materials/feature-model';
import { compare, MEAN_TOLERANCE, PIXEL_THRESHOLD, SHARE_TOLERANCE, type Difference } from './materials/compare';
import { decode } from './pixels';

const MODELS = [
  '/models/Fox/Fox.glb', '/models/CesiumMan/CesiumMan.glb', '/models/RobotExpressive/RobotExpressive.glb', '/models/Walker/Walker.glb',
  '/test/models/RiggedSimple/RiggedSimple.glb', '/test/models/RiggedFigure/RiggedFigure.glb', '/test/models/SimpleSkin/SimpleSkin.gltf',
];

const available = chromiumAvailable();

describe.skipIf(!available)('glTF materials match three.js MeshStandardMaterial', () => {
  let browser: Browser | undefined;
  /** One page for every case (materials/page.ts keeps three's renderer and the WebGPU device); each case draws both canvases anew. */
  let page: Page;
  let problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const baseUrl = pageServerUrl();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 520, height: 260 } });
    problems = collectProblems(page);
    await page.goto(`${baseUrl}/test/e2e/materials/index.html`);
    await page.waitForFunction(() => document.body.dataset.ready === '1', undefined, { timeout: 120_000 });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  /**
   * Draws `model` both ways and compares the pictures; `threePng`: compare the crowd's picture with
   * this earlier three.js screenshot instead of drawing three's again (same model and view).
   */
  async function render(model: string, name: string, lights?: LightOptions, environment?: 'same' | 'rotated' | 'ignored', threePng?: Buffer): Promise<{ diff: Difference; problems: string[]; three: Buffer }> {
    const seen = problems.length;
    await page.evaluate(([url, l, e, t]) => (window as unknown as { renderBoth(u: string, l?: unknown, e?: unknown, t?: boolean): Promise<string[]> }).renderBoth(url as string, l ?? undefined, e ?? undefined, t as boolean),
      [model, lights ?? null, environment ?? null, threePng === undefined] as const);
    const three = threePng ?? await page.locator('#three').screenshot();
    const crowd = await page.locator('#crowd').screenshot();
    writeFileSync(`${RESULTS_DIR}/materials-${name}-three.png`, three);
    writeFileSync(`${RESULTS_DIR}/materials-${name}-crowd.png`, crowd);
    const diff = compare(decode(three), decode(crowd));
    console.log(`materials ${name}: mean |diff| ${diff.mean.toFixed(2)}, ${(diff.share * 100).toFixed(2)}% of ${diff.covered} covered pixels over ${PIXEL_THRESHOLD}`);
    return { diff, problems: problems.slice(seen), three };
  }

  /** Both pictures drawn, within the stated tolerance of each other, and a clean console. */
  function expectMatch({ diff, problems }: Awaited<ReturnType<typeof render>>): void {
    expect(diff.covered, 'nothing drawn').toBeGreaterThan(500);
    expect(diff.mean).toBeLessThanOrEqual(MEAN_TOLERANCE);
    expect(diff.share).toBeLessThanOrEqual(SHARE_TOLERANCE);
    expect(problems).toEqual([]);
  }

  for (const model of MODELS) {
    const name = model.split('/').at(-1)!.replace(/\.gl(b|tf)$/, '');
    it(`${name}: crowd-skin matches three.js`, async () => {
      expectMatch(await render(model, name));
    }, 300_000);
  }

  it('generated feature character (metal-rough, emissive, occlusion, TEXCOORD_1, samplers, normal maps with and without TANGENT, unlit, MASK, BLEND, doubleSided): crowd-skin matches three.js', async () => {
    expectMatch(await render(featureModelUrl(), 'features'));
  }, 300_000);

  // Each normal-mapped sphere alone, filling the picture: a mistake in one tangent frame (a flipped
  // bitangent, the map ignored) is diluted below the tolerance in the whole character's picture.
  for (const [frame, index] of Object.entries(NORMAL_MAPPED)) {
    it(`normal map, tangent frame from ${frame === 'tangents' ? 'TANGENT' : 'screen-space derivatives (no TANGENT)'}: crowd-skin matches three.js`, async () => {
      expectMatch(await render(featureModelUrl([index]), `normal-${frame}`));
    }, 300_000);
  }

  it('environment light (lights.environment vs scene.environment through PMREMGenerator) on the feature character: crowd-skin matches three.js; ignored or rotated 180 degrees it does not', async () => {
    const same = await render(featureModelUrl(), 'environment', undefined, 'same');
    expectMatch(same);
    // three's picture is the same for the violations (only the crowd's environment changes): drawn once, its PMREM prefilter is SwiftShader's slowest step here.
    for (const violation of ['ignored', 'rotated'] as const) {
      const { diff: wrong } = await render(featureModelUrl(), `environment-${violation}`, undefined, violation, same.three);
      expect(wrong.mean > MEAN_TOLERANCE || wrong.share > SHARE_TOLERANCE, violation).toBe(true);
    }
  }, 300_000);

  it('fails on a made-up violation: a sun 40% brighter than three.js is caught', async () => {
    const { diff } = await render('/models/Fox/Fox.glb', 'Fox-violation', { sun: { intensity: 0.65 * Math.PI * 1.4 } });
    expect(diff.mean > MEAN_TOLERANCE || diff.share > SHARE_TOLERANCE).toBe(true);
  }, 300_000);
});
