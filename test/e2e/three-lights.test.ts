/**
 * The two shadings of crowd-skin/three under three's lights, in one scene, in headless Chromium
 * with WebGPU on SwiftShader: test/e2e/three-lights/ lights one Fox (Walk, 0.3 s) with a
 * DirectionalLight, a HemisphereLight, an AmbientLight and scene.environment, no tone mapping, on
 * black, and draws it once with shading 'three' (three's MeshStandardNodeMaterial, three's own
 * lights) and once with shading 'crowd' (our skin pass, given the scene's lights by
 * ThreeCrowdRenderer, lights 'scene'). The two must agree within the materials comparison's
 * tolerance (materials/compare.ts); with the scene's lights ignored (lights 'own': the crowd's
 * default lights) they must not. Screenshots: test-results/e2e/three-lights-*.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, collectProblems, launchBrowser, RESULTS_DIR, startConfiguredServer } from './harness';
import { compare, MEAN_TOLERANCE, PIXEL_THRESHOLD, SHARE_TOLERANCE, withinTolerance, type Difference } from './materials/compare';
import { decode, type Image } from './pixels';

const VIEWPORT = { width: 320, height: 240 };
const WAIT = 180_000;

const show = (d: Difference) => `mean ${d.mean.toFixed(2)}, ${(d.share * 100).toFixed(2)}% of ${d.covered} pixels over ${PIXEL_THRESHOLD}`;

describe.skipIf(!chromiumAvailable())("shading 'crowd' takes three's lights: it matches shading 'three' in one scene (headless Chromium)", () => {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    ({ server, baseUrl } = await startConfiguredServer('test/e2e/three-lights/vite.config.ts'));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The page with `query`: the Fox drawn by each shading in `which`, saved as three-lights-`name`-<shading>.png. */
  async function render(name: string, query: string, which: ('three' | 'crowd' | 'own')[]): Promise<Image[]> {
    const page = await browser!.newPage({ viewport: VIEWPORT });
    const problems = collectProblems(page);
    try {
      await page.goto(`${baseUrl}/?${query}`);
      await page.waitForFunction(() => document.body.dataset.ready === '1' || document.body.dataset.error !== undefined, undefined, { timeout: WAIT, polling: 100 });
      expect(await page.evaluate(() => document.body.dataset.error), `page ${query} failed`).toBeUndefined();
      const images: Image[] = [];
      for (const shading of which) {
        await page.evaluate((s) => (window as unknown as { show(s: string): Promise<void> }).show(s), shading);
        const png = await page.screenshot({ timeout: WAIT });
        writeFileSync(`${RESULTS_DIR}/three-lights-${name}-${shading}.png`, png);
        images.push(decode(png));
      }
      expect(problems, `page ${query}`).toEqual([]);
      return images;
    } finally {
      await page.close();
    }
  }

  it("both shadings alike under a sun, a hemisphere, an ambient light and scene.environment; not with the scene's lights ignored", async () => {
    // One page: the made-up violation ('own') is drawn there too, by a second ThreeCrowdRenderer made with { lights: 'own' }.
    const [three, crowd, own] = await render('scene', 'lights=scene', ['three', 'crowd', 'own']);
    const same = compare(three, crowd);
    console.log(`three-lights: shading 'crowd' vs 'three' under the scene's lights: ${show(same)}`);
    expect(same.covered / (VIEWPORT.width * VIEWPORT.height), 'the Fox covers too little of the view').toBeGreaterThan(0.08);
    expect(same.mean).toBeLessThanOrEqual(MEAN_TOLERANCE);
    expect(same.share).toBeLessThanOrEqual(SHARE_TOLERANCE);

    // The made-up violation: the crowd keeps its own (default) lights.
    const ignored = compare(three, own);
    console.log(`three-lights violation: the scene's lights ignored (lights 'own'): ${show(ignored)}`);
    expect(withinTolerance(ignored), "a crowd that ignores the scene's lights passed the comparison").toBe(false);
  }, 400_000);
});
