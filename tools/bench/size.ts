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
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
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
  // The library's files: the entries at dist/'s top and every module below it (the CLI's chunks sit at the top too).
  const library = (ending: string) => Buffer.concat(readdirSync(join(root, 'dist'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith(ending) && (path.includes(sep) || /^(index|three|react|webgl2)\./.test(path))).sort().map((path) => file(join('dist', path))));
  return [
    row('library, minified, dependencies as imports', await minified(root, false)),
    row('library, minified, dependencies bundled', await minified(root, true)),
    row('the library\'s .js files in dist/ as published (ESM, not minified; gzipped together)', library('.js')),
    row('dist/crowd-skin.standalone.js as published (dependencies bundled, minified)', file('dist/crowd-skin.standalone.js')),
    row('the library\'s .d.ts files in dist/ (gzipped together)', library('.d.ts')),
  ];
}

/** `npm run build:lib` in `root`. */
export function buildPackage(root: string): void {
  execFileSync('npm', ['run', '--silent', 'build:lib'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface BundleReport extends SizeRow {
  /** Bytes each input contributes to the minified output the page loads, grouped by package (ours by dist/ file), largest first. */
  inputs: { what: string; bytes: number }[];
  /** Every input file with bytes in what the page loads, as esbuild names it (`node_modules/meshoptimizer/meshopt_simplifier.js`, ...). */
  files: string[];
  /**
   * What a page on WebGL 2 fetches besides, through createCrowd's dynamic import of the backend
   * (src/webgl2/gl-canvas-crowd.ts): that chunk and what it imports statically, less the page's
   * own, minified and gzipped (each file apart). Other on-demand chunks (root-motion extraction,
   * mesh LOD making, the VRM reader: fetched by the loads that need them) are in neither row.
   */
  onDemand: SizeRow;
  /** Every input file with bytes in those WebGL 2 chunks only. */
  onDemandFiles: string[];
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
 * and the tests; it is ignored here, so the name resolves as an installed package does. Bundled
 * with code splitting, as an app's bundler does (Vite, webpack): the page's size is its entry
 * chunk and the chunks it imports statically, what a WebGPU page loads; a chunk reached only by a
 * dynamic import (the WebGL 2 backend, fetched when createCrowd picks it) is `onDemand`. Gzip
 * sizes add each file's, as the browser fetches them apart.
 */
export async function minimalPage(root: string): Promise<BundleReport> {
  const result = await build({
    entryPoints: [join(root, 'examples/minimal/main.js')], absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser',
    minify: true, write: false, metafile: true, logLevel: 'silent', tsconfigRaw: {}, splitting: true, outdir: join(root, '.size-out'),
  });
  const outputs = result.metafile.outputs;
  const loaded = pageChunks(outputs);
  const text = new Map(result.outputFiles.map((f) => [relative(root, f.path), f.contents]));
  const join2 = (names: string[]) => {
    const parts = names.map((name) => text.get(name)!);
    return { bytes: parts.reduce((sum, p) => sum + p.byteLength, 0), gzipBytes: parts.reduce((sum, p) => sum + gzipSync(p, { level: 9 }).byteLength, 0) };
  };
  const names = Object.keys(outputs).filter((name) => name.endsWith('.js'));
  const glBackend = names.filter((name) => Object.keys(outputs[name].inputs).some((path) => /webgl2\/gl-canvas-crowd\.[jt]s$/.test(path)));
  const lazy = [...new Set(glBackend.flatMap((name) => [...staticClosure(outputs, name)]))].filter((name) => !loaded.has(name));
  const groups = new Map<string, number>();
  const files = new Set<string>(), lazyFiles = new Set<string>();
  for (const name of names) {
    for (const [path, { bytesInOutput }] of Object.entries(outputs[name].inputs)) {
      if (bytesInOutput === 0) continue;
      if (loaded.has(name)) {
        groups.set(inputGroup(path), (groups.get(inputGroup(path)) ?? 0) + bytesInOutput);
        files.add(path);
      } else if (lazy.includes(name)) lazyFiles.add(path);
    }
  }
  const inputs = [...groups].map(([what, bytes]) => ({ what, bytes })).sort((a, b) => b.bytes - a.bytes);
  return {
    what: 'examples/minimal, minified', ...join2([...loaded]), inputs, files: [...files],
    onDemand: { what: 'loaded on demand (dynamic import)', ...join2(lazy) }, onDemandFiles: [...lazyFiles].filter((f) => !files.has(f)),
  };
}

/** The output chunks a page loads before any dynamic import: the entry chunk of examples/minimal/main.js and what it imports statically, transitively. */
function pageChunks(outputs: Metafile['outputs']): Set<string> {
  const entry = Object.keys(outputs).find((name) => outputs[name].entryPoint?.endsWith('examples/minimal/main.js'));
  if (!entry) throw new Error('minimal page: esbuild wrote no chunk for examples/minimal/main.js');
  return staticClosure(outputs, entry);
}

/** Chunk `name` and the chunks it imports statically, transitively. */
function staticClosure(outputs: Metafile['outputs'], name: string, into = new Set<string>()): Set<string> {
  if (into.has(name)) return into;
  into.add(name);
  for (const i of outputs[name].imports) if (i.kind === 'import-statement' && outputs[i.path]) staticClosure(outputs, i.path, into);
  return into;
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
 * package build does), split as minimalPage is: our bytes in what the page loads, by source file, largest first. Within a percent of the
 * dist/ bundle (one dist/ file per source module, so the two tables name the same files). With `dependencies`, the files of
 * dependencies are listed too, by their path from node_modules/ (`meshoptimizer/meshopt_simplifier.js`).
 */
export async function minimalPageSources(root: string, { dependencies = false } = {}): Promise<{ what: string; bytes: number }[]> {
  const result = await build({
    entryPoints: [join(root, 'examples/minimal/main.js')], absWorkingDir: root, bundle: true, format: 'esm', platform: 'browser',
    minify: true, write: false, metafile: true, logLevel: 'silent', tsconfigRaw: {}, splitting: true, outdir: join(root, '.size-out'),
    alias: { 'crowd-skin': join(root, 'src/index.ts') }, plugins: [rawText(root)],
  });
  const inputs: { what: string; bytes: number }[] = [];
  const loaded = pageChunks(result.metafile.outputs);
  for (const [name, output] of Object.entries(result.metafile.outputs)) {
    if (!loaded.has(name)) continue;
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
