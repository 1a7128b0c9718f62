import { describe, expect, it } from 'vitest';
import { delaunay, inCircle, orient2d, type Triangulation } from '../../src/anim/delaunay';
import { seededRandom as random } from '../helpers/prng';

/**
 * The triangulation behind BlendSpace2D (src/anim/delaunay.ts). Every property is checked
 * against code written independently here (a monotone-chain hull, circumcircles in floating
 * point), on seeded random point sets and on the degenerate sets blend spaces are made of
 * (grids, cocircular points, collinear runs).
 */

/** Flat [x0, y0, ...] of `points`, dropping repeats of an earlier point. */
function flat(points: number[][]): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  for (const [x, y] of points) {
    if (seen.has(`${x},${y}`)) continue;
    seen.add(`${x},${y}`);
    out.push(x, y);
  }
  return out;
}

const cross = (c: number[], a: number, b: number, p: number) =>
  (c[b * 2] - c[a * 2]) * (c[p * 2 + 1] - c[a * 2 + 1]) - (c[b * 2 + 1] - c[a * 2 + 1]) * (c[p * 2] - c[a * 2]);

/** Area of the convex hull, by Andrew's monotone chain (written here, not taken from src/). */
function hullArea(c: number[]): number {
  const idx = Array.from({ length: c.length / 2 }, (_, i) => i).sort((a, b) => c[a * 2] - c[b * 2] || c[a * 2 + 1] - c[b * 2 + 1]);
  const chain = (order: number[]) => {
    const h: number[] = [];
    for (const p of order) {
      while (h.length >= 2 && cross(c, h[h.length - 2], h[h.length - 1], p) <= 0) h.pop();
      h.push(p);
    }
    h.pop();
    return h;
  };
  const hull = [...chain(idx), ...chain([...idx].reverse())];
  return polygonArea(c, hull);
}

/** Shoelace area of a polygon of point indices (as a fan from its first point, for precision far from the origin). */
function polygonArea(c: number[], polygon: ArrayLike<number>): number {
  let area = 0;
  for (let k = 1; k + 1 < polygon.length; k++) area += cross(c, polygon[0], polygon[k], polygon[k + 1]);
  return area / 2;
}

/** Asserts every property of a Delaunay triangulation of the points `c`. */
function expectDelaunay(c: number[], result: Triangulation): void {
  const n = c.length / 2;
  const { triangles, hull } = result;
  const count = triangles.length / 3;

  // Counter-clockwise, non-degenerate, no triangle twice.
  const keys = new Set<string>();
  let area = 0;
  for (let t = 0; t < count; t++) {
    const [a, b, p] = triangles.subarray(t * 3, t * 3 + 3);
    expect(new Set([a, b, p]).size, `triangle ${t} repeats a vertex`).toBe(3);
    expect(Math.max(a, b, p)).toBeLessThan(n);
    // The sign from the exact predicate (tested above): a sliver within rounding of a line can
    // have a floating-point cross product of 0 and still be a proper triangle.
    const exactSign = orient2d(c[a * 2], c[a * 2 + 1], c[b * 2], c[b * 2 + 1], c[p * 2], c[p * 2 + 1]);
    expect(exactSign, `triangle ${t} (${a}, ${b}, ${p}) is not counter-clockwise with positive area`).toBeGreaterThan(0);
    area += cross(c, a, b, p) / 2;
    const key = [a, b, p].sort((x, y) => x - y).join(',');
    expect(keys.has(key), `triangle ${key} appears twice`).toBe(false);
    keys.add(key);
  }

  // Empty circumcircles: no point strictly inside any triangle's circumcircle (up to rounding
  // of the circumcircle itself, 1e-9 relative).
  const inside: string[] = [];
  for (let t = 0; t < count; t++) {
    const [a, b, p] = triangles.subarray(t * 3, t * 3 + 3);
    const ax = c[a * 2], ay = c[a * 2 + 1];
    const bx = c[b * 2] - ax, by = c[b * 2 + 1] - ay;
    const px = c[p * 2] - ax, py = c[p * 2 + 1] - ay;
    const d = 2 * (bx * py - by * px);
    const ux = (py * (bx * bx + by * by) - by * (px * px + py * py)) / d;
    const uy = (bx * (px * px + py * py) - px * (bx * bx + by * by)) / d;
    const r2 = ux * ux + uy * uy;
    for (let q = 0; q < n; q++) {
      if (q === a || q === b || q === p) continue;
      const dx = c[q * 2] - ax - ux, dy = c[q * 2 + 1] - ay - uy;
      // A sliver within rounding of a line has no trustworthy floating-point circumcircle:
      // confirm a hit with the exact predicate (itself checked against exact answers above).
      const exactlyInside = () => inCircle(c[a * 2], c[a * 2 + 1], c[b * 2], c[b * 2 + 1], c[p * 2], c[p * 2 + 1], c[q * 2], c[q * 2 + 1]) > 0;
      if (!(dx * dx + dy * dy >= r2 * (1 - 1e-9)) && exactlyInside()) inside.push(`point ${q} in the circumcircle of (${a}, ${b}, ${p})`);
    }
  }
  expect(inside).toEqual([]);

  // Each directed edge once; an undirected edge in one triangle (hull) or two (interior).
  const directed = new Set<string>();
  for (let t = 0; t < count; t++) {
    for (let k = 0; k < 3; k++) {
      const e = `${triangles[t * 3 + k]}>${triangles[t * 3 + ((k + 1) % 3)]}`;
      expect(directed.has(e), `edge ${e} is in two triangles the same way round (overlap)`).toBe(false);
      directed.add(e);
    }
  }
  const boundary = [...directed].filter((e) => !directed.has(e.split('>').reverse().join('>')));
  // The boundary is exactly the hull, counter-clockwise.
  const hullEdges = Array.from(hull, (v, k) => `${v}>${hull[(k + 1) % hull.length]}`);
  expect(new Set(boundary)).toEqual(new Set(hullEdges));
  expect(boundary.length).toBe(hull.length);

  // Triangles cover the convex hull exactly: areas add up to the hull's.
  const expected = hullArea(c);
  expect(Math.abs(area - expected)).toBeLessThanOrEqual(1e-9 * expected);
  expect(Math.abs(polygonArea(c, hull) - expected)).toBeLessThanOrEqual(1e-9 * expected);

  // Every point is a vertex, and Euler's formula holds for a triangulation of all n points.
  expect(new Set(triangles).size).toBe(n);
  expect(count).toBe(2 * n - 2 - hull.length);
}

