import { expect } from 'vitest';

/** Keys not followed by plainState(): shared inputs (device, character, runtime) and back references. */
const SKIP = new Set(['device', 'character', 'runtime', 'driver', 'crowd']);

/**
 * `value` as plain data for deep equality (refusal tests compare a crowd's state before and after
 * a refused call): typed arrays and buffers as number arrays, GPU objects by label and size,
 * shared objects once, every own field of every object followed (private ones included).
 */
export function plainState(value: unknown, seen = new Set<object>()): unknown {
  if (typeof value === 'function') return '[function]';
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof ArrayBuffer) return Array.from(new Uint8Array(value));
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
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

/**
 * plainState's data as text, every number exact (JSON's are the shortest text that reads back as
 * the same double; NaN, the infinities, -0 and undefined spelt out): equal text is equal state.
 */
function stateText(state: unknown): string {
  return JSON.stringify(state, (_, v: unknown) => (v === undefined ? '[undefined]'
    : typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)) ? `[number ${Object.is(v, -0) ? '-0' : v}]` : v));
}

/**
 * `expect(after, message).toEqual(before)` for plain data (plainState's, number arrays, plain
 * objects): equal text passes at once, toEqual decides only where the text differs (for its diff,
 * and since it ignores key order and undefined fields). crowd-refusals.test.ts compares its
 * snapshots so; instance-ids.test.ts's 38 toEqual calls on its snapshots took 3.9 s of CPU.
 */
export function expectSameState(after: unknown, before: unknown, message?: string): void {
  if (stateText(after) !== stateText(before)) expect(after, message).toEqual(before);
}
