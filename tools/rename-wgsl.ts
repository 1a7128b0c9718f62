/**
 * Short names for a shader's own identifiers, for the published package (tsdown.config.ts runs it
 * on every shader after tools/strip-wgsl.ts). The WGSL of the runtime passes is about a tenth of
 * what a page that draws a crowd ships (BENCHMARKS.md, "Bundle size"); its long, readable names
 * (TRACK_INDEX_MASK, jointMatrices, clipTurns) are for readers of shaders/, not for the GPU.
 *
 * What is renamed: the names the shader declares with `const`, `let`, `var`, `fn`, `struct` and
 * `alias`, and function parameters, wherever they appear as identifier tokens (not after a `.`, nor an attribute's name after `@`).
 * What keeps its name, because the host or the language names it:
 * - `override` constants (pipelines set them by name: WORKGROUP_SIZE, MAX_NODES, ...);
 * - entry points (`fn` after `@compute`, `@vertex` or `@fragment`: createPipeline names them);
 * - struct members (declared inside a `struct` body; accesses after `.` are never touched), so a
 *   swizzle such as `.r` can never be confused with a renamed member;
 * - identifiers inside attribute arguments (`@builtin(position)`, `@workgroup_size(N)`) and
 *   address-space lists (`var<storage, read>`), and every name the shader does not declare
 *   (types, builtins, enumerants).
 * A name keeps one new name everywhere, so scopes and shadowing are as they were: the result is
 * the same token stream under a one-to-one renaming of identifiers (test/tools/rename-wgsl.test.ts
 * checks that on every shader, and compiles each). The new names are the shortest not already an
 * identifier of the shader nor a WGSL keyword or reserved word, the most used name first.
 * Takes and returns stripped text (no comments); the tokens are WGSL's (WGSL spec, "Tokens").
 */

import { stripWgsl } from './strip-wgsl';

const IDENTIFIER = /[\p{XID_Start}_][\p{XID_Continue}]*/uy;
const NUMBER = /(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fhiu]?/y;
const BLANK = /[ \t\n\v\f\r\u0085\u200e\u200f\u2028\u2029]+/y;

/**
 * WGSL's keywords and reserved words of up to three characters (WGSL spec, "Keywords" and
 * "Reserved Words"): the only ones a generated name (one to three letters) could be.
 */
const RESERVED = new Set([
  'as', 'do', 'fn', 'if', 'in', 'for', 'let', 'var', 'asm', 'mod', 'new', 'nil', 'pub', 'ref', 'set', 'use', 'try', 'get', 'out',
  'f16', 'f32', 'i32', 'u32', 'i8', 'u8', 'i16', 'u16', 'i64', 'u64', 'f64', 'vec', 'mat', 'ptr', 'let', 'def', 'end', 'dyn', 'box',
  'mut', 'not', 'and', 'or', 'xor', 'is', 'of', 'to', 'std', 'top',
]);

interface Token {
  text: string;
  identifier: boolean;
}

function tokenize(source: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const at = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    return re.exec(source)?.[0];
  };
  while (i < source.length) {
    const blank = at(BLANK);
    if (blank) {
      out.push({ text: blank, identifier: false });
      i += blank.length;
      continue;
    }
    const number = at(NUMBER);
    const identifier = number ? undefined : at(IDENTIFIER);
    const text = number ?? identifier ?? source[i];
    out.push({ text, identifier: identifier !== undefined });
    i += text.length;
  }
  return out;
}

