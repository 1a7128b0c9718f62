/**
 * Clip events: named times in a clip ("footstep" at 0.31 s of Walk), kept per clip in a table
 * that the crowd and its controllers share, and the crossing arithmetic every event source uses.
 *
 * Crossing rule (every playback, forwards or backwards, looping or clamped): a step of a
 * playback from clip position a to position b (unwrapped: a looping clip's position grows past
 * its duration) fires each event whose position lies in (a, b] when playing forwards, [b, a)
 * backwards: the end of a step is included, its start is not (both shifted by
 * EVENT_SLACK_SECONDS of time, see there). So an event exactly at the end of
 * a frame fires in that frame and not again in the next; a playback that starts exactly on an
 * event (or less than EVENT_EPSILON_SECONDS of clip time before it, see firstCrossing) does not
 * fire it; a step spanning several loops fires an event once per loop it crosses. An event at
 * time 0 and one at the clip's duration both fire when a looping clip wraps, the one of the
 * cycle being left first. A clamped clip that reaches its end (it holds HOLD_SECONDS before the
 * end, playback.ts) crosses every event up to and including the duration, once.
 *
 * Order: events at equal positions fire in table order (time order, then the order they were
 * given in; reversed when playing backwards).
 */

/** One named time in a clip, as the API and the controller config take it. */
export interface ClipEvent {
  /** Seconds into the clip, in [0, duration]. */
  time: number;
  /** What the listener is told, e.g. "footstep". */
  name: string;
}

/**
 * Clip time (seconds) a rewritten playback must be short of an event for the event to fire:
 * covers the float32 rounding of a rewritten phase (an event that fired exactly at the end of
 * the last frame does not fire again when the playback is rewritten at that time).
 */
export const EVENT_EPSILON_SECONDS = 1e-6;

/**
 * Seconds of slack at a frame's end: a crossing less than this after the end of a step counts
 * as in that step (every step covers (start + slack, end + slack]). Clip times summed frame by
 * frame and crossing times computed in closed form round differently, so an event exactly on a
 * frame boundary (an event authored on a key frame, played at a frame rate that divides it)
 * would otherwise land in either frame depending on the driver; with the slack both drivers put
 * it in the earlier one.
 */
export const EVENT_SLACK_SECONDS = 1e-9;

/**
 * The event tables of one model: per clip index, the events sorted by time (stable). Replacing a
 * clip's events validates everything first and leaves the table as it was on refusal. `version`
 * counts changes, so schedulers know when to recompute.
 */
export class ClipEventTable {
  private times: Float64Array[];
  private names: string[][];
  private any = 0;
  /** Incremented by every change. */
  version = 0;

  /**
   * @param clipNames The model's clip names (errors name clips by them).
   * @param clipDurations Seconds per clip, in clip order (event times must lie in [0, duration]).
   */
  constructor(readonly clipNames: readonly string[], readonly clipDurations: ArrayLike<number>) {
    this.times = clipNames.map(() => EMPTY);
    this.names = clipNames.map(() => []);
  }

  /** Whether any clip has events. */
  get hasEvents(): boolean {
    return this.any > 0;
  }

  /** Events of clip `clip` (an index). */
  count(clip: number): number {
    return this.times[clip].length;
  }

  /** Sorted event times of clip `clip`, seconds (owned by the table: do not change). */
  timesOf(clip: number): Float64Array {
    return this.times[clip];
  }

  /** Name of event `index` (in time order) of clip `clip`. */
  name(clip: number, index: number): string {
    return this.names[clip][index];
  }

  /** Time in seconds of event `index` (in time order) of clip `clip`. */
  time(clip: number, index: number): number {
    return this.times[clip][index];
  }

  /** A copy of clip `clip`'s events in time order. */
  get(clip: number): ClipEvent[] {
    return Array.from(this.times[clip], (time, i) => ({ time, name: this.names[clip][i] }));
  }

  /**
   * Replaces clip `clip`'s events (an empty array removes them). Throws a RangeError or TypeError
   * naming `where` and the bad entry (an event time outside the clip, a missing name) before
   * anything changes.
   */
  set(clip: number, events: readonly ClipEvent[], where = `events of clip ${JSON.stringify(this.clipNames[clip])}`): void {
    const sorted = this.check(clip, events, where);
    this.apply(clip, sorted);
  }

