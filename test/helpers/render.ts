import { mat4 } from 'wgpu-matrix';
import type { Crowd } from '../../src/runtime/crowd';
import { readBuffer } from './gpu';

/** A perspective camera at `eye` looking at `target` (+y up): view-projection (WebGPU z in [0, 1]) and eye. */
export function lookAt(eye: [number, number, number], target: [number, number, number], options: { fovY?: number; near?: number; far?: number } = {}) {
  const projection = mat4.perspective(options.fovY ?? 0.9, 1, options.near ?? 1, options.far ?? 10000);
  const view = mat4.lookAt(eye, target, [0, 1, 0]);
  return { viewProjection: Float32Array.from(mat4.multiply(projection, view)), eye };
}

/**
 * Encodes one frame of `crowd` as it stands (call update first to upload its records), draws it into
 * a `size` x `size` rgba8unorm target cleared to black (size a multiple of 64: rows of 256 bytes), submits, and returns the pixels.
 * With `samples` 4 it draws into a multisampled target (and depth) resolved into that one, as the
 * demo does (the crowd made with `sampleCount: 4`).
 */
export async function renderCrowd(device: GPUDevice, crowd: Crowd, viewProjection: Float32Array, size: number, samples = 1): Promise<Uint8Array> {
  const color = device.createTexture({ size: [size, size], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const multisampled = samples > 1 ? device.createTexture({ size: [size, size], format: 'rgba8unorm', sampleCount: samples, usage: GPUTextureUsage.RENDER_ATTACHMENT }) : undefined;
  const depth = device.createTexture({ size: [size, size], format: 'depth24plus', sampleCount: samples, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  const pass = encoder.beginRenderPass({
    colorAttachments: [multisampled
      ? { view: multisampled.createView(), resolveTarget: color.createView(), loadOp: 'clear', storeOp: 'discard', clearValue: [0, 0, 0, 1] }
      : { view: color.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }],
    depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
  });
  crowd.draw(pass, viewProjection);
  pass.end();
  const readback = device.createBuffer({ size: size * size * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  encoder.copyTextureToBuffer({ texture: color }, { buffer: readback, bytesPerRow: size * 4 }, [size, size]);
  device.queue.submit([encoder.finish()]);
  const pixels = new Uint8Array(await readBuffer(device, readback));
  for (const resource of [color, depth, readback, multisampled]) resource?.destroy();
  return pixels;
}

/** Pixels whose colour differs from the black clear colour. */
export function drawnPixels(pixels: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 0) n++;
  return n;
}

/** Pixels that differ between two images of the same size. */
export function differingPixels(a: Uint8Array, b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2] || a[i + 3] !== b[i + 3]) n++;
  return n;
}

/** Pixels (byte offsets) where RGBA images `a` and `b` differ by more than `over` in the sum of their channels. */
export function pixelsApart(a: Uint8Array, b: Uint8Array, over = 24): number[] {
  const out: number[] = [];
  for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > over) out.push(i);
  return out;
}

/** Of the pixels `at` (byte offsets), the share where `image` is nearer (sum of channels) to `near` than to `far`. */
export function nearerShare(image: Uint8Array, near: Uint8Array, far: Uint8Array, at: readonly number[]): number {
  let n = 0;
  const d = (x: Uint8Array, i: number) => Math.abs(image[i] - x[i]) + Math.abs(image[i + 1] - x[i + 1]) + Math.abs(image[i + 2] - x[i + 2]);
  for (const i of at) if (d(near, i) < d(far, i)) n++;
  return n / Math.max(1, at.length);
}

/** Mean colour difference (/255 a channel) of two RGBA images over the pixels `mesh` draws (not black): the measure. */
export function overMesh(impostor: Uint8Array, mesh: Uint8Array): { mean: number; pixels: number } {
  let sum = 0, pixels = 0;
  for (let i = 0; i < mesh.length; i += 4) {
    if (mesh[i] + mesh[i + 1] + mesh[i + 2] === 0) continue;
    pixels++;
    sum += (Math.abs(impostor[i] - mesh[i]) + Math.abs(impostor[i + 1] - mesh[i + 1]) + Math.abs(impostor[i + 2] - mesh[i + 2])) / 3;
  }
  return { mean: sum / Math.max(pixels, 1), pixels };
}
