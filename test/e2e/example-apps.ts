/**
 * The examples that the install tests (install.test.ts) build as a stranger would and open in
 * Chromium. To add one: put `examples/<name>/` (index.html loading one module script, plain
 * JavaScript that imports from 'crowd-skin' and packages listed here) and list it below.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { elementRects } from './harness';
import { shareUnlike, type Image } from './pixels';
import type { Variant } from './stranger';
import { expectBoxInFrontHidesFox, type Shot } from './three-depth';

export interface ExampleApp {
  /** Folder under examples/. */
  name: string;
  /** The install (INSTALLS) whose app folder holds this example. */
  install: Install['name'];
  /** The module script index.html loads, relative to the folder. */
  entry: string;
  /** Folders of public/models/ the example fetches from /models/<folder>/. */
  models: string[];
  /** Packages besides crowd-skin that the example imports; installed at the repo's versions, or at `versions`'. */
  dependencies: string[];
  /** Versions of dependencies that the repository does not install itself (@types/react-dom). */
  versions?: Record<string, string>;
  /** For the page without a bundler: each of those imports -> a URL of an ESM file under /node_modules/. */
  importMap: Record<string, string>;
  /** Builds to try (default: all of VARIANTS). */
  variants?: Variant[];
  /** The colour of the empty view, 0-255 (the canvas clear colour, or what fills most of it): pixels unlike it are drawn. */
  background: [number, number, number];
  /** The page's size in CSS pixels, when not install.test.ts's VIEWPORT (320 x 200). */
  viewport?: { width: number; height: number };
  /** CSS selector of DOM overlays left out of the pixel checks. */
  overlays?: string;
  /** Least share of pixels unlike the background once characters are drawn. */
  minDrawn: number;
  /**
   * Input between the two screenshots that must differ (the second is taken when it resolves);
   * by default a few frames pass.
   */
  act?: (page: Page) => Promise<void>;
  /**
   * Further checks on the page, once characters were seen moving (the page may be left in any
   * state); `shot(name)` takes a screenshot saved under the build's name and `name`.
   */
  check?: (page: Page, shot: Shot) => Promise<void>;
  /**
   * Builds whose page is also opened with navigator.gpu removed (a browser without WebGPU):
   * createCrowd must fetch its WebGL 2 backend and draw the same moving characters, and the page
   * must log `crowd-skin draws on webgl2`. One build per way the backend arrives: Vite's chunk
   * (native import()), webpack's chunk (its own loader), the self-contained file's inlined copy
   * (esbuild without splitting inlines it the same way). About as long as the WebGPU page on SwiftShader.
   */
  webgl2?: Variant[];
  /**
   * The `webgl2` page of an app whose WebGL 2 is three's backend, not createCrowd's (react): no
   * `crowd-skin draws on` line to look for, the console warning three prints there, and the most
   * the share of the view drawn may differ from the WebGPU page's (the two shadings light alike).
   */
  threeFallback?: { warning: RegExp; shareWithin: number };
}

/**
 * One npm install of the tarball per entry, shared by its examples (each install took 5 s of CPU
 * and up to a minute of waiting on npm), and one TypeScript program over its examples and its
 * `declarations` (the package's own .d.ts files, by name under dist/; every one in the tarball is
 * in one of these, install.test.ts checks). `plain` holds crowd-skin alone: its dependencies must
 * suffice for the examples that import only it, and its main declarations must compile without
 * three's or React's types; `peers` adds three and React, which crowd-skin/three and
 * crowd-skin/react's declarations import.
 */
export interface Install { name: 'plain' | 'peers'; declarations: string[] }
export const INSTALLS: Install[] = [
  { name: 'plain', declarations: ['index.d.ts', 'webgl2.d.ts'] },
  { name: 'peers', declarations: ['three.d.ts', 'react.d.ts'] },
];

