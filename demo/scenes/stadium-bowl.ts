/**
 * The stadium scene's bowl and its wave, apart from any crowd (so Node tests can check them):
 * where each seat is, and which seats the wave changes each frame.
 */

/** Angle buckets round the bowl: the wave's resolution (0.5 degrees each). */
export const WAVE_BUCKETS = 720;
/** Steps between sitting (0) and fully up (WAVE_LEVELS): a seat changes 2 x this many times a lap. */
export const WAVE_LEVELS = 4;
/** Angular width of the wave, radians (40 degrees of the bowl up at once). */
export const WAVE_WIDTH = (40 * Math.PI) / 180;
/** Seconds the wave takes to run once round the stands. */
export const WAVE_LAP_SECONDS = 15;
/** Fewest seats round the front row (a small crowd still sits round a field). */
const MIN_FRONT_ROW_SEATS = 72;
/** The field's radius as a share of the radius a disc of all the seats would have. */
const FIELD_SHARE = 0.3;

/** A bowl's seats: positions, facings and angle buckets, in bucket order (the seats of one slice of the bowl together). */
export interface BowlSeats {
  readonly count: number;
  /** x, y, z per seat (world units; y is the row's height plus `lift`). */
  readonly positions: Float32Array;
  /** Yaw per seat, radians: facing the centre of the field. */
  readonly yaws: Float32Array;
  /** The angle bucket of each seat, in [0, WAVE_BUCKETS): floor(angle / 2 pi x WAVE_BUCKETS), the angle atan2(x, z) in [0, 2 pi). */
  readonly buckets: Uint16Array;
  /** Radius of the front row and of the back row, world units. */
  readonly innerRadius: number;
  readonly outerRadius: number;
  /** Rows (the last one may be partly filled). */
  readonly rows: number;
  /** Height of the back row, world units (above `lift`). */
  readonly topHeight: number;
}

/** The spacing of a bowl: seat width along a row, row depth and rise per row (world units), and the height every seat is lifted by (feet on its row). */
export interface BowlSpacing {
  seatWidth: number;
  rowDepth: number;
  rowRise: number;
  lift: number;
}

/**
 * Lays `count` seats in rows round a circular field, each row `rowDepth` further out and
 * `rowRise` higher than the one before, `seatWidth` apart along it, everyone facing the centre;
 * the field's radius grows with the count (FIELD_SHARE), at least MIN_FRONT_ROW_SEATS round.
 * The last row is filled from angle 0 on. The seats come out in bucket order (angle slices).
 * A million seats take about 0.2 s.
 */
export function layBowl(count: number, spacing: BowlSpacing): BowlSeats {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`stadium seats must be a non-negative integer, got ${count}`);
  const { seatWidth, rowDepth, rowRise, lift } = spacing;
  for (const [name, value] of Object.entries(spacing)) {
    if (!Number.isFinite(value) || (name !== 'lift' && value <= 0)) throw new RangeError(`stadium ${name} must be a positive number, got ${value}`);
  }
  const disc = Math.sqrt((count * seatWidth * rowDepth) / Math.PI);
  const inner = Math.max(FIELD_SHARE * disc, (MIN_FRONT_ROW_SEATS * seatWidth) / (2 * Math.PI));
  // Row by row first (angle and radius per seat), then written out in bucket order (below).
  const angles = new Float32Array(count);
  const radii = new Float32Array(count);
  const heights = new Float32Array(count);
  const perBucket = new Int32Array(WAVE_BUCKETS + 1);
  let seat = 0;
  let row = 0;
  let radius = inner;
  while (seat < count) {
    radius = inner + row * rowDepth;
    const around = Math.floor((2 * Math.PI * radius) / seatWidth);
    const step = (2 * Math.PI) / around;
    // Every other row half a seat round, so that heads look between the heads in front.
    const offset = (row & 1) * 0.5 * step;
    for (let k = 0; k < around && seat < count; k++, seat++) {
      angles[seat] = offset + k * step;
      radii[seat] = radius;
      heights[seat] = lift + row * rowRise;
      perBucket[bucketOf(angles[seat]) + 1]++;
    }
    row++;
  }
  // Seats in bucket order: the seats of one slice of the bowl are neighbours in the crowd's
  // records, so the records a wave step changes lie together (the crowd uploads one range of
  // records a frame, from the lowest changed to the highest: a wave over seats in row order
  // made it nearly the whole buffer, 112 MB a frame for a million).
  for (let b = 0; b < WAVE_BUCKETS; b++) perBucket[b + 1] += perBucket[b];
  const positions = new Float32Array(3 * count);
  const yaws = new Float32Array(count);
  const buckets = new Uint16Array(count);
  for (let i = 0; i < count; i++) {
    const angle = angles[i];
    const bucket = bucketOf(angle);
    const at = perBucket[bucket]++;
    positions[3 * at] = radii[i] * Math.sin(angle);
    positions[3 * at + 1] = heights[i];
    positions[3 * at + 2] = radii[i] * Math.cos(angle);
    yaws[at] = angle + Math.PI; // facing the centre: yaw 0 faces +z
    buckets[at] = bucket;
  }
  return { count, positions, yaws, buckets, innerRadius: inner, outerRadius: count > 0 ? radius : inner, rows: row, topHeight: Math.max(0, row - 1) * rowRise };
}

