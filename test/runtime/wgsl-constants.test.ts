import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRACK_INDEX_MASK, TRACK_NONE, TRACK_STEP } from '../../src/bake/bake';
import { COUNT_FROM_PARAMS, DQ_POLAR_ITERATIONS, DQ_VEC4S, LAYER_STACK, LAYERS_IDLE, LAYERS_INDEX, LAYERS_NONE, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, STACK_LAYERS } from '../../src/runtime/layout';
import { generatedBlock, GENERATED_SHADERS } from '../../tools/wgsl-shaders';
import { glslConstantBlock, glslLiteral, layoutWords } from '../../src/webgl2/glsl-constants';
import { GL_POSE_CONSTANTS } from '../../src/webgl2/glsl-texts';
import { INSTANCE, LAYER } from '../../src/runtime/layout';
import { MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE } from '../../src/runtime/limits';
import { CLIP_CLOCK, currentConstantBlock, POSE_CONSTANTS, POSE_ONLY_CONSTANTS, POSE_RECORD_STRUCTS, replaceConstantBlock, wgslConstantBlock, wgslLiteral, type WgslScalar } from '../../src/runtime/wgsl-constants';
import { ACTION_IN, ACTION_NONE, ACTION_OUT, ACTION_PLAY } from '../../src/anim/control/controller';
import { MAX_FADES, SOURCE_CLIP, SOURCE_LOCOMOTION } from '../../src/anim/control/crossfader';
import { MAX_BLEND } from '../../src/anim/control/output';
import { HOLD_SECONDS } from '../../src/anim/control/playback';
import { CONTROL, CONTROL_HOLD_SECONDS, CONTROL_SPEED_TIE } from '../../src/runtime/layout';
import { SPEED_TIE } from '../../src/anim/control/locomotion';

const pose = readFileSync(new URL('../../shaders/pose.wgsl', import.meta.url), 'utf8');

/** Every `const NAME: u32 = VALUE;` of a WGSL source, as numbers. */
function wgslU32Constants(source: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const [, name, value] of source.matchAll(/const (\w+): u32 = (0x[0-9a-f]+|\d+)u;/g)) found.set(name, Number(value));
  return found;
}

