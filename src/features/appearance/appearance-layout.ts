/**
 * The per-instance appearance record (skin.wgsl `Appearance`), byte offsets checked against the
 * WGSL struct by test/features/appearance/appearance-layout.test.ts:
 *   tint     vec4f   linear RGB multiplier of the base colour (a unused, written 1)
 *   variant  u32     0: the material's own base-colour texture; k >= 1: variant image k - 1
 *   parts    u32     bit p set: mesh primitive p is drawn
 */
export const APPEARANCE = {
  tint: 0, // 4 x f32
  variant: 16, // u32
  parts: 20, // u32
  // + 2 x u32 pad
  size: 32,
} as const;

/** Mesh primitives a parts mask can name (one bit each of a u32). */
export const APPEARANCE_MAX_PARTS = 32;
