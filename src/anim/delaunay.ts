/**
 * Delaunay triangulation of a small 2D point set (a blend space's clips: tens of points, built
 * once at load time), by Bowyer–Watson insertion. Plain O(n^2): every insertion tests every
 * triangle. Not for per-frame use.
 *
 * Two details make it exact rather than approximately right:
 *
 * - Ghost triangles instead of a "super triangle". Each convex-hull edge (u, v) carries a ghost
 *   triangle (u, v, GHOST) standing for the outside beyond it. A finite super triangle is the
 *   textbook shortcut, but its vertices sit at finite distance and make near-hull triangles
 *   non-Delaunay or drop hull triangles entirely; ghosts have no such size to get wrong.
 * - Exact predicates. orient2d and inCircle are evaluated in floating point and, when the result
 *   is too close to zero to trust (Shewchuk's error bounds), again in exact BigInt arithmetic.
 *   Blend spaces are full of exactly or nearly cocircular points (a square of cardinal and
 *   diagonal directions), which is where rounded predicates contradict each other and
 *   Bowyer–Watson produces overlapping or missing triangles.
 *
 * Cocircular points (4+ on one empty circle) have several Delaunay triangulations; which one is
 * produced depends on the input order, deterministically.
 */

export interface Triangulation {
  /** Triangles as point-index triples, counter-clockwise (positive area), 3 per triangle. */
  triangles: Uint32Array;
  /**
   * The convex hull as point indices in counter-clockwise order, each once. Points lying on a
   * hull edge are included (the hull edges are exactly the triangle edges used once).
   */
  hull: Uint32Array;
}

/** Stands for the vertex at infinity of a ghost triangle. */
const GHOST = -1;

/**
 * Triangulates the points (x_i, y_i) = (coords[2i], coords[2i + 1]): at least 3, finite,
 * distinct, not all on one line. Throws a RangeError naming the offending points otherwise.
 */
