import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The pages of test/e2e/three-lighting.test.ts (lit/: shading 'three' against three's
 * SkinnedMesh; lights/: both shadings under three's lights), served from the repository's
 * sources as examples/three is: one dev server for both.
 */
const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: fromHere('.'),
  publicDir: fromHere('../../../public'),
  cacheDir: fromHere('../../../node_modules/.vite-three-lighting'),
  resolve: {
    alias: [
      { find: /^crowd-skin\/three$/, replacement: fromHere('../../../src/three/index.ts') },
      { find: /^crowd-skin$/, replacement: fromHere('../../../src/index.ts') },
    ],
  },
  server: { host: '127.0.0.1' },
});
