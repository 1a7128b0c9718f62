/**
 * What a stranger does with the package, done by the install tests (install.test.ts): the repo
 * packed with `npm pack`, the tarball installed into a fresh app under the OS temp folder (no
 * node_modules of the repo above it), examples copied in, each built with a bundler or none, and
 * served on 127.0.0.1 like any static site. The examples to run are listed in example-apps.ts.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { REPO_ROOT } from './harness';
import type { ExampleApp } from './example-apps';

/** How an app is built: three bundlers, or the page loads the self-contained file through an import map. */
export type Variant = 'vite' | 'esbuild' | 'webpack' | 'standalone';
export const VARIANTS: readonly Variant[] = ['vite', 'esbuild', 'webpack', 'standalone'];

export interface Run { stdout: string; stderr: string }

/** Runs a command (no shell) in `cwd`; rejects with its output when it exits non-zero. */
export function run(command: string, args: string[], cwd: string, timeout = 600_000): Promise<Run> {
  return new Promise((done, fail) => {
    execFile(command, args, { cwd, timeout, maxBuffer: 64 << 20, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } },
      (error, stdout, stderr) => (error ? fail(new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${error.message}\n${stdout}\n${stderr}`)) : done({ stdout, stderr })));
  });
}

/** Builds the library (with its publint and attw checks) and packs it into `dir`; returns the tarball's path and its file list. */
export async function packLibrary(dir: string): Promise<{ tarball: string; files: string[] }> {
  await run('npm', ['run', 'build:lib'], REPO_ROOT);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], REPO_ROOT);
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(dir, packed.filename), files: packed.files.map((f) => f.path) };
}

/** The version of `name` installed in the repo (the apps install the same, from npm's cache when it has it). */
function repoVersion(name: string): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * A fresh app folder `dir` for several examples at once (one npm install, not one each): a
 * package.json depending on the tarball and on every import of those examples, and each example's
 * files in `dir/<name>/` with its models under `dir/<name>/public/models/` (served at /models/).
 * Node, TypeScript and the bundlers find `dir/node_modules` from each example's folder, as in a
 * monorepo. Installed with npm, preferring its cache. Throws if `crowd-skin` resolves anywhere
 * but the app's node_modules.
 */
export async function createInstall(apps: ExampleApp[], tarball: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const dependencies: Record<string, string> = { 'crowd-skin': `file:${tarball}` };
  for (const app of apps) for (const name of app.dependencies) dependencies[name] = app.versions?.[name] ?? repoVersion(name);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'crowd-skin-examples', private: true, type: 'module', dependencies }, null, 2));
  for (const app of apps) {
    cpSync(join(REPO_ROOT, 'examples', app.name), join(dir, app.name), { recursive: true });
    for (const model of app.models) cpSync(join(REPO_ROOT, 'public/models', model), join(dir, app.name, 'public/models', model), { recursive: true });
  }
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  const resolved = createRequire(join(dir, 'package.json')).resolve('crowd-skin/package.json');
  if (!resolved.startsWith(join(dir, 'node_modules') + sep)) throw new Error(`crowd-skin resolved to ${resolved}, outside the app ${dir}`);
}

/**
 * Type-checks `files` (the examples' JavaScript, relative to `dir`, and installed declaration
 * files) in one program, as an editor does for a user (checkJs, the repo's TypeScript; JSX as
 * React 17+ compiles it). skipLibCheck stays off for crowd-skin's .d.ts and its dependencies':
 * they must compile on their own, against what the app installed (type-check.mjs says which
 * files it checks: not the bodies of three's and React's).
 */
export async function typeCheck(dir: string, files: string[]): Promise<void> {
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      allowJs: true, checkJs: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
      lib: ['es2022', 'dom', 'dom.iterable'], types: [], skipLibCheck: false, jsx: 'react-jsx',
    },
    files,
  }));
  await run(process.execPath, [join(REPO_ROOT, 'test/e2e/type-check.mjs'), dir], dir);
}

/** Where a variant's built page lands in the app. */
export const outDir = (dir: string, variant: Variant) => join(dir, 'out', variant);

/** Builds the app's page with `variant` into outDir(dir, variant); returns the build's warnings. */
export async function buildVariant(app: ExampleApp, dir: string, variant: Variant): Promise<string[]> {
  const out = outDir(dir, variant);
  mkdirSync(out, { recursive: true });
  const entry = join(dir, app.entry);
  if (variant === 'vite') {
    const { build } = await import('vite');
    await build({ root: dir, configFile: false, logLevel: 'error', publicDir: false, build: { outDir: out, emptyOutDir: true, target: 'es2022' } });
    return [];
  }
  if (variant === 'esbuild') {
    const { build } = await import('esbuild');
    const result = await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, outfile: join(out, app.entry), absWorkingDir: dir, logLevel: 'silent' });
    copyFileSync(join(dir, 'index.html'), join(out, 'index.html'));
    return result.warnings.map((w) => w.text);
  }
  if (variant === 'webpack') {
    const { default: webpack } = await import('webpack');
    const stats = await new Promise<import('webpack').Stats>((done, fail) => webpack({
      // Production mode (tree shaking, sideEffects, module concatenation: how apps build) without
      // terser: minifying three.js took 40 of the three example's 61 s here, and the minifier
      // is the app's choice, not part of the package's contract (esbuild's build minifies).
      mode: 'production', optimization: { minimize: false }, context: dir, entry: `./${app.entry}`, target: 'web', devtool: false,
      output: { path: out, filename: app.entry }, performance: { hints: false },
    }, (error, result) => (error || !result ? fail(error ?? new Error('webpack gave no stats')) : done(result))));
    const info = stats.toJson({ all: false, errors: true, warnings: true });
    if (stats.hasErrors()) throw new Error(`webpack: ${info.errors!.map((e) => e.message).join('\n')}`);
    copyFileSync(join(dir, 'index.html'), join(out, 'index.html'));
    return info.warnings!.map((w) => w.message);
  }
  // No bundler: the example's own files, and an import map naming the self-contained build and
  // the example's other imports as files in node_modules (served from the app's folder).
  const imports = { 'crowd-skin': '/node_modules/crowd-skin/dist/crowd-skin.standalone.js', ...app.importMap };
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const map = `<script type="importmap">${JSON.stringify({ imports })}</script>\n  `;
  if (!html.includes('<script type="module"')) throw new Error(`examples/${app.name}/index.html has no module script`);
  writeFileSync(join(out, 'index.html'), html.replace('<script type="module"', `${map}<script type="module"`));
  copyFileSync(entry, join(out, app.entry));
  return [];
}

const TYPES: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json',
  '.glb': 'model/gltf-binary', '.gltf': 'model/gltf+json', '.bin': 'application/octet-stream', '.map': 'application/json',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.wasm': 'application/wasm',
};

/**
 * A static file server on 127.0.0.1 for one built page: each path is looked up in `roots` in
 * order (the build, then the app's public/ for the models, then the app itself for node_modules
 * under an import map). A missing file is a 404, as on any static host.
 */
export async function serve(roots: string[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).replace(/^([/\\])+/, '');
    for (const root of roots) {
      let file = resolve(root, path);
      if (!file.startsWith(resolve(root))) continue;
      if (existsSync(join(file, 'index.html'))) file = join(file, 'index.html');
      if (!existsSync(file) || !extname(file)) continue;
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      response.end(readFileSync(file));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => server.close(() => done())) };
}

/** The roots a variant's page is served from (see serve): `dir` is the example's folder, the install's node_modules is in its parent. */
export function servedRoots(dir: string, variant: Variant): string[] {
  return variant === 'standalone' ? [outDir(dir, variant), join(dir, 'public'), dirname(dir)] : [outDir(dir, variant), join(dir, 'public')];
}
