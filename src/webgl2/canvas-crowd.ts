import type { Character } from '../character/character';
import { Crowd } from '../runtime/crowd';
import type { CrowdOptions } from '../runtime/crowd-types';
import { checkNumbers } from '../runtime/record-buffer';

/** RGBA in [0, 1] that a canvas crowd clears to before it draws, as the canvas stores it (CanvasCrowdOptions.clearColor). */
export type ClearColor = readonly [number, number, number, number];

/** Depth format of the WebGPU canvas crowd's depth texture. */
const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus';

/**
 * A WebGPU crowd that draws into a canvas (made by createCrowd): Crowd itself, plus the canvas
 * context, a depth texture sized with the canvas, and a frame call, render(viewProjection), that
 * reads as the WebGL 2 one does. Owns the device createCrowd made for it (destroy() destroys it)
 * and replaces it when it is lost: a new device from a new adapter, the crowd restored onto
 * it (Crowd.restore), the canvas configured anew; `restored` counts those.
 */
export class GPUCanvasCrowd extends Crowd {
  /** Times the crowd was restored onto a new device after losing one. */
  restored = 0;
  /** The canvas drawn into (not owned). */
  readonly canvas: HTMLCanvasElement | OffscreenCanvas;
  private depth: GPUTexture | undefined;
  private destroyed = false;
  private readonly context: GPUCanvasContext;
  private readonly passDescriptor: GPURenderPassDescriptor & { colorAttachments: GPURenderPassColorAttachment[]; depthStencilAttachment: GPURenderPassDepthStencilAttachment };

  /**
   * Makes the crowd on `device` (then owned), then takes the canvas's 'webgpu' context and
   * configures it; a refused crowd leaves the canvas without a context (createCrowd can still
   * give it a WebGL 2 one). Throws an Error when the canvas has a context of another kind.
   */
  constructor(device: GPUDevice, canvas: HTMLCanvasElement | OffscreenCanvas, character: Character, options: CrowdOptions, clearColor: ClearColor) {
    super(device, character, options);
    this.canvas = canvas;
    const context = canvas.getContext('webgpu') as GPUCanvasContext | null;
    if (!context) {
      super.destroy();
      throw new Error("GPUCanvasCrowd: canvas.getContext('webgpu') returned null (the canvas already has a context of another kind)");
    }
    this.context = context;
    this.passDescriptor = {
      label: 'GPUCanvasCrowd.pass',
      colorAttachments: [{ view: undefined as unknown as GPUTextureView, clearValue: { r: clearColor[0], g: clearColor[1], b: clearColor[2], a: clearColor[3] }, loadOp: 'clear', storeOp: 'store' }],
      depthStencilAttachment: { view: undefined as unknown as GPUTextureView, depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store' },
    };
    context.configure({ device, format: options.colorFormat, alphaMode: 'opaque' });
    this.watch(device);
  }

  /**
   * Draws a frame into the canvas: clears it, encodes the crowd's passes (culling with the camera
   * last set, the pose pass) and draws every instance with `viewProjection` (column-major, world
   * -> clip, z in [0, 1]). Call update(dt) first. Allocation-free but when the canvas was resized.
   */
  render(viewProjection: ArrayLike<number>): void {
    checkNumbers(viewProjection, 16, 'viewProjection');
    const device = this.device, { width, height } = this.canvas;
    if (!this.depth || this.depth.width !== width || this.depth.height !== height) {
      this.depth?.destroy();
      this.depth = device.createTexture({ label: 'GPUCanvasCrowd.depth', size: [Math.max(1, width), Math.max(1, height)], format: DEPTH_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
      this.passDescriptor.depthStencilAttachment.view = this.depth.createView();
    }
    this.passDescriptor.colorAttachments[0].view = this.context.getCurrentTexture().createView();
    const encoder = device.createCommandEncoder({ label: 'GPUCanvasCrowd.frame' });
    this.encode(encoder);
    const pass = encoder.beginRenderPass(this.passDescriptor);
    this.draw(pass, viewProjection);
    pass.end();
    device.queue.submit([encoder.finish()]);
  }

  /** Frees the crowd, its depth texture and the device createCrowd made. */
  override destroy(): void {
    this.destroyed = true;
    super.destroy();
    this.depth?.destroy();
    this.device.destroy();
  }

  /** When `device` is lost (a driver reset; not by destroy()), restores the crowd onto a new device from a new adapter. */
  private watch(device: GPUDevice): void {
    void device.lost.then(async () => {
      if (this.destroyed) return;
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter || this.destroyed) return;
      const next = await adapter.requestDevice({ requiredLimits: requiredLimitsOf(device) });
      this.restore(next);
      this.depth = undefined;
      this.context.configure({ device: next, format: this.targetFormats.colorFormat, alphaMode: 'opaque' });
      this.restored++;
      this.watch(next);
    });
  }
}

/** The limits `device` was made with that crowds ask for (requiredCrowdLimits' names), to ask the same of a new one. */
function requiredLimitsOf(device: GPUDevice): Record<string, number> {
  const l = device.limits;
  return { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize, maxBufferSize: l.maxBufferSize, maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize };
}
