/**
 * Writes the bundled props (static meshes for CrowdProps.attach), licence-free (CC0) by construction:
 *
 *     npm run make-props [-- --out DIR]      (default public/models/Props/)
 *
 * Each comes from code in tools/props/, so running it again gives the same bytes;
 * test/tools/make-props.test.ts checks the committed files against a fresh build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './args';
import { buildFlagGlb } from './props/flag';
import { buildSwordGlb } from './props/sword';

export const DEFAULT_PROPS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../public/models/Props');

/** Every bundled prop: file name and builder. */
export const PROPS: readonly { file: string; build: () => Promise<Uint8Array> }[] = [
  { file: 'Sword.glb', build: buildSwordGlb },
  { file: 'Flag.glb', build: buildFlagGlb },
];

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['out'], []);
  const dir = resolve(args.get('out') ?? DEFAULT_PROPS_DIR);
  mkdirSync(dir, { recursive: true });
  for (const prop of PROPS) {
    const bytes = await prop.build();
    writeFileSync(join(dir, prop.file), bytes);
    console.log(`wrote ${join(dir, prop.file)} (${bytes.byteLength} bytes)`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: Error) => {
    console.error(`make-props: ${error.message}`);
    process.exit(1);
  });
}
