/**
 * Rewrites the generated constant block of shaders/pose.wgsl from src/gpu/wgsl-constants.ts.
 *   npm run gen:wgsl           write the block
 *   npm run gen:wgsl -- --check  exit 1 when the file is out of date (the test does the same)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { currentConstantBlock, replaceConstantBlock, wgslConstantBlock } from '../src/gpu/wgsl-constants';

const file = new URL('../shaders/pose.wgsl', import.meta.url);
const source = readFileSync(file, 'utf8');
const block = wgslConstantBlock();
if (process.argv.includes('--check')) {
  if (currentConstantBlock(source) !== block) {
    console.error('shaders/pose.wgsl: the generated constant block is out of date; run npm run gen:wgsl');
    process.exit(1);
  }
} else {
  writeFileSync(file, replaceConstantBlock(source, block));
}
