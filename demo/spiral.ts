/**
 * Cell of the i-th instance on a square spiral around the origin (0 -> (0, 0), 1 -> (1, 0),
 * then counter-clockwise ring by ring). Any first n cells form a nearly square, centred block,
 * so growing or shrinking the crowd only adds or removes its last instances.
 * Writes integer cell coordinates into out[0] (x) and out[1] (z).
 */
export function spiralCell(i: number, out: Int32Array): void {
  const n = i + 1;
  const k = Math.ceil((Math.sqrt(n) - 1) / 2); // ring
  let t = 2 * k + 1;
  let m = t * t; // last index + 1 of ring k
  t -= 1; // cells per side of the ring
  if (n >= m - t) { out[0] = k - (m - n); out[1] = -k; return; }
  m -= t;
  if (n >= m - t) { out[0] = -k; out[1] = -k + (m - n); return; }
  m -= t;
  if (n >= m - t) { out[0] = -k + (m - n); out[1] = k; return; }
  out[0] = k; out[1] = k - (m - n - t);
}

/** Half the side, in cells, of the square that the first `count` spiral cells fill. */
export function spiralHalfSide(count: number): number {
  return Math.sqrt(Math.max(count, 1)) / 2;
}
