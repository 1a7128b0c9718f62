/**
 * A timer queue: at most one pending due time per key (a controller's handle), popped in due
 * order. A min-heap with lazy deletion: rescheduling a key bumps its version, and stale heap
 * entries are skipped when they surface. Everything lives in typed arrays that grow by
 * doubling, interleaved so that one entry (due, key, version) and one key's (version, due) each
 * sit in one cache line: with 100,000 keys, the arrays are far larger than the cache and every
 * key touched is a miss. schedule and pop allocate nothing.
 */
export class TimerQueue {
  /** The heap, HEAP_WORDS per entry: due time (seconds), key, the key's version when scheduled. */
  private heap = new Float64Array(64 * HEAP_WORDS);
  private size = 0;
  /** Per key, KEY_WORDS: its current version and pending due time (NaN: none). */
  private keys = new Float64Array(64 * KEY_WORDS).fill(NaN);

  /** Entries in the heap, stale ones included. */
  get heapSize(): number {
    return this.size;
  }

  /** The pending due time of `key`, or NaN. */
  dueOf(key: number): number {
    return key * KEY_WORDS < this.keys.length ? this.keys[key * KEY_WORDS + 1] : NaN;
  }

  /** Sets `key`'s due time (seconds), replacing any pending one. */
  schedule(key: number, due: number): void {
    if (!Number.isInteger(key) || key < 0) throw new RangeError(`timer key must be an integer >= 0, got ${key}`);
    if (Number.isNaN(due)) throw new RangeError(`timer due time must be a number, got ${due}`);
    this.ensureKey(key);
    const k = key * KEY_WORDS;
    const version = (this.keys[k] = (this.keys[k] || 0) + 1);
    this.keys[k + 1] = due;
    if (due === Infinity) return;
    if ((this.size + 1) * HEAP_WORDS > this.heap.length) this.growHeap();
    const h = this.heap;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent * HEAP_WORDS] <= due) break;
      this.moveEntry(parent, i);
      i = parent;
    }
    h[i * HEAP_WORDS] = due;
    h[i * HEAP_WORDS + 1] = key;
    h[i * HEAP_WORDS + 2] = version;
  }

  /** Forgets `key`'s pending due time. */
  cancel(key: number): void {
    if (key * KEY_WORDS >= this.keys.length) return;
    const k = key * KEY_WORDS;
    this.keys[k] = (this.keys[k] || 0) + 1;
    this.keys[k + 1] = NaN;
  }

  /** Removes and returns the key of the earliest live entry due at or before `time`, or -1. */
  popDue(time: number): number {
    const h = this.heap;
    while (this.size > 0 && h[0] <= time) {
      const key = h[1];
      const live = h[2] === this.keys[key * KEY_WORDS];
      this.removeTop();
      if (live) {
        this.keys[key * KEY_WORDS + 1] = NaN;
        return key;
      }
    }
    return -1;
  }

  private removeTop(): void {
    const last = --this.size;
    if (last === 0) return;
    const h = this.heap;
    const due = h[last * HEAP_WORDS];
    const key = h[last * HEAP_WORDS + 1];
    const version = h[last * HEAP_WORDS + 2];
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) break;
      const right = left + 1;
      const child = right < last && h[right * HEAP_WORDS] < h[left * HEAP_WORDS] ? right : left;
      if (h[child * HEAP_WORDS] >= due) break;
      this.moveEntry(child, i);
      i = child;
    }
    h[i * HEAP_WORDS] = due;
    h[i * HEAP_WORDS + 1] = key;
    h[i * HEAP_WORDS + 2] = version;
  }

  private moveEntry(from: number, to: number): void {
    const h = this.heap;
    const f = from * HEAP_WORDS;
    const t = to * HEAP_WORDS;
    h[t] = h[f];
    h[t + 1] = h[f + 1];
    h[t + 2] = h[f + 2];
  }

  private growHeap(): void {
    const heap = new Float64Array(this.heap.length * 2);
    heap.set(this.heap);
    this.heap = heap;
  }

  private ensureKey(key: number): void {
    if ((key + 1) * KEY_WORDS <= this.keys.length) return;
    const keys = new Float64Array(Math.max(key + 1, (this.keys.length / KEY_WORDS) * 2) * KEY_WORDS).fill(NaN);
    keys.set(this.keys);
    this.keys = keys;
  }
}

/** Float64 words per heap entry (due, key, version) and per key (version, due). */
const HEAP_WORDS = 3;
const KEY_WORDS = 2;
