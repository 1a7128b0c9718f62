import { beginBlend, checkClipAndDuration, finishBlend, pushEntry, show, type BlendWeights } from './blend-weights';

export interface BlendSpace1DEntry {
  /** Clip index. The same clip may appear at several positions. */
  clip: number;
  /** Place on the parameter line (any unit: speed in m/s, turn angle, ...); finite, distinct. */
  position: number;
  /** Clip duration, seconds, > 0: sets the clip's playback rate under phase sync. */
  duration: number;
}

/**
 * Clips placed on a parameter line (walk at 1.5 m/s, jog at 3, run at 6). evaluate(p) blends the
 * two clips whose positions bracket p, linearly in p; below the first position or above the last
 * it is the end clip alone. The output carries the phase-sync rates (see BlendWeights).
 *
 * The constructor sorts the entries by position into typed arrays once; evaluate() is a binary
 * search and allocates nothing.
 */
export class BlendSpace1D {
  /** Number of entries. */
  readonly count: number;
  /** Entry positions in ascending order. */
  private readonly positions: Float64Array;
  /** For each sorted position: index into the constructor's entries, clip, duration (s). */
  private readonly source: Int32Array;
  private readonly clips: Uint32Array;
  private readonly durations: Float64Array;

  constructor(entries: readonly BlendSpace1DEntry[]) {
    if (!Array.isArray(entries)) throw new TypeError(`BlendSpace1D: entries must be an array of {clip, position, duration}, got ${show(entries)}`);
    if (entries.length === 0) throw new RangeError('BlendSpace1D: entries is empty; a blend space needs at least one clip');
    entries.forEach((entry, i) => {
      const where = `BlendSpace1D entries[${i}]`;
      if (typeof entry !== 'object' || entry === null) throw new TypeError(`${where} must be an object {clip, position, duration}, got ${show(entry)}`);
      checkClipAndDuration(entry, where);
      if (typeof entry.position !== 'number' || !Number.isFinite(entry.position)) {
        throw new RangeError(`${where}.position must be a finite number, got ${show(entry.position)}`);
      }
    });
    const order = entries.map((_, i) => i).sort((a, b) => entries[a].position - entries[b].position || a - b);
    for (let k = 1; k < order.length; k++) {
      const a = order[k - 1];
      const b = order[k];
      if (entries[a].position === entries[b].position) {
        throw new RangeError(`BlendSpace1D entries[${a}] and entries[${b}] are both at position ${entries[a].position}; positions must be distinct`);
      }
    }
    this.count = entries.length;
    this.source = Int32Array.from(order);
    this.positions = Float64Array.from(order, (i) => entries[i].position);
    this.clips = Uint32Array.from(order, (i) => entries[i].clip);
    this.durations = Float64Array.from(order, (i) => entries[i].duration);
  }

  /** Lowest and highest position: evaluate() clamps the parameter to this range. */
  get min(): number {
    return this.positions[0];
  }

  /** The largest entry position (parameter units): above it, the last clip alone plays. */
  get max(): number {
    return this.positions[this.count - 1];
  }

  /**
   * Fills `out` (capacity >= 2, or 1 for a one-clip space) with the clips that bracket
   * `parameter` and returns it. Between positions a < b: weights (b - p) / (b - a) and
   * (p - a) / (b - a). At a position, or outside [min, max], one clip with weight 1. Entries
   * with weight 0 are left out, so out.count is 1 or 2.
   */
  evaluate(parameter: number, out: BlendWeights): BlendWeights {
    if (!Number.isFinite(parameter)) throw new RangeError(`BlendSpace1D.evaluate: parameter must be a finite number, got ${show(parameter)}`);
    beginBlend(out, Math.min(2, this.count), 'BlendSpace1D.evaluate');
    const pos = this.positions;
    const last = this.count - 1;
    if (parameter <= pos[0]) {
      this.push(out, 0, 1);
    } else if (parameter >= pos[last]) {
      this.push(out, last, 1);
    } else {
      // Invariant: pos[lo] <= parameter < pos[hi].
      let lo = 0;
      let hi = last;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (pos[mid] <= parameter) lo = mid;
        else hi = mid;
      }
      const t = (parameter - pos[lo]) / (pos[hi] - pos[lo]);
      this.push(out, lo, 1 - t);
      this.push(out, hi, t);
    }
    return finishBlend(out);
  }

  private push(out: BlendWeights, sorted: number, weight: number): void {
    pushEntry(out, this.source[sorted], this.clips[sorted], this.durations[sorted], weight);
  }
}
