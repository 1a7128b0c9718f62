import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// SwiftShader's Vulkan driver from Debian's chromium package gives WebGPU in Node without a GPU
// (see README, "Tests"). Set VK_ICD_FILENAMES yourself to test on another Vulkan driver.
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * With CROWD_SKIN_PACKAGED_WGSL=1, `x.wgsl?raw` is the shader as the package ships it
 * (tools/rename-wgsl.ts packageWgsl), so the GPU tests can run on the published shaders.
 */
const packagedWgsl: Plugin = {
  name: 'crowd-skin:packaged-wgsl',
  enforce: 'pre',
  async load(id) {
    if (process.env.CROWD_SKIN_PACKAGED_WGSL !== '1' || !id.endsWith('.wgsl?raw')) return null;
    const { packageWgsl } = await import('./tools/rename-wgsl');
    return `export default ${JSON.stringify(packageWgsl(readFileSync(id.slice(0, -'?raw'.length), 'utf8')))};`;
  },
};

export default defineConfig({
  plugins: [packagedWgsl],
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
  // The demo's build; dist/ is the library's (npm run build:lib).
  build: { outDir: 'dist-demo' },
  // The pages whose imports Vite pre-bundles (React and React Three Fiber, examples/react's, are
  // devDependencies since crowd-skin/react type-checks against them).
  optimizeDeps: { entries: ['index.html', 'examples/minimal/index.html', 'examples/controllers/index.html', 'examples/three/index.html', 'examples/react/index.html'] },
  // `npm run dev` also serves examples/*/ from source: their `import ... from 'crowd-skin'` is
  // src/index.ts here, the installed package in an app of your own.
  resolve: {
    alias: [
      { find: /^crowd-skin$/, replacement: source('./src/index.ts') },
      { find: /^crowd-skin\/three$/, replacement: source('./src/three/index.ts') },
      { find: /^crowd-skin\/webgl2$/, replacement: source('./src/webgl2/index.ts') },
      { find: /^crowd-skin\/react$/, replacement: source('./src/react/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Bundles the CLI once for the tests that run it (test/helpers/cli.ts); serves the browser
    // tests' demo and test pages from one build for the whole run (test/helpers/page-server.ts).
    globalSetup: ['test/helpers/cli-bundle.ts', 'test/helpers/page-server.ts'],
    env: { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? SWIFTSHADER_ICD },
    // The JSON report lets .ci/run print one summary line and refuse skipped tests under CI.
    // in-flight-reporter names the files a dead test worker was inside (.ci/run, docs/testing.md).
    reporters: ['default', 'json', './test/helpers/in-flight-reporter.ts'],
    outputFile: { json: 'test-results/vitest.json' },
    // Two test files at a time even on 2 cores (vitest's default there is 1): a file's
    // single-threaded stretches (pipeline compiles, module transforms, child processes) overlap
    // the other's GPU work. Measured here on the Node GPU tests: 534 s with one worker, 319 s
    // with two. A test may then take twice as long as alone: hence the 180 s limit.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // One module registry a worker for all its files (vitest's default makes each file anew): about
    // 0.3 s of CPU a file spared on plain files and 0.65 s on GPU ones (Dawn's module and the
    // sources imported once), ~70 s of the 2-core run's CPU. Checked: the 150 Node files pass one
    // after another in one process (--maxWorkers=1), peak 2.2 GB. A test file must therefore put
    // back what it changes on globalThis (scene-lights.test.ts's self and requestAnimationFrame
    // are harmless stand-ins) and restore its spies.
    isolate: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