describe('shared constants: shaders/pose.wgsl and TypeScript', () => {
  it('the shader\'s generated block is what src/runtime/wgsl-constants.ts generates now', () => {
    expect(currentConstantBlock(pose), 'run npm run gen:wgsl').toBe(wgslConstantBlock([...POSE_CONSTANTS, ...POSE_ONLY_CONSTANTS], `${POSE_RECORD_STRUCTS}\n\n${CLIP_CLOCK}`));
  });

  it('every shared constant has the value of its TypeScript twin, in the shader as read', () => {
    const wgsl = wgslU32Constants(pose);
    const twins: Record<string, number> = {
      TRACK_NONE, TRACK_STEP, TRACK_INDEX_MASK, LAYERS_NONE, LAYERS_IDLE, LAYERS_INDEX, MASK_NONE, REFERENCE_REST, REFERENCE_IDENTITY,
      MAX_OVERRIDE_LAYERS, MAX_ADDITIVE_LAYERS, STACK_LAYERS, COUNT_FROM_PARAMS, DQ_VEC4S, DQ_POLAR_ITERATIONS,
    };
    expect(Object.fromEntries(POSE_CONSTANTS)).toEqual(twins);
    for (const [name, value] of Object.entries(twins)) expect(wgsl.get(name), name).toBe(value);
  });

  it('the shader declares no u32 constant outside the generated block (so none can drift by hand)', () => {
    const outside = replaceConstantBlock(pose, '');
    expect([...wgslU32Constants(outside).keys()]).toEqual([]);
  });

  it('the stack array is sized by the constant, and the record size follows it', () => {
    expect(pose).toMatch(/layers: array<Layer, STACK_LAYERS>/);
    expect(pose).not.toMatch(/array<Layer, \d/);
    expect(LAYER_STACK.size).toBe(8 + STACK_LAYERS * 48);
  });

  it('every shader with a generated block carries the block generated now (shaders/controllers/control.wgsl too)', () => {
    for (const shader of GENERATED_SHADERS) {
      const { file } = shader;
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      expect(currentConstantBlock(source), `${file}: run npm run gen:wgsl`).toBe(generatedBlock(shader));
      expect([...wgslU32Constants(replaceConstantBlock(source, '')).keys()], file).toEqual([]);
    }
    expect(GENERATED_SHADERS.map((g) => g.file)).toEqual(['shaders/pose.wgsl', 'shaders/controllers/control.wgsl', 'shaders/culling/cull.wgsl', 'shaders/culling/palette.wgsl', 'shaders/skin.wgsl', 'shaders/props/prop.wgsl', 'shaders/root-motion/root-motion.wgsl', 'shaders/morph/morph.wgsl', 'shaders/picking/pick.wgsl', 'shaders/picking/select.wgsl', 'shaders/mipmaps.wgsl', 'shaders/environment.wgsl', 'shaders/steering/steering.wgsl', 'shaders/impostors/impostor.wgsl', 'shaders/impostors/bake.wgsl', 'shaders/impostors/coverage.wgsl', 'shaders/impostors/shown.wgsl', 'shaders/webgl2/pose.vert.glsl', 'shaders/webgl2/pose-local.frag.glsl', 'shaders/webgl2/pose.frag.glsl', 'shaders/webgl2/skin.vert.glsl', 'shaders/webgl2/skin.frag.glsl', 'shaders/webgl2/environment.vert.glsl', 'shaders/webgl2/environment.frag.glsl']);
  });

  it('the control records use the controllers\' own values for phases, sources, limits and the clamp hold', () => {
    expect([CONTROL.ACTION_NONE, CONTROL.ACTION_IN, CONTROL.ACTION_PLAY, CONTROL.ACTION_OUT]).toEqual([ACTION_NONE, ACTION_IN, ACTION_PLAY, ACTION_OUT]);
    expect([CONTROL.SOURCE_CLIP, CONTROL.SOURCE_LOCOMOTION]).toEqual([SOURCE_CLIP, SOURCE_LOCOMOTION]);
    expect([CONTROL.MAX_FADES, CONTROL.MAX_BLEND, CONTROL_HOLD_SECONDS, CONTROL_SPEED_TIE]).toEqual([MAX_FADES, MAX_BLEND, HOLD_SECONDS, SPEED_TIE]);
  });

  it('a drifted value is caught: a block generated from other values differs from the file', () => {
    const drifted = POSE_CONSTANTS.map(([name, value]) => [name, name === 'MAX_ADDITIVE_LAYERS' ? value + 1 : value] as const);
    expect(currentConstantBlock(pose)).not.toBe(wgslConstantBlock(drifted));
    expect(() => replaceConstantBlock('fn main() {}', wgslConstantBlock())).toThrow(/no generated constant block/);
    expect(() => wgslConstantBlock([['HALF', 0.5]])).toThrow(/HALF = 0.5 is not a u32/);
  });
});

/** The number a WGSL scalar literal of `type` means (decimal or hexadecimal float, suffixed or not; exact for the f32 literals wgslLiteral writes). */
function wgslNumber(literal: string, type: WgslScalar): number {
  const hex = /^(-?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?\d+)f?$/i.exec(literal);
  if (type === 'f32' && hex) {
    const [, sign, whole, fraction = '', exponent] = hex;
    const value = Number.parseInt(`${whole}${fraction}` || '0', 16) * 2 ** (Number(exponent) - 4 * fraction.length);
    return sign ? -value : value;
  }
  const integer = /^i32\((-?\d+)\)$/.exec(literal)?.[1] ?? literal.replace(/[uif]$/, '');
  return Number(integer);
}

/** Every module-scope `const NAME: TYPE = LITERAL;` of a WGSL source, or `const TYPE NAME = LITERAL;` of a GLSL one: name -> [type, value]. */
function wgslConstants(source: string): Map<string, [WgslScalar, number]> {
  const found = new Map<string, [WgslScalar, number]>();
  for (const [, name, type, literal] of source.matchAll(/^const (\w+): (u32|i32|f32) = ([^;]+);/gm)) found.set(name, [type as WgslScalar, wgslNumber(literal, type as WgslScalar)]);
  const types = { uint: 'u32', int: 'i32', float: 'f32' } as const;
  for (const [, glsl, name, literal] of source.matchAll(/^const (uint|int|float) (\w+) = ([^;]+);/gm)) {
    const type = types[glsl as keyof typeof types];
    found.set(name, [type, glslNumber(literal, type)]);
  }
  return found;
}

