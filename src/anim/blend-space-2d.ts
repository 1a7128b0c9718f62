import { beginBlend, checkClipAndDuration, finishBlend, pushEntry, show, type BlendWeights } from './blend-weights';
import { delaunay, findDuplicatePoints, findNonCollinearTriple } from './delaunay';

export interface BlendSpace2DEntry {
  /** Clip index. The same clip may appear at several points. */
  clip: number;
  /** Place in the parameter plane (e.g. velocity in m/s: x to the right, y forward); finite. */
  x: number;
  y: number;
  /** Clip duration, seconds, > 0: sets the clip's playback rate under phase sync. */
  duration: number;
}

/**
 * Barycentric weights at or below this count as 0 (the query is on an edge or at a vertex), and
 * a query this far outside a triangle (in barycentric units) still counts as inside it.
 */
export const EDGE_EPSILON = 1e-12;

/**
 * Clips at points of a parameter plane, the classic use being directional locomotion: idle at
 * (0, 0), forward at (0, 1), back (0, -1), left (-1, 0), right (1, 0), maybe the diagonals.
 *
 * The constructor Delaunay-triangulates the points once (delaunay.ts) and precomputes, per
 * triangle, the affine map from (x, y) to barycentric weights, and per convex-hull edge its
 * direction. evaluate(x, y):
 *  - inside the convex hull: the triangle containing (x, y) and its barycentric weights, which
 *    are >= 0, sum to 1 and reproduce the point (sum w_i p_i = (x, y)). Up to 3 entries; fewer on
 *    an edge or at a point, since zero weights are left out.
 *  - outside: the nearest point of the hull boundary (on the nearest edge), weighted between
 *    that edge's two ends: 1 or 2 entries.
 * Both are a linear scan over tens of triangles and edges; nothing is allocated.
 *
 * Cocircular points (a square of cardinal and diagonal clips) have more than one Delaunay
 * triangulation; the one built depends on the entry order, deterministically. The weights are
 * a valid barycentric blend either way, but may differ between the choices inside such a square.
 */
export class BlendSpace2D {
  /** Number of entries. */
  readonly count: number;
  /** Delaunay triangles as entry-index triples, counter-clockwise. */
  readonly triangles: Uint32Array;
  /** The convex hull as entry indices in counter-clockwise order (points on hull edges included). */
  readonly hull: Uint32Array;
  /** Clip and duration (seconds) of each entry (read-only; the GPU control tables copy them). */
  readonly clips: Uint32Array;
  /** Seconds per entry. */
  readonly durations: Float64Array;
  /**
   * Per triangle [ax, ay, m00, m01, m10, m11]: with (dx, dy) = (x - ax, y - ay) the weights of
   * the second and third vertex are m00 dx + m01 dy and m10 dx + m11 dy.
   */
  readonly barycentric: Float64Array;
  /** Per hull edge a -> b: [ax, ay, bx - ax, by - ay, 1 / |b - a|^2 (0 if that is not finite)]. */
  readonly edges: Float64Array;

  constructor(entries: readonly BlendSpace2DEntry[]) {
    if (!Array.isArray(entries)) throw new TypeError(`BlendSpace2D: entries must be an array of {clip, x, y, duration}, got ${show(entries)}`);
    if (entries.length < 3) {
      throw new RangeError(`BlendSpace2D needs at least 3 entries that span an area, got ${entries.length}; for 1 or 2 clips use BlendSpace1D`);
    }
    entries.forEach((entry, i) => {
      const where = `BlendSpace2D entries[${i}]`;
      if (typeof entry !== 'object' || entry === null) throw new TypeError(`${where} must be an object {clip, x, y, duration}, got ${show(entry)}`);
      checkClipAndDuration(entry, where);
      for (const axis of ['x', 'y'] as const) {
        const v = entry[axis];
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`${where}.${axis} must be a finite number, got ${show(v)}`);
      }
    });
    const coords = new Float64Array(entries.length * 2);
    entries.forEach((e, i) => { coords[i * 2] = e.x; coords[i * 2 + 1] = e.y; });
    const duplicate = findDuplicatePoints(coords);
    if (duplicate) {
      const [i, j] = duplicate;
      throw new RangeError(`BlendSpace2D entries[${i}] and entries[${j}] are both at (${entries[i].x}, ${entries[i].y}); points must be distinct`);
    }
    if (!findNonCollinearTriple(coords)) {
      throw new RangeError(`BlendSpace2D: all ${entries.length} points lie on one line, so they span no area; for clips along a line use BlendSpace1D`);
    }

