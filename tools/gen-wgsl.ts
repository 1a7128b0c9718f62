/**
 * Rewrites the generated constant blocks of the shaders, WGSL and GLSL (tools/wgsl-shaders.ts lists them).
 *   npm run gen:wgsl             write the blocks
 *   npm run gen:wgsl -- --check  exit 1 when a file is out of date (the test does the same)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { currentConstantBlock, replaceConstantBlock } from '../src/runtime/wgsl-constants';
import { generatedBlock, GENERATED_SHADERS } from './wgsl-shaders';

let stale = false;
for (const shader of GENERATED_SHADERS) {
  const { file } = shader;
  const url = new URL(`../${file}`, import.meta.url);
  const source = readFileSync(url, 'utf8');
  const block = generatedBlock(shader);
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
