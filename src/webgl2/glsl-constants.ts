/**
 * The GLSL side of the shared-constant blocks: the same TypeScript constants that reach the WGSL
 * (src/runtime/wgsl-constants.ts) reach the GLSL ES 3.00 shaders of shaders/webgl2/ as a
 * generated block between the same two marker lines (`npm run gen:wgsl` writes both kinds;
 * test/runtime/wgsl-constants.test.ts checks both), spelt `const uint NAME = 5u;`. Record layouts
 * (src/runtime/layout.ts) reach GLSL as word offsets generated from the layout objects themselves
 * (layoutWords), since a GLSL shader reads a record word by word from a texture.
 */
import { GENERATED_BEGIN, GENERATED_END, wgslLiteral, type SharedConstant } from '../runtime/wgsl-constants';

/** GLSL's spelling of each shared scalar type. */
const GLSL_TYPES = { u32: 'uint', i32: 'int', f32: 'float' } as const;

/**
 * `value` as a GLSL ES 3.00 literal of `type` meaning exactly the number the TypeScript holds,
 * with wgslLiteral's checks (a RangeError naming `name` when the type cannot hold it): u32 as
 * `5u` / `0xffffffffu`, i32 as `-5`, f32 as the short decimal where that is the float32 itself,
 * else `uintBitsToFloat(0x...u)` of its bits (GLSL ES has no hexadecimal float literals, and a
 * decimal would leave the rounding to the compiler).
 */
export function glslLiteral(name: string, value: number, type: SharedConstant[2] = 'u32'): string {
  const wgsl = wgslLiteral(name, value, type);
  if (type === 'u32') return wgsl;
  if (type === 'i32') return value === -0x80000000 ? '(-2147483647 - 1)' : String(value);
  if (!wgsl.includes('0x')) return wgsl;
  return `uintBitsToFloat(0x${new Uint32Array(new Float32Array([value]).buffer)[0].toString(16)}u)`;
}

/**
 * The GLSL declarations of `constants` (glslLiteral), then the shared GLSL text `texts`, between
 * the marker lines. An f32 written as bits carries its value as a comment.
 */
export function glslConstantBlock(constants: readonly SharedConstant[], texts = ''): string {
  const lines = constants.map(([name, value, type = 'u32']) => {
    const literal = glslLiteral(name, value, type);
    return `const ${GLSL_TYPES[type]} ${name} = ${literal};${literal.startsWith('uintBitsToFloat') ? ` // ${value}` : ''}`;
  });
  return [GENERATED_BEGIN, ...lines, ...(texts ? ['', texts] : []), GENERATED_END].join('\n');
}

/**
 * A byte layout of src/runtime/layout.ts (`{ size, field: byteOffset, ... }`, every field 4-byte
 * aligned) as i32 word offsets for GLSL: `PREFIX_WORDS` (size / 4), then `PREFIX_FIELD` per field
 * (camelCase to UPPER_SNAKE: INSTANCE.rateLoA -> INSTANCE_RATE_LO_A). Throws a RangeError naming
 * the field that is not on a 4-byte boundary.
 */
export function layoutWords(prefix: string, layout: Readonly<Record<string, number>>): SharedConstant[] {
  const out: SharedConstant[] = [];
  for (const [field, bytes] of Object.entries(layout)) {
    if (bytes % 4 !== 0) throw new RangeError(`${prefix}.${field} = ${bytes} is not on a 4-byte word boundary`);
    const name = field === 'size' ? `${prefix}_WORDS` : `${prefix}_${field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
    out.push([name, bytes / 4, 'i32']);
  }
  return out;
}