/** The number a GLSL literal glslLiteral writes means: `5u`, `-5`, `(-2147483647 - 1)`, `0.5`, `uintBitsToFloat(0x...u)`. */
function glslNumber(literal: string, type: WgslScalar): number {
  const bits = /^uintBitsToFloat\((0x[0-9a-f]+)u\)$/i.exec(literal)?.[1];
  if (bits !== undefined) return new Float32Array(new Uint32Array([Number(bits)]).buffer)[0];
  if (literal === '(-2147483647 - 1)') return -(2 ** 31);
  return type === 'f32' ? Math.fround(Number(literal)) : Number(literal.replace(/u$/, ''));
}

describe('wgslLiteral: shared numbers as WGSL literals that mean exactly the TypeScript value', () => {
  const f32Values = [1e-6, 1e-4, 1e-5, 1e-12, 0.1, 1 / 3, Math.PI, 3e38, 3.4e38, 0.5, 2, -1.5, 1234.5, 16777217, 123456789, 2 ** -140, 0, 4096];

  it('an f32 literal reads back as Math.fround of the TypeScript number, bit for bit', () => {
    for (const value of f32Values) {
      const literal = wgslLiteral('X', value, 'f32');
      expect(wgslNumber(literal, 'f32'), `${value} -> ${literal}`).toBe(Math.fround(value));
    }
  });

  it('an f32 is a short decimal only where that decimal is the float itself, else a hexadecimal float (no compiler rounds it again)', () => {
    expect(wgslLiteral('X', 0.5, 'f32')).toBe('0.5');
    expect(wgslLiteral('X', 2, 'f32')).toBe('2.0');
    expect(wgslLiteral('X', 4096, 'f32')).toBe('4096.0');
    expect(wgslLiteral('X', 16777217, 'f32')).toBe('16777216.0'); // what float32 holds
    expect(wgslLiteral('X', 1e-6, 'f32')).toBe('0x1.0c6f7ap-20f');
    expect(wgslLiteral('X', 3e38, 'f32')).toBe('0x1.c363ccp127f'); // not "3e+38.0"
    for (const value of f32Values) {
      const literal = wgslLiteral('X', value, 'f32');
      if (!literal.includes('0x')) expect(Number(literal), literal).toBe(Math.fround(value));
      else expect(Number(String(Math.fround(value))) === Math.fround(value) && String(Math.fround(value)).length <= 11, `${value} could have been a decimal`).toBe(false);
    }
    expect(wgslConstantBlock([['EPS', 1e-6, 'f32'], ['HALF', 0.5, 'f32']])).toContain('const EPS: f32 = 0x1.0c6f7ap-20f; // 0.000001\nconst HALF: f32 = 0.5;\n');
  });

  it('u32 and i32 literals hold their integers; a value the type cannot hold is refused by name', () => {
    expect([wgslLiteral('A', 5), wgslLiteral('B', 0xffffffff), wgslLiteral('C', -5, 'i32'), wgslLiteral('D', -(2 ** 31), 'i32')]).toEqual(['5u', '0xffffffffu', '-5i', 'i32(-2147483648)']);
    for (const [value, type] of [[5, 'u32'], [0xffffffff, 'u32'], [-5, 'i32'], [-(2 ** 31), 'i32'], [2 ** 31 - 1, 'i32']] as const) {
      expect(wgslNumber(wgslLiteral('X', value, type), type)).toBe(value);
    }
    expect(() => wgslLiteral('NEG', -1)).toThrow(/NEG = -1 is not a u32/);
    expect(() => wgslLiteral('BIG', 2 ** 31, 'i32')).toThrow(/BIG = 2147483648 is not an i32/);
    expect(() => wgslLiteral('HUGE', 1e39, 'f32')).toThrow(/HUGE = 1e\+39 is not a finite f32/);
    expect(() => wgslLiteral('NAN', Number.NaN, 'f32')).toThrow(/not a finite f32/);
  });
});

