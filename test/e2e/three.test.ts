/**
 * End-to-end test of examples/three (crowd-skin/three in a three.js WebGPURenderer scene) in
 * headless Chromium with WebGPU on SwiftShader: the crowd is drawn and moves, nothing is logged
 * as an error, and depth is shared both ways: a three.js box in front of a Fox hides it, a box
 * behind it does not. Screenshots land in test-results/e2e/three-*.png for a person to look at.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { Mesh, PerspectiveCamera } from 'three/webgpu';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Crowd } from '../../src/index';
import { chromiumAvailable, collectProblems, launchBrowser, REPO_ROOT, RESULTS_DIR } from './harness';
import { decode, differenceMask, erode, maskCount, shareChanged, shareChangedIn, type Image } from './pixels';

const VIEWPORT = { width: 640, height: 400 };
const TEST_TIMEOUT = 300_000;
const WAIT = 120_000;

/** What examples/three/main.ts puts on window.threeExample. */
interface Example {
  camera: PerspectiveCamera;
  box: Mesh;
  crowd: Crowd;
  ids: Int32Array;
  scale: number;
  lift: number;
  frames: number;
  paused: boolean;
}

/** Where the Fox under test is, and the box: hidden, between it and the camera, or behind it. */
interface Arrangement { fox: 'here' | 'away'; box: 'hidden' | 'front' | 'behind' }

const available = chromiumAvailable();

