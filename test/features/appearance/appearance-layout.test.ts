import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPEARANCE } from '../../../src/features/appearance/appearance-layout';

/** APPEARANCE (appearance-layout.ts) against skin.wgsl's `struct Appearance`, by WGSL's layout rules for the field types it uses. */
const skin = readFileSync(new URL('../../../shaders/skin.wgsl', import.meta.url), 'utf8');
const TYPES: Record<string, { size: number; align: number }> = { vec4f: { size: 16, align: 16 }, u32: { size: 4, align: 4 }, f32: { size: 4, align: 4 } };

function layoutOf(source: string, name: string): Record<string, number> {
  const body = new RegExp(`struct ${name} \\{([^}]*)\\}`).exec(source)?.[1];
  if (!body) throw new Error(`struct ${name} not found`);
  const out: Record<string, number> = {};
  let offset = 0;
  let align = 1;
  for (const [, field, type] of body.replace(/\/\/.*$/gm, '').matchAll(/(\w+)\s*:\s*(\w+)/g)) {
    const t = TYPES[type];
    if (!t) throw new Error(`struct ${name}: type ${type} not handled`);
    offset = Math.ceil(offset / t.align) * t.align;
    if (!field.startsWith('pad')) out[field] = offset;
    offset += t.size;
    align = Math.max(align, t.align);
  }
  out.size = Math.ceil(offset / align) * align;
  return out;
}

describe('appearance layout', () => {
  it('APPEARANCE matches skin.wgsl struct Appearance field by field', () => {
    expect({ ...APPEARANCE }).toEqual(layoutOf(skin, 'Appearance'));
  });

  it('a drifted field is caught (the check can fail)', () => {
    expect({ ...APPEARANCE }).not.toEqual(layoutOf(skin.replace('variant: u32,', 'variant: vec4f,'), 'Appearance'));
  });
});