export function delaunay(coords: ArrayLike<number>): Triangulation {
  const n = coords.length / 2;
  if (!Number.isInteger(n) || n < 3) throw new RangeError(`delaunay: needs at least 3 points as [x0, y0, x1, y1, ...], got ${coords.length} numbers`);
  for (let i = 0; i < coords.length; i++) {
    if (!Number.isFinite(coords[i])) throw new RangeError(`delaunay: point ${i >> 1} has a non-finite ${i & 1 ? 'y' : 'x'} (${coords[i]})`);
  }
  const duplicate = findDuplicatePoints(coords);
  if (duplicate) throw new RangeError(`delaunay: points ${duplicate[0]} and ${duplicate[1]} are both at (${coords[duplicate[0] * 2]}, ${coords[duplicate[0] * 2 + 1]})`);
  const seed = findNonCollinearTriple(coords);
  if (!seed) throw new RangeError(`delaunay: all ${n} points lie on one line`);

  const orient = (a: number, b: number, c: number) =>
    orient2d(coords[a * 2], coords[a * 2 + 1], coords[b * 2], coords[b * 2 + 1], coords[c * 2], coords[c * 2 + 1]);

  /** Whether point p lies in the open circumdisk of triangle t (for a ghost: strictly outside its edge, or on the edge's open segment). */
  const inCircumdisk = (t: Triangle, p: number): boolean => {
    const [a, b, c] = t;
    if (c === GHOST) {
      const o = orient(a, b, p);
      return o > 0 || (o === 0 && strictlyBetween(coords, a, b, p));
    }
    return inCircle(coords[a * 2], coords[a * 2 + 1], coords[b * 2], coords[b * 2 + 1], coords[c * 2], coords[c * 2 + 1], coords[p * 2], coords[p * 2 + 1]) > 0;
  };

  // Start from one counter-clockwise triangle and the three ghosts beyond its edges. A ghost
  // (u, v, GHOST) holds the hull edge u -> v with the outside on its left: clockwise around the
  // hull, the reverse of the solid triangle's edge v -> u.
  const [s0, s1, s2] = orient(seed[0], seed[1], seed[2]) > 0 ? seed : [seed[0], seed[2], seed[1]];
  let triangles: Triangle[] = [[s0, s1, s2], [s1, s0, GHOST], [s2, s1, GHOST], [s0, s2, GHOST]];

  const key = (u: number, v: number) => (u + 1) * (n + 1) + (v + 1);
  for (let p = 0; p < n; p++) {
    if (p === s0 || p === s1 || p === s2) continue;
    // The cavity: every triangle whose circumdisk contains p. It is star-shaped from p, so
    // joining p to each edge on the cavity's boundary re-triangulates it.
    const bad: Triangle[] = [];
    const kept: Triangle[] = [];
    for (const t of triangles) (inCircumdisk(t, p) ? bad : kept).push(t);
    const cavityEdges = new Set<number>();
    for (const [a, b, c] of bad) cavityEdges.add(key(a, b)).add(key(b, c)).add(key(c, a));
    for (const [a, b, c] of bad) {
      for (const [u, v] of [[a, b], [b, c], [c, a]]) {
        if (cavityEdges.has(key(v, u))) continue; // shared by two cavity triangles: interior
        // Keep the ghost vertex last: (GHOST, v, p) -> (v, p, GHOST); (u, GHOST, p) -> (p, u, GHOST).
        if (u === GHOST) kept.push([v, p, GHOST]);
        else if (v === GHOST) kept.push([p, u, GHOST]);
        else kept.push([u, v, p]);
      }
    }
    triangles = kept;
  }

  const solid = triangles.filter((t) => t[2] !== GHOST);
  const ghosts = triangles.filter((t) => t[2] === GHOST);
  // Ghost (u, v) is hull edge v -> u counter-clockwise.
  const next = new Map<number, number>();
  for (const [u, v] of ghosts) next.set(v, u);
  const hull: number[] = [];
  for (let v = ghosts[0][1]; hull.length === 0 || v !== hull[0]; v = next.get(v)!) {
    if (hull.length > ghosts.length) throw new Error('delaunay: internal error, the hull does not close');
    hull.push(v);
  }
  return { triangles: Uint32Array.from(solid.flat()), hull: Uint32Array.from(hull) };
}

type Triangle = [number, number, number];

/** Whether p lies strictly between a and b, given the three are collinear. */
function strictlyBetween(coords: ArrayLike<number>, a: number, b: number, p: number): boolean {
  const axis = coords[a * 2] !== coords[b * 2] ? 0 : 1;
  const pa = coords[a * 2 + axis];
  const pb = coords[b * 2 + axis];
  const pp = coords[p * 2 + axis];
  return (pa < pp && pp < pb) || (pb < pp && pp < pa);
}

/** The first pair of points i < j at the same place, or null. */
export function findDuplicatePoints(coords: ArrayLike<number>): [number, number] | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < coords.length / 2; i++) {
    // `+ 0` turns -0 into 0, so (-0, 1) and (0, 1) count as the same place.
    const k = `${coords[i * 2] + 0},${coords[i * 2 + 1] + 0}`;
    const j = seen.get(k);
    if (j !== undefined) return [j, i];
    seen.set(k, i);
  }
  return null;
}

