import { requiredCrowdLimits } from '../src/index';

/** WebGPU cannot run here; `hints` are things the user can try. */
export class WebGpuUnavailableError extends Error {
  constructor(message: string, readonly hints: string[]) {
    super(message);
    this.name = 'WebGpuUnavailableError';
  }
}

const HINTS = [
  'Use a recent Chrome or Edge (113 or newer) on Windows, macOS or ChromeOS, or Chrome 121+ on Android. Firefox 141+ and Safari 26+ also ship WebGPU.',
  'On Linux, or where it is off: open chrome://flags, enable "Unsafe WebGPU Support" (#enable-unsafe-webgpu) and restart the browser.',
  'Open chrome://gpu and check that "WebGPU" reads "Hardware accelerated"; a blocklisted GPU driver disables it.',
  'Turn on "Use graphics acceleration when available" in the browser\'s system settings, and update the GPU driver.',
];

export interface DemoDevice {
  device: GPUDevice;
  /** "vendor architecture (description)" of the adapter, for the stats overlay. */
  adapterName: string;
  timestamps: boolean;
}

/**
 * Requests an adapter and a device with the crowd's limits (requiredCrowdLimits) and
 * `timestamp-query` where offered. `onError` receives uncaptured WebGPU errors, `onLost` a
 * sentence and WebGPU's reason when the device is lost ('destroyed' too: the caller knows
 * whether it destroyed it).
 */
export async function createDevice(onError: (message: string) => void, onLost: (message: string, reason: GPUDeviceLostReason) => void): Promise<DemoDevice> {
  if (!navigator.gpu) {
    const reason = window.isSecureContext
      ? 'This browser does not offer WebGPU (navigator.gpu is missing).'
      : 'WebGPU needs a secure context: open the demo over https:// or from localhost.';
    throw new WebGpuUnavailableError(reason, HINTS);
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await navigator.gpu.requestAdapter();
  } catch (error) {
    throw new WebGpuUnavailableError(`requestAdapter() failed: ${(error as Error).message}`, HINTS);
  }
  if (!adapter) throw new WebGpuUnavailableError('The browser has WebGPU but found no usable GPU adapter (requestAdapter() returned null).', HINTS);

  const timestamps = adapter.features.has('timestamp-query');
  const device = await adapter.requestDevice({
    label: 'crowd-skin demo',
    requiredLimits: requiredCrowdLimits(adapter),
    // KTX2 textures upload as BC7, ETC2 or ASTC blocks where the device has the feature (docs/loading.md).
    requiredFeatures: (['timestamp-query', 'texture-compression-bc', 'texture-compression-etc2', 'texture-compression-astc'] as const).filter((f) => adapter.features.has(f)),
  });
  device.addEventListener('uncapturederror', (event) => {
    onError((event as GPUUncapturedErrorEvent).error.message);
  });
  void device.lost.then((info) => {
    onLost(`The GPU device was lost (${info.reason}): ${info.message || 'no details'}`, info.reason);
  });
  const info = adapter.info;
  const adapterName = [info.vendor, info.architecture, info.description && `(${info.description})`].filter(Boolean).join(' ') || 'unknown adapter';
  return { device, adapterName, timestamps };
}
