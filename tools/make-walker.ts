/**
 * Writes the Walker, the bundled licence-free (CC0) test character with directional gaits, and
 * beside it its parts for clips kept apart from bodies (tools/walker/build.ts WALKER_PARTS):
 *
 *     npm run make-walker [-- --out PATH]      (default public/models/Walker/Walker.glb)
 *
 * Everything comes from the code in tools/walker/ (skeleton and boxes, procedural clips, glTF
 * assembly), so running it again gives the same bytes; test/tools/make-walker.test.ts checks the
 * committed file against a fresh build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './args';
import { buildWalkerGlb, WALKER_PARTS } from './walker/build';

export const DEFAULT_WALKER_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../public/models/Walker/Walker.glb');

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['out'], []);
  const out = resolve(args.get('out') ?? DEFAULT_WALKER_PATH);
  const bytes = await buildWalkerGlb();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(`wrote ${out} (${bytes.byteLength} bytes)`);
  for (const [name, parts] of Object.entries(WALKER_PARTS)) {
    const path = resolve(dirname(out), name);
    const part = await buildWalkerGlb(parts);
    writeFileSync(path, part);
    console.log(`wrote ${path} (${part.byteLength} bytes)`);
  }
}

main().catch((error: Error) => {
  console.error(`make-walker: ${error.message}`);
  process.exit(1);
});