/** The bucket of an angle in [0, 2 pi). */
function bucketOf(angle: number): number {
  return Math.min(WAVE_BUCKETS - 1, Math.floor((angle / (2 * Math.PI)) * WAVE_BUCKETS));
}

/**
 * The wave: a hump WAVE_WIDTH wide that runs round the bowl once every WAVE_LAP_SECONDS, setting
 * off from angle 0 (the seats rise as it first reaches them, not all at once).
 * A seat's level (0 sitting .. WAVE_LEVELS fully up) follows sin(pi x behind / WAVE_WIDTH),
 * `behind` the angle from the wave's head back to the seat's bucket, rounded to a level. Per
 * frame only the buckets whose level changed are visited, and only their seats are handed to
 * `apply`: seats x 2 WAVE_LEVELS / (WAVE_LAP_SECONDS x frame rate) of them (a million at 60 fps:
 * 8,397 a frame on average, 11,220 at most), never a loop over every seat. Allocation-free per step.
 */
export class StadiumWave {
  /** Seat indices grouped by bucket: those of bucket b are order[starts[b] .. starts[b + 1]). */
  private readonly order: Int32Array;
  private readonly starts = new Int32Array(WAVE_BUCKETS + 1);
  private readonly levels = new Uint8Array(WAVE_BUCKETS);
  /** The wave's head, radians from angle 0 where it set off: in [0, 4 pi), kept at least 2 pi once past it (the first lap rises out of sitting seats). */
  private head = 0;
  /** Seats handed to `apply` by the last step. */
  changed = 0;

  /** `apply(seat, level)` is called for every seat whose level changed; levels start at 0 (everyone sitting). */
  constructor(buckets: Uint16Array, private readonly apply: (seat: number, level: number) => void) {
    const starts = this.starts;
    for (let i = 0; i < buckets.length; i++) starts[buckets[i] + 1]++;
    for (let b = 0; b < WAVE_BUCKETS; b++) starts[b + 1] += starts[b];
    const next = starts.slice(0, WAVE_BUCKETS);
    this.order = new Int32Array(buckets.length);
    for (let i = 0; i < buckets.length; i++) this.order[next[buckets[i]]++] = i;
  }

  /** The level a bucket has with the head `head` radians from where the wave set off (a bucket the head has not reached yet sits). */
  static levelAt(bucket: number, head: number): number {
    const angle = ((bucket + 0.5) / WAVE_BUCKETS) * 2 * Math.PI;
    if (head < angle) return 0;
    const behind = (head - angle) % (2 * Math.PI);
    return behind >= WAVE_WIDTH ? 0 : Math.round(Math.sin((Math.PI * behind) / WAVE_WIDTH) * WAVE_LEVELS);
  }

  /** Moves the wave on by `dt` seconds (0: nothing changes) and hands over the seats whose level changed; returns how many. */
  step(dt: number): number {
    this.changed = 0;
    if (!(dt > 0)) return 0;
    this.head += (dt / WAVE_LAP_SECONDS) * 2 * Math.PI;
    if (this.head >= 4 * Math.PI) this.head -= 2 * Math.PI;
    const { order, starts, levels } = this;
    for (let b = 0; b < WAVE_BUCKETS; b++) {
      const level = StadiumWave.levelAt(b, this.head);
      if (level === levels[b]) continue;
      levels[b] = level;
      for (let i = starts[b]; i < starts[b + 1]; i++) this.apply(order[i], level);
      this.changed += starts[b + 1] - starts[b];
    }
    return this.changed;
  }
}
