/**
 * A timer queue: at most one pending due time per key (a controller's handle), popped in due
 * order. A min-heap with lazy deletion: rescheduling a key bumps its version, and stale heap
 * entries are skipped when they surface. Everything lives in typed arrays that grow by
 * doubling; schedule and pop allocate nothing.
 */
export class TimerQueue {
  private due = new Float64Array(64);
  private key = new Int32Array(64);
  private version = new Uint32Array(64);
  private size = 0;
  /** Current version and pending due time per key (NaN: none). */
  private keyVersion = new Uint32Array(64);
  private keyDue = new Float64Array(64).fill(NaN);

  /** Entries in the heap, stale ones included. */
  get heapSize(): number {
    return this.size;
  }

  /** The pending due time of `key`, or NaN. */
  dueOf(key: number): number {
    return key < this.keyDue.length ? this.keyDue[key] : NaN;
  }

  /** Sets `key`'s due time (seconds), replacing any pending one. */
  schedule(key: number, due: number): void {
    if (!Number.isInteger(key) || key < 0) throw new RangeError(`timer key must be an integer >= 0, got ${key}`);
    if (Number.isNaN(due)) throw new RangeError(`timer due time must be a number, got ${due}`);
    this.ensureKey(key);
    this.keyVersion[key]++;
    this.keyDue[key] = due;
    if (due === Infinity) return;
    if (this.size === this.due.length) this.growHeap();
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.due[parent] <= due) break;
      this.moveEntry(parent, i);
      i = parent;
    }
    this.due[i] = due;
    this.key[i] = key;
    this.version[i] = this.keyVersion[key];
  }

  /** Forgets `key`'s pending due time. */
  cancel(key: number): void {
    if (key >= this.keyDue.length) return;
    this.keyVersion[key]++;
    this.keyDue[key] = NaN;
  }

  /** Removes and returns the key of the earliest live entry due at or before `time`, or -1. */
  popDue(time: number): number {
    while (this.size > 0 && this.due[0] <= time) {
      const key = this.key[0];
      const live = this.version[0] === this.keyVersion[key];
      this.removeTop();
      if (live) {
        this.keyDue[key] = NaN;
        return key;
      }
    }
    return -1;
  }

  private removeTop(): void {
    const last = --this.size;
    if (last === 0) return;
    const due = this.due[last];
    const key = this.key[last];
    const version = this.version[last];
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) break;
      const right = left + 1;
      const child = right < last && this.due[right] < this.due[left] ? right : left;
      if (this.due[child] >= due) break;
      this.moveEntry(child, i);
      i = child;
    }
    this.due[i] = due;
    this.key[i] = key;
    this.version[i] = version;
  }

  private moveEntry(from: number, to: number): void {
    this.due[to] = this.due[from];
    this.key[to] = this.key[from];
    this.version[to] = this.version[from];
  }

  private growHeap(): void {
    const n = this.due.length * 2;
    const due = new Float64Array(n);
    due.set(this.due);
    this.due = due;
    const key = new Int32Array(n);
    key.set(this.key);
    this.key = key;
    const version = new Uint32Array(n);
    version.set(this.version);
    this.version = version;
  }

  private ensureKey(key: number): void {
    if (key < this.keyDue.length) return;
    const n = Math.max(key + 1, this.keyDue.length * 2);
    const versions = new Uint32Array(n);
    versions.set(this.keyVersion);
    this.keyVersion = versions;
    const due = new Float64Array(n).fill(NaN);
    due.set(this.keyDue);
    this.keyDue = due;
  }
}
