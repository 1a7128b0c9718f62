// `npm run docs`: the API reference, from the doc comments of what src/index.ts exports (and
// src/three/index.ts when it exists), written to api-docs/ (ignored by git). Every warning is an
// error: an export or public member without a doc comment, a broken {@link}.
import { existsSync } from 'node:fs';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints: ['src/index.ts', ...(existsSync('src/three/index.ts') ? ['src/three/index.ts'] : [])],
  out: 'api-docs',
  name: 'crowd-skin',
  readme: 'none',
  excludePrivate: true,
  excludeProtected: true,
  excludeInternal: true,
  // notExported is off: some public members name types that src/index.ts does not export
  // (Character.rig: Rig, ...); the reference shows their names without a page of their own.
  validation: { notExported: false, invalidLink: true, notDocumented: true },
  treatWarningsAsErrors: true,
};
