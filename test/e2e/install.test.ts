/**
 * A stranger's install, end to end: the package is built and packed, the tarball installed into
 * two fresh app folders under the OS temp folder, each holding some of the examples
 * (example-apps.ts, INSTALLS), and each example built with Vite, esbuild and webpack, and without
 * a bundler (the self-contained file and an import map). Every page is served on 127.0.0.1 and
 * opened in one headless Chromium (WebGPU on SwiftShader), drawing only the frames the test looks
 * at (held-frames.ts): characters must be drawn, must move between two screenshots, must pass the example's own checks (three: a three.js box in front of
 * a Fox hides it), and the console must stay clean. The installed `crowd-skin` command and the
 * declarations (one tsc program per install) are checked too.
 * Screenshots land in test-results/e2e/install-<example>-<build>-{1,2,...}.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_APPS, INSTALLS, type ExampleApp, type Install } from './example-apps';
import { chromiumAvailable, collectProblems, elementRects, launchBrowser, REPO_ROOT, RESULTS_DIR, screenshot, type Rect } from './harness';
import { drawFrames, drawing, heldFrames } from './held-frames';
import { shareChanged, shareUnlike, type Image } from './pixels';
import { buildVariant, createInstall, packLibrary, run, serve, servedRoots, typeCheck, VARIANTS } from './stranger';
import { minimalPage } from '../../tools/bench/size';

/**
 * Small: every frame costs SwiftShader (and so the CPU) in proportion to the pixels while a page is
 * open, and the checks are shares of the view.
 */
const VIEWPORT = { width: 320, height: 200 };
/** Loading a model and a few SwiftShader frames; minutes on a busy 2-core machine. */
const PAGE_TIMEOUT = 240_000;

const available = chromiumAvailable();

it('the README\'s embed code is examples/minimal/main.js verbatim (after its two header lines)', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding it'));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  const example = readFileSync(join(REPO_ROOT, 'examples/minimal/main.js'), 'utf8').split('\n').slice(2).join('\n');
  expect(block).toBe(example);
});

