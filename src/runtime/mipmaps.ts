import mipmapsWgsl from '../../shaders/mipmaps.wgsl?raw';

/** Mip levels of a full chain for a width x height texture. */
export function mipLevelCount(width: number, height: number): number {
  return Math.floor(Math.log2(Math.max(width, height, 1))) + 1;
}

/**
 * Fills levels 1.. of 2D textures from level 0 (shaders/mipmaps.wgsl), as three.js's
 * generateMipmaps does for glTF textures, so minified textures (a crowd's distant characters)
 * are filtered instead of aliased. One pipeline per format, made on first use; the encoder's
 * commands are submitted by `generate`. Owns nothing that needs destroying.
 */
export class MipmapGenerator {
  private readonly module: GPUShaderModule;
  private readonly sampler: GPUSampler;
  private readonly pipelines = new Map<GPUTextureFormat, GPURenderPipeline>();

  constructor(private readonly device: GPUDevice) {
    this.module = device.createShaderModule({ label: 'Mipmaps.shader', code: mipmapsWgsl });
    this.sampler = device.createSampler({ label: 'Mipmaps.sampler', minFilter: 'linear', magFilter: 'linear' });
  }

  /** Writes levels 1..mipLevelCount-1 of layer `layer` of `texture` (needs RENDER_ATTACHMENT and TEXTURE_BINDING usage). */
  generate(texture: GPUTexture, layer = 0): void {
    if (texture.mipLevelCount < 2) return;
    const format = texture.format;
    let pipeline = this.pipelines.get(format);
    if (!pipeline) {
      pipeline = this.device.createRenderPipeline({
        label: `Mipmaps.pipeline.${format}`, layout: 'auto',
        vertex: { module: this.module, entryPoint: 'vertex' },
        fragment: { module: this.module, entryPoint: 'fragment', targets: [{ format }] },
        primitive: { topology: 'triangle-list' },
      });
      this.pipelines.set(format, pipeline);
    }
    const encoder = this.device.createCommandEncoder({ label: 'Mipmaps' });
    for (let level = 1; level < texture.mipLevelCount; level++) {
      const group = this.device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: texture.createView({ dimension: '2d', baseArrayLayer: layer, arrayLayerCount: 1, baseMipLevel: level - 1, mipLevelCount: 1 }) },
          { binding: 1, resource: this.sampler },
        ],
      });
      const pass = encoder.beginRenderPass({
        colorAttachments: [{ view: texture.createView({ dimension: '2d', baseArrayLayer: layer, arrayLayerCount: 1, baseMipLevel: level, mipLevelCount: 1 }), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 0] }],
      });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.draw(3);
      pass.end();
    }
    this.device.queue.submit([encoder.finish()]);
  }
}
