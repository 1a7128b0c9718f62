/**
 * Checks a buffer binding against the device's limits and says exactly which limit is short,
 * so a crowd that is too big fails with a sentence rather than a validation error later.
 */
export function checkStorageBinding(device: GPUDevice, label: string, bytes: number): void {
  const limit = device.limits.maxStorageBufferBindingSize;
  if (bytes > limit) {
    throw new RangeError(
      `${label} needs ${formatBytes(bytes)} but the device's maxStorageBufferBindingSize is ${formatBytes(limit)}; ` +
      `request a larger limit when creating the device (see requiredCrowdLimits) or use fewer instances`);
  }
  if (bytes > device.limits.maxBufferSize) {
    throw new RangeError(`${label} needs ${formatBytes(bytes)} but the device's maxBufferSize is ${formatBytes(device.limits.maxBufferSize)}`);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} bytes`;
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
