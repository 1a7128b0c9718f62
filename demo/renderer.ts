import type { Crowd } from '../src/index';
import type { GpuTimer } from './gpu-timer';
import { GROUND_SHADOWS, type GridPass } from './grid-pass';
import type { MarkerPass } from './marker-pass';
import { DEPTH_FORMAT, SAMPLE_COUNT, SKY_COLOR } from './theme';

/**
 * The frame's GPU work: each crowd's pose compute pass, then one MSAA render pass holding every
 * crowd's draws (one camera), the ground and the selection marker, resolved into the canvas. Owns the canvas configuration and the
 * multisampled colour and depth targets (re-created only when the canvas size changes); the
 * pass descriptor and the submit array are created once and refilled each frame.
 */
export class Renderer {
  readonly colorFormat: GPUTextureFormat;
  readonly depthFormat = DEPTH_FORMAT;
  readonly sampleCount = SAMPLE_COUNT;
  private readonly context: GPUCanvasContext;
  private msaaTexture: GPUTexture | undefined;
  private depthTexture: GPUTexture | undefined;
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor = { label: 'Demo.frame' };
  private readonly commandBuffers: GPUCommandBuffer[] = [];

  constructor(private readonly device: GPUDevice, readonly canvas: HTMLCanvasElement) {
    const context = canvas.getContext('webgpu');
    if (!context) throw new Error('canvas.getContext("webgpu") returned null');
    this.context = context;
    this.colorFormat = navigator.gpu.getPreferredCanvasFormat();
    context.configure({ device, format: this.colorFormat, alphaMode: 'opaque' });
    this.colorAttachment = {
      view: undefined as unknown as GPUTextureView, // set each frame
      // With MSAA the samples are resolved into the canvas and then discarded.
      clearValue: SKY_COLOR, loadOp: 'clear', storeOp: SAMPLE_COUNT > 1 ? 'discard' : 'store',
    };
    this.depthAttachment = {
      view: undefined as unknown as GPUTextureView,
      depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard',
    };
    this.passDescriptor = { label: 'Demo.renderPass', colorAttachments: [this.colorAttachment], depthStencilAttachment: this.depthAttachment };
  }

  get aspect(): number {
    return this.canvas.width / Math.max(1, this.canvas.height);
  }

  /**
   * Encodes and submits one frame. `crowds` are drawn in order into the one pass (none: still
   * loading); the GPU timer times the first crowd's compute passes. `grid` may be absent
   * (turned off); it receives the shadows of the first GROUND_SHADOWS crowds. `markers` are the
   * rings to draw (none: nothing followed or selected). `viewProjection` must already be
   * written into all of them.
   */
  render(crowds: readonly Crowd[], grid: GridPass | undefined, markers: readonly MarkerPass[], viewProjection: Float32Array, timer: GpuTimer): void {
    this.ensureTargets();
    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    const computeRan = crowds.length > 0 && crowds[0].count > 0;
    for (let i = 0; i < crowds.length; i++) crowds[i].encode(encoder, i === 0 ? timer.computeWrites : undefined);
    if (grid) for (let i = 0; i < GROUND_SHADOWS; i++) grid.setShadow(i, crowds[i]?.shadowMap);
    const canvasView = this.context.getCurrentTexture().createView();
    if (this.sampleCount > 1) this.colorAttachment.resolveTarget = canvasView;
    else this.colorAttachment.view = canvasView;
    this.passDescriptor.timestampWrites = timer.renderWrites;
    const pass = encoder.beginRenderPass(this.passDescriptor);
    for (let i = 0; i < crowds.length; i++) crowds[i].draw(pass, viewProjection);
    if (grid) grid.draw(pass);
    for (let i = 0; i < markers.length; i++) markers[i].draw(pass);
    pass.end();
    timer.resolve(encoder, computeRan);
    this.commandBuffers[0] = encoder.finish();
    this.device.queue.submit(this.commandBuffers);
    timer.afterSubmit();
  }

  /** Re-creates the MSAA colour and depth targets when the canvas size changed. */
  private ensureTargets(): void {
    const { width, height } = this.canvas;
    if (this.depthTexture && this.depthTexture.width === width && this.depthTexture.height === height) return;
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    const size = [Math.max(1, width), Math.max(1, height)];
    if (this.sampleCount > 1) {
      this.msaaTexture = this.device.createTexture({
        label: 'Demo.msaaColor', size, format: this.colorFormat, sampleCount: this.sampleCount, usage: GPUTextureUsage.RENDER_ATTACHMENT,
      });
      this.colorAttachment.view = this.msaaTexture.createView({ label: 'Demo.msaaColor.view' });
    }
    this.depthTexture = this.device.createTexture({
      label: 'Demo.depth', size, format: this.depthFormat, sampleCount: this.sampleCount, usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.depthAttachment.view = this.depthTexture.createView({ label: 'Demo.depth.view' });
  }

  destroy(): void {
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
  }
}

/**
 * Keeps the canvas's pixel size equal to its CSS size times the device pixel ratio, capped at
 * `maxRatio` and at `maxSize` (the device's or context's largest texture). Uses ResizeObserver's device-pixel box where
 * the browser has it (exact on fractional zoom), else the CSS box times devicePixelRatio.
 */
export function trackCanvasSize(canvas: HTMLCanvasElement, maxSize: number, maxRatio: number): void {
  const limit = maxSize;
  const observer = new ResizeObserver(([entry]) => {
    const dpr = window.devicePixelRatio || 1;
    const cap = Math.min(1, maxRatio / dpr);
    const box = entry.devicePixelContentBoxSize?.[0];
    const width = box ? box.inlineSize * cap : entry.contentRect.width * Math.min(dpr, maxRatio);
    const height = box ? box.blockSize * cap : entry.contentRect.height * Math.min(dpr, maxRatio);
    canvas.width = Math.max(1, Math.min(limit, Math.round(width)));
    canvas.height = Math.max(1, Math.min(limit, Math.round(height)));
  });
  try {
    observer.observe(canvas, { box: 'device-pixel-content-box' });
  } catch {
    observer.observe(canvas); // Safari: no device-pixel-content-box
  }
}
