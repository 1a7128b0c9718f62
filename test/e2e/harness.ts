/**
 * Shared setup of the end-to-end tests: the run's page server on 127.0.0.1 serving the demo
 * (pageServerUrl), a Vite dev server for pages with a config of their own, and headless Chromium with WebGPU on SwiftShader (flags from WEBGPU-TESTING.md, section 3).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Locator, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, inject } from 'vitest';
import { drawing, heldFrames } from './held-frames';
import { decode, type Image } from './pixels';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHROMIUM = '/usr/bin/chromium';

/** All five WebGPU flags are needed; with fewer the first submit fails. */
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run',
  '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader',
];

/**
 * Whether the browser tests can run. Without Chromium they are skipped with a loud warning,
 * except under CI=true, where a missing browser is an error: CI must run them.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `${CHROMIUM} not found: install Debian's chromium package (see WEBGPU-TESTING.md)`;
  if (process.env.CI === 'true') throw new Error(`${message}. End-to-end tests must run under CI=true.`);
  console.warn(`\n!!! END-TO-END TESTS SKIPPED: ${message}\n`);
  return false;
}

/**
 * Vite's dependency cache for this test worker: two files' dev servers at once (vite.config.ts
 * runs two workers) must not re-optimise one folder under each other's feet.
 */
function workerCacheDir(): string {
  return `${REPO_ROOT}node_modules/.vite-test-${process.env.VITEST_POOL_ID ?? '0'}`;
}

/**
 * The address of the run's page server (test/helpers/page-server.ts, vitest's global setup): the
 * demo and the test pages (gl-skin, materials, pose-page), built once a run and served statically
 * to every file; any other path is the repository's file (public/'s models, test/models/,
 * test-results/). Measured, against a Vite dev server per file: docs/testing.md.
 */
export function pageServerUrl(): string {
  return inject('pageServer');
}

