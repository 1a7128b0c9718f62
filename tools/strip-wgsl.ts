/**
 * WGSL without its comments and needless blank space, for the published package (tsdown.config.ts
 * inlines every shader through it; the dev server and the tests keep the full text).
 *
 * Exact, because WGSL has no string or character literals: outside a comment, `//` and `/*` can
 * only start a comment (WGSL spec, "Comments"), so one pass over the characters finds every
 * comment. Line comments end at a line break; block comments nest, as the spec says, and an
 * unterminated one is an error here as it is in the compiler. Blankspace and line breaks are the
 * spec's lists (LRM and RLM are blankspace too).
 *
 * Each run of blankspace and comments between two tokens becomes:
 * - nothing, at the start or end of the text, or beside one of `( ) [ ] { } , ; :` (no WGSL
 *   token begins or ends with one and continues with another character);
 * - one space between two word characters (letters, digits, `_`, `.`, any non-ASCII character),
 *   which would otherwise join into one identifier or number;
 * - one space between two operator characters, which could join into another token (`- -`
 *   into `--`, `/ *` into a comment, `> >` into `>>`, `< =` into `<=`);
 * - one space between `e`/`E`/`p`/`P` and `+`/`-` (no valid shader has them there, but joined
 *   they would read as a float exponent);
 * - nothing between a word character and an operator character otherwise.
 * So the token stream is unchanged (test/tools/strip-wgsl.test.ts checks it on every shader,
 * with a tokenizer of its own, and compiles both texts where a WebGPU adapter exists).
 */

const LINE_BREAKS = new Set(['\n', '\v', '\f', '\r', '\u0085', '\u2028', '\u2029']);
const BLANK = new Set([' ', '\t', '\u200e', '\u200f', ...LINE_BREAKS]);
const SEPARATORS = new Set(['(', ')', '[', ']', '{', '}', ',', ';', ':']);

function isWord(c: string): boolean {
  return /[A-Za-z0-9_.]/.test(c) || c.charCodeAt(0) > 127;
}

/** What a run of blankspace and comments between `left` and `right` becomes (see above). */
function gap(left: string | undefined, right: string | undefined): string {
  if (left === undefined || right === undefined || SEPARATORS.has(left) || SEPARATORS.has(right)) return '';
  const leftWord = isWord(left);
  const rightWord = isWord(right);
  if (leftWord === rightWord) return ' ';
  if (/[eEpP]/.test(left) && (right === '+' || right === '-')) return ' ';
  return '';
}

/** `source` without comments and needless blank space; throws on an unterminated block comment. */
export function stripWgsl(source: string): string {
  let out = '';
  let i = 0;
  let pending = false; // a run of blankspace or comments is waiting for the next token
  while (i < source.length) {
    const c = source[i];
    if (BLANK.has(c)) {
      pending = true;
      i++;
    } else if (c === '/' && source[i + 1] === '/') {
      pending = true;
      i += 2;
      while (i < source.length && !LINE_BREAKS.has(source[i])) i++;
    } else if (c === '/' && source[i + 1] === '*') {
      pending = true;
      const start = i;
      let depth = 1;
      i += 2;
      while (depth > 0) {
        if (i >= source.length) throw new Error(`stripWgsl: the block comment at offset ${start} is not closed`);
        if (source[i] === '/' && source[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (source[i] === '*' && source[i + 1] === '/') {
          depth--;
          i += 2;
        } else {
          i++;
        }
      }
    } else {
      if (pending) out += gap(out[out.length - 1], c);
      pending = false;
      out += c;
      i++;
    }
  }
  return out;
}