    const { triangles, hull } = delaunay(coords);
    this.count = entries.length;
    this.triangles = triangles;
    this.hull = hull;
    this.clips = Uint32Array.from(entries, (e) => e.clip);
    this.durations = Float64Array.from(entries, (e) => e.duration);

    const triangleCount = triangles.length / 3;
    this.barycentric = new Float64Array(triangleCount * 6);
    for (let t = 0; t < triangleCount; t++) {
      const a = triangles[t * 3], b = triangles[t * 3 + 1], c = triangles[t * 3 + 2];
      const ax = coords[a * 2], ay = coords[a * 2 + 1];
      const e1x = coords[b * 2] - ax, e1y = coords[b * 2 + 1] - ay;
      const e2x = coords[c * 2] - ax, e2y = coords[c * 2 + 1] - ay;
      // Solve (dx, dy) = wb * e1 + wc * e2 by Cramer's rule. det > 0 exactly (counter-clockwise),
      // but a sliver within rounding of a line can round to det <= 0: its coefficients become
      // NaN so that evaluate() never picks it (its neighbours and the hull cover its points).
      const det = e1x * e2y - e2x * e1y;
      const inv = det > 0 ? 1 / det : NaN;
      this.barycentric.set([ax, ay, e2y * inv, -e2x * inv, -e1y * inv, e1x * inv], t * 6);
    }

    this.edges = new Float64Array(hull.length * 5);
    for (let k = 0; k < hull.length; k++) {
      const a = hull[k], b = hull[(k + 1) % hull.length];
      const ax = coords[a * 2], ay = coords[a * 2 + 1];
      const ex = coords[b * 2] - ax, ey = coords[b * 2 + 1] - ay;
      const length2 = ex * ex + ey * ey;
      // An edge too short for its squared length to be a normal double counts as a point (s = 0).
      this.edges.set([ax, ay, ex, ey, length2 > 0 && length2 < Infinity ? 1 / length2 : 0], k * 5);
    }
  }

  /**
   * Fills `out` (capacity >= 3) with the blend at (x, y) and returns it: barycentric weights of
   * the containing triangle, or of the nearest hull-boundary point when (x, y) is outside the
   * convex hull. See the class comment.
   */
  evaluate(x: number, y: number, out: BlendWeights): BlendWeights {
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      throw new RangeError(`BlendSpace2D.evaluate: x and y must be finite numbers, got (${show(x)}, ${show(y)})`);
    }
    beginBlend(out, 3, 'BlendSpace2D.evaluate');
    const tri = this.triangles;
    const m = this.barycentric;
    for (let t = 0; t < tri.length / 3; t++) {
      const o = t * 6;
      const dx = x - m[o], dy = y - m[o + 1];
      const wb = m[o + 2] * dx + m[o + 3] * dy;
      const wc = m[o + 4] * dx + m[o + 5] * dy;
      const wa = 1 - wb - wc;
      // Written so that NaN (a sliver, see the constructor) counts as outside.
      if (!(wa >= -EDGE_EPSILON && wb >= -EDGE_EPSILON && wc >= -EDGE_EPSILON)) continue;
      this.push(out, tri[t * 3], wa > EDGE_EPSILON ? wa : 0);
      this.push(out, tri[t * 3 + 1], wb > EDGE_EPSILON ? wb : 0);
      this.push(out, tri[t * 3 + 2], wc > EDGE_EPSILON ? wc : 0);
      return finishBlend(out);
    }

    // Outside the hull: the nearest point on any hull edge, a + s (b - a) with s in [0, 1].
    const e = this.edges;
    let best = 0;
    let bestS = 0;
    let bestDistance = Infinity;
    for (let k = 0; k < this.hull.length; k++) {
      const o = k * 5;
      const dx = x - e[o], dy = y - e[o + 1];
      const s = Math.min(1, Math.max(0, (dx * e[o + 2] + dy * e[o + 3]) * e[o + 4]));
      const rx = dx - s * e[o + 2], ry = dy - s * e[o + 3];
      const distance = rx * rx + ry * ry;
      if (distance < bestDistance) { bestDistance = distance; best = k; bestS = s; }
    }
    this.push(out, this.hull[best], 1 - bestS);
    this.push(out, this.hull[(best + 1) % this.hull.length], bestS);
    return finishBlend(out);
  }

  private push(out: BlendWeights, entry: number, weight: number): void {
    pushEntry(out, entry, this.clips[entry], this.durations[entry], weight);
  }
}