describe('shared constants: every shader with a generated block, every type', () => {
  it('each constant in each block has its TypeScript value as read back from the file (f32 as Math.fround, bit for bit)', () => {
    for (const { file, constants, structs } of GENERATED_SHADERS) {
      const declared = wgslConstants(currentConstantBlock(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) ?? '');
      for (const [name, value, type = 'u32'] of constants) {
        expect(declared.get(name), `${file}: ${name}`).toEqual([type, type === 'f32' ? Math.fround(value) : value]);
      }
      // The rest are declared by the shared WGSL text (PRECISE_SIN_COS), whose values are generated the same way.
      const others = [...declared.keys()].filter((name) => !constants.some(([listed]) => listed === name));
      for (const name of others) expect(structs, `${file}: ${name}`).toContain(`const ${name}: `);
    }
  });

  it('an edited f32 is caught: the block no longer reads back as the TypeScript value', () => {
    const { file, constants } = GENERATED_SHADERS.find((g) => g.constants.some(([, , type]) => type === 'f32'))!;
    const block = currentConstantBlock(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'))!;
    const [name, value] = constants.find(([, , type]) => type === 'f32')!;
    const literal = wgslLiteral(name, value, 'f32');
    const nudged = new Float32Array([Math.fround(value)]);
    new Uint32Array(nudged.buffer)[0] += 1; // one ulp off
    const edited = block.replace(`${name}: f32 = ${literal}`, `${name}: f32 = ${wgslLiteral(name, nudged[0], 'f32')}`);
    expect(edited).not.toBe(block);
    expect(wgslConstants(edited).get(name)).not.toEqual(['f32', Math.fround(value)]);
    expect(wgslConstants(block).get(name)).toEqual(['f32', Math.fround(value)]);
  });
});

/** A shader's code outside its generated block, comments removed. */
function handWritten(source: string): string {
  return replaceConstantBlock(source, '').replace(/\/\/.*$/gm, '');
}

/** Whether shared constant `name` is a stride or offset (a count of words or vec4s some index is multiplied by). */
const isStride = (name: string) => /_WORDS$|_VEC4S$|^TRS_PATHS$/.test(name);

/**
 * The places where `source` writes by hand what its generated block holds: a module-scope `const`
 * outside the block, a WORKGROUP_SIZE override with a default, a stride constant's value used as a
 * multiplier, an f32 constant's value as a float literal, or a u32 sentinel or limit (16 and
 * above) as an integer literal. Empty when every shared number comes from the block.
 */
function handWrittenCopies(source: string, constants: readonly (readonly [string, number, WgslScalar?])[]): string[] {
  const code = handWritten(source);
  const found: string[] = [];
  // A scalar constant (WGSL `const N = ...` / `const N: u32 = ...`, GLSL `const uint N = ...`); a GLSL table such as
  // skin.frag.glsl's `const vec2 DFG_LUT[256]` is no shared number.
  for (const [, name] of code.matchAll(/^\s*const (?:(?:uint|int|float|bool) )?(\w+)\s*[=:]/gm)) found.push(`const ${name} outside the generated block`);
  for (const [line] of code.matchAll(/^\s*override WORKGROUP_SIZE\b.*=.*$/gm)) found.push(`a WORKGROUP_SIZE default: ${line.trim()}`);
  // @group / @binding indices are slots of the pass's bind group layout, not shared numbers (steering's 16th is one).
  const integers = [...code.replace(/@(?:group|binding)\(\d+\)/g, '').matchAll(/(?<![\w.])(0x[0-9a-f]+|\d+)u?(?![\w.])/gi)].map((m) => [m[0], Number(m[1])] as const);
  const floats = [...code.matchAll(/(?<![\w.])(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][+-]?\d+)?f?(?![\w.])/g)].map((m) => m[0]);
  for (const [name, value, type = 'u32'] of constants) {
    if (type === 'f32') {
      if ([0, 0.5, 1, 2].includes(value)) continue; // too common to tell apart
      for (const literal of floats) if (Math.fround(Number(literal.replace(/f$/, ''))) === Math.fround(value)) found.push(`${literal} is ${name}`);
      continue;
    }
    if (isStride(name)) {
      const multiplied = new RegExp(`\\*\\s*${value}u?(?![\\w.])|(?<![\\w.])${value}u?\\s*\\*`);
      if (multiplied.test(code)) found.push(`a stride of ${value} written by hand: ${name}`);
    } else if (value >= 16) {
      for (const [literal, n] of integers) if (n === value) found.push(`${literal} is ${name}`);
    }
  }
  return found;
}

