/**
 * The queue of pending clip-event crossings of one crowd, in firing order: a binary min-heap
 * ordered by (due, order, sequence). `due` is the event clock (seconds) of the crossing, `order`
 * breaks ties between crossings at the same time (instance id x 8 + playback or source index),
 * `sequence` (insertion order) breaks the remaining ties, so the order is total and
 * deterministic.
 *
 * Two kinds of entry: keyed ones (at most one pending per key: the next crossing of one
 * playback; rescheduling or cancelling a key bumps its version and the stale entry is skipped
 * when it surfaces) and one-shot ones (key -1: a crossing already decided, fired when due).
 * Stale entries are dropped in one pass when they outnumber the live ones. Entries are 8 float64
 * each, interleaved (one cache line per entry: the heap's sift touches one line per level).
 * Everything lives in typed arrays that grow by doubling; push, schedule and pop allocate
 * nothing.
 */
export class EventQueue {
  /** The heap: ENTRY numbers per entry, [due, order, seq, key, version, clip, event, aux] (one 64-byte line per entry). */
  private heap = new Float64Array(64 * ENTRY);
  private readonly hold = new Float64Array(ENTRY);
  private size = 0;
  private stale = 0;
  private nextSeq = 0;
  /** Per key: current version, pending due time (NaN: none), and the pending entry's clip and event (for rescheduling unchanged). */
  private keyVersion = new Uint32Array(64);
  private keyDue = new Float64Array(64).fill(NaN);
  private keyClip = new Int32Array(64);
  private keyEvent = new Int32Array(64);

  /** The popped entry (valid after pop returned true): key (-1 for one-shot), due, order, clip, event, aux. */
  readonly popped = { key: -1, due: 0, order: 0, clip: 0, event: 0, aux: 0 };

  /** Entries in the heap, stale ones included. */
  get heapSize(): number {
    return this.size;
  }

  /** The pending due time of `key`, or NaN. */
  dueOf(key: number): number {
    return key < this.keyDue.length ? this.keyDue[key] : NaN;
  }

  /**
   * Sets `key`'s pending crossing (replacing any): due time, tie order, clip, event index and a
   * number the scheduler keeps with it. Rescheduling the same (due, clip, event) keeps the entry.
   */
  schedule(key: number, due: number, order: number, clip: number, event: number, aux: number): void {
    this.ensureKey(key);
    if (this.keyDue[key] === due && this.keyClip[key] === clip && this.keyEvent[key] === event) return;
    if (!Number.isNaN(this.keyDue[key])) this.stale++;
    this.keyVersion[key]++;
    this.keyDue[key] = due;
    this.keyClip[key] = clip;
    this.keyEvent[key] = event;
    this.insert(due, order, key, this.keyVersion[key], clip, event, aux);
  }

  /** Adds a one-shot entry (a crossing already decided): fired when due, never cancelled. */
  push(due: number, order: number, clip: number, event: number, aux = 0): void {
    this.insert(due, order, -1, 0, clip, event, aux);
  }

  /** Forgets `key`'s pending crossing. */
  cancel(key: number): void {
    if (key >= this.keyDue.length || Number.isNaN(this.keyDue[key])) return;
    this.keyVersion[key]++;
    this.keyDue[key] = NaN;
    this.stale++;
  }

  /** Drops every entry and pending key. */
  clear(): void {
    const h = this.heap;
    for (let i = 0; i < this.size; i++) {
      const key = h[i * ENTRY + KEY];
      if (key >= 0) { this.keyVersion[key]++; this.keyDue[key] = NaN; }
    }
    this.size = 0;
    this.stale = 0;
  }

  /** Pops the first live entry due at or before `time` into `popped`; false when there is none. */
  pop(time: number): boolean {
    const h = this.heap;
    while (this.size > 0 && h[DUE] <= time) {
      const key = h[KEY];
      const live = key < 0 || h[VERSION] === this.keyVersion[key];
      if (live) {
        const p = this.popped;
        p.key = key; p.due = h[DUE]; p.order = h[ORDER]; p.clip = h[CLIP]; p.event = h[EVENT]; p.aux = h[AUX];
        if (key >= 0) this.keyDue[key] = NaN;
      } else {
        this.stale--;
      }
      this.removeTop();
      if (live) return true;
    }
    return false;
  }

