/**
 * Vitest global setup: one static server for the whole run's browser pages that were served by
 * a Vite dev server per test file (the demo, index.html; the test pages test/e2e/gl-skin/,
 * test/e2e/materials/, test/webgl2/pose-page/; and the modules gl-crowd's page imports by path,
 * BUILT_MODULES). On the first request it builds those pages once
 * with `vite build` (not minified, so the pages' code reads as the sources do), into a folder
 * removed at the end of the run; every page of every file is then served from that build, and
 * any other path from the repository root as the dev server served it (public/'s models are in
 * the build; test/models/, the files the tests write to test-results/). A missing file is a 404,
 * as on a static host. Workers read the address with `inject('pageServer')` (harness.ts
 * `pageServerUrl`). A run that opens no such page starts the server and builds nothing.
 *
 * Why: a dev server per file transformed and served the demo's ~200 modules again in every file
 * and every page start; measured on one demo page (50 Foxes, 20 frames, docs/testing.md):
 * 5.3 s of CPU outside the GPU process from the dev server against 3.1 s from the build (Node
 * 1.9 -> 0.35 s, Chromium's renderer, browser and network processes loading one bundle instead).
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The page server's address, `http://127.0.0.1:<port>` (no trailing slash). */
    pageServer: string;
  }
}

const ROOT = resolve(import.meta.dirname, '../..');
/** The pages built (paths from the repository root); a test opens each at the same path. */
export const BUILT_PAGES = ['index.html', 'test/e2e/gl-skin/index.html', 'test/e2e/materials/index.html', 'test/webgl2/pose-page/index.html'];
/**
 * Modules a page imports by their source path (gl-crowd.test.ts: `import('/src/index.ts')` in the
 * gl-skin page), built as entries with their exports and served at that path: one copy of each
 * module in the page, shared with the pages' own imports as on the dev server.
 */
export const BUILT_MODULES = ['src/index.ts', 'src/webgl2/index.ts', 'tools/steering-scenes.ts', 'demo/gl-grid-pass.ts'];
/** Where BUILT_MODULES' entries land in the build: `modules/<path without .ts>.js`. */
const builtModule = (source: string) => `modules/${source.replace(/\.ts$/, '')}.js`;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.ktx2': 'image/ktx2', '.svg': 'image/svg+xml',
  '.glb': 'model/gltf-binary', '.gltf': 'model/gltf+json', '.bin': 'application/octet-stream', '.vrm': 'model/gltf-binary',
};

/** The file `path` (a URL path) names under `root`, or undefined when none (or outside `root`). */
function fileUnder(root: string, path: string): string | undefined {
  const file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return undefined;
  try {
    const stats = statSync(file);
    if (stats.isFile()) return file;
    if (stats.isDirectory() && statSync(join(file, 'index.html')).isFile()) return join(file, 'index.html');
  } catch { /* not there */ }
  return undefined;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Inside node_modules/.cache, as cli-bundle.ts's; one folder per run, so runs side by side do not share one.
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const outDir = mkdtempSync(join(cache, 'crowd-skin-pages-'));
  let built: Promise<void> | undefined;
  const build = async (): Promise<void> => {
    const { build: viteBuild } = await import('vite');
    await viteBuild({
      root: ROOT,
      configFile: false, // as the dev server had: the repo's config is vitest's
      logLevel: 'error',
      build: {
        outDir, emptyOutDir: true, minify: false, reportCompressedSize: false,
        rolldownOptions: {
          input: [...BUILT_PAGES, ...BUILT_MODULES].map((file) => join(ROOT, file)),
          // The modules' exports are what the pages import them for (an app build drops an entry's exports).
          preserveEntrySignatures: 'exports-only',
          output: {
            entryFileNames: (chunk) => {
              const source = BUILT_MODULES.find((file) => chunk.facadeModuleId === join(ROOT, file));
              return source ? builtModule(source) : 'assets/[name]-[hash].js';
            },
          },
        },
      },
    });
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    built ??= build();
    try {
      await built;
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`page build failed: ${(error as Error).message}`);
      return;
    }
    // A source module is served only as built (BUILT_MODULES); any other .ts is a 404, not its source text.
    const module = BUILT_MODULES.find((source) => path === `/${source}`);
    const file = module ? fileUnder(outDir, builtModule(module)) : fileUnder(outDir, path) ?? (/\.tsx?$/.test(path) ? undefined : fileUnder(ROOT, path));
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const stats = statSync(file);
    // Built assets carry a content hash in their names; anything else may change during the run
    // (the tests write test-results/), so it is revalidated by its ETag.
    const etag = `"${createHash('sha1').update(`${file}:${stats.size}:${stats.mtimeMs}`).digest('hex')}"`;
    const immutable = file.startsWith(join(outDir, 'assets') + sep);
    const headers = {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      etag,
    };
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, headers).end();
      return;
    }
    response.writeHead(200, { ...headers, 'content-length': stats.size });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
  };

  const server = createServer((request, response) => {
    serve(request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(error.message);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  project.provide('pageServer', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    rmSync(outDir, { recursive: true, force: true });
  };
}
