/**
 * Writes the Mannequin, the bundled licence-free (CC0) character with swappable parts (two heads
 * and a hat, each a primitive of its own) and base-colour texture variants, for per-instance
 * appearance (docs/appearance.md):
 *
 *     npm run make-mannequin [-- --out PATH]      (default public/models/Mannequin/Mannequin.glb)
 *
 * The variants go beside it (Mannequin.variant1.png, Mannequin.variant2.png). Everything comes
 * from tools/mannequin/ and the Walker's skeleton and clips (tools/walker/), so running it again
 * gives the same bytes; test/tools/make-mannequin.test.ts checks the committed files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './args';
import { buildMannequinGlb, MANNEQUIN_VARIANT_FILES, mannequinVariantPng } from './mannequin/build';

export const DEFAULT_MANNEQUIN_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../public/models/Mannequin/Mannequin.glb');

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['out'], []);
  const out = resolve(args.get('out') ?? DEFAULT_MANNEQUIN_PATH);
  const bytes = await buildMannequinGlb();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(`wrote ${out} (${bytes.byteLength} bytes)`);
  MANNEQUIN_VARIANT_FILES.forEach((name, i) => {
    const path = resolve(dirname(out), name);
    const png = mannequinVariantPng((i + 1) as 1 | 2);
    writeFileSync(path, png);
    console.log(`wrote ${path} (${png.byteLength} bytes)`);
  });
}

main().catch((error: Error) => {
  console.error(`make-mannequin: ${error.message}`);
  process.exit(1);
});
