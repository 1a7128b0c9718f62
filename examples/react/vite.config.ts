import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * Serves this example from the repository's sources: 'crowd-skin', 'crowd-skin/three' and
 * 'crowd-skin/react' map to src/ (an installed package resolves them itself), models come from
 * the repo's public/. React, react-dom and React Three Fiber are the repository's devDependencies.
 */
const fromHere = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: fromHere('.'),
  publicDir: fromHere('../../public'),
  cacheDir: fromHere('../../node_modules/.vite-example-react'),
  resolve: {
    alias: [
      { find: /^crowd-skin\/three$/, replacement: fromHere('../../src/three/index.ts') },
      { find: /^crowd-skin\/react$/, replacement: fromHere('../../src/react/index.ts') },
      { find: /^crowd-skin$/, replacement: fromHere('../../src/index.ts') },
    ],
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