/** Three point indices that are not on one line (exactly), or null when all points are collinear. */
export function findNonCollinearTriple(coords: ArrayLike<number>): [number, number, number] | null {
  const n = coords.length / 2;
  // Any line through point 0 and another distinct point: a third point off it, if one exists.
  let b = 1;
  while (b < n && coords[b * 2] === coords[0] && coords[b * 2 + 1] === coords[1]) b++;
  if (b >= n) return null;
  for (let c = 1; c < n; c++) {
    if (c === b) continue;
    if (orient2d(coords[0], coords[1], coords[b * 2], coords[b * 2 + 1], coords[c * 2], coords[c * 2 + 1]) !== 0) return [0, b, c];
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Predicates. Both return a number whose sign is exact (the magnitude means nothing when the
// exact fallback ran). Error bounds from J. R. Shewchuk, "Adaptive Precision Floating-Point
// Arithmetic and Fast Robust Geometric Predicates" (1997), stage A.

const EPSILON = 2 ** -53;
const ORIENT_BOUND = (3 + 16 * EPSILON) * EPSILON;
const INCIRCLE_BOUND = (10 + 96 * EPSILON) * EPSILON;

/** > 0 when a, b, c turn counter-clockwise (c left of a -> b), < 0 clockwise, 0 on one line. */
export function orient2d(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const left = (ax - cx) * (by - cy);
  const right = (ay - cy) * (bx - cx);
  const det = left - right;
  const bound = ORIENT_BOUND * (Math.abs(left) + Math.abs(right));
  if (det > bound || -det > bound) return det;
  const [eax, eay, ebx, eby, ecx, ecy] = exact([ax, ay, bx, by, cx, cy]);
  return sign((eax - ecx) * (eby - ecy) - (eay - ecy) * (ebx - ecx));
}

/**
 * > 0 when d lies inside the circle through a, b, c (given counter-clockwise), < 0 outside,
 * 0 on it.
 */
export function inCircle(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): number {
  const adx = ax - dx, ady = ay - dy;
  const bdx = bx - dx, bdy = by - dy;
  const cdx = cx - dx, cdy = cy - dy;
  const bc = bdx * cdy, cb = cdx * bdy, alift = adx * adx + ady * ady;
  const ca = cdx * ady, ac = adx * cdy, blift = bdx * bdx + bdy * bdy;
  const ab = adx * bdy, ba = bdx * ady, clift = cdx * cdx + cdy * cdy;
  const det = alift * (bc - cb) + blift * (ca - ac) + clift * (ab - ba);
  const permanent = (Math.abs(bc) + Math.abs(cb)) * alift + (Math.abs(ca) + Math.abs(ac)) * blift + (Math.abs(ab) + Math.abs(ba)) * clift;
  const bound = INCIRCLE_BOUND * permanent;
  if (det > bound || -det > bound) return det;
  const [eax, eay, ebx, eby, ecx, ecy, edx, edy] = exact([ax, ay, bx, by, cx, cy, dx, dy]);
  const x1 = eax - edx, y1 = eay - edy;
  const x2 = ebx - edx, y2 = eby - edy;
  const x3 = ecx - edx, y3 = ecy - edy;
  const l1 = x1 * x1 + y1 * y1, l2 = x2 * x2 + y2 * y2, l3 = x3 * x3 + y3 * y3;
  return sign(l1 * (x2 * y3 - x3 * y2) + l2 * (x3 * y1 - x1 * y3) + l3 * (x1 * y2 - x2 * y1));
}

function sign(v: bigint): number {
  return v > 0n ? 1 : v < 0n ? -1 : 0;
}

const bits = new DataView(new ArrayBuffer(8));

/**
 * The doubles as exact integers, all scaled by the same power of two (2^-e for the smallest
 * exponent e among them). Both predicates are homogeneous polynomials of the coordinates, so a
 * common positive scale leaves their sign unchanged.
 */
function exact(values: number[]): bigint[] {
  const mantissas: bigint[] = [];
  const exponents: number[] = [];
  for (const x of values) {
    // x = mantissa * 2^exponent exactly, from the IEEE 754 bits.
    bits.setFloat64(0, x);
    const hi = bits.getUint32(0);
    const lo = bits.getUint32(4);
    const biased = (hi >>> 20) & 0x7ff;
    let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    if (biased !== 0) m |= 1n << 52n;
    mantissas.push(hi >>> 31 ? -m : m);
    exponents.push(biased === 0 ? -1074 : biased - 1075);
  }
  const least = Math.min(...exponents);
  return mantissas.map((m, i) => m << BigInt(exponents[i] - least));
}
