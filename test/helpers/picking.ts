import type { Crowd } from '../../src/runtime/crowd';

/**
 * The answer of a CrowdPicking request made just before: the frame that records it (update,
 * encode, submit), then the update that maps its readback (docs/picking.md).
 */
export async function settlePick<T>(device: GPUDevice, crowd: Crowd, request: Promise<T>): Promise<T> {
  crowd.update(0);
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  device.queue.submit([encoder.finish()]);
  crowd.update(0);
  return request;
}
