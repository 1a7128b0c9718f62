/**
 * `npm run bench -- --section webgl2` (issue 37): the demo's crowd of 10,000 Foxes on WebGL 2
 * against WebGPU in one headless Chromium (SwiftShader for both unless the machine has a GPU
 * driver Chromium picks), frame by frame in alternation (tools/bench/webgl2-page.ts, bundled with
 * esbuild and served from memory as tools/gl-poser.ts serves its page). Needs playwright-core,
 * esbuild and /usr/bin/chromium (or CROWD_SKIN_CHROMIUM).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WebGL2BenchResult } from './webgl2-page';

/** The e2e harness's flags (test/e2e/harness.ts): WebGPU and WebGL 2 on SwiftShader. */
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader', '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader',
];
const ORIGIN = 'http://localhost:5199'; // a secure context (navigator.gpu), answered from memory: nothing listens there

export type { WebGL2BenchResult };

/** `frames` timed frames per backend (after `warmup`) of `count` Foxes; each backend's per-frame times. */
export async function benchWebGL2(count: number, frames: number, warmup: number): Promise<WebGL2BenchResult[]> {
  const [{ chromium }, { build }] = await Promise.all([import('playwright-core'), import('esbuild')]);
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./webgl2-page.ts', import.meta.url))], bundle: true, write: false, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'error',
    plugins: [{
      name: 'raw-text',
      setup(b) {
        b.onResolve({ filter: /\?raw$/ }, (a) => ({ path: resolve(a.resolveDir, a.path.slice(0, -'?raw'.length)), namespace: 'raw' }));
        b.onLoad({ filter: /.*/, namespace: 'raw' }, async (a) => ({ contents: `export default ${JSON.stringify(await readFile(a.path, 'utf8'))};`, loader: 'js' }));
      },
    }],
  });
  const fox = await readFile('public/models/Fox/Fox.glb');
  const browser = await chromium.launch({ executablePath: process.env.CROWD_SKIN_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><body><script type="module" src="/page.js"></script></body>' });
      if (path === '/page.js') return route.fulfill({ contentType: 'text/javascript', body: bundle.outputFiles[0].text });
      if (path === '/Fox.glb') return route.fulfill({ contentType: 'model/gltf-binary', body: fox });
      return route.fulfill({ status: 404, body: '' });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => document.body?.dataset.ready === '1', undefined, { timeout: 120_000 }).catch(() => {
      throw new Error(`the webgl2 bench page did not start${errors.length ? `: ${errors.join('; ')}` : ''}`);
    });
    const results = await page.evaluate(([c, f, w]) => (window as unknown as { webgl2Bench(c: number, f: number, w: number): Promise<WebGL2BenchResult[]> }).webgl2Bench(c, f, w), [count, frames, warmup] as const)
      .catch((e: Error) => { throw new Error(`${e.message}${errors.length ? ` (page: ${errors.join('; ')})` : ''}`); });
    return results;
  } finally {
    await browser.close();
  }
}
