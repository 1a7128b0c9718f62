/**
 * Step 2 of ThreeCrowdRenderer's frame on three's WebGPU backend (index.ts): one command buffer
 * with every crowd of the default shading ('crowd'): its compute passes (Crowd.encode), then one
 * render pass that loads three's scene target (colour and depth; the MSAA textures where there
 * are any, resolving again) and draws the crowds with three's camera, depth-tested against
 * three's objects. Allocates nothing per frame but WebGPU's command encoder.
 */
import type { Camera, RenderTarget } from 'three/webgpu';
import type { Crowd, CrowdTargetFormats } from '../index';
import { attachmentTexture, resolveTexture, type WebGpuBackend } from './backend';
import type { FrameCamera } from './frame-camera';

const PREFIX = 'crowd-skin/three';

/** The render pass of the crowds drawn by our skin pass, into three's scene target. Owns no GPU texture. */
export class GpuCrowdPass {
  /** Formats and samples of the target (every crowd drawn here is made with them). */
  readonly formats: Readonly<CrowdTargetFormats>;
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor = { label: 'ThreeCrowdRenderer.frame' };
  private readonly commandBuffers: GPUCommandBuffer[] = [];
  /** The GPU textures the attachments' views were made from; three re-creates them on resize. */
  private boundColor: GPUTexture | undefined;
  private boundDepth: GPUTexture | undefined;

  /** `target` must have been initialised by three (renderer.initRenderTarget). */
  constructor(private readonly backend: WebGpuBackend, private readonly target: RenderTarget) {
    const color = attachmentTexture(backend, target.texture, 'scene target colour');
    const depth = attachmentTexture(backend, target.depthTexture!, 'scene target depth');
    this.formats = { colorFormat: color.format, depthFormat: depth.format, sampleCount: color.sampleCount };
    if (depth.sampleCount !== color.sampleCount) {
      throw new Error(`${PREFIX}: three made the scene target's colour ${color.sampleCount}x and its depth ${depth.sampleCount}x multisampled; they must match`);
    }
    this.colorAttachment = { view: color.createView(), loadOp: 'load', storeOp: 'store' };
    this.depthAttachment = { view: depth.createView(), depthLoadOp: 'load', depthStoreOp: 'store' };
    this.passDescriptor = { label: 'ThreeCrowdRenderer.crowds', colorAttachments: [this.colorAttachment], depthStencilAttachment: this.depthAttachment };
  }

  /**
   * Encodes and submits every crowd of `crowds` that `skip` does not hold (three draws those), seen
   * by `camera`, after three's render; of those three draws, the features' draws (impostors) alone.
   */
  draw(crowds: readonly Crowd[], skip: ReadonlyMap<unknown, unknown>, camera: Camera, frameCamera: FrameCamera): void {
    this.bindAttachments();
    const viewProjection = frameCamera.afterRender(camera).elements;
    const height = this.target.height;
    const device = this.backend.device;
    const encoder = device.createCommandEncoder(this.encoderDescriptor);
    for (let i = 0; i < crowds.length; i++) {
      const crowd = crowds[i];
      if (skip.has(crowd)) continue;
      frameCamera.apply(crowd, camera, height, false);
      crowd.encode(encoder);
    }
    const pass = encoder.beginRenderPass(this.passDescriptor);
    for (let i = 0; i < crowds.length; i++) {
      const crowd = crowds[i];
      // A crowd three draws (culled and posed before three's render) keeps its features' draws (impostors) for this pass.
      if (!skip.has(crowd)) crowd.draw(pass, viewProjection);
      else if (crowd.featureDrawCount > 0) crowd.drawFeatures(pass, viewProjection);
    }
    pass.end();
    this.commandBuffers[0] = encoder.finish();
    // three submitted its pass in render(); ours follows it on the same queue.
    device.queue.submit(this.commandBuffers);
  }

  /** Points the pass at three's current GPU textures of the target (new ones after a resize). */
  private bindAttachments(): void {
    const color = attachmentTexture(this.backend, this.target.texture, 'scene target colour');
    const depth = attachmentTexture(this.backend, this.target.depthTexture!, 'scene target depth');
    if (color === this.boundColor && depth === this.boundDepth) return;
    this.colorAttachment.view = color.createView({ label: 'ThreeCrowdRenderer.color' });
    this.colorAttachment.resolveTarget = resolveTexture(this.backend, this.target.texture)?.createView({ label: 'ThreeCrowdRenderer.resolve' });
    this.depthAttachment.view = depth.createView({ label: 'ThreeCrowdRenderer.depth' });
    this.boundColor = color;
    this.boundDepth = depth;
  }
}
