/**
 * Vitest global setup: bundles the CLI (tools/cli.ts) once per test run with esbuild, so the CLI
 * tests start `node cli.mjs` (0.8 s for `inspect` on this 2-core machine) instead of Node with
 * tsx compiling the sources on every start (2.3 s). The CLI tests start about 60 processes: this
 * took about 100 s of CPU off a CI run. The bundle is the same sources with the `?raw` shaders
 * inlined, as the published dist/cli.js (tsdown.config.ts) is; the installed command itself is
 * checked by test/e2e/install.test.ts. Workers read the path with `inject('cliBundle')`.
 */
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled CLI (an .mjs file Node runs). */
    cliBundle: string;
  }
}

/** `import text from './x.wgsl?raw'`: the file's text, as Vite and tools/raw-loader.mjs give it. */
const rawText = {
  name: 'raw-text',
  setup(b: import('esbuild').PluginBuild) {
    b.onResolve({ filter: /\?raw$/ }, (a) => ({ path: resolve(a.resolveDir, a.path.slice(0, -'?raw'.length)), namespace: 'raw' }));
    b.onLoad({ filter: /.*/, namespace: 'raw' }, async (a) => ({ contents: `export default ${JSON.stringify(await readFile(a.path, 'utf8'))};`, loader: 'js' }));
  },
};

export default async function setup(project: TestProject): Promise<() => void> {
  // Inside the repository's node_modules, so the bundle's imports resolve as the sources' do;
  // one folder per run, so that runs side by side do not share a file.
  const cache = resolve(import.meta.dirname, '../../node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'crowd-skin-cli-'));
  const outfile = join(dir, 'cli.mjs');
  await build({
    entryPoints: [resolve(import.meta.dirname, '../../tools/cli.ts')],
    bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile,
    // Packages stay imports (webgpu is native), resolved from the repository's node_modules.
    packages: 'external',
    plugins: [rawText],
    logLevel: 'warning',
  });
  project.provide('cliBundle', outfile);
  return () => rmSync(dir, { recursive: true, force: true });
}