  private insert(due: number, order: number, key: number, version: number, clip: number, event: number, aux: number): void {
    if (this.stale > 32 && this.stale * 2 > this.size) this.compact();
    if ((this.size + 1) * ENTRY > this.heap.length) {
      const grown = new Float64Array(this.heap.length * 2);
      grown.set(this.heap);
      this.heap = grown;
    }
    const h = this.heap;
    const seq = this.nextSeq++;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = parent * ENTRY;
      if (!precedes(due, order, seq, h[p + DUE], h[p + ORDER], h[p + SEQ])) break;
      h.copyWithin(i * ENTRY, p, p + ENTRY);
      i = parent;
    }
    const o = i * ENTRY;
    h[o + DUE] = due; h[o + ORDER] = order; h[o + SEQ] = seq; h[o + KEY] = key;
    h[o + VERSION] = version; h[o + CLIP] = clip; h[o + EVENT] = event; h[o + AUX] = aux;
  }

  private removeTop(): void {
    const last = --this.size;
    if (last === 0) return;
    this.heap.copyWithin(0, last * ENTRY, last * ENTRY + ENTRY);
    this.siftDown(0);
  }

  /** Moves the entry at position i down until the heap order holds. */
  private siftDown(i: number): void {
    const h = this.heap;
    const hold = this.hold;
    for (let k = 0; k < ENTRY; k++) hold[k] = h[i * ENTRY + k];
    const due = hold[DUE], order = hold[ORDER], seq = hold[SEQ];
    const n = this.size;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const l = left * ENTRY;
      const r = right * ENTRY;
      const child = right < n && precedes(h[r + DUE], h[r + ORDER], h[r + SEQ], h[l + DUE], h[l + ORDER], h[l + SEQ]) ? right : left;
      const c = child * ENTRY;
      if (!precedes(h[c + DUE], h[c + ORDER], h[c + SEQ], due, order, seq)) break;
      h.copyWithin(i * ENTRY, c, c + ENTRY);
      i = child;
    }
    h.set(hold, i * ENTRY);
  }

  /** Drops the stale entries and rebuilds the heap (O(n), when they outnumber the live ones). */
  private compact(): void {
    const h = this.heap;
    let n = 0;
    for (let i = 0; i < this.size; i++) {
      const o = i * ENTRY;
      const key = h[o + KEY];
      if (key >= 0 && h[o + VERSION] !== this.keyVersion[key]) continue;
      if (n !== i) h.copyWithin(n * ENTRY, o, o + ENTRY);
      n++;
    }
    this.size = n;
    this.stale = 0;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private ensureKey(key: number): void {
    if (!Number.isInteger(key) || key < 0) throw new RangeError(`event key must be an integer >= 0, got ${key}`);
    if (key < this.keyDue.length) return;
    const n = Math.max(key + 1, this.keyDue.length * 2);
    const versions = new Uint32Array(n);
    versions.set(this.keyVersion);
    this.keyVersion = versions;
    const due = new Float64Array(n).fill(NaN);
    due.set(this.keyDue);
    this.keyDue = due;
    const clip = new Int32Array(n);
    clip.set(this.keyClip);
    this.keyClip = clip;
    const event = new Int32Array(n);
    event.set(this.keyEvent);
    this.keyEvent = event;
  }
}

/** Numbers per heap entry, and their offsets. */
const ENTRY = 8;
const DUE = 0;
const ORDER = 1;
const SEQ = 2;
const KEY = 3;
const VERSION = 4;
const CLIP = 5;
const EVENT = 6;
const AUX = 7;

/** Whether (due, order, seq) a comes before b. */
function precedes(dueA: number, orderA: number, seqA: number, dueB: number, orderB: number, seqB: number): boolean {
  return dueA < dueB || (dueA === dueB && (orderA < orderB || (orderA === orderB && seqA < seqB)));
}
