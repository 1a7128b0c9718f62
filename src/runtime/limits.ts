import type { LimitsSource } from './record-device';

/**
 * Threads per workgroup of the compute passes that give each thread one item (cull, control,
 * morph, prop and root motion). Their shaders declare `override WORKGROUP_SIZE: u32;` without a
 * default, so the pipelines' `constants: { WORKGROUP_SIZE }` is the one way the number reaches
 * WGSL (test/runtime/wgsl-constants.test.ts checks both ends). The pose pass, one workgroup per
 * instance, chooses its own (PosePass).
 */
export const WORKGROUP_SIZE = 64;

/**
 * Most workgroups in one dimension of a dispatch: WebGPU's default
 * maxComputeWorkgroupsPerDimension, which the crowd does not ask to raise. Passes with more work
 * dispatch a 2D grid this wide (or refuse, naming the count that fits).
 */
export const MAX_WORKGROUPS_PER_DIMENSION = 65535;

/**
 * The items a growing buffer holds, for limit checks that say how many fit: the buffer's size
 * as a function of their count.
 */
export interface BufferItems {
  /** What the buffer holds, plural, for messages ('instances', 'masks', 'handles'). */
  readonly noun: string;
  /**
   * Bytes per item, or the buffer's bytes for `count` items where that is not a plain product
   * (lists rounded up to a stride, a minimum size). Must not decrease as the count grows.
   */
  readonly bytes: number | ((count: number) => number);
}

/** A buffer's items and the count it is being sized for. */
export interface BufferDemand extends BufferItems {
  /** Items the buffer is to hold (a non-negative integer). */
  readonly count: number;
}

/** The limit a storage buffer must stay within: the smaller of the binding and buffer size limits, and its name. */
export function storageLimit(device: LimitsSource): { bytes: number; name: string } {
  const { maxStorageBufferBindingSize: binding, maxBufferSize: buffer, storageLimitName } = device.limits;
  return binding <= buffer ? { bytes: binding, name: storageLimitName ?? 'maxStorageBufferBindingSize' } : { bytes: buffer, name: storageLimitName ?? 'maxBufferSize' };
}

/** Bytes of a buffer holding `count` of `items`. */
export function bytesFor(items: BufferItems, count: number): number {
  return typeof items.bytes === 'number' ? count * items.bytes : items.bytes(count);
}

