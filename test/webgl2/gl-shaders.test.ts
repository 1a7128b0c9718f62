/**
 * The WebGL 2 skin shaders (shaders/webgl2/skin.*.glsl) against their TypeScript and WGSL twins,
 * without a GL context (the pictures: test/e2e/gl-skin.test.ts): the Camera and Material blocks'
 * std140 offsets are CAMERA's and MATERIAL's (src/runtime/layout.ts), whose bytes GLSkinPass
 * uploads as they are; the vertex inputs sit at vertexStreams' locations; the DFG table holds
 * the numbers the WebGPU passes read (src/runtime/dfg-table.ts); withDefines puts the variant after #version.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAMERA, MATERIAL } from '../../src/runtime/layout';
import { DFG_TABLE } from '../../src/runtime/dfg-table';
import { vertexStreams } from '../../src/runtime/mesh-buffers';
import { withDefines } from '../../src/webgl2/gl-program';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const vertex = read('shaders/webgl2/skin.vert.glsl');
const fragment = read('shaders/webgl2/skin.frag.glsl');

/** std140 (size, alignment) of a GLSL type; arrays of vec4 have a stride of 16. */
const STD140: Record<string, [number, number]> = { float: [4, 4], uint: [4, 4], int: [4, 4], vec2: [8, 8], vec3: [12, 16], vec4: [16, 16], mat4: [64, 16] };

/** Byte offset of each member of uniform block `block` in `source`, by std140, and the block's size. */
function std140Offsets(source: string, block: string): { offsets: Record<string, number>; size: number } {
  const body = new RegExp(`layout\\(std140\\) uniform ${block} \\{([^}]*)\\}`).exec(source);
  if (!body) throw new Error(`no uniform block ${block}`);
  const offsets: Record<string, number> = {};
  let offset = 0;
  for (const [, type, name, count] of body[1].matchAll(/(\w+) (\w+)(?:\[(\d+)\])?;/g)) {
    const [size, align] = STD140[type];
    const stride = count ? Math.max(16, size) : size;
    offset = Math.ceil(offset / (count ? 16 : align)) * (count ? 16 : align);
    offsets[name] = offset;
    offset += count ? stride * Number(count) : size;
  }
  return { offsets, size: Math.ceil(offset / 16) * 16 };
}

/** layout.ts's record without `size`: the field offsets. */
function fields(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== 'size'));
}

describe('GLSL skin shaders and their twins', () => {
  for (const [stage, source] of [['vertex', vertex], ['fragment', fragment]] as const) {
    it(`${stage}: the Camera block has CAMERA's offsets and size (padding members aside)`, () => {
      const { offsets, size } = std140Offsets(source, 'Camera');
      delete offsets.pad0;
      delete offsets.pad1;
      expect(offsets).toEqual(fields(CAMERA));
      expect(size).toBe(CAMERA.size);
    });
  }

  it('fragment: the Material block has MATERIAL\'s offsets and size', () => {
    const { offsets, size } = std140Offsets(fragment, 'Material');
    expect(offsets).toEqual(fields(MATERIAL));
    expect(size).toBe(MATERIAL.size);
  });

  it('the offset arithmetic catches a misplaced member (a made-up violation: vec3 emissive read as vec4 shifts what follows)', () => {
    const shifted = fragment.replace('vec3 emissive;', 'vec4 emissive;');
    expect(std140Offsets(shifted, 'Material').offsets.occlusionStrength).not.toBe(MATERIAL.occlusionStrength);
  });

  it('vertex inputs sit at the locations vertexStreams gives the WebGPU pipelines', () => {
    const declared = new Map<string, number>();
    for (const [, location, name] of vertex.matchAll(/layout\(location = (\d+)\) in \w+ (\w+);/g)) declared.set(name, Number(location));
    const [skin, shading] = vertexStreams({ influences: 8, normals: true, uvSets: 2, tangents: true, colors: true, jointBytes: 1 });
    const expected = new Map<string, number>();
    for (const field of [...skin, ...shading]) field.attributes.forEach((a, i) => expected.set(i === 0 ? field.name : `${field.name}1`, a.shaderLocation));
    for (const [name, location] of expected) expect(declared.get(name), name).toBe(location);
    expect(declared.get('slot')).toBe(9);
  });

  it('the DFG table holds the 256 entries the WebGPU passes read (dfg-table.ts)', () => {
    const start = fragment.indexOf('DFG_LUT[256] = vec2[256](');
    const body = fragment.slice(start, fragment.indexOf(');', start));
    const glsl = [...body.matchAll(/vec2\(([\d.]+), ([\d.]+)\)/g)].flatMap(([, a, b]) => [Math.fround(Number(a)), Math.fround(Number(b))]);
    expect(glsl).toHaveLength(512);
    expect(glsl).toEqual([...DFG_TABLE]);
  });

  it('withDefines puts the defines and the extra text right after #version, and refuses a source without one', () => {
    expect(withDefines('#version 300 es\nvoid main() {}\n', { A: 1, B: 0 }, 'int x;\n')).toBe('#version 300 es\n#define A 1\n#define B 0\nint x;\nvoid main() {}\n');
    expect(() => withDefines('void main() {}', {})).toThrow(/#version/);
  });
});
