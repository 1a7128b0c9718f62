/**
 * The GPU buffers of baked track entries (BakedModel.tracks), one per device and array: every
 * PosePass whose character holds the same array shares one buffer, so characters that share a
 * clip library's tables (src/bake/clip-library.ts, bakeShared), or crowds of one character,
 * upload the tables once per device. Counted per user; the last release destroys the buffer.
 * The buffer is never written after its upload (the tables are immutable).
 */
interface Entry {
  buffer: GPUBuffer;
  users: number;
}

const perDevice = new WeakMap<GPUDevice, Map<Float32Array, Entry>>();

/** The buffer holding `tables` on `device`, uploaded by the first caller; pair each call with releaseTableBuffer. */
export function acquireTableBuffer(device: GPUDevice, tables: Float32Array): GPUBuffer {
  let buffers = perDevice.get(device);
  if (!buffers) perDevice.set(device, (buffers = new Map()));
  let entry = buffers.get(tables);
  if (!entry) {
    const buffer = device.createBuffer({ label: 'crowd-skin tables', size: Math.max(16, tables.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(buffer, 0, tables.buffer, tables.byteOffset, tables.byteLength);
    buffers.set(tables, (entry = { buffer, users: 0 }));
  }
  entry.users++;
  return entry.buffer;
}

/** Gives back one use of the buffer of `tables` on `device`; the last destroys it. */
export function releaseTableBuffer(device: GPUDevice, tables: Float32Array): void {
  const buffers = perDevice.get(device);
  const entry = buffers?.get(tables);
  if (!entry) return;
  if (--entry.users === 0) {
    entry.buffer.destroy();
    buffers!.delete(tables);
  }
}

/** How many table buffers `device` holds now, and their bytes (for tests and the bench). */
export function tableBufferStats(device: GPUDevice): { buffers: number; bytes: number } {
  const buffers = perDevice.get(device);
  let bytes = 0;
  for (const entry of buffers?.values() ?? []) bytes += entry.buffer.size;
  return { buffers: buffers?.size ?? 0, bytes };
}