  /**
   * Validates `events` for clip `clip` without changing anything; returns them sorted by time
   * (stable). Errors name `where` and the entry.
   */
  check(clip: number, events: unknown, where: string): ClipEvent[] {
    if (!Number.isInteger(clip) || clip < 0 || clip >= this.clipNames.length) throw new RangeError(`${where}: clip ${clip} does not exist (the model has ${this.clipNames.length} clips)`);
    return checkClipEvents(events, this.clipDurations[clip], where);
  }

  /** Sets already validated, sorted events (from check). */
  apply(clip: number, sorted: readonly ClipEvent[]): void {
    const before = this.times[clip].length;
    this.times[clip] = sorted.length ? Float64Array.from(sorted, (e) => e.time) : EMPTY;
    this.names[clip] = sorted.map((e) => e.name);
    this.any += (sorted.length > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    this.version++;
  }
}

const EMPTY = new Float64Array(0);

/**
 * Validates a list of events of a clip `duration` seconds long; returns them sorted by time
 * (stable). Errors name `where` and the entry: `events of clip "Walk"[2].time 1.7 is outside
 * the clip (0 to 1.0667 s)`.
 */
export function checkClipEvents(events: unknown, duration: number, where: string): ClipEvent[] {
  if (!Array.isArray(events)) throw new TypeError(`${where} must be an array of { time, name }, got ${events === null ? 'null' : typeof events}`);
  const out: ClipEvent[] = events.map((e: unknown, i) => {
    const w = `${where}[${i}]`;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new TypeError(`${w} must be an object { time, name }`);
    const { time, name } = e as Record<string, unknown>;
    for (const key of Object.keys(e)) if (key !== 'time' && key !== 'name') throw new RangeError(`${w}: unknown field "${key}" (fields: time, name)`);
    if (typeof time !== 'number' || !Number.isFinite(time)) throw new RangeError(`${w}.time must be a finite number of seconds, got ${JSON.stringify(time) ?? String(time)}`);
    if (time < 0 || time > duration) throw new RangeError(`${w}.time ${time} is outside the clip (0 to ${+duration.toFixed(6)} s)`);
    if (typeof name !== 'string' || name.length === 0) throw new TypeError(`${w}.name must be a non-empty string, got ${JSON.stringify(name) ?? String(name)}`);
    return { time, name };
  });
  return out.map((e, i) => ({ e, i })).sort((a, b) => a.e.time - b.e.time || a.i - b.i).map(({ e }) => e);
}

/** A crossing: event `index` of a clip at clip position `position` (unwrapped seconds: cycle start + the event's time). */
export interface Crossing {
  /** Index into the clip's sorted event times. */
  index: number;
  /** Unwrapped clip position of the crossing, seconds. */
  position: number;
}

/**
 * The first crossing of a looping clip (`duration` seconds, sorted event `times`) strictly ahead
 * of unwrapped position `u` in the playing direction, by more than EVENT_EPSILON_SECONDS:
 * written into `out`. The clip must have events and a duration > 0.
 */
export function firstCrossing(times: Float64Array, duration: number, u: number, forward: boolean, out: Crossing): Crossing {
  const from = forward ? u + EVENT_EPSILON_SECONDS : u - EVENT_EPSILON_SECONDS;
  const cycle = Math.floor(from / duration);
  let base = cycle * duration;
  let w = from - base;
  if (w >= duration) { base += duration; w = 0; }
  const n = times.length;
  if (forward) {
    let j = 0;
    while (j < n && times[j] <= w) j++;
    if (j === n) { j = 0; base += duration; }
    out.index = j;
    out.position = base + times[j];
  } else {
    let j = n - 1;
    while (j >= 0 && times[j] >= w) j--;
    if (j < 0) { j = n - 1; base -= duration; }
    out.index = j;
    out.position = base + times[j];
  }
  return out;
}

/**
 * The crossing after `out` (event out.index at out.position) in the playing direction, in
 * place: the next event of the same cycle, or the first of the next cycle (looping clips).
 */
export function nextCrossing(times: Float64Array, duration: number, forward: boolean, out: Crossing): Crossing {
  const n = times.length;
  const base = out.position - times[out.index];
  if (forward) {
    if (out.index + 1 < n) { out.index++; out.position = base + times[out.index]; }
    else { out.index = 0; out.position = base + duration + times[0]; }
  } else if (out.index > 0) {
    out.index--; out.position = base + times[out.index];
  } else {
    out.index = n - 1; out.position = base - duration + times[n - 1];
  }
  return out;
}
