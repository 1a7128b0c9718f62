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
