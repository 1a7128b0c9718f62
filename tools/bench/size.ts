/**
 * The published library's size, for BENCHMARKS.md: builds the package (`npm run build:lib`)
 * and measures what it adds to a page. Both "minified" rows come from the same minifier
 * (esbuild), so they compare: the library with its dependencies left as imports (what an app's
 * bundler adds of ours when it already has them), and the library with its dependencies bundled.
 * The published files are listed as they are (the standalone file is minified by tsdown).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface SizeRow {
  what: string;
  bytes: number;
  /** gzip -9. */
  gzipBytes: number;
}

function row(what: string, code: string | Uint8Array): SizeRow {
  const bytes = typeof code === 'string' ? Buffer.from(code) : code;
  return { what, bytes: bytes.byteLength, gzipBytes: gzipSync(bytes, { level: 9 }).byteLength };
}

/** Bundles dist/index.js with esbuild, minified; dependencies external or bundled. */
async function minified(root: string, bundleDependencies: boolean): Promise<string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const result = await build({
    entryPoints: [join(root, 'dist/index.js')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022',
    minify: true, write: false, logLevel: 'silent', external: bundleDependencies ? [] : Object.keys(pkg.dependencies),
  });
  return result.outputFiles[0].text;
}

/** Builds the package in `root` and returns its sizes. */
export async function packageSizes(root: string): Promise<SizeRow[]> {
  execFileSync('npm', ['run', '--silent', 'build:lib'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const file = (path: string) => readFileSync(join(root, path));
  return [
    row('library, minified, dependencies as imports', await minified(root, false)),
    row('library, minified, dependencies bundled', await minified(root, true)),
    row('dist/index.js as published (ESM, not minified)', file('dist/index.js')),
    row('dist/crowd-skin.standalone.js as published (dependencies bundled, minified)', file('dist/crowd-skin.standalone.js')),
    row('dist/index.d.ts', file('dist/index.d.ts')),
  ];
}
