import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * Serves this example from the repository's sources: 'crowd-skin' and 'crowd-skin/three' map to
 * src/ (an installed package resolves them itself), models come from the repo's public/. React
 * and React Three Fiber are not dependencies of the repository: install them first (README.md).
 */
const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: fromHere('.'),
  publicDir: fromHere('../../public'),
  cacheDir: fromHere('../../node_modules/.vite-example-react'),
  resolve: {
    alias: [
      { find: /^crowd-skin\/three$/, replacement: fromHere('../../src/three/index.ts') },
      { find: /^crowd-skin$/, replacement: fromHere('../../src/index.ts') },
    ],
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