function randomPoints(seed: number, count: number, scale = 1, offset = 0): number[] {
  const r = random(seed);
  return flat(Array.from({ length: count }, () => [offset + scale * r(), offset + scale * r()]));
}

describe('delaunay validity', () => {
  it('rejects fewer than 3 points and an odd number of coordinates', () => {
    expect(() => delaunay([])).toThrow(/needs at least 3 points as \[x0, y0, x1, y1, \.\.\.\], got 0 numbers/);
    expect(() => delaunay([0, 0, 1, 0])).toThrow(/needs at least 3 points/);
    expect(() => delaunay([0, 0, 1, 0, 0])).toThrow(/got 5 numbers/);
  });

  it('rejects a non-finite coordinate, naming the point and the axis', () => {
    expect(() => delaunay([0, 0, 1, 0, 0, NaN])).toThrow(/point 2 has a non-finite y \(NaN\)/);
    expect(() => delaunay([0, 0, Infinity, 0, 0, 1])).toThrow(/point 1 has a non-finite x \(Infinity\)/);
  });

  it('rejects duplicate points, naming both', () => {
    expect(() => delaunay([0, 0, 1, 0, 0, 1, 1, 0])).toThrow(/points 1 and 3 are both at \(1, 0\)/);
    expect(() => delaunay([0, 0, 1, 0, -0, 0])).toThrow(/points 0 and 2/);
  });

  it('rejects points that all lie on one line', () => {
    expect(() => delaunay([0, 0, 1, 1, 2, 2, 3, 3])).toThrow(/all 4 points lie on one line/);
  });
});

describe('delaunay predicates', () => {
  it('orient2d has the exact sign where plain floating point gets it wrong', () => {
    // Shewchuk's example: p near (0.5, 0.5) in steps of one ulp, against the line y = x through
    // (12, 12) and (24, 24). p is left of the line (counter-clockwise) exactly when py > px.
    let naiveWrong = 0;
    for (let i = 0; i < 64; i++) {
      for (let j = 0; j < 64; j++) {
        const px = 0.5 + i * 2 ** -53, py = 0.5 + j * 2 ** -53;
        expect(Math.sign(orient2d(px, py, 12, 12, 24, 24)), `p = 0.5 + (${i}, ${j}) ulp`).toBe(Math.sign(j - i));
        const naive = (px - 24) * (12 - 24) - (py - 24) * (12 - 24);
        if (Math.sign(naive) !== Math.sign(j - i)) naiveWrong++;
      }
    }
    expect(naiveWrong, 'the test points are ones where the naive formula fails').toBeGreaterThan(100);
  });

  it('inCircle has the exact sign for points within a few ulps of a circle', () => {
    // Circle x^2 + y^2 = 25 through (5, 0), (0, 5), (-5, 0); d = (3 + i e, 4 + j e), e = 2^-50.
    // |d|^2 - 25 = e^2 (2^50 (6i + 8j) + i^2 + j^2): inside exactly when that is < 0.
    for (let i = -12; i <= 12; i++) {
      for (let j = -12; j <= 12; j++) {
        const exactDiff = (BigInt(6 * i + 8 * j) << 50n) + BigInt(i * i + j * j);
        const expected = exactDiff < 0n ? 1 : exactDiff > 0n ? -1 : 0;
        expect(Math.sign(inCircle(5, 0, 0, 5, -5, 0, 3 + i * 2 ** -50, 4 + j * 2 ** -50)), `d = (3, 4) + (${i}, ${j}) * 2^-50`).toBe(expected);
      }
    }
    expect(inCircle(5, 0, 0, 5, -5, 0, 3, 4)).toBe(0);
    expect(inCircle(5, 0, 0, 5, -5, 0, 0, 0)).toBeGreaterThan(0);
    expect(inCircle(5, 0, 0, 5, -5, 0, 6, 0)).toBeLessThan(0);
  });
});

