import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The comparison page of test/e2e/three-lights.test.ts, served from the repository's sources (as examples/three). */
const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: fromHere('.'),
  publicDir: fromHere('../../../public'),
  cacheDir: fromHere('../../../node_modules/.vite-three-lights'),
  resolve: {
    alias: [
      { find: /^crowd-skin\/three$/, replacement: fromHere('../../../src/three/index.ts') },
      { find: /^crowd-skin$/, replacement: fromHere('../../../src/index.ts') },
    ],
  },
  server: { host: '127.0.0.1' },
});