/** examples/react's hooks for the tests (window.reactExample, main.jsx). */
interface ReactExample { paused: boolean; frames: number; unplacedFrames: number; remount(): void; unmount(): void }
/** examples/react's Canvas background (`<color attach="background">`, no tone mapping with `flat`). */
const REACT_BACKGROUND: [number, number, number] = [201, 211, 196];
const REACT_OVERLAYS = '#info, #selected';

/** Resolves once examples/react has counted `count` more frames. */
async function exampleFrames(page: Page, count: number): Promise<void> {
  const now = await page.evaluate(() => (window as unknown as { reactExample: ReactExample }).reactExample.frames);
  await page.waitForFunction((n) => (window as unknown as { reactExample: ReactExample }).reactExample.frames >= n, now + count, { timeout: 240_000, polling: 100 })
    .catch((error: Error) => { throw new Error(`examples/react counted fewer than ${count} more frames (nothing mounted?): ${error.message}`); });
}

export const EXAMPLE_APPS: ExampleApp[] = [
  {
    name: 'minimal', install: 'plain', entry: 'main.js', models: ['Fox'], dependencies: [], importMap: {},
    background: [179, 196, 214], minDrawn: 0.05, webgl2: ['vite', 'webpack', 'standalone'],
  },
  {
    name: 'controllers', install: 'plain', entry: 'main.js', models: ['RobotExpressive'], dependencies: [], importMap: {},
    // The same package entry as minimal, which every bundler builds and draws (its WebGL 2 chunk
    // loaded on demand in three of them): here webpack, the bundler least like the others, and the
    // page with no bundler. Vite and esbuild cost 18 s of CI a run for no path minimal leaves out.
    variants: ['webpack', 'standalone'],
    background: [199, 204, 189], overlays: '#help', minDrawn: 0.02,
    // The keyboard drives the middle robot: it walks toward the camera, then dances (action 7).
    async act(page) {
      await page.keyboard.down('KeyS');
      await page.waitForTimeout(1500);
      await page.keyboard.up('KeyS');
      await page.keyboard.press('Digit7');
      await page.waitForFunction(() => /action:Dance/.test(document.getElementById('help')?.textContent ?? ''), undefined, { timeout: 60_000 });
    },
  },
  {
    // Three's WebGPURenderer scene; crowd-skin/three is built apart from the self-contained file,
    // and imports three and the library's shared chunk: no bundler-less variant.
    name: 'three', install: 'peers', entry: 'main.js', models: ['Fox'], dependencies: ['three', '@types/three'], importMap: {},
    // Vite and webpack: esbuild resolves and splits crowd-skin/three's chunks as it does minimal's
    // (checked there), and each variant's page costs about 11 s of CI.
    variants: ['vite', 'webpack'],
    // Larger than the others: the Fox under test in three-depth.ts covers 2.4% of a 320 x 200 view
    // (less its eroded edge), too near that check's 2% floor; 3.8% at 640 x 400.
    viewport: { width: 480, height: 300 },
    // The lit ground fills most of the view, so it stands for the clear colour; the sky and the
    // box are ~12% of the view, the Foxes ~7% more.
    background: [136, 146, 141], overlays: '#info', minDrawn: 0.15,
    check: (page, shot) => expectBoxInFrontHidesFox(page, shot).then(() => {}),
  },
  {
    // React Three Fiber's <Canvas> on three's WebGPURenderer, the crowd through crowd-skin/react's <CrowdSkin>. JSX: built with Vite only (its
    // default JSX transform), which is how R3F apps are made; one build keeps the added CI time small.
    name: 'react', install: 'peers', entry: 'main.jsx', models: ['Fox'], importMap: {},
    dependencies: ['three', '@types/three', 'react', 'react-dom', '@react-three/fiber', '@types/react', '@types/react-dom'],
    // React, react-dom, R3F and @types/react at the repo's versions (its devDependencies, for crowd-skin/react's types).
    versions: { '@types/react-dom': '19.3.0' },
    variants: ['vite'],
    // <Canvas flat>: no tone mapping, so the background is the colour given. The box alone is ~2% of
    // the view; the twelve Foxes add ~6%.
    background: REACT_BACKGROUND, overlays: REACT_OVERLAYS, minDrawn: 0.05,
    // Without navigator.gpu, R3F's gl factory makes a WebGPURenderer on three's WebGL 2 backend, and
    // <CrowdSkin> draws there (shading 'three'), lighting the ring as on WebGPU (docs/three.md).
    webgl2: ['vite'], threeFallback: { warning: /WebGPU is not available, running under WebGL2 backend/, shareWithin: 0.02 },
    // A click on a Fox selects it through R3F's pointer events and CrowdObject3D.raycast (the
    // CPU-posed mesh); then the app is mounted anew and unmounted, the console staying clean (a crowd
    // removed after its renderer was disposed threw here once: the made-up violation this was first
    // shown to catch, in test/e2e/react.test.ts, whose checks these are now).
    async check(page, shot) {
      // Paused (window.reactExample.paused), so the Fox is where the screenshot shows it when clicked.
      const frames = await page.evaluate(() => { const example = (window as unknown as { reactExample: ReactExample }).reactExample; example.paused = true; return example.frames; });
      await page.waitForFunction((n) => (window as unknown as { reactExample: ReactExample }).reactExample.frames >= n + 2, frames, { timeout: 60_000 });
      const point = foxInterior(await shot('click'));
      expect(point, 'no Fox pixel deep enough inside a Fox to click').toBeDefined();
      await page.mouse.click(point!.x, point!.y);
      await page.waitForFunction(() => /selected #\d+/.test(document.getElementById('selected')?.textContent ?? ''), undefined, { timeout: 60_000 });
      // Mounted anew: every <CrowdSkin> unmounted (its crowd removed, the shared ThreeCrowdRenderer
      // disposed), then all made again; the ring is drawn again.
      await page.evaluate(() => (window as unknown as { reactExample: ReactExample }).reactExample.remount());
      await exampleFrames(page, 5);
      expect(shareUnlike(await shot('remounted'), REACT_BACKGROUND, await elementRects(page, REACT_OVERLAYS)), 'no Foxes drawn after a remount').toBeGreaterThan(0.05);
      // Unmounted: the example counts no frame while the page draws five.
      await page.evaluate(() => (window as unknown as { reactExample: ReactExample }).reactExample.unmount());
      const stopped = await page.evaluate(() => (window as unknown as { reactExample: ReactExample }).reactExample.frames);
      await page.evaluate(() => new Promise<void>((done) => {
        let left = 5;
        const tick = () => (--left <= 0 ? done() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }));
      expect(await page.evaluate(() => (window as unknown as { reactExample: ReactExample }).reactExample.frames), 'frames after unmount').toBe(stopped);
      // No frame (first mount or remount) drew the ring's Foxes before onFrame placed them: the
      // crowd's first update runs in the frame <CrowdSkin> first draws it (a race once: a
      // screenshot of Foxes at the origin at the model's size).
      expect(await page.evaluate(() => (window as unknown as { reactExample: ReactExample }).reactExample.unplacedFrames), 'frames drawn with the Foxes not yet placed').toBe(0);
    },
  },
];

/**
 * The Fox pixel (orange: red high, green middling, blue low) with the most Fox pixels around it
 * (within 6 px): the middle of a body, which a click still hits after the Fox walked on a little.
 */
function foxInterior(image: Image): { x: number; y: number } | undefined {
  const { width, height, data } = image;
  const fox = (x: number, y: number) => {
    const o = (y * width + x) * 4;
    return data[o] > 140 && data[o + 1] > 50 && data[o + 1] < 150 && data[o + 2] < 100;
  };
  let best: { x: number; y: number; around: number } | undefined;
  for (let y = 6; y < height - 6; y += 2) {
    for (let x = 6; x < width - 6; x += 2) {
      if (!fox(x, y)) continue;
      let around = 0;
      for (let dy = -6; dy <= 6; dy += 2) for (let dx = -6; dx <= 6; dx += 2) if (fox(x + dx, y + dy)) around++;
      if (!best || around > best.around) best = { x, y, around };
    }
  }
  return best;
}