describe.skipIf(!available)('a stranger installs the packed package', () => {
  const root = mkdtempSync(join(tmpdir(), 'crowd-skin-install-'));
  const installDir = (install: Install['name']) => join(root, install);
  const appDir = (app: ExampleApp) => join(installDir(app.install), app.name);
  const variantsOf = (app: ExampleApp) => app.variants ?? VARIANTS;
  let packed: { tarball: string; files: string[] };
  /** Per install: its npm install, then its type-check; per `<example>/<variant>`: its build (resolves to the build's warnings). */
  const installs = new Map<string, Promise<void>>(), typeChecks = new Map<string, Promise<void>>(), builds = new Map<string, Promise<string[]>>();
  let browser: Browser | undefined;

  beforeAll(async () => {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const launched = launchBrowser();
    packed = await packLibrary(root);
    // Both installs at once (npm mostly waits on its cache and the registry), each type-checked as
    // soon as it is installed (tsc, a child process, on the other core than the builds and pages).
    for (const install of INSTALLS) {
      const apps = EXAMPLE_APPS.filter((app) => app.install === install.name);
      const installed = createInstall(apps, packed.tarball, installDir(install.name));
      installs.set(install.name, installed);
      const files = [...apps.map((app) => `${app.name}/${app.entry}`), ...install.declarations.map((d) => `node_modules/crowd-skin/dist/${d}`)];
      typeChecks.set(install.name, installed.then(() => typeCheck(installDir(install.name), files)));
    }
    // The builds, one at a time in this process and in the order the tests open them: the next is
    // built while Chromium draws the last. Each test awaits its own.
    let queue: Promise<unknown> = Promise.resolve();
    for (const app of EXAMPLE_APPS) {
      for (const variant of variantsOf(app)) {
        const built = queue.then(() => installs.get(app.install)).then(() => buildVariant(app, appDir(app), variant));
        builds.set(`${app.name}/${variant}`, built);
        queue = built.catch(() => {});
      }
    }
    for (const p of [...installs.values(), ...typeChecks.values(), ...builds.values()]) p.catch(() => {}); // reported by the tests that await them
    browser = await launched;
  }, 600_000);

  afterAll(async () => {
    await Promise.allSettled([...installs.values(), ...typeChecks.values(), ...builds.values()]);
    await browser?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the tarball holds the builds, declarations, CLI, README, CHANGELOG and licence, and no sources or tests', () => {
    const files = packed.files;
    for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/three.js', 'dist/three.d.ts', 'dist/react.js', 'dist/react.d.ts', 'dist/webgl2.js', 'dist/webgl2.d.ts', 'dist/cli.js', 'dist/crowd-skin.standalone.js']) {
      expect(files).toContain(file);
    }
    // Source maps: every built module that holds code has one (a file that only imports and
    // re-exports other modules has nothing to map: the index.js and webgl2.js entries, the facade
    // chunk Rolldown makes for a module the CLI imports both statically and on demand; nor has a
    // shader's string, dist/_virtual/, which is no source file).
    const reexportsOnly = (file: string): boolean =>
      readFileSync(join(REPO_ROOT, file), 'utf8').split('\n').every((line) => line.trim() === '' || /^(import|export) [^;]*;$/.test(line.trim()));
    const code = files.filter((f) => /^dist\/.*\.js$/.test(f) && !/^dist\/_virtual\//.test(f) && !reexportsOnly(f));
    for (const file of code) expect(files, file).toContain(`${file}.map`);
    expect(files.filter((f) => !/^dist\/|^(package\.json|README\.md|CHANGELOG\.md|LICENSE)$/.test(f))).toEqual([]);
    // Every entry's declarations (dist/<entry>.d.ts; shared chunks are named <chunk>-<hash>.d.ts and
    // come in through the entries' imports) is a root of one install's type-check below.
    const entries = files.filter((f) => /^dist\/[a-z0-9]+\.d\.ts$/.test(f)).map((f) => f.slice('dist/'.length)).sort();
    expect(entries).toEqual(INSTALLS.flatMap((install) => install.declarations).sort());
  });

  // Held here, on the package just built (test/architecture.test.ts holds the sources), because the
  // build alone can lose it: MeshoptSimplifier needs a dist/ file of its own (tsdown.config.ts
  // builds one per module), else its import stays in a shared chunk and every page ships the
  // simplifier (examples/minimal 309,519 bytes, 53,874 of them meshoptimizer's simplifier, when the
  // build put it there). Likewise the meshopt decoder (26,226 bytes of the page while it sat in the
  // shared chunk), and the WebGL 2 backend, which createCrowd imports on demand (99,107 bytes the page carried before).
  it('examples/minimal bundled from the built package ships no mesh simplifier or meshopt decoder, and loads the WebGL 2 backend on demand only', async () => {
    const page = await minimalPage(REPO_ROOT);
    expect(page.files.some((file) => file.startsWith('node_modules/wgpu-matrix/'))).toBe(true);
    expect(page.files.filter((file) => /meshoptimizer\/meshopt_(simplifier|decoder)/.test(file))).toEqual([]);
    expect(page.files.filter((file) => /dist\/webgl2\/gl-canvas-crowd\.js$/.test(file))).toEqual([]);
    expect(page.onDemandFiles.filter((file) => /dist\/webgl2\/gl-canvas-crowd\.js$/.test(file))).toHaveLength(1);
    console.log(`examples/minimal: ${page.bytes} bytes minified (${page.gzipBytes} gzipped) on WebGPU; ${page.onDemand.bytes} (${page.onDemand.gzipBytes}) more on demand for WebGL 2`);
  });

  describe.each(EXAMPLE_APPS.map((app) => [app.name, app] as const))('examples/%s', (name, app) => {
    const dir = appDir(app);

    it('the installed crowd-skin command inspects the example\'s model', async () => {
      await installs.get(app.install);
      const model = join(dir, 'public/models', app.models[0], `${app.models[0]}.glb`);
      const { stdout } = await run(join(installDir(app.install), 'node_modules/.bin/crowd-skin'), ['inspect', model, '--json'], dir);
      const report = JSON.parse(stdout) as { file: string; clips: unknown[] };
      expect(report.file).toBe(`${app.models[0]}.glb`);
      expect(report.clips.length).toBeGreaterThan(0);
    }, 600_000);

    it.each(variantsOf(app).map((v) => [v] as const))('built with %s: draws moving characters, no console errors', async (variant) => {
      const started = performance.now();
      const warnings = await builds.get(`${name}/${variant}`)!;
      if (warnings.length > 0) console.warn(`${name}/${variant} build warnings:\n${warnings.join('\n')}`);
      const built = performance.now();
      const server = await serve(servedRoots(dir, variant));
      const page = await browser!.newPage({ viewport: app.viewport ?? VIEWPORT });
      await heldFrames(page);
      try {
        const drawn = await expectMovingCharacters(app, page, server.url, `install-${name}-${variant}`);
        const webgpu = performance.now();
        if (app.webgl2?.includes(variant)) await expectWebGL2Fallback(app, server.url, `install-${name}-${variant}-webgl2`, drawn);
        // Where the time goes (CI's budget): waiting for the build, the page on WebGPU, the page on WebGL 2.
        const s = (a: number, b: number) => ((b - a) / 1000).toFixed(1);
        console.log(`${name}/${variant}: build awaited ${s(started, built)} s, drawn on WebGPU in ${s(built, webgpu)} s${app.webgl2?.includes(variant) ? `, on WebGL 2 in ${s(webgpu, performance.now())} s` : ''}`);
      } finally {
        await page.close();
        await server.close();
      }
    }, 600_000);
  });

  // Last: the type-checks ran beside the builds and pages above.
  it.each(INSTALLS.map((install) => [install.name, EXAMPLE_APPS.filter((app) => app.install === install.name).map((app) => app.name).join(', '), install.declarations.join(', '), install] as const))(
    'install %s: examples %s and the installed %s type-check against the installed declarations', async (_name, _apps, _declarations, install) => {
      await typeChecks.get(install.name);
    }, 600_000);

  /**
   * The page in a browser without WebGPU (navigator.gpu removed): createCrowd loads its WebGL 2
   * backend and draws there (or three's WebGL 2 backend does, app.threeFallback). The app's own
   * checks (app.check) are the WebGPU page's.
   */
  async function expectWebGL2Fallback(app: ExampleApp, url: string, name: string, webgpuDrawn: number): Promise<void> {
    const page = await browser!.newPage({ viewport: app.viewport ?? VIEWPORT });
    try {
      await page.addInitScript(() => { delete (Navigator.prototype as { gpu?: unknown }).gpu; });
      await heldFrames(page);
      const backends: string[] = [];
      page.on('console', (m) => { const said = /^crowd-skin draws on (\w+)/.exec(m.text()); if (said) backends.push(said[1]); });
      const drawn = await expectMovingCharacters(app, page, url, name, { check: false, allowed: app.threeFallback?.warning });
      if (app.threeFallback) {
        console.log(`${name}: ${(drawn * 100).toFixed(1)}% of the view drawn (WebGPU: ${(webgpuDrawn * 100).toFixed(1)}%)`);
        expect(Math.abs(drawn - webgpuDrawn), 'the WebGL 2 page covers another share of the view than the WebGPU one').toBeLessThan(app.threeFallback.shareWithin);
      } else {
        expect(backends).toEqual(['webgl2']);
      }
    } finally {
      await page.close();
    }
  }
});

