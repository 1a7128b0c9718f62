/**
 * Prints the `DFG_TABLE` of src/runtime/dfg-table.ts (the texture skin.wgsl and impostor.wgsl read
 * their DFG terms from) from three.js's own table (node_modules/three/src/nodes/functions/BSDF/DFGLUT.js,
 * MIT, (c) three.js authors): the split-sum DFG scale and bias for 16 x 16 (roughness, dotNV), rows
 * by dotNV, so that crowd-skin's specular energy matches MeshStandardMaterial's. Run:
 * npx tsx tools/dfg-lut.ts, paste the output over the table (the table has not changed since three
 * r181; test/e2e/materials.test.ts would show it if it did). With --glsl it prints the same numbers
 * as GLSL ES 3.00 for shaders/webgl2/skin.frag.glsl (test/webgl2/gl-shaders.test.ts checks that the two agree).
 */
import { readFileSync } from 'node:fs';

const source = readFileSync(new URL('../node_modules/three/src/nodes/functions/BSDF/DFGLUT.js', import.meta.url), 'utf8');
const body = /new Uint16Array\(\s*\[([^\]]*)\]/.exec(source);
if (!body) throw new Error('DFGLUT.js: no Uint16Array table found');
const halves = body[1].split(',').map((s) => s.trim()).filter(Boolean).map((s) => Number(s));
if (halves.length !== 512) throw new Error(`DFGLUT.js: expected 512 half floats, got ${halves.length}`);

function half(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (mantissa / 1024);
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + mantissa / 1024);
}

const glsl = process.argv.includes('--glsl');
const rows: string[] = [];
for (let r = 0; r < 16; r++) {
  const cells: string[] = [];
  for (let c = 0; c < 16; c++) {
    const i = (r * 16 + c) * 2;
    const pair = `${half(halves[i]).toFixed(5)}, ${half(halves[i + 1]).toFixed(5)}`;
    cells.push(glsl ? `vec2(${pair})` : pair);
  }
  rows.push(`  ${cells.join(', ')},`);
}
if (glsl) console.log(`const vec2 DFG_LUT[256] = vec2[256](\n${rows.join('\n').slice(0, -1)}\n);`);
else console.log(`export const DFG_TABLE = new Float32Array([\n${rows.join('\n')}\n]);`);
