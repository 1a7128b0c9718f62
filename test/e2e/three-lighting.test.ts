/**
 * crowd-skin/three lit by three.js's scene, in headless Chromium with WebGPU on SwiftShader: two
 * pages of test/e2e/three-lighting/ on one dev server and one browser (a file each cost a worker,
 * a server and a browser again). Screenshots: test-results/e2e/three-lit-*.png, three-lights-*.png.
 *
 * Shading 'three' against three.js's own rendering of the same character (lit/): one Fox at clip
 * Walk, 0.3 s, in one scene (a ground receiving shadows, a directional light casting them, a
 * hemisphere light, ACES tone mapping), either with three's GLTFLoader + SkinnedMesh +
 * AnimationMixer or with a crowd drawn through three's pipeline; the two screenshots are compared
 * over the pixels the Fox and its shadow cover (where the reference differs from the empty scene,
 * grown by 2 pixels). Then the same comparison must fail for a made-up violation: the crowd's Fox
 * 0.25 s later in the clip, and the sun turned off. Every case is drawn on one page, one after
 * another (the page's `draw`).
 *
 * The two shadings under three's lights, in one scene (lights/): one Fox (Walk, 0.3 s) lit by a
 * DirectionalLight, a HemisphereLight, an AmbientLight and scene.environment, no tone mapping, on
 * black, drawn once with shading 'three' (three's MeshStandardNodeMaterial, three's own lights)
 * and once with shading 'crowd' (our skin pass, given the scene's lights by ThreeCrowdRenderer,
 * lights 'scene'). The two must agree within the materials comparison's tolerance
 * (materials/compare.ts); with the scene's lights ignored (lights 'own': the crowd's default
 * lights) they must not.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, collectProblems, launchBrowser, RESULTS_DIR, screenshot, startConfiguredServer } from './harness';
import { compare as compareShadings, MEAN_TOLERANCE, PIXEL_THRESHOLD, SHARE_TOLERANCE, withinTolerance, type Difference as ShadingDifference } from './materials/compare';
import { differenceMask, maskCount, type Image, type Mask } from './pixels';

const TEST_TIMEOUT = 400_000;
const WAIT = 180_000;
/** The lit/ page's size (CSS pixels, devicePixelRatio 1). */
const LIT_VIEWPORT = { width: 480, height: 360 };
/** The lights/ page's size. */
const LIGHTS_VIEWPORT = { width: 320, height: 240 };

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

const showShadings = (d: ShadingDifference) => `mean ${d.mean.toFixed(2)}, ${(d.share * 100).toFixed(2)}% of ${d.covered} pixels over ${PIXEL_THRESHOLD}`;

describe.skipIf(!chromiumAvailable())('crowd-skin/three under three\'s lights (headless Chromium)', () => {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    ({ server, baseUrl } = await startConfiguredServer('test/e2e/three-lighting/vite.config.ts'));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  describe("shading 'three' against three.js's SkinnedMesh (lit/)", () => {
    /** One page for every case (renderer, device and Fox kept: a page each took twice the CPU). */
    let shared: Promise<{ page: Page; problems: string[] }> | undefined;
    afterAll(async () => { await (await shared)?.page.close(); });
    function casePage(): Promise<{ page: Page; problems: string[] }> {
      shared ??= (async () => {
        const page = await browser!.newPage({ viewport: LIT_VIEWPORT });
        const problems = collectProblems(page);
        await page.goto(`${baseUrl}/lit/`);
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
      const image = await screenshot(page, `three-lit-${name}`, WAIT);
      expect(problems, `page ${query}`).toEqual([]);
      return image;
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

  describe("shading 'crowd' takes three's lights: it matches shading 'three' in one scene (lights/)", () => {
    /** The page with `query`: the Fox drawn by each shading in `which`, saved as three-lights-`name`-<shading>.png. */
    async function renderShadings(name: string, query: string, which: ('three' | 'crowd' | 'own')[]): Promise<Image[]> {
      const page = await browser!.newPage({ viewport: LIGHTS_VIEWPORT });
      const problems = collectProblems(page);
      try {
        await page.goto(`${baseUrl}/lights/?${query}`);
        await page.waitForFunction(() => document.body.dataset.ready === '1' || document.body.dataset.error !== undefined, undefined, { timeout: WAIT, polling: 100 });
        expect(await page.evaluate(() => document.body.dataset.error), `page ${query} failed`).toBeUndefined();
        const images: Image[] = [];
        for (const shading of which) {
          await page.evaluate((s) => (window as unknown as { show(s: string): Promise<void> }).show(s), shading);
          images.push(await screenshot(page, `three-lights-${name}-${shading}`, WAIT));
        }
        expect(problems, `page ${query}`).toEqual([]);
        return images;
      } finally {
        await page.close();
      }
    }

    it("both shadings alike under a sun, a hemisphere, an ambient light and scene.environment; not with the scene's lights ignored", async () => {
      // One page: the made-up violation ('own') is drawn there too, by a second ThreeCrowdRenderer made with { lights: 'own' }.
      const [three, crowd, own] = await renderShadings('scene', 'lights=scene', ['three', 'crowd', 'own']);
      const same = compareShadings(three, crowd);
      console.log(`three-lights: shading 'crowd' vs 'three' under the scene's lights: ${showShadings(same)}`);
      expect(same.covered / (LIGHTS_VIEWPORT.width * LIGHTS_VIEWPORT.height), 'the Fox covers too little of the view').toBeGreaterThan(0.08);
      expect(same.mean).toBeLessThanOrEqual(MEAN_TOLERANCE);
      expect(same.share).toBeLessThanOrEqual(SHARE_TOLERANCE);

      // The made-up violation: the crowd keeps its own (default) lights.
      const ignored = compareShadings(three, own);
      console.log(`three-lights violation: the scene's lights ignored (lights 'own'): ${showShadings(ignored)}`);
      expect(withinTolerance(ignored), "a crowd that ignores the scene's lights passed the comparison").toBe(false);
    }, 400_000);
  });
});
