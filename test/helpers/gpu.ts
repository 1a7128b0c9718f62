import { deviceFrom, requestNodeAdapter } from '../../tools/gpu-poser';

/**
 * A WebGPU device in Node through Dawn (the `webgpu` package), on SwiftShader where no GPU is
 * present (tools/gpu-poser.ts; vite.config.ts points VK_ICD_FILENAMES at Debian chromium's driver).
 * Without an adapter the GPU tests are skipped with a loud message, except under CI=true,
 * where a missing adapter is a failure: CI must run them.
 */
export async function openTestDevice(limits: Record<string, number> = {}): Promise<GPUDevice | undefined> {
  throttleGpuPolling();
  const adapter = await requestNodeAdapter();
  if (!adapter) {
    const message = 'No WebGPU adapter: install Debian\'s chromium package (SwiftShader Vulkan) and libvulkan1; see README "Tests".';
    if (process.env.CI === 'true') throw new Error(`${message} GPU tests must run under CI=true.`);
    console.warn(`\n!!! GPU TESTS SKIPPED: ${message}\n`);
    return undefined;
  }
  const device = await deviceFrom(adapter, limits);
  keepPipelines(device);
  device.addEventListener('uncapturederror', (e) => {
    throw new Error(`WebGPU validation error: ${(e as GPUUncapturedErrorEvent).error.message}`);
  });
  return device;
}

/**
 * Keeps every pipeline `device` creates alive as long as the device, so that a later pipeline of
 * the same description is Dawn's cached one instead of a new compile. Dawn shares a pipeline (and
 * its layouts and shader module) between creations of one description on one device only while
 * one of them is alive; a test file that makes crowd after crowd (each with its own PosePass and
 * pipelines, dropped with the crowd) compiled the same pipeline again whenever the collector had
 * taken the last one: 23 s of SwiftShader compiles over the Node tests (measured 2026-12-04, one
 * run: a PosePass pipeline 0.6 to 2.2 s each; layers.test.ts compiled Fox's layered pose pipeline
 * four times). The pipelines are the ones the code asked for; only 'auto' layouts are never
 * shared (Dawn makes each its own), and what the code does with them is unchanged.
 */
function keepPipelines(device: GPUDevice): void {
  const kept: unknown[] = [];
  const own = device as unknown as Record<string, unknown>;
  for (const name of ['createComputePipeline', 'createRenderPipeline'] as const) {
    const create = device[name] as (descriptor: unknown) => unknown;
    own[name] = (descriptor: unknown) => {
      const pipeline = create.call(device, descriptor);
      kept.push(pipeline);
      return pipeline;
    };
  }
}

let polling: 'spinning' | 'throttled' = 'spinning';

/**
 * Makes Dawn's wait for GPU work in this test file (mapAsync, onSubmittedWorkDone, popErrorScope)
 * check every millisecond instead of spinning a core. The `webgpu` package's event loop hook asks
 * `setImmediate` for its next look as long as a promise is pending, so a test awaiting
 * SwiftShader kept Node's thread busy doing nothing while SwiftShader's threads did the work: on
 * the shared 2-core machine that was a third of the CPU of readback-heavy files (30 frames of a
 * Robot crowd read back one by one: 1.4 s of CPU spinning, 0.9 s checking each millisecond; four
 * 256 x 256 pictures: 5.2 and 3.8 s), and took a core from the other test file beside it. Only
 * native callbacks (Dawn's) wait the millisecond; every other `setImmediate` is untouched.
 * openTestDevice turns it on, and it holds for the rest of the worker's life (vite.config.ts:
 * files share their worker, `isolate: false`), so every GPU test file polls alike.
 */
export function throttleGpuPolling(): void {
  if (polling === 'throttled') return;
  polling = 'throttled';
  const immediate = globalThis.setImmediate;
  const isNative = (fn: unknown) => typeof fn === 'function' && /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(fn));
  globalThis.setImmediate = Object.assign((callback: (...args: unknown[]) => void, ...args: unknown[]) =>
    (isNative(callback) ? setTimeout(callback, 1, ...args) : immediate(callback, ...args)), immediate) as typeof setImmediate;
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