/** A screenshot saved as test-results/e2e/<name>.png, and decoded. */
const shot = (page: Page, name: string): Promise<Image> => screenshot(page, name, PAGE_TIMEOUT);

/** Most of a frame is the clear colour: a page not yet drawn (white) or a wrong colour is not a frame. */
const MIN_BACKGROUND = 0.3;

/** Whether a screenshot is a frame with characters: at least `minDrawn` unlike the clear colour and MIN_BACKGROUND like it. */
function drawnShare(app: ExampleApp, image: Image, skip: Rect[]): { drawn: number; ok: boolean } {
  const drawn = shareUnlike(image, app.background, skip);
  return { drawn, ok: drawn >= app.minDrawn && drawn <= 1 - MIN_BACKGROUND };
}

/**
 * Opens the page and waits until it shows a frame with characters (drawnShare); then two
 * screenshots a few frames (or app.act's input) apart must both be such frames and differ. The
 * camera of every example stands still, so only animated characters can change pixels. Then
 * app.check, unless `options.check` is false. Console problems fail it, but for those `options.allowed`
 * matches. Resolves to the share of the first screenshot drawn.
 */
async function expectMovingCharacters(app: ExampleApp, page: Page, url: string, name: string, options: { check?: boolean; allowed?: RegExp } = {}): Promise<number> {
  const all = collectProblems(page);
  const problems = () => all.filter((p) => !options.allowed?.test(p));
  // No screenshots while the model downloads: each costs a composited frame and a PNG on SwiftShader.
  const model = page.waitForResponse((response) => /\.glb$/.test(new URL(response.url()).pathname), { timeout: PAGE_TIMEOUT });
  await page.goto(url);
  await model;
  // Overlays grow as the page fills them: measured with every screenshot.
  const overlays = async (): Promise<Rect[]> => (app.overlays ? elementRects(page, app.overlays) : []);
  let skip: Rect[] = [];
  const deadline = Date.now() + PAGE_TIMEOUT;
  let first: Image;
  let drawn = 0;
  for (;;) {
    expect(problems()).toEqual([]);
    await drawFrames(page, 1);
    // Before and after: a loop's first frame is not held (held-frames.ts), and may fill the overlays in between.
    skip = await overlays();
    first = await shot(page, `${name}-1`);
    skip = [...skip, ...await overlays()];
    const frame = drawnShare(app, first, skip);
    drawn = frame.drawn;
    if (frame.ok) break;
    if (Date.now() > deadline) throw new Error(`${name}: after ${PAGE_TIMEOUT / 1000} s, ${(drawn * 100).toFixed(2)}% of pixels are unlike the clear colour (a frame with characters has ${app.minDrawn * 100}% to ${(1 - MIN_BACKGROUND) * 100}%)`);
    await page.waitForTimeout(500);
  }
  // The example's own input and checks wait on its frames by the clock: its loop draws while they run.
  if (app.act) await drawing(page, () => app.act!(page));
  else await drawFrames(page, 3);
  const second = await shot(page, `${name}-2`);
  skip = [...skip, ...await overlays()];
  const changed = shareChanged(first, second, skip);
  console.log(`${name}: ${(drawn * 100).toFixed(1)}% of pixels drawn, ${(changed * 100).toFixed(2)}% changed between screenshots`);
  expect(drawnShare(app, second, skip).ok, 'the second screenshot is not a frame with characters').toBe(true);
  expect(changed, 'nothing moved between the screenshots').toBeGreaterThan(0.002);
  if (options.check !== false && app.check) {
    await drawing(page, () => app.check!(page, (suffix) => shot(page, `${name}-${suffix}`)));
  }
  expect(problems()).toEqual([]);
  return drawn;
}
