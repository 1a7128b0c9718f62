/**
 * The published library's size, for BENCHMARKS.md: builds the package (`npm run build:lib`)
 * and measures what it adds to a page. Both "minified" rows come from the same minifier
 * (esbuild), so they compare: the library with its dependencies left as imports (what an app's
 * bundler adds of ours when it already has them), and the library with its dependencies bundled.
 * The published files are listed as they are (the standalone file is minified by tsdown).
 *
 * `minimalPage` is the issue-19 measure: examples/minimal/main.js (a crowd and nothing else)
 * bundled as an app would (esbuild --bundle --minify --format=esm), `crowd-skin` resolved
 * through the package's own exports map to the built dist/, its dependencies from node_modules.
 * Its metafile gives the breakdown by package (our dist/ files one by one); `minimalPageSources`
 * bundles the same page from src/ to say which of our files (and shaders) that dist/ code is.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { packageWgsl } from '../rename-wgsl';

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
  buildPackage(root);
  const file = (path: string) => readFileSync(join(root, path));
  return [
    row('library, minified, dependencies as imports', await minified(root, false)),
    row('library, minified, dependencies bundled', await minified(root, true)),
    row('dist/index.js as published (ESM, not minified)', file('dist/index.js')),
    row('dist/crowd-skin.standalone.js as published (dependencies bundled, minified)', file('dist/crowd-skin.standalone.js')),
    row('dist/index.d.ts', file('dist/index.d.ts')),
  ];
}

/** `npm run build:lib` in `root`. */
export function buildPackage(root: string): void {
  execFileSync('npm', ['run', '--silent', 'build:lib'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface BundleReport extends SizeRow {
  /** Bytes each input contributes to the minified output, grouped by package (ours by dist/ file), largest first. */
  inputs: { what: string; bytes: number }[];
  /** Every input file with bytes in the output, as esbuild names it (`node_modules/meshoptimizer/meshopt_simplifier.js`, ...). */
  files: string[];
}

/** The package an input path belongs to: `name` (or `@scope/name`) after the last node_modules/, else the path. */
function inputGroup(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return path.startsWith('dist/') ? `crowd-skin ${path}` : path;
  const parts = path.slice(at + 'node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

/**
 * examples/minimal/main.js bundled by esbuild, minified, against the package as built in `root`
 * (call buildPackage first). The repository's tsconfig maps `crowd-skin` to src/ for the editor
 * and the tests; it is ignored here, so the name resolves as an installed package does.
 */
export async function minimalPage(root: string): Promise<BundleReport> {
  const result = await build({
    entryPoints: [join(root, 'examples/minimal/main.js')], absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser',
    minify: true, write: false, metafile: true, logLevel: 'silent', tsconfigRaw: {},
  });
  const groups = new Map<string, number>();
  const files: string[] = [];
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      groups.set(inputGroup(path), (groups.get(inputGroup(path)) ?? 0) + bytesInOutput);
      if (bytesInOutput > 0) files.push(path);
    }
  }
  const inputs = [...groups].map(([what, bytes]) => ({ what, bytes })).sort((a, b) => b.bytes - a.bytes);
  return { ...row('examples/minimal, minified', result.outputFiles[0].contents), inputs, files };
}

/** `import text from './x.wgsl?raw'` as the package build inlines it (tsdown.config.ts): stripped and renamed (packageWgsl). */
function rawText(root: string): Plugin {
  return {
    name: 'raw-text',
    setup(b) {
      b.onResolve({ filter: /\?raw$/ }, (a) => ({ path: resolve(a.resolveDir, a.path.slice(0, -'?raw'.length)), namespace: 'raw' }));
      b.onLoad({ filter: /.*/, namespace: 'raw' }, (a) => {
        const text = readFileSync(a.path, 'utf8');
        return { contents: `export default ${JSON.stringify(a.path.endsWith('.wgsl') ? packageWgsl(text) : text)}`, loader: 'js', resolveDir: root };
      });
    },
  };
}

/**
 * The same page bundled from the sources (`crowd-skin` -> src/index.ts, shaders packaged as the
 * package build does): our bytes in it by source file, largest first. Within a percent of the
 * dist/ bundle; it names what the dist/ chunk holds. With `dependencies`, the files of
 * dependencies are listed too, by their path from node_modules/ (`meshoptimizer/meshopt_simplifier.js`).
 */
export async function minimalPageSources(root: string, { dependencies = false } = {}): Promise<{ what: string; bytes: number }[]> {
  const result = await build({
    entryPoints: [join(root, 'examples/minimal/main.js')], absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser',
    minify: true, write: false, metafile: true, logLevel: 'silent', tsconfigRaw: {},
    alias: { 'crowd-skin': join(root, 'src/index.ts') }, plugins: [rawText(root)],
  });
  const inputs: { what: string; bytes: number }[] = [];
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const dependency = path.lastIndexOf('node_modules/');
      if (dependency >= 0) {
        if (dependencies) inputs.push({ what: path.slice(dependency + 'node_modules/'.length), bytes: bytesInOutput });
        continue;
      }
      if (path.startsWith('examples/')) continue;
      inputs.push({ what: path.startsWith('raw:') ? relative(root, path.slice('raw:'.length)) : path, bytes: bytesInOutput });
    }
  }
  return inputs.sort((a, b) => b.bytes - a.bytes);
}