describe.skipIf(!available)('three.js example (crowd-skin/three) in headless Chromium', () => {
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    server = await createServer({
      configFile: `${REPO_ROOT}examples/three/vite.config.ts`,
      appType: 'mpa',
      logLevel: 'warn',
      server: { port: 0, strictPort: false, hmr: false },
    });
    await server.listen();
    baseUrl = `http://127.0.0.1:${(server.httpServer!.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await (await shared)?.page.close();
    await browser?.close();
    await server?.close();
  });

  async function open(): Promise<{ page: Page; problems: string[] }> {
    const page = await browser!.newPage({ viewport: VIEWPORT });
    const problems = collectProblems(page);
    await page.goto(`${baseUrl}/`);
    return { page, problems };
  }

  /** Waits for `frames` more frames of the example's animation loop. */
  async function waitFrames(page: Page, frames: number): Promise<void> {
    const start = await page.evaluate(() => Number(document.body.dataset.frames ?? 0));
    await page.waitForFunction((n) => Number(document.body.dataset.frames ?? 0) >= n, start + frames, { timeout: WAIT, polling: 50 });
  }

  async function shot(page: Page, name: string): Promise<Image> {
    const png = await page.screenshot({ timeout: WAIT });
    writeFileSync(`${RESULTS_DIR}/three-${name}.png`, png);
    return decode(png);
  }

  /**
   * Pauses the crowd and looks from (0, 0.5, 10.5) m, just outside the rings and facing away from
   * them (so only ground and sky lie behind), at a Fox standing side-on at (0, 0, 14), or with that
   * Fox moved out of view. The box (2 m, scaled) is hidden, 1.3 to 2.3 m in front of the Fox, or
   * filling the view 1.5 to 4.5 m behind it.
   */
  async function arrange(page: Page, name: string, arrangement: Arrangement): Promise<Image> {
    await page.evaluate(({ fox, box }) => {
      const example = (window as unknown as { threeExample: Example }).threeExample;
      example.paused = true;
      example.camera.position.set(0, 0.5, 10.5);
      example.camera.lookAt(0, 0.4, 14);
      if (fox === 'here') example.crowd.setPlacement(example.ids[0], 0, example.lift, 14, Math.PI / 2, example.scale);
      else example.crowd.setPlacement(example.ids[0], 0, example.lift, -100, 0, example.scale);
      example.box.visible = box !== 'hidden';
      if (box === 'front') {
        example.box.position.set(0, 0.45, 12.2);
        example.box.scale.setScalar(0.5);
      } else if (box === 'behind') {
        example.box.position.set(0, 1, 17);
        example.box.scale.setScalar(1.5);
      }
    }, arrangement);
    await waitFrames(page, 2);
    return shot(page, name);
  }

  /** One page of the example shared by the tests that look at it (loading and baking take a while). */
  let shared: Promise<{ page: Page; problems: string[] }> | undefined;
  function examplePage(): Promise<{ page: Page; problems: string[] }> {
    shared ??= open().then(async (opened) => {
      await waitFrames(opened.page, 3);
      return opened;
    });
    return shared;
  }

  it('draws the crowd in the three.js scene and animates it', async () => {
    const { page, problems } = await examplePage();
    expect(await page.evaluate(() => (window as unknown as { threeExample: Example }).threeExample.crowd.count)).toBe(100);
    const first = await shot(page, 'alive-1');
    await waitFrames(page, 2);
    const second = await shot(page, 'alive-2');
    // The camera and three's objects stand still: only walking Foxes change pixels.
    const changed = shareChanged(first, second, []);
    console.log(`three example: ${(changed * 100).toFixed(2)}% of pixels changed between frames`);
    expect(changed, 'picture did not change between frames: crowd missing or frozen').toBeGreaterThan(0.01);
    expect(await page.locator('#message').isHidden()).toBe(true);
    expect(problems).toEqual([]);
  }, TEST_TIMEOUT);

  it('shares depth with three.js: a box in front hides a Fox, a box behind it does not', async () => {
    const { page, problems } = await examplePage();
    const foxAlone = await arrange(page, 'fox', { fox: 'here', box: 'hidden' });
    const empty = await arrange(page, 'empty', { fox: 'away', box: 'hidden' });
    const boxFront = await arrange(page, 'box-front', { fox: 'here', box: 'front' });
    const boxFrontAlone = await arrange(page, 'box-front-empty', { fox: 'away', box: 'front' });
    const boxBehind = await arrange(page, 'box-behind', { fox: 'here', box: 'behind' });

    // The Fox's pixels, less one pixel of anti-aliased edge.
    const fox = erode(differenceMask(foxAlone, empty));
    const foxShare = maskCount(fox) / (VIEWPORT.width * VIEWPORT.height);
    const hidden = shareChangedIn(boxFront, boxFrontAlone, fox);
    const covered = shareChangedIn(foxAlone, boxFront, fox);
    const keptBehind = shareChangedIn(foxAlone, boxBehind, fox);
    const boxSeenBehind = shareChanged(foxAlone, boxBehind, []);
    console.log(`three depth: Fox covers ${(foxShare * 100).toFixed(1)}% of the view; box in front changes ${(covered * 100).toFixed(1)}% of it, ` +
      `leaves ${(hidden * 100).toFixed(2)}% unlike the box alone; box behind changes ${(keptBehind * 100).toFixed(2)}% of it and ${(boxSeenBehind * 100).toFixed(1)}% of the view`);
    expect(foxShare, 'the Fox under test is not drawn').toBeGreaterThan(0.02);
    expect(covered, 'a box in front of the Fox did not cover it').toBeGreaterThan(0.9);
    expect(hidden, 'the Fox shows through a box in front of it').toBeLessThan(0.005);
    expect(keptBehind, 'a box behind the Fox covered it').toBeLessThan(0.005);
    expect(boxSeenBehind, 'the box behind the Fox is not visible around it').toBeGreaterThan(0.2);
    expect(problems).toEqual([]);
  }, TEST_TIMEOUT);

  it('says what is wrong when three falls back to WebGL 2', async () => {
    const fallback = await browser!.newPage({ viewport: VIEWPORT });
    // Without navigator.gpu, WebGPURenderer.init() picks three's WebGL 2 backend.
    await fallback.addInitScript(() => Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined }));
    await fallback.goto(`${baseUrl}/`);
    const message = fallback.locator('#message');
    await message.waitFor({ state: 'visible', timeout: WAIT });
    expect(await message.textContent()).toMatch(/crowd-skin\/three: the renderer runs three's WebGL 2 fallback backend/);
    await shot(fallback, 'webgl-fallback');
    await fallback.close();
  }, TEST_TIMEOUT);
});
