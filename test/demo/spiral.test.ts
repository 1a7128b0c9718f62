import { describe, expect, it } from 'vitest';
import { spiralCell, spiralHalfSide } from '../../demo/spiral';

describe('spiralCell', () => {
  it('walks the first ring counter-clockwise from (1, 0)', () => {
    const cell = new Int32Array(2);
    const cells = Array.from({ length: 9 }, (_, i) => (spiralCell(i, cell), [cell[0], cell[1]]));
    expect(cells).toEqual([[0, 0], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]]);
  });

  it('gives 100,000 distinct cells inside the square of spiralHalfSide', () => {
    const cell = new Int32Array(2);
    const seen = new Set<number>();
    const count = 100_000;
    const limit = Math.ceil(spiralHalfSide(count));
    for (let i = 0; i < count; i++) {
      spiralCell(i, cell);
      expect(Math.max(Math.abs(cell[0]), Math.abs(cell[1]))).toBeLessThanOrEqual(limit);
      seen.add((cell[0] + 1000) * 4096 + cell[1] + 1000);
    }
    expect(seen.size).toBe(count);
  });
});
