/**
 * Rewrites the generated constant blocks of the shaders (tools/wgsl-shaders.ts lists them).
 *   npm run gen:wgsl             write the blocks
 *   npm run gen:wgsl -- --check  exit 1 when a file is out of date (the test does the same)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { currentConstantBlock, replaceConstantBlock, wgslConstantBlock } from '../src/runtime/wgsl-constants';
import { GENERATED_SHADERS } from './wgsl-shaders';

let stale = false;
for (const { file, constants, structs } of GENERATED_SHADERS) {
  const url = new URL(`../${file}`, import.meta.url);
  const source = readFileSync(url, 'utf8');
  const block = wgslConstantBlock(constants, structs);
  if (process.argv.includes('--check')) {
    if (currentConstantBlock(source) !== block) {
      console.error(`${file}: the generated constant block is out of date; run npm run gen:wgsl`);
      stale = true;
    }
  } else {
    writeFileSync(url, replaceConstantBlock(source, block));
  }
}
if (stale) process.exit(1);
