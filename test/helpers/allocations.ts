/**
 * Watches typed-array allocations: while `watchAllocations` runs `fn`, every constructor of the
 * eight numeric typed-array classes (and their `from` / `of`) is seen through a Proxy that records
 * the bytes asked for, before the memory is taken. With `limit`, an allocation above it throws
 * AllocationLimit instead, so a test (or the fuzz worker) can prove a loader checked a size
 * first rather than wait for gigabytes.
 */
const CLASSES = ['Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array'] as const;

export class AllocationLimit extends Error {
  constructor(readonly bytes: number, readonly className: string) {
    super(`unchecked allocation: new ${className} of ${bytes} bytes`);
    this.name = 'AllocationLimit';
  }
}

export interface AllocationWatch {
  /** Largest single allocation seen, in bytes. */
  largest: number;
  /** Typed arrays constructed, views of an existing buffer included (a frame loop that allocates nothing constructs none). */
  count: number;
  /** Stops watching (restores the original classes). */
  stop(): void;
}

type TypedArrayClass = { new (...args: unknown[]): ArrayBufferView; BYTES_PER_ELEMENT: number };

/** Bytes a typed-array constructor call asks for: a length, an array-like or an iterable source. */
function requestedBytes(cls: TypedArrayClass, args: unknown[]): number {
  const first = args[0];
  if (typeof first === 'number') return first * cls.BYTES_PER_ELEMENT;
  if (first instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && first instanceof SharedArrayBuffer)) return 0; // a view, no new memory
  const length = (first as { length?: unknown } | undefined)?.length;
  return typeof length === 'number' ? length * cls.BYTES_PER_ELEMENT : 0;
}

/** Starts watching until `stop()`. Not reentrant: one watch at a time. */
export function startAllocationWatch(limit = Infinity): AllocationWatch {
  const g = globalThis as unknown as Record<string, TypedArrayClass>;
  const originals = CLASSES.map((name) => g[name]);
  const watch: AllocationWatch = {
    largest: 0,
    count: 0,
    stop() { CLASSES.forEach((name, i) => { g[name] = originals[i]; }); },
  };
  CLASSES.forEach((name, i) => {
    const cls = originals[i];
    g[name] = new Proxy(cls, {
      construct(target, args, newTarget) {
        const bytes = requestedBytes(cls, args);
        if (bytes > limit) throw new AllocationLimit(bytes, name);
        watch.largest = Math.max(watch.largest, bytes);
        watch.count++;
        return Reflect.construct(target, args, newTarget);
      },
    });
  });
  return watch;
}

/** Runs `fn` while watching; returns the largest allocation seen and `fn`'s outcome. */
export async function watchAllocations<T>(fn: () => T | Promise<T>, limit = Infinity): Promise<{ largest: number; result?: T; error?: unknown }> {
  const watch = startAllocationWatch(limit);
  try {
    const result = await fn();
    return { largest: watch.largest, result };
  } catch (error) {
    return { largest: watch.largest, error };
  } finally {
    watch.stop();
  }
}