describe('drift: a shared number written by hand in a shader fails', () => {
  const shaders = GENERATED_SHADERS.map((g) => ({ ...g, source: readFileSync(new URL(`../../${g.file}`, import.meta.url), 'utf8') }));

  it('every shader under shaders/ has a generated block and is listed in tools/wgsl-shaders.ts', () => {
    const files = (readdirSync(new URL('../../shaders', import.meta.url), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.wgsl') || f.endsWith('.glsl')).map((f) => `shaders/${f.split('\\').join('/')}`).sort();
    expect(files.length).toBeGreaterThan(0);
    expect(GENERATED_SHADERS.map((g) => g.file).sort()).toEqual(files);
    for (const { file, source } of shaders) expect(currentConstantBlock(source), file).toBeDefined();
  });

  it('no shader declares a constant outside its generated block, defaults a workgroup size, or writes a shared stride, epsilon or sentinel as a literal', () => {
    for (const { file, source, constants } of shaders) expect(handWrittenCopies(source, constants), file).toEqual([]);
  });

  it('the check catches each kind of hand-written copy (a check that cannot fail proves nothing)', () => {
    const shader = (file: string) => shaders.find((g) => g.file === file)!;
    const control = shader('shaders/controllers/control.wgsl');
    const pose = shader('shaders/pose.wgsl');
    const cull = shader('shaders/culling/cull.wgsl');
    const roots = shader('shaders/root-motion/root-motion.wgsl');
    const edit = (g: typeof control, from: string, to: string) => {
      expect(g.source, `${g.file} no longer holds "${from}": update this test`).toContain(from);
      return handWrittenCopies(g.source.replace(from, to), g.constants);
    };
    expect(edit(control, 'index * ACTION_WORDS', 'index * 8u')).toEqual(['a stride of 8 written by hand: ACTION_WORDS']);
    expect(edit(control, 'clip * CLIP_WORDS', 'clip * 4u')).toEqual(['a stride of 4 written by hand: CLIP_WORDS']);
    expect(edit(pose, 's * SLOT_VEC4S', 's * 5u')).toEqual(['a stride of 5 written by hand: SLOT_VEC4S']);
    expect(edit(control, '> MIN_BLEND_WEIGHT', '> 1e-6')).toEqual(['1e-6 is MIN_BLEND_WEIGHT']);
    expect(edit(pose, 'DQ_DEGENERATE_DET * norm', '0.000001 * norm')).toEqual(['0.000001 is DQ_DEGENERATE_DET']);
    expect(edit(cull, '-reach * PLANE_REACH_SCALE', '-reach * 1.0001')).toEqual(['1.0001 is PLANE_REACH_SCALE']);
    expect(edit(roots, 'slot == HANDLE_FREE', 'slot == 0xffffffffu')).toEqual(['0xffffffffu is HANDLE_FREE']);
    expect(edit(control, 'override WORKGROUP_SIZE: u32;', 'override WORKGROUP_SIZE: u32 = 64;')).toEqual(['a WORKGROUP_SIZE default: override WORKGROUP_SIZE: u32 = 64;']);
    expect(edit(pose, 'struct Params {', 'const NODE_STRIDE: u32 = 7u;\n\nstruct Params {')).toEqual(['const NODE_STRIDE outside the generated block']);
  });

  it('for every shader, a TypeScript value changed by one step (one ulp for an f32) no longer matches the file', () => {
    for (const { file, source, constants, structs } of shaders) {
      constants.forEach(([name, value, type = 'u32'], i) => {
        const next = type === 'f32' ? new Float32Array([Math.fround(value)]) : undefined;
        if (next) new Uint32Array(next.buffer)[0] += 1;
        const changed = next ? next[0] : value === 0xffffffff ? value - 1 : value + 1;
        const drifted = constants.map((c, k) => (k === i ? [name, changed, type] as const : c));
        expect(currentConstantBlock(source), `${file}: ${name}`).not.toBe(generatedBlock({ file, constants: drifted, structs }));
      });
    }
  });

  it('a pass gets its workgroup size and dispatch limit from src/runtime/limits.ts, never from a number of its own', () => {
    const passes = (readdirSync(new URL('../../src', import.meta.url), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts')).map((f) => f.split('\\').join('/'))
      .map((f) => ({ file: `src/${f}`, text: readFileSync(new URL(`../../src/${f}`, import.meta.url), 'utf8') }))
      .filter(({ text }) => /\.wgsl\?raw'/.test(text) && /createComputePipeline/.test(text));
    expect(passes.map((p) => p.file).sort()).toEqual([
      'src/features/controllers/control-pass.ts', 'src/features/impostors/impostor-coverage.ts', 'src/features/impostors/impostor-shown.ts', 'src/features/morph/morph-pass.ts', 'src/features/picking/select-pass.ts', 'src/features/props/prop-pass.ts',
      'src/features/root-motion/root-motion-pass.ts', 'src/features/steering/steering-pass.ts', 'src/runtime/culling/cull-pass.ts', 'src/runtime/culling/palette-pass.ts', 'src/runtime/pose-pass.ts',
    ]);
    for (const { file, text } of passes) {
      expect(text, file).toMatch(/WORKGROUP_SIZE[:,} ]/); // sets the override
      expect(text, file).not.toMatch(/\bWORKGROUP_SIZE\s*=\s*\d|\b65535\b/);
      if (!file.endsWith('pose-pass.ts')) expect(text, file).toMatch(/import \{[^}]*\bWORKGROUP_SIZE\b[^}]*\} from '(\.\.\/)+(runtime\/)?limits'/);
    }
    expect(WORKGROUP_SIZE).toBe(64);
    expect(MAX_WORKGROUPS_PER_DIMENSION).toBe(65535);
  });
});

describe('GLSL blocks (shaders/webgl2/): the same TypeScript constants, spelt for GLSL ES 3.00', () => {
  it('glslLiteral: integers as GLSL writes them, an f32 exactly (a short decimal, else its bits), refusals as wgslLiteral\'s', () => {
    expect([glslLiteral('A', 5), glslLiteral('B', 0xffffffff), glslLiteral('C', -5, 'i32'), glslLiteral('D', -(2 ** 31), 'i32')]).toEqual(['5u', '0xffffffffu', '-5', '(-2147483647 - 1)']);
    expect(glslLiteral('X', 0.5, 'f32')).toBe('0.5');
    expect(glslLiteral('X', 1e-6, 'f32')).toBe('uintBitsToFloat(0x358637bdu)');
    expect(new Float32Array(new Uint32Array([0x358637bd]).buffer)[0]).toBe(Math.fround(1e-6));
    expect(glslConstantBlock([['EPS', 1e-6, 'f32'], ['N', 3], ['K', -2, 'i32']])).toContain('const float EPS = uintBitsToFloat(0x358637bdu); // 0.000001\nconst uint N = 3u;\nconst int K = -2;\n');
    expect(() => glslLiteral('NEG', -1)).toThrow(/NEG = -1 is not a u32/);
    expect(() => glslLiteral('NAN', Number.NaN, 'f32')).toThrow(/not a finite f32/);
  });

  it('record layouts reach GLSL as word offsets generated from layout.ts; an offset off a word boundary is refused', () => {
    const words = new Map(GL_POSE_CONSTANTS.map(([name, value]) => [name, value]));
    expect(words.get('INSTANCE_WORDS')).toBe(INSTANCE.size / 4);
    expect(words.get('INSTANCE_RATE_HI_B')).toBe(INSTANCE.rateHiB / 4);
    expect(words.get('LAYER_REF_RATE_LO')).toBe(LAYER.refRateLo / 4);
    expect(words.get('LAYER_STACK_WORDS')).toBe(LAYER_STACK.size / 4);
    expect(() => layoutWords('BAD', { size: 8, odd: 2 })).toThrow(/BAD.odd = 2 is not on a 4-byte word boundary/);
    // crowdInstanceWorld (GLSL_POSE_RECORDS) reads the world matrix as whole texels.
    expect([INSTANCE.size % 16, INSTANCE.world % 16]).toEqual([0, 0]);
  });

  it('a constant written by hand in a GLSL shader, or a block from other values, is caught', () => {
    const file = 'shaders/webgl2/pose.frag.glsl';
    const shader = GENERATED_SHADERS.find((g) => g.file === file)!;
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    expect(source).toContain('joint * SLOT_VEC4S');
    expect(handWrittenCopies(source.replace('joint * SLOT_VEC4S', 'joint * 5u'), shader.constants)).toEqual(['a stride of 5 written by hand: SLOT_VEC4S']);
    expect(handWrittenCopies(source.replace('uniform int poseRefsWidth;', 'const uint NODE_STRIDE = 7u;\nuniform int poseRefsWidth;'), shader.constants)).toEqual(['const NODE_STRIDE outside the generated block']);
    const localFile = 'shaders/webgl2/pose-local.frag.glsl';
    const local = GENERATED_SHADERS.find((g) => g.file === localFile)!;
    const localSource = readFileSync(new URL(`../../${localFile}`, import.meta.url), 'utf8');
    expect(handWrittenCopies(localSource.replace('trackRef == TRACK_NONE', 'trackRef == 0xffffffffu'), local.constants)).toContain('0xffffffffu is TRACK_NONE');
    const drifted = local.constants.map(([name, value, type]) => [name, name === 'INSTANCE_LAYERS' ? value + 1 : value, type] as const);
    expect(currentConstantBlock(localSource)).not.toBe(glslConstantBlock(drifted, local.structs));
  });
});