/** The largest count of `items` whose buffer fits the device's storage limit (0 when not even one does). */
export function largestFit(device: LimitsSource, items: BufferItems): number {
  const limit = storageLimit(device).bytes;
  if (bytesFor(items, 1) > limit) return 0;
  let lo = 1; // fits
  let hi = 2; // first probe that may not
  while (bytesFor(items, hi) <= limit) {
    lo = hi;
    if (hi >= Number.MAX_SAFE_INTEGER / 2) return hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (bytesFor(items, mid) <= limit) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Checks a storage buffer against the device's limits (maxStorageBufferBindingSize and
 * maxBufferSize) and says exactly which limit is short, so a crowd that is too big fails with a
 * sentence rather than a validation error later. `size` is the buffer's bytes, or the items it
 * is sized for: then the message also says how many of them fit, e.g. "Crowd.jointMatrices needs
 * 128.0 MiB (134,217,728 bytes) for 116,509 instances but the device's
 * maxStorageBufferBindingSize is 128.0 MiB (134,217,728 bytes): at most 116,508 instances fit;
 * request a larger limit ...". Throws a RangeError; changes nothing.
 */
export function checkStorageBinding(device: LimitsSource, label: string, size: number | BufferDemand): void {
  const bytes = typeof size === 'number' ? size : bytesFor(size, size.count);
  const limit = storageLimit(device);
  if (bytes <= limit.bytes) return;
  const [need, have] = formatPair(bytes, limit.bytes);
  // A limit of another name (WebGL 2's MAX_TEXTURE_SIZE) cannot be requested larger.
  const request = device.limits.storageLimitName === undefined ? 'request a larger limit when creating the device (see requiredCrowdLimits)' : '';
  if (typeof size === 'number') throw new RangeError(`${label} needs ${need} but the device's ${limit.name} is ${have}${request && `; ${request}`}`);
  const fit = largestFit(device, size);
  throw new RangeError(`${label} needs ${need} for ${formatCount(size.count)} ${size.noun} but the device's ${limit.name} is ${have}: ` +
    `at most ${formatCount(fit)} ${size.noun} fit; ${request && `${request} or `}use fewer ${size.noun}`);
}

/**
 * Checks several buffers sized for the same `count` of items (an instance store's per-instance
 * buffers) and, when any is too small, names the one that allows the fewest, so the count the
 * message gives is the most that fits in all of them.
 */
export function checkStorageBindings(device: LimitsSource, count: number, buffers: readonly { label: string; items: BufferItems }[]): void {
  let worst: { label: string; items: BufferItems; fit: number } | undefined;
  for (const { label, items } of buffers) {
    if (bytesFor(items, count) <= storageLimit(device).bytes) continue;
    const fit = largestFit(device, items);
    if (!worst || fit < worst.fit) worst = { label, items, fit };
  }
  if (worst) checkStorageBinding(device, worst.label, { ...worst.items, count });
}

/**
 * The count to grow a buffer of `items` to when it must hold `needed` (more than `current`):
 * twice `current`, cut to what the device allows, and never less than `needed`. Checks
 * `needed` first (a RangeError naming `label`, the limit and the count that fits), so a growth
 * either fits or changes nothing.
 */
export function growthCount(device: LimitsSource, label: string, needed: number, current: number, items: BufferItems): number {
  checkStorageBinding(device, label, { ...items, count: needed });
  return Math.max(needed, Math.min(current * 2, largestFit(device, items)));
}

/** Bytes as '12.0 MiB', '3.5 KiB' or '512 bytes'. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** Two sizes for one sentence; each with its exact byte count when both would read the same. */
function formatPair(a: number, b: number): [string, string] {
  const [fa, fb] = [formatBytes(a), formatBytes(b)];
  return fa === fb ? [`${fa} (${formatCount(a)} bytes)`, `${fb} (${formatCount(b)} bytes)`] : [fa, fb];
}

/** An integer with thousands separators: 116,508. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Limits to request from an adapter so that crowds can be as large as the adapter allows:
 * pass the result as `requiredLimits` to `adapter.requestDevice`.
 */
export function requiredCrowdLimits(adapter: GPUAdapter): Record<string, number> {
  const a = adapter.limits;
  return {
    maxStorageBufferBindingSize: a.maxStorageBufferBindingSize,
    maxBufferSize: a.maxBufferSize,
    maxComputeWorkgroupStorageSize: a.maxComputeWorkgroupStorageSize,
  };
}

/** Storage buffers the morph entry points read in the vertex stage: joints, instances, draw list, morph weights, morph targets, joint entries. */
const MORPH_VERTEX_STORAGE_BUFFERS = 6;

/** Throws a RangeError naming the limit when the device cannot run the morph entry points. */
export function checkMorphLimits(device: GPUDevice): void {
  const limits = device.limits as GPUSupportedLimits & { maxStorageBuffersInVertexStage?: number };
  const available = Math.min(limits.maxStorageBuffersInVertexStage ?? Infinity, limits.maxStorageBuffersPerShaderStage);
  if (available < MORPH_VERTEX_STORAGE_BUFFERS) {
    throw new RangeError(`the character has morph targets, whose vertex shader reads ${MORPH_VERTEX_STORAGE_BUFFERS} storage buffers, ` +
      `but the device allows ${available} in the vertex stage (maxStorageBuffersInVertexStage / maxStorageBuffersPerShaderStage)`);
  }
}
