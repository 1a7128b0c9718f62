import { expect } from 'vitest';

/** Keys not followed by plainState(): shared inputs (device, character, runtime) and back references. */
const SKIP = new Set(['device', 'character', 'runtime', 'driver', 'crowd']);

/**
 * `value` as plain data for deep equality (refusal tests compare a crowd's state before and after
 * a refused call): typed arrays as copies, buffers and DataViews as copies of their bytes
 * (Uint8Array), GPU objects by label and size, shared objects once, every own field of every
 * object followed (private ones included).
 */
export function plainState(value: unknown, seen = new Set<object>()): unknown {
  if (typeof value === 'function') return '[function]';
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (value instanceof DataView) return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  if (ArrayBuffer.isView(value)) return (value as unknown as Uint8Array).slice();
  const name = value.constructor?.name ?? '';
  if (name.startsWith('GPU')) return { [name]: (value as { label?: string }).label, size: (value as { size?: number }).size };
  if (seen.has(value)) return '[seen]';
  seen.add(value);
  if (value instanceof Map) return [...value].map(([k, v]) => [plainState(k, seen), plainState(v, seen)]);
  if (value instanceof Set) return [...value].map((v) => plainState(v, seen));
  if (Array.isArray(value)) return value.map((v) => plainState(v, seen));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!SKIP.has(key)) out[key] = plainState((value as Record<string, unknown>)[key], seen);
  return out;
}

/** A typed array's bytes. */
const bytesOf = (view: ArrayBufferView) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);

/**
 * Whether `a` and `b` (plainState's data: primitives, arrays, typed arrays, plain objects) are the
 * same: numbers by Object.is (toEqual's test: NaN equals NaN, 0 is not -0), typed arrays of one
 * kind byte for byte, arrays element by element, objects key by key in the same order. Same here
 * is equal for toEqual (which also lets key order and undefined fields pass: expectSameState asks
 * it wherever this says no).
 */
function sameState(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    return ArrayBuffer.isView(a) && ArrayBuffer.isView(b) && a.constructor === b.constructor && a.byteLength === b.byteLength
      && Buffer.compare(bytesOf(a), bytesOf(b)) === 0;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameState(a[i], b[i])) return false;
    return true;
  }
  const keysA = Object.keys(a), keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    if (keysA[i] !== keysB[i] || !sameState((a as Record<string, unknown>)[keysA[i]], (b as Record<string, unknown>)[keysB[i]])) return false;
  }
  return true;
}

/**
 * `expect(after, message).toEqual(before)` for plainState's data (and number arrays, typed arrays,
 * plain objects): passes at once where sameState finds them the same, and asks toEqual only where
 * it does not (for its diff, and since toEqual lets key order and undefined fields pass). Measured
 * (2026-12-04): toEqual on instance-ids.test.ts's snapshots took 3.9 s of CPU in 38 calls; the
 * exact-text comparison crowd-refusals.test.ts made instead (JSON with a replacer spelling out
 * NaN, the infinities and -0), with its buffers as arrays of numbers, 10.7 of that file's 17 s.
 */
export function expectSameState(after: unknown, before: unknown, message?: string): void {
  if (!sameState(after, before)) expect(after, message).toEqual(before);
}
