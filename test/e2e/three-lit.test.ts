/**
 * crowd-skin/three's shading 'three' against three.js's own rendering of the same character, in
 * headless Chromium with WebGPU on SwiftShader. test/e2e/three-lit/ draws one Fox at clip Walk,
 * 0.3 s, in one scene (a ground receiving shadows, a directional light casting them, a hemisphere
 * light, ACES tone mapping), either with three's GLTFLoader + SkinnedMesh + AnimationMixer or with
 * a crowd drawn through three's pipeline; the two screenshots are compared over the pixels the
 * Fox and its shadow cover (where the reference differs from the empty scene, grown by 2 pixels).
 * Then the same comparison must fail for a made-up violation: the crowd's Fox 0.25 s later in
 * the clip, and the sun turned off. Every case is drawn on one page, one after another (the
 * page's `draw`). Screenshots: test-results/e2e/three-lit-*.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, collectProblems, launchBrowser, RESULTS_DIR, startConfiguredServer } from './harness';
import { decode, differenceMask, maskCount, type Image, type Mask } from './pixels';

const VIEWPORT = { width: 480, height: 360 };
const TEST_TIMEOUT = 400_000;
const WAIT = 180_000;

/**
 * Tolerance, over the Fox-and-shadow region: a mean absolute difference (R, G, B averaged, 0-255)
 * of at most MEAN_LIMIT and at most SHARE_LIMIT of its pixels off by more than PIXEL_LIMIT. What
 * legitimately differs: our clips are baked (sampled at the bake rate and interpolated, where
 * the mixer interpolates the file's keys), which moves a silhouette by a pixel here and there,
 * and the edge pixels' anti-aliasing follows. Measured: see the log line; the violations below
 * (a quarter-second later in the walk, the sun off) are each many times over.
 */
const MEAN_LIMIT = 3;
const PIXEL_LIMIT = 24;
const SHARE_LIMIT = 0.03;
/** Mean limit for the default material, whose roughness differs from the file's (see its check; measured 2.2). */
const DEFAULT_MEAN_LIMIT = 4;

interface Difference { mean: number; share: number; pixels: number }

/** Difference of `a` and `b` over `mask`. */
function compare(a: Image, b: Image, mask: Mask): Difference {
  let sum = 0, over = 0, pixels = 0;
  for (let i = 0; i < mask.bits.length; i++) {
    if (!mask.bits[i]) continue;
    const o = i * 4;
    const dr = Math.abs(a.data[o] - b.data[o]), dg = Math.abs(a.data[o + 1] - b.data[o + 1]), db = Math.abs(a.data[o + 2] - b.data[o + 2]);
    sum += (dr + dg + db) / 3;
    if (Math.max(dr, dg, db) > PIXEL_LIMIT) over++;
    pixels++;
  }
  return { mean: sum / Math.max(1, pixels), share: over / Math.max(1, pixels), pixels };
}

/** `mask` grown by `radius` pixels (a square neighbourhood). */
function dilate(mask: Mask, radius: number): Mask {
  const { width, height } = mask;
  const bits = new Uint8Array(mask.bits.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask.bits[y * width + x]) continue;
      for (let dy = -radius; dy <= radius; dy++) {
        for (let dx = -radius; dx <= radius; dx++) {
          const u = x + dx, v = y + dy;
          if (u >= 0 && v >= 0 && u < width && v < height) bits[v * width + u] = 1;
        }
      }
    }
  }
  return { width, height, bits };
}

function within(d: Difference): boolean {
  return d.mean <= MEAN_LIMIT && d.share <= SHARE_LIMIT;
}

const show = (d: Difference) => `mean ${d.mean.toFixed(2)}, ${(d.share * 100).toFixed(2)}% over ${PIXEL_LIMIT}`;

describe.skipIf(!chromiumAvailable())("shading 'three' against three.js's SkinnedMesh (headless Chromium)", () => {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    ({ server, baseUrl } = await startConfiguredServer('test/e2e/three-lit/vite.config.ts'));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await (await shared)?.page.close();
    await browser?.close();
    await server?.close();
  });

  /** One page for every case (renderer, device and Fox kept: a page each took twice the CPU). */
  let shared: Promise<{ page: Page; problems: string[] }> | undefined;
  function casePage(): Promise<{ page: Page; problems: string[] }> {
    shared ??= (async () => {
      const page = await browser!.newPage({ viewport: VIEWPORT });
      const problems = collectProblems(page);
      await page.goto(`${baseUrl}/`);
      await page.waitForFunction(() => document.body.dataset.done === '1' || document.body.dataset.error !== undefined, undefined, { timeout: WAIT, polling: 100 });
      return { page, problems };
    })();
    return shared;
  }

  /** The page's frame for `query`, saved as three-lit-`name`.png. */
  async function render(name: string, query: string): Promise<Image> {
    const { page, problems } = await casePage();
    await page.evaluate((q) => (window as unknown as { draw(query: string): Promise<void> }).draw(q), query);
    const error = await page.evaluate(() => document.body.dataset.error);
    expect(error, `page ${query} failed`).toBeUndefined();
    const png = await page.screenshot({ timeout: WAIT });
    writeFileSync(`${RESULTS_DIR}/three-lit-${name}.png`, png);
    expect(problems, `page ${query}`).toEqual([]);
    return decode(png);
  }

  it('draws the Fox as three.js does (lit, shadowed, tone-mapped), and not at another time or with the sun off', async () => {
    const empty = await render('empty', 'mode=empty');
    const reference = await render('three', 'mode=three');
    const crowd = await render('crowd', 'mode=crowd');
    const region = dilate(differenceMask(reference, empty, 8), 2);
    const regionShare = maskCount(region) / (region.width * region.height);
    const same = compare(reference, crowd, region);
    console.log(`three-lit: Fox and shadow cover ${(regionShare * 100).toFixed(1)}% of the view; crowd vs three: ${show(same)}`);
    expect(regionShare, 'three drew no Fox').toBeGreaterThan(0.03);
    expect(same.mean, 'crowd vs three: mean difference').toBeLessThanOrEqual(MEAN_LIMIT);
    expect(same.share, 'crowd vs three: share of differing pixels').toBeLessThanOrEqual(SHARE_LIMIT);

    const later = compare(reference, await render('crowd-later', 'mode=crowd&t=0.55'), region);
    const dark = compare(reference, await render('crowd-sun-off', 'mode=crowd&sun=off'), region);
    console.log(`three-lit violations: 0.25 s later ${show(later)}; sun off ${show(dark)}`);
    // The default material (no `material`): the glTF base colour texture on a MeshStandardNodeMaterial of
    // roughness 1 (the loaded character carries no roughness factor yet; the file says 0.58), so only the
    // highlights may differ: looser, and it must still be the same Fox in the same light and shadow.
    const byDefault = compare(reference, await render('crowd-default-material', 'mode=crowd&material=default'), region);
    console.log(`three-lit: default material ${show(byDefault)}`);
    expect(byDefault.mean, 'the default material draws another Fox').toBeLessThanOrEqual(DEFAULT_MEAN_LIMIT);
    expect(within(later), 'a Fox 0.25 s later passed the comparison').toBe(false);
    expect(within(dark), 'a Fox without the sun passed the comparison').toBe(false);
  }, TEST_TIMEOUT);
});
