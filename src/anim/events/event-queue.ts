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
 * Stale entries are dropped in one pass when they outnumber the live ones. Everything lives in
 * typed arrays that grow by doubling; push, schedule and pop allocate nothing.
 */
export class EventQueue {
  private due = new Float64Array(64);
  private order = new Float64Array(64);
  private seq = new Float64Array(64);
  private key = new Int32Array(64);
  private version = new Uint32Array(64);
  private clip = new Int32Array(64);
  private event = new Int32Array(64);
  private aux = new Float64Array(64);
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
    for (let i = 0; i < this.size; i++) if (this.key[i] >= 0) { this.keyVersion[this.key[i]]++; this.keyDue[this.key[i]] = NaN; }
    this.size = 0;
    this.stale = 0;
  }

  /** Pops the first live entry due at or before `time` into `popped`; false when there is none. */
  pop(time: number): boolean {
    while (this.size > 0 && this.due[0] <= time) {
      const key = this.key[0];
      const live = key < 0 || this.version[0] === this.keyVersion[key];
      if (live) {
        const p = this.popped;
        p.key = key; p.due = this.due[0]; p.order = this.order[0]; p.clip = this.clip[0]; p.event = this.event[0]; p.aux = this.aux[0];
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
    if (this.size === this.due.length) this.grow();
    const seq = this.nextSeq++;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(due, order, seq, parent)) break;
      this.move(parent, i);
      i = parent;
    }
    this.set(i, due, order, seq, key, version, clip, event, aux);
  }

  /** Whether (due, order, seq) comes before entry i. */
  private before(due: number, order: number, seq: number, i: number): boolean {
    return precedes(due, order, seq, this.due[i], this.order[i], this.seq[i]);
  }

  private removeTop(): void {
    const last = --this.size;
    if (last === 0) return;
    this.siftDown(0, last);
  }

  /** Moves entry `from` down from position i (the heap has `size` entries), keeping the heap order. */
  private siftDown(i: number, from: number): void {
    const due = this.due[from], order = this.order[from], seq = this.seq[from];
    const key = this.key[from], version = this.version[from], clip = this.clip[from], event = this.event[from], aux = this.aux[from];
    const n = this.size;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(this.due[right], this.order[right], this.seq[right], left) ? right : left;
      if (!precedes(this.due[child], this.order[child], this.seq[child], due, order, seq)) break;
      this.move(child, i);
      i = child;
    }
    this.set(i, due, order, seq, key, version, clip, event, aux);
  }

  /** Drops the stale entries and rebuilds the heap (O(n), when they outnumber the live ones). */
  private compact(): void {
    let n = 0;
    for (let i = 0; i < this.size; i++) {
      const key = this.key[i];
      if (key >= 0 && this.version[i] !== this.keyVersion[key]) continue;
      if (n !== i) this.move(i, n);
      n++;
    }
    this.size = n;
    this.stale = 0;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.siftDown(i, i);
  }

  private set(i: number, due: number, order: number, seq: number, key: number, version: number, clip: number, event: number, aux: number): void {
    this.due[i] = due; this.order[i] = order; this.seq[i] = seq; this.key[i] = key;
    this.version[i] = version; this.clip[i] = clip; this.event[i] = event; this.aux[i] = aux;
  }

  private move(from: number, to: number): void {
    this.set(to, this.due[from], this.order[from], this.seq[from], this.key[from], this.version[from], this.clip[from], this.event[from], this.aux[from]);
  }

  private grow(): void {
    const n = this.due.length * 2;
    const f64 = (a: Float64Array) => { const b = new Float64Array(n); b.set(a); return b; };
    const i32 = (a: Int32Array) => { const b = new Int32Array(n); b.set(a); return b; };
    this.due = f64(this.due); this.order = f64(this.order); this.seq = f64(this.seq); this.aux = f64(this.aux);
    this.key = i32(this.key); this.clip = i32(this.clip); this.event = i32(this.event);
    const version = new Uint32Array(n);
    version.set(this.version);
    this.version = version;
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

/** Whether (due, order, seq) a comes before b. */
function precedes(dueA: number, orderA: number, seqA: number, dueB: number, orderB: number, seqB: number): boolean {
  return dueA < dueB || (dueA === dueB && (orderA < orderB || (orderA === orderB && seqA < seqB)));
}
