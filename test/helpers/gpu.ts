import { create, globals } from 'webgpu';

/**
 * A WebGPU device in Node through Dawn (the `webgpu` package), on SwiftShader where no GPU is
 * present (vite.config.ts points VK_ICD_FILENAMES at Debian chromium's driver).
 * Without an adapter the GPU tests are skipped with a loud message, except under CI=true,
 * where a missing adapter is a failure: CI must run them.
 */
Object.assign(globalThis, globals);
let gpu: GPU | undefined;

export async function openTestDevice(limits: Record<string, number> = {}): Promise<GPUDevice | undefined> {
  gpu ??= create([]);
  const adapter = await gpu.requestAdapter();
  if (!adapter) {
    const message = 'No WebGPU adapter: install Debian\'s chromium package (SwiftShader Vulkan) and libvulkan1; see README "Tests".';
    if (process.env.CI === 'true') throw new Error(`${message} GPU tests must run under CI=true.`);
    console.warn(`\n!!! GPU TESTS SKIPPED: ${message}\n`);
    return undefined;
  }
  const requiredLimits: Record<string, number> = {};
  for (const [key, value] of Object.entries(limits)) requiredLimits[key] = Math.min(value, (adapter.limits as unknown as Record<string, number>)[key]);
  const device = await adapter.requestDevice({ requiredLimits });
  device.addEventListener('uncapturederror', (e) => {
    throw new Error(`WebGPU validation error: ${(e as GPUUncapturedErrorEvent).error.message}`);
  });
  return device;
}

/** Copies `buffer` (which needs COPY_SRC) into a new ArrayBuffer. */
export async function readBuffer(device: GPUDevice, buffer: GPUBuffer, size = buffer.size): Promise<ArrayBuffer> {
  const staging = device.createBuffer({ label: 'test.readback', size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const copy = staging.getMappedRange().slice(0);
  staging.destroy();
  return copy;
}

/** Runs `fn` inside a validation error scope and fails on any error it raised. */
export async function expectNoGpuError<T>(device: GPUDevice, fn: () => T): Promise<T> {
  device.pushErrorScope('validation');
  const result = fn();
  const error = await device.popErrorScope();
  if (error) throw new Error(`WebGPU validation error: ${error.message}`);
  return result;
}
