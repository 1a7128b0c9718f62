import { describe, expect, it } from 'vitest';
import { composeUvDecode, quantizeUvs, UV_UNORM16_RANGE } from '../../src/runtime/vertex-quantize';

/** uv' = rows (u, v, 1). */
const apply = (rows: ArrayLike<number>, u: number, v: number) => [rows[0] * u + rows[1] * v + rows[2], rows[3] * u + rows[4] * v + rows[5]];

describe('quantizeUvs: unorm16 UVs relative to the primitive\'s range', () => {
  it('decodes every UV within half a step of its range (2 sets), through a texture transform composed with the decoding', () => {
    const uvs = Float32Array.of(0.25, 0.1, -0.5, 2, 0.9, 0.6, 0.5, 2.25, 0.4, 0.35, 0.1, 2.9);
    const q = quantizeUvs(uvs, 2)!;
    expect(q.data.length).toBe(uvs.length);
    expect([...q.decode].map((x) => +x.toFixed(6))).toEqual([0.25, 0.1, 0.65, 0.5, -0.5, 2, 1, 0.9]);
    // KHR_texture_transform: scale 2, rotation 0.3, offset (0.1, -0.2).
    const c = Math.cos(0.3), s = Math.sin(0.3);
    const rows = [2 * c, 2 * s, 0.1, -2 * s, 2 * c, -0.2];
    for (const set of [0, 1]) {
      const composed = composeUvDecode(rows, q.decode, set);
      for (let v = 0; v < 3; v++) {
        const [u0, v0] = [uvs[v * 4 + set * 2], uvs[v * 4 + set * 2 + 1]];
        const [qu, qv] = [q.data[v * 4 + set * 2] / 65535, q.data[v * 4 + set * 2 + 1] / 65535];
        const step = Math.max(q.decode[set * 4 + 2], q.decode[set * 4 + 3]) / 65535;
        const [a, b] = apply(rows, u0, v0), [x, y] = apply(composed, qu, qv);
        // The transform scales by 2: half a step of the range each way, doubled.
        expect(Math.hypot(a - x, b - y)).toBeLessThanOrEqual(2 * Math.SQRT2 * step / 2 + 1e-6);
      }
    }
  });

  it('keeps float32 where a range is wider than UV_UNORM16_RANGE (tiling UVs) or not finite; a constant set decodes exactly', () => {
    expect(quantizeUvs(Float32Array.of(0, 0, UV_UNORM16_RANGE + 0.01, 0.5), 1)).toBeUndefined();
    expect(quantizeUvs(Float32Array.of(0, 0, NaN, 0.5), 1)).toBeUndefined();
    const flat = quantizeUvs(Float32Array.of(0.3, 0.7, 0.3, 0.7), 1)!;
    expect([...flat.data]).toEqual([0, 0, 0, 0]);
    expect(apply(composeUvDecode([1, 0, 0, 0, 1, 0], flat.decode, 0), 0, 0).map((x) => +x.toFixed(6))).toEqual([0.3, 0.7]);
  });
});
