/**
 * crowd-skin/react's <CrowdSkin> (src/react/index.ts) in headless Chromium (WebGPU on
 * SwiftShader), through examples/react served from the repository's sources: the ring of Foxes is
 * drawn; mounting the app anew (every <CrowdSkin> unmounted, its crowd removed, the shared
 * ThreeCrowdRenderer disposed, then all made again) draws it again; unmounting stops the frames;
 * and the console stays clean throughout (a crowd removed after its renderer was disposed threw
 * here once: the made-up violation this was first shown to catch). The packed package's example,
 * its types and a click on a Fox are the install test's (install.test.ts). The same example
 * without navigator.gpu runs on three's WebGL 2 backend (shading 'three' there) and draws the ring
 * over as much of the view. Screenshots: test-results/e2e/react-*.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, collectProblems, launchBrowser, RESULTS_DIR, startConfiguredServer } from './harness';
import { decode, shareUnlike } from './pixels';

/** Small (a frame's cost on SwiftShader grows with its pixels); the checks are shares of the view. */
const VIEWPORT = { width: 320, height: 200 };
const WAIT = 240_000;
/** The Canvas's background (`<color attach="background">`, no tone mapping with `flat`). */
const BACKGROUND = [201, 211, 196];

interface Example { frames: number; remount(): void; unmount(): void }

/** The share of the view (less the text overlays) unlike the background: the Foxes and the box. */
async function drawn(page: Page, name: string): Promise<number> {
  const png = await page.screenshot({ timeout: WAIT });
  writeFileSync(`${RESULTS_DIR}/react-${name}.png`, png);
  const skip = await page.$$eval('#info, #selected', (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }));
  return shareUnlike(decode(png), BACKGROUND, skip);
}

/** Resolves once the example has counted `count` more frames. */
async function frames(page: Page, count: number): Promise<void> {
  const now = await page.evaluate(() => (window as unknown as { reactExample: Example }).reactExample.frames);
  await page.waitForFunction((n) => (window as unknown as { reactExample: Example }).reactExample.frames >= n, now + count, { timeout: WAIT, polling: 100 });
}

describe.skipIf(!chromiumAvailable())('crowd-skin/react: <CrowdSkin> in examples/react (headless Chromium)', () => {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    ({ server, baseUrl } = await startConfiguredServer('examples/react/vite.config.ts'));
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The share of the view drawn on WebGPU by the first test, for the WebGL 2 one to compare with. */
  let webgpuDrawn: number | undefined;

  it('draws the ring, draws it again after a remount, stops on unmount, with a clean console', async () => {
    const page = await browser!.newPage({ viewport: VIEWPORT });
    const problems = collectProblems(page);
    try {
      await page.goto(`${baseUrl}/`, { timeout: WAIT });
      await page.waitForFunction(() => (window as unknown as { reactExample?: Example }).reactExample !== undefined, undefined, { timeout: WAIT });
      await frames(page, 5);
      // The box alone is ~2% of the view; the twelve Foxes add ~6%.
      const first = await drawn(page, 'mounted');
      console.log(`react: ${(first * 100).toFixed(1)}% of the view drawn`);
      expect(first, 'no Foxes drawn').toBeGreaterThan(0.05);
      webgpuDrawn = first;

      await page.evaluate(() => (window as unknown as { reactExample: Example }).reactExample.remount());
      await frames(page, 5);
      const again = await drawn(page, 'remounted');
      expect(again, 'no Foxes drawn after a remount').toBeGreaterThan(0.05);

      await page.evaluate(() => (window as unknown as { reactExample: Example }).reactExample.unmount());
      const stopped = await page.evaluate(() => (window as unknown as { reactExample: Example }).reactExample.frames);
      await page.waitForTimeout(500);
      expect(await page.evaluate(() => (window as unknown as { reactExample: Example }).reactExample.frames), 'frames after unmount').toBe(stopped);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 400_000);

  it("draws the ring on three's WebGL 2 backend (navigator.gpu absent), as much of the view as on WebGPU", async () => {
    const page = await browser!.newPage({ viewport: VIEWPORT });
    const problems = collectProblems(page);
    try {
      // R3F's gl factory makes a WebGPURenderer; without navigator.gpu it runs three's WebGL 2 backend, and <CrowdSkin> draws there (shading 'three').
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined }));
      await page.goto(`${baseUrl}/`, { timeout: WAIT });
      await page.waitForFunction(() => (window as unknown as { reactExample?: Example }).reactExample !== undefined, undefined, { timeout: WAIT });
      await frames(page, 5);
      const gl = await drawn(page, 'webgl2');
      console.log(`react on WebGL 2: ${(gl * 100).toFixed(1)}% of the view drawn (WebGPU: ${((webgpuDrawn ?? NaN) * 100).toFixed(1)}%)`);
      // The box alone is ~2% of the view: the Foxes must be there. The two shadings light them alike (docs/three.md), so the share drawn is close.
      expect(gl, 'no Foxes drawn on WebGL 2').toBeGreaterThan(0.05);
      if (webgpuDrawn !== undefined) expect(Math.abs(gl - webgpuDrawn), 'the WebGL 2 ring covers another share of the view than the WebGPU one').toBeLessThan(0.02);
      expect(problems.filter((p) => !/WebGPU is not available, running under WebGL2 backend/.test(p))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 300_000);
});