/** The names `source` declares that may be renamed (see the header), by how often each appears. */
function renameable(tokens: Token[]): Map<string, number> {
  const declared = new Set<string>();
  const kept = new Set<string>();
  const solid = tokens.filter((t) => !/^\s/u.test(t.text));
  let entryPoint = false;
  let structDepth = -1; // brace depth of the struct body being read, -1 outside one
  let depth = 0;
  for (let k = 0; k < solid.length; k++) {
    const t = solid[k].text;
    const next = solid[k + 1];
    if (t === '{') depth++;
    else if (t === '}') {
      depth--;
      if (depth === structDepth) structDepth = -1;
    }
    if (t === '@' && next) {
      if (next.text === 'compute' || next.text === 'vertex' || next.text === 'fragment') entryPoint = true;
      // Attribute arguments: everything up to the matching ')'.
      if (solid[k + 2]?.text === '(') {
        let parens = 0;
        let j = k + 2;
        do {
          if (solid[j].text === '(') parens++;
          else if (solid[j].text === ')') parens--;
          else if (solid[j].identifier) kept.add(solid[j].text);
          j++;
        } while (parens > 0 && j < solid.length);
      }
      continue;
    }
    if (!solid[k].identifier || solid[k - 1]?.text === '.') continue;
    if (t === 'override' && next?.identifier) kept.add(next.text);
    else if (t === 'fn' && next?.identifier) {
      (entryPoint ? kept : declared).add(next.text);
      entryPoint = false;
      // Parameters: an identifier followed by ':' inside the parameter list.
      let j = k + 2;
      let parens = 0;
      do {
        const p = solid[j];
        if (p.text === '(') parens++;
        else if (p.text === ')') parens--;
        else if (parens === 1 && p.identifier && solid[j + 1]?.text === ':' && solid[j - 1]?.text !== '@') declared.add(p.text);
        j++;
      } while (parens > 0 && j < solid.length);
    } else if (t === 'struct' && next?.identifier) {
      declared.add(next.text);
      structDepth = depth;
    } else if (t === 'var' && next?.text === '<') {
      // Address space and access mode, then the name.
      let j = k + 2;
      while (j < solid.length && solid[j].text !== '>') kept.add(solid[j++].text);
      if (solid[j + 1]?.identifier) declared.add(solid[j + 1].text);
    } else if ((t === 'const' || t === 'let' || t === 'var' || t === 'alias') && next?.identifier) {
      declared.add(next.text);
    } else if (structDepth >= 0 && depth === structDepth + 1 && next?.text === ':') {
      kept.add(t); // a member
    }
  }
  const counts = new Map<string, number>();
  for (const t of tokens) if (t.identifier && declared.has(t.text) && !kept.has(t.text)) counts.set(t.text, (counts.get(t.text) ?? 0) + 1);
  return counts;
}

/** Shortest names first: a..z, A..Z, then two letters, three. */
function* shortNames(): Generator<string> {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) yield a;
  for (const a of letters) for (const b of letters) yield a + b;
  for (const a of letters) for (const b of letters) for (const c of letters) yield a + b + c;
}

/** `source` (stripped WGSL) with its own identifiers shortened; see the header. */
export function renameWgsl(source: string): string {
  const tokens = tokenize(source);
  const counts = renameable(tokens);
  const taken = new Set(tokens.filter((t) => t.identifier).map((t) => t.text));
  const names = shortNames();
  const renamed = new Map<string, string>();
  // One-letter names are as short as any new one: they keep themselves (and stay taken).
  for (const [name] of [...counts].filter(([n]) => n.length > 1).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    let short = names.next().value as string;
    while (taken.has(short) || RESERVED.has(short)) short = names.next().value as string;
    // A name no longer than its replacement keeps itself (nothing to gain; it stays taken).
    if (short.length < name.length) renamed.set(name, short);
  }
  let out = '';
  let previous = ''; // the last token that is not blank space
  for (const t of tokens) {
    // After '.' a member or swizzle, after '@' an attribute's name (`@group` stays even where a parameter is named group).
    out += t.identifier && previous !== '.' && previous !== '@' ? (renamed.get(t.text) ?? t.text) : t.text;
    if (!/^\s/u.test(t.text)) previous = t.text;
  }
  return out;
}

/**
 * A shader as the package ships it: stripped (tools/strip-wgsl.ts), its own names shortened, and
 * stripped again (a shorter name can drop a space the longer one needed, `phase +x` -> `a+x`).
 */
export function packageWgsl(source: string): string {
  return stripWgsl(renameWgsl(stripWgsl(source)));
}
