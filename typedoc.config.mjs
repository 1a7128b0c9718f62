// `npm run docs`: the API reference, from the doc comments of what src/index.ts exports (and
// src/three/index.ts and src/react/index.ts when they exist), written to api-docs/ (ignored by git). Every warning is an
// error: an export or public member without a doc comment, a broken {@link}.
import { existsSync } from 'node:fs';

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints: ['src/index.ts', 'src/webgl2/index.ts', ...['src/three/index.ts', 'src/react/index.ts'].filter((entry) => existsSync(entry))],
  out: 'api-docs',
  name: 'crowd-skin',
  readme: 'none',
  excludePrivate: true,
  excludeProtected: true,
  excludeInternal: true,
  // notExported: every type a public member names is exported from src/index.ts and has a page.
  // The Character fields that hold the baked data (rig: Rig, baked: BakedModel, gpu: RigData)
  // are @internal on purpose (their layout is the GPU passes' business, not an API), and
  // excludeInternal above leaves them and the types they name out of the reference.
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatWarningsAsErrors: true,
  // three's declarations (Object3D's members, inherited by CrowdObject3D) carry tags TypeDoc
  // reads as malformed; warnings about comments we do not write would fail the build.
  suppressCommentWarningsInDeclarationFiles: true,
  excludeExternals: true,
  // No git lookups: a clone without a usable remote (CI's, a tarball's) would warn, and warnings fail.
  disableSources: true,
};
