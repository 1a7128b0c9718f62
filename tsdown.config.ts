/**
 * `npm run build:lib`: the published package, built by tsdown (README, "The package"). Three
 * builds into dist/:
 *
 * - the library: dist/index.js, dist/webgl2.js (the WebGL 2 backend's classes: createCrowd imports
 *   it on demand) (+ dist/three.js and dist/react.js when their sources exist), ESM with
 *   declarations and source maps; dependencies stay imports. One file per source module
 *   (`unbundle`: dist/runtime/crowd.js from src/runtime/crowd.ts, the shaders' strings in
 *   dist/_virtual/_raw_shaders/), so that an app's bundler drops every module its page does not
 *   use, whole ("sideEffects": false), the decoders' and the simplifier's imports with them. In
 *   shared chunks it could not: a chunk is one module to it, and it keeps every top-level
 *   statement there that it cannot prove pure (`AGENT.size / 4` of steering's layout, ...):
 *   11,015 bytes of examples/minimal (BENCHMARKS.md), and meshoptimizer's decoder and
 *   simplifier whenever their import sat in one. tsdown writes the package.json `exports` map
 *   from these entries, so adding an entry adds its subpath.
 * - the self-contained file: dist/crowd-skin.standalone.js, the library with its dependencies
 *   bundled and minified, for pages without a bundler (`<script type="module">`, import maps).
 * - the CLI: dist/cli.js (package.json `bin`), for Node, from tools/cli.ts.
 *
 * The sources import shaders as `../../shaders/x.wgsl?raw` (Vite's syntax, also served by the
 * tools' Node loader); `rawText` gives the same strings here, so what is published carries the
 * WGSL inlined and no bundler-specific import. WGSL goes in without its comments and needless
 * blank space (tools/strip-wgsl.ts: the same tokens, checked on every shader by
 * test/tools/strip-wgsl.test.ts): the comments are for readers of shaders/, and were a sixth of
 * what a minimal page shipped; then the shader's own names are shortened (tools/rename-wgsl.ts:
 * a one-to-one renaming, checked on every shader by test/tools/rename-wgsl.test.ts), a quarter
 * of what was left. The dev server and the tests read the full text (CROWD_SKIN_PACKAGED_WGSL=1
 * runs the tests on the packaged text: vite.config.ts).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { defineConfig, type UserConfig } from 'tsdown';
import { packageWgsl } from './tools/rename-wgsl';

const RAW = '\0raw:';

/** `import text from './file?raw'` yields the file's text, as in Vite (a .wgsl file's stripped: see above). */
const rawText = {
  name: 'crowd-skin:raw-text',
  resolveId: {
    // Filters let the bundler call the hooks only for these ids.
    filter: { id: /\?raw$/ },
    handler(source: string, importer?: string) {
      if (!importer) return null;
      // Relative to the repository: the id names the module's file in dist/ (no builder's path in it).
      return RAW + relative(process.cwd(), new URL(source.slice(0, -'?raw'.length), `file://${importer}`).pathname);
    },
  },
  load: {
    filter: { id: /^\0raw:/ },
    async handler(id: string) {
      const path = resolve(id.slice(RAW.length));
      const text = await readFile(path, 'utf8');
      return `export default ${JSON.stringify(path.endsWith('.wgsl') ? packageWgsl(text) : text)};`;
    },
  },
};

/** Library entries: the three.js bridge and the React component join when their sources exist. */
const entry: Record<string, string> = { index: 'src/index.ts', webgl2: 'src/webgl2/index.ts' };
if (existsSync('src/three/index.ts')) entry.three = 'src/three/index.ts';
if (existsSync('src/react/index.ts')) entry.react = 'src/react/index.ts';

const common: UserConfig = {
  format: 'esm',
  plugins: [rawText],
  // The npm script empties dist/ once before the three builds, which write beside each other.
  clean: false,
  // The checks run once on the packed result, after all three builds (package.json build:lib).
  publint: false,
  attw: false,
  // Rolldown warns when plugins take most of a build: here the declarations (the TypeScript
  // compiler) do, and on a busy machine any plugin may. Known; not worth a warning per build.
  inputOptions: { checks: { pluginTimings: false } },
};

export default defineConfig([
  {
    ...common,
    entry,
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    // The declarations name WebGPU's types (GPUDevice, ...): a consumer gets them from @webgpu/types.
    dts: { sourcemap: false },
    banner: { dts: '/// <reference types="@webgpu/types" />' },
    unbundle: true,
    exports: {
      customExports: (exports) => ({
        ...exports,
        './standalone': { types: './dist/index.d.ts', default: './dist/crowd-skin.standalone.js' },
      }),
    },
  },
  {
    ...common,
    entry: { 'crowd-skin.standalone': 'src/index.ts' },
    platform: 'browser',
    target: 'es2022',
    sourcemap: true,
    minify: true,
    dts: false,
    deps: { alwaysBundle: [/.*/], onlyBundle: false },
    // One file: createCrowd's dynamic import of the WebGL 2 backend is inlined, not a chunk beside
    // it. A page without a bundler copies, serves or import-maps this one file, and it never
    // tree-shakes (it carries the whole library either way); a second file with a hashed name
    // would be a second thing to copy and keep next to it, for about a fifth of the bytes.
    outputOptions: { codeSplitting: false },
  },
  {
    ...common,
    entry: { cli: 'tools/cli.ts' },
    platform: 'node',
    target: 'node20',
    fixedExtension: false,
    sourcemap: true,
    dts: false,
    // `webgpu` (pose --backend gpu only) is an optional peer dependency, imported when used;
    // playwright-core and esbuild (pose --backend webgl2, from the repository only) likewise.
    deps: { neverBundle: ['webgpu', 'playwright-core', 'esbuild'] },
  },
]);