/** A Vite dev server for a page with its own config (`configFile`, from the repo root: the three.js pages), on a free port. */
export async function startConfiguredServer(configFile: string): Promise<{ server: ViteDevServer; baseUrl: string }> {
  const server = await createServer({
    configFile: `${REPO_ROOT}${configFile}`,
    appType: 'mpa',
    logLevel: 'warn',
    server: { port: 0, strictPort: false, hmr: false },
    cacheDir: workerCacheDir(),
  });
  await server.listen();
  return { server, baseUrl: `http://127.0.0.1:${(server.httpServer!.address() as AddressInfo).port}` };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Console errors, WebGPU/validation warnings and uncaught exceptions of a page. */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    const text = message.text();
    const type = message.type();
    if (type === 'error' || (type === 'warning' && /webgpu|validation/i.test(text))) problems.push(`console.${type}: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return problems;
}

/** page.waitForFunction while the page draws (drawing), polling every 100 ms. */
export function waitDrawing<A>(page: Page, predicate: (arg: A) => unknown, arg: A, timeout = 120_000): Promise<unknown> {
  return drawing(page, () => page.waitForFunction(predicate as (arg: unknown) => unknown, arg, { timeout, polling: 100 }));
}

/** Waits until #stats says at least `frames` frames were rendered (SwiftShader is slow). */
export async function waitForFrames(page: Page, frames: number, timeout = 120_000): Promise<number> {
  await waitDrawing(page, (n) => Number(document.getElementById('stats')?.dataset.frames ?? 0) >= n, frames, timeout);
  return statNumber(page, 'frames');
}

export async function stat(page: Page, key: string): Promise<string | undefined> {
  return page.evaluate((k) => document.getElementById('stats')?.dataset[k], key);
}

export async function statNumber(page: Page, key: string): Promise<number> {
  return Number(await stat(page, key));
}

/**
 * Waits until the crowd shows `instances` instances (model loaded and populated) and then
 * `frames` more frames were rendered. Returns the frame count reached.
 */
export async function waitForCrowd(page: Page, instances: number, frames = 3, timeout = 180_000): Promise<number> {
  return drawing(page, async () => {
    await page.waitForFunction((n) => document.getElementById('stats')?.dataset.instances === String(n), instances, { timeout, polling: 100 });
    const start = await statNumber(page, 'frames');
    return waitForFrames(page, start + frames, timeout);
  });
}

/** Where screenshots go (gitignored) so a human can look at them. */
export const RESULTS_DIR = `${REPO_ROOT}test-results/e2e`;

/** `page.screenshot` (waiting at most `timeout` ms) saved as test-results/e2e/<name>.png, and decoded. */
export async function screenshot(page: Page, name: string, timeout: number): Promise<Image> {
  const png = await page.screenshot({ timeout });
  writeFileSync(`${RESULTS_DIR}/${name}.png`, png);
  return decode(png);
}

/** The demo panel's (lil-gui) controller row labelled `label`. */
export function panelControl(page: Page, label: string): Locator {
  return page.locator('.lil-gui .lil-controller').filter({ has: page.locator('.lil-name', { hasText: label }) });
}

export interface Rect { x: number; y: number; width: number; height: number }

/**
 * Rectangles of the elements `selector` matches (visible or not), in screenshot pixels: CSS
 * pixels times the page's devicePixelRatio (demoSession's pages have 0.5).
 */
export async function elementRects(page: Page, selector: string): Promise<Rect[]> {
  return page.evaluate((s) => [...document.querySelectorAll(s)].map((e) => {
    const r = e.getBoundingClientRect();
    const k = window.devicePixelRatio;
    return { x: r.x * k, y: r.y * k, width: r.width * k, height: r.height * k };
  }), selector);
}

/** Rectangles of the DOM overlays (stats, panel, message) in screenshot pixels, left out of pixel checks. */
export function overlayRects(page: Page): Promise<Rect[]> {
  return elementRects(page, '#stats, .lil-gui.lil-root, #message:not([hidden])');
}

/**
 * Device pixels per CSS pixel of demoSession's pages: the layout (panel, overlays, where a click
 * lands) is the viewport's, the canvas and the screenshots have a quarter of its pixels. Measured
 * on SwiftShader (the demo, 9 Foxes, 960 x 600 CSS): 3 frames and a screenshot took 12.8 s at
 * 1 and 2.3 s at 0.5; every frame's sky, grid, shadow lookups and MSAA resolve cost go with
 * pixels, and page.screenshot waits for a frame.
 */
export const DEMO_PIXEL_SCALE = 0.5;

/**
 * A page whose canvas follows DEMO_PIXEL_SCALE. Chromium's device-scale emulation still reports
 * CSS-sized device-pixel-content boxes to ResizeObserver, so the init script hides that box and
 * the demo's fallback (demo/renderer.ts trackCanvasSize: CSS box times devicePixelRatio) sizes it.
 */
export async function scaledPage(browser: Browser, viewport: { width: number; height: number }, scale = DEMO_PIXEL_SCALE): Promise<Page> {
  const page = await browser.newPage({ viewport, deviceScaleFactor: scale });
  if (scale !== 1) await page.addInitScript(hideDevicePixelBox);
  return page;
}

/**
 * A browser context for pages at `scale` (scaledPage's, in scaledPageIn): pages of one context
 * share the HTTP cache and V8's compiled code of the modules they load.
 */
function scaledContext(browser: Browser, viewport: { width: number; height: number }, scale = DEMO_PIXEL_SCALE): Promise<BrowserContext> {
  return browser.newContext({ viewport, deviceScaleFactor: scale });
}

/** A page of `context` (scaledContext, made at `scale`), sized as scaledPage's. */
async function scaledPageIn(context: BrowserContext, scale = DEMO_PIXEL_SCALE): Promise<Page> {
  const page = await context.newPage();
  if (scale !== 1) await page.addInitScript(hideDevicePixelBox);
  return page;
}

/** scaledPage's init script: the demo sizes its canvas from the CSS box times devicePixelRatio. */
function hideDevicePixelBox(): void {
  delete (ResizeObserverEntry.prototype as { devicePixelContentBoxSize?: unknown }).devicePixelContentBoxSize;
}

/**
 * The server, browser, page opener and screenshot taker of one describe block: registers its
 * beforeAll/afterAll (call it inside the describe). Its pages draw at DEMO_PIXEL_SCALE; with
 * `held`, only while a wait asks for frames (heldFrames). With `oneContext`, its pages of one
 * scale share a browser context, so a page after the first takes the demo's modules from the
 * HTTP cache with V8's compiled code (measured: 2.7 to 3.1 s of CPU to load the page, against 4.4
 * to 5.4 in a context of its own); the demo keeps nothing in storage a later page could see.
 */
export function demoSession(viewport: { width: number; height: number }, screenshotTimeout: number, { held = false, oneContext = false } = {}) {
  let browser: Browser | undefined;
  const contexts = new Map<number, Promise<BrowserContext>>();
  const session = {
    baseUrl: '',
    /** A new page at `query` (e.g. '?instances=10'), with its console problems collected; `scale`: its DEMO_PIXEL_SCALE. */
    async open(query: string, scale = DEMO_PIXEL_SCALE): Promise<{ page: Page; problems: string[] }> {
      const page = await session.newPage(scale);
      const problems = collectProblems(page);
      await page.goto(`${session.baseUrl}/${query}`);
      return { page, problems };
    },
    /** Screenshot saved as test-results/e2e/<name>.png, and decoded. */
    shot(page: Page, name: string): Promise<Image> {
      return screenshot(page, name, screenshotTimeout);
    },
    /** A blank page (`scale`: its DEMO_PIXEL_SCALE; 1 for a page that reads screenshot pixels at CSS coordinates). */
    async newPage(scale = DEMO_PIXEL_SCALE): Promise<Page> {
      let page: Page;
      if (oneContext) {
        if (!contexts.has(scale)) contexts.set(scale, scaledContext(browser!, viewport, scale));
        page = await scaledPageIn(await contexts.get(scale)!, scale);
      } else {
        page = await scaledPage(browser!, viewport, scale);
      }
      if (held) await heldFrames(page);
      return page;
    },
  };
  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    session.baseUrl = pageServerUrl();
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  return session;
}
