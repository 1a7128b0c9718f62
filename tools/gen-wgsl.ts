/**
 * Rewrites the generated constant blocks of the shaders listed in src/gpu/wgsl-constants.ts.
 *   npm run gen:wgsl           write the blocks
 *   npm run gen:wgsl -- --check  exit 1 when a file is out of date (the test does the same)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { currentConstantBlock, GENERATED_SHADERS, replaceConstantBlock, wgslConstantBlock } from '../src/gpu/wgsl-constants';

let stale = false;
for (const [path, constants] of GENERATED_SHADERS) {
  const file = new URL(`../${path}`, import.meta.url);
  const source = readFileSync(file, 'utf8');
  const block = wgslConstantBlock(constants);
  if (!process.argv.includes('--check')) writeFileSync(file, replaceConstantBlock(source, block));
  else if (currentConstantBlock(source) !== block) {
    console.error(`${path}: the generated constant block is out of date; run npm run gen:wgsl`);
    stale = true;
  }
}
if (stale) process.exit(1);
