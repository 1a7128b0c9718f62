/**
 * A value as an error message shows it: numbers as written (NaN, -Infinity), strings quoted
 * (so "2" is not mistaken for 2), null, undefined, "an array", "an object", "a function".
 */
export function show(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  return Array.isArray(value) ? 'an array' : ArrayBuffer.isView(value) ? `a ${value.constructor.name}` : 'an object';
}
