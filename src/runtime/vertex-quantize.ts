// Compact vertex attributes (docs/draw.md, "Fewer bytes in"): UVs as unorm16 relative to each
// primitive's own range, decoded for free by the material's texture transforms.

/**
 * The widest UV range (max - min, on each axis of each set) stored as unorm16: half a step,
 * range / 131,070, is then at most 7.6e-6, a sixteenth of a texel of an 8,192-texel texture
 * (WebGPU's default maxTextureDimension2D); wider ranges (tiling UVs) stay float32.
 */
export const UV_UNORM16_RANGE = 1;

/** A UV set's decoding, per set 4 numbers: (offsetU, offsetV, scaleU, scaleV): uv = offset + scale x q, q in [0, 1]. */
export const UV_IDENTITY = Float32Array.of(0, 0, 1, 1, 0, 0, 1, 1);

/** UVs stored as unorm16 and how to decode them (MeshBuffers; the material record applies `decode`). */
export interface QuantizedUvs {
  /** 2 unorm16 per set per vertex, interleaved as the float32 UVs were. */
  data: Uint16Array;
  /** Per set (offsetU, offsetV, scaleU, scaleV), 8 numbers (set 1's the identity with one set). */
  decode: Float32Array;
}

/**
 * `uvs` (`sets` x 2 floats a vertex: TEXCOORD_0, then TEXCOORD_1 when `sets` is 2) as unorm16
 * relative to each set's own bounds, or undefined where a set's range on an axis is wider than
 * UV_UNORM16_RANGE (or not finite): those stay float32. Each value is rounded to the nearest step.
 */
export function quantizeUvs(uvs: Float32Array, sets: 1 | 2): QuantizedUvs | undefined {
  const stride = sets * 2;
  const vertices = uvs.length / stride;
  const decode = Float32Array.from(UV_IDENTITY);
  for (let axis = 0; axis < stride; axis++) {
    let min = Infinity, max = -Infinity;
    for (let v = 0; v < vertices; v++) {
      const x = uvs[v * stride + axis];
      if (!Number.isFinite(x)) return undefined;
      if (x < min) min = x;
      if (x > max) max = x;
    }
    if (vertices === 0) min = max = 0;
    if (!(max - min <= UV_UNORM16_RANGE)) return undefined;
    const set = axis >> 1, component = axis & 1;
    decode[set * 4 + component] = min;
    decode[set * 4 + 2 + component] = max - min;
  }
  const data = new Uint16Array(uvs.length);
  for (let i = 0; i < uvs.length; i++) {
    const axis = i % stride, set = axis >> 1, component = axis & 1;
    const scale = decode[set * 4 + 2 + component];
    data[i] = scale > 0 ? Math.round(((uvs[i] - decode[set * 4 + component]) / scale) * 65535) : 0;
  }
  return { data, decode };
}

/**
 * KHR_texture_transform rows (a, b, c), (d, e, f) of uv' = M (u, v, 1), composed with a UV set's
 * decoding (offset, scale: uv = offset + scale x q) so that uv' = M' (q, 1): 6 numbers.
 */
export function composeUvDecode(rows: ArrayLike<number>, decode: ArrayLike<number>, set: number): number[] {
  const [ou, ov, su, sv] = [decode[set * 4], decode[set * 4 + 1], decode[set * 4 + 2], decode[set * 4 + 3]];
  const [a, b, c, d, e, f] = Array.from({ length: 6 }, (_, i) => rows[i]);
  return [a * su, b * sv, a * ou + b * ov + c, d * su, e * sv, d * ou + e * ov + f];
}