describe('delaunay', () => {
  it('triangulates one triangle, counter-clockwise whatever the input order', () => {
    const { triangles, hull } = delaunay([0, 0, 0, 1, 1, 0]);
    expect(triangles.length).toBe(3);
    expectDelaunay([0, 0, 0, 1, 1, 0], { triangles, hull });
  });

  it('picks the diagonal whose opposite angles sum under 180 degrees', () => {
    // A kite: the short diagonal (1)-(3) keeps both circumcircles empty; (0)-(2) would not.
    const c = [0, 0, 2, -0.5, 4, 0, 2, 0.5];
    const { triangles } = delaunay(c);
    expectDelaunay(c, delaunay(c));
    const edges = new Set<string>();
    for (let t = 0; t < triangles.length; t += 3) for (let k = 0; k < 3; k++) edges.add([triangles[t + k], triangles[t + ((k + 1) % 3)]].sort().join('-'));
    expect(edges.has('1-3')).toBe(true);
    expect(edges.has('0-2')).toBe(false);
  });

  for (const count of [3, 4, 5, 8, 13, 30, 80]) {
    it(`random point sets of ${count} points (5 seeds) are Delaunay and cover the hull`, () => {
      for (let seed = 1; seed <= 5; seed++) {
        const c = randomPoints(seed * 1000 + count, count);
        expectDelaunay(c, delaunay(c));
      }
    });
  }

  it('random points far from the origin and at tiny and huge scales', () => {
    for (const [scale, offset] of [[1e-3, 1e3], [1e-9, 0], [1e9, -1e9], [1, 1e6]]) {
      const c = randomPoints(7, 40, scale, offset);
      expectDelaunay(c, delaunay(c));
    }
  });

  it('random points on a small integer grid (many collinear and cocircular quadruples)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = random(seed);
      const c = flat(Array.from({ length: 25 }, () => [Math.floor(r() * 5), Math.floor(r() * 5)]));
      if (c.length / 2 < 3 || hullArea(c) === 0) continue;
      expectDelaunay(c, delaunay(c));
    }
  });

  it('regular grids, where every cell is cocircular', () => {
    for (const size of [2, 3, 4, 6]) {
      const points: number[][] = [];
      for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) points.push([x * 0.25, y * 0.25]);
      const c = flat(points);
      const result = delaunay(c);
      expectDelaunay(c, result);
      expect(result.triangles.length / 3).toBe(2 * (size - 1) ** 2);
    }
  });

  it('points on a circle with its centre, in the cardinal-and-diagonal locomotion layout', () => {
    const s = Math.SQRT1_2;
    const c = flat([[0, 0], [0, 1], [0, -1], [-1, 0], [1, 0], [s, s], [-s, s], [s, -s], [-s, -s]]);
    const result = delaunay(c);
    expectDelaunay(c, result);
    // Eight points (nearly) on one circle around the centre: a fan of 8 triangles at point 0.
    expect(result.triangles.length / 3).toBe(8);
    for (let t = 0; t < 8; t++) expect(Array.from(result.triangles.subarray(t * 3, t * 3 + 3))).toContain(0);
    for (let count = 5; count <= 24; count += 7) {
      const ring = flat([[0, 0], ...Array.from({ length: count }, (_, k) => [Math.cos((2 * Math.PI * k) / count), Math.sin((2 * Math.PI * k) / count)])]);
      expectDelaunay(ring, delaunay(ring));
    }
  });

  it('near-degenerate sets that break floating-point predicates: random angles on a circle, a grid jittered by ulps', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = random(seed);
      const ring = flat(Array.from({ length: 24 }, () => {
        const angle = r() * 2 * Math.PI;
        return [Math.cos(angle), Math.sin(angle)];
      }));
      expectDelaunay(ring, delaunay(ring));
      const ulps = () => (r() < 0.5 ? 0 : 2 ** -50 * (Math.floor(r() * 5) - 2));
      const grid = flat(Array.from({ length: 24 }, () => [Math.floor(r() * 4) * 0.1 + ulps(), Math.floor(r() * 4) * 0.1 + ulps()]));
      expectDelaunay(grid, delaunay(grid));
    }
  });

  it('collinear runs before the first point off the line, and points landing on hull edges', () => {
    const cases = [
      [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [2, 1]],
      [[2, 0], [0, 0], [4, 0], [1, 0], [3, 0], [2, -1], [2, 1]],
      [[0, 0], [4, 0], [0, 4], [2, 0], [0, 2], [2, 2], [1, 0], [3, 1]],
      [[0, 0], [1, 1], [2, 2], [3, 3], [0, 3], [3, 0], [1.5, 1.5], [-1, -1]],
    ];
    for (const points of cases) {
      const c = flat(points);
      expectDelaunay(c, delaunay(c));
    }
  });
});
