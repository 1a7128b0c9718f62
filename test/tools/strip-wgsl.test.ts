import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stripWgsl } from '../../tools/strip-wgsl';
import { gpuSuite } from '../helpers/gpu-suite';
import { REPO_ROOT } from '../helpers/models';

/**
 * The WGSL stripper the package build runs on every shader (tools/strip-wgsl.ts): comments and
 * needless blank space go, tokens stay. Checked against a tokenizer written here independently
 * (regular expressions from the WGSL spec's token grammar), on hand-made cases and on every file
 * under shaders/, and by compiling every stripped shader where a WebGPU adapter exists.
 */

// Longest first: a tokenizer takes the longest punctuation that matches (WGSL spec, "Tokens").
const PUNCTUATION = ['<<=', '>>=', '&&', '||', '--', '++', '->', '<<', '>>', '<=', '>=', '==', '!=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=',
  '&', '|', '^', '~', '!', '%', '*', '+', '-', '/', '<', '>', '=', '@', '.', ',', ';', ':', '(', ')', '[', ']', '{', '}'];
const BLANK = /^[ \t\n\v\f\r\u0085\u200e\u200f\u2028\u2029]+/;
const LINE_COMMENT = /^\/\/[^\n\v\f\r\u0085\u2028\u2029]*/;
const IDENTIFIER = /^[\p{XID_Start}_][\p{XID_Continue}]*/u;
const NUMBER = /^(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fhiu]?/;

/** WGSL's tokens of `source`, comments and blank space skipped. */
function tokens(source: string): string[] {
  const out: string[] = [];
  let rest = source;
  while (rest.length > 0) {
    const skip = BLANK.exec(rest) ?? LINE_COMMENT.exec(rest);
    if (skip) {
      rest = rest.slice(skip[0].length);
      continue;
    }
    if (rest.startsWith('/*')) {
      let depth = 0;
      let i = 0;
      do {
        const open = rest.indexOf('/*', i);
        const close = rest.indexOf('*/', i);
        if (close < 0) throw new Error('unterminated block comment');
        if (open >= 0 && open < close) { depth++; i = open + 2; } else { depth--; i = close + 2; }
      } while (depth > 0);
      rest = rest.slice(i);
      continue;
    }
    const token = NUMBER.exec(rest)?.[0] ?? IDENTIFIER.exec(rest)?.[0] ?? PUNCTUATION.find((p) => rest.startsWith(p));
    if (!token) throw new Error(`no WGSL token at ${JSON.stringify(rest.slice(0, 20))}`);
    out.push(token);
    rest = rest.slice(token.length);
  }
  return out;
}

/** Every .wgsl file under shaders/, in any folder. */
function shaderFiles(): string[] {
  const root = join(REPO_ROOT, 'shaders');
  return (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.wgsl')).sort().map((f) => join(root, f));
}

describe('stripWgsl', () => {
  it('drops line comments and nested block comments, and the blank space around punctuation', () => {
    expect(stripWgsl('// header\nfn f() -> u32 { // why\n  return 1u; /* a /* nested */ comment */\n}\n')).toBe('fn f()->u32{return 1u;}');
    expect(stripWgsl('const A: u32 = 0xffu; // x\r\nconst B = A;\u2028// y\u2029var<private> c: array<vec4f, 2>;')).toBe('const A:u32=0xffu;const B=A;var<private>c:array<vec4f,2>;');
    expect(stripWgsl('@compute @workgroup_size(WORKGROUP_SIZE)\nfn main(@builtin(global_invocation_id) id: vec3u) {}')).toBe('@compute@workgroup_size(WORKGROUP_SIZE)fn main(@builtin(global_invocation_id)id:vec3u){}');
  });

  it('keeps a space wherever joining would change the tokens', () => {
    expect(stripWgsl('let a = b - -c;')).toBe('let a=b- -c;'); // not b--c
    expect(stripWgsl('x = y / *p;')).toBe('x=y/ *p;'); // not a comment
    expect(stripWgsl('x = y / /* c */ *p;')).toBe('x=y/ *p;');
    expect(stripWgsl('a < = b; c > > d; e & & f; g = = h;')).toBe('a< =b;c> >d;e& &f;g= =h;');
    expect(stripWgsl('let x = e - 1; let y = 1p + 2;')).toBe('let x=e -1;let y=1p +2;'); // never an exponent
    expect(stripWgsl('a/**/b c\t\td 1 .5 v. x')).toBe('a b c d 1 .5 v. x');
    expect(stripWgsl('let café = 1;')).toBe('let café=1;');
    expect(stripWgsl('f(a,\n  b)\n')).toBe('f(a,b)');
  });

  it('ends a line comment at every WGSL line break and keeps what follows', () => {
    for (const br of ['\n', '\v', '\f', '\r', '\u0085', '\u2028', '\u2029']) expect(stripWgsl(`// c${br}x`)).toBe('x');
    expect(stripWgsl('// c\u200ex\ny')).toBe('y'); // LRM is blank space, not a line break
  });

  it('refuses an unterminated block comment, nested or not', () => {
    expect(() => stripWgsl('fn f() {} /* open')).toThrow(/block comment at offset 10 is not closed/);
    expect(() => stripWgsl('/* a /* b */ c')).toThrow(/not closed/);
    expect(stripWgsl('/* a /* b */ c */x')).toBe('x');
  });

  it('the tokenizer here splits like WGSL (so the shader check below means something)', () => {
    expect(tokens('a>>=b-- ->0x1.8p-3f 1e-5 2u /* x /* y */ */ // z\n.5h')).toEqual(['a', '>>=', 'b', '--', '->', '0x1.8p-3f', '1e-5', '2u', '.5h']);
  });

  const files = shaderFiles();
  it.each(files.map((f) => [f.slice(REPO_ROOT.length + 1), f]))('%s: stripped, the same tokens, and smaller', (_, file) => {
    const source = readFileSync(file, 'utf8');
    const stripped = stripWgsl(source);
    expect(tokens(stripped)).toEqual(tokens(source));
    expect(stripWgsl(stripped)).toBe(stripped);
    expect(stripped.length).toBeLessThan(source.length);
  });

  it('finds the shaders', () => {
    expect(files.length).toBeGreaterThanOrEqual(7);
  });

  describe('every stripped shader compiles without an error, as the full one does (needs a WebGPU adapter)', () => {
    let device: GPUDevice | undefined;
    gpuSuite({}, (gpu) => { device = gpu.device; });
    const errors = async (code: string) => {
      const info = await device!.createShaderModule({ code }).getCompilationInfo();
      return info.messages.filter((m) => m.type === 'error').map((m) => m.message);
    };
    it.each(files.map((f) => [f.slice(REPO_ROOT.length + 1), f]))('%s', async (_, file) => {
      if (!device) return;
      const source = readFileSync(file, 'utf8');
      expect(await errors(source)).toEqual([]);
      expect(await errors(stripWgsl(source))).toEqual([]);
    });
  });
});
