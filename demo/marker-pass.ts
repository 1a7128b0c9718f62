import markerWgsl from './shaders/marker.wgsl?raw';
import type { GridPassOptions } from './grid-pass';

/** Byte offsets of shaders/marker.wgsl `Marker`. */
const MARKER_UNIFORM = {
  size: 96,
  viewProjection: 0, // mat4x4f: 64
  center: 64, //        vec3f: 12
  radius: 76, //        f32
  color: 80, //         vec4f
} as const;

/** Ring colour of the followed character (display RGB; cyan stands out from the orange models and the grey ground) and its opacity. */
export const MARKER_COLOR = [0.15, 0.85, 1.0, 0.95] as const;

/**
 * A ring on the ground marking one character (the one the keyboard drives, or the one a click
 * selected), in `color` (display RGB and opacity; default MARKER_COLOR). The constructor
 * creates the pipeline, uniform buffer and bind group; update() writes the uniform (one
 * writeBuffer); draw() records one draw into the caller's render pass, after the ground.
 */
export class MarkerPass {
  private readonly pipeline: GPURenderPipeline;
  private readonly uniform: GPUBuffer;
  private readonly bindGroup: GPUBindGroup;
  private readonly data = new Float32Array(MARKER_UNIFORM.size / 4);

  constructor(private readonly device: GPUDevice, options: GridPassOptions, color: readonly number[] = MARKER_COLOR) {
    const module = device.createShaderModule({ label: 'MarkerPass.shader', code: markerWgsl });
    this.pipeline = device.createRenderPipeline({
      label: 'MarkerPass.pipeline',
      layout: 'auto',
      vertex: { module, entryPoint: 'vertexMain' },
      fragment: {
        module, entryPoint: 'fragmentMain',
        targets: [{
          format: options.colorFormat,
          blend: {
            color: { srcFactor: 'src-alpha', dstFactor: 'one-minus-src-alpha', operation: 'add' },
            alpha: { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' },
          },
        }],
        constants: { DECODE_SRGB: options.colorFormat.endsWith('-srgb') ? 1 : 0 },
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: options.depthFormat, depthWriteEnabled: false, depthCompare: 'less-equal' },
      multisample: { count: options.sampleCount },
    });
    this.uniform = device.createBuffer({ label: 'MarkerPass.uniform', size: MARKER_UNIFORM.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.bindGroup = device.createBindGroup({
      label: 'MarkerPass.bindGroup',
      layout: this.pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: this.uniform } }],
    });
    this.data.set(color, MARKER_UNIFORM.color / 4);
  }

  /** Puts the ring (outer radius `radius`) around (x, z), lifted `lift` above the ground. */
  update(viewProjection: Float32Array, x: number, z: number, radius: number, lift: number): void {
    const f = this.data;
    f.set(viewProjection, MARKER_UNIFORM.viewProjection / 4);
    f[MARKER_UNIFORM.center / 4] = x;
    f[MARKER_UNIFORM.center / 4 + 1] = lift;
    f[MARKER_UNIFORM.center / 4 + 2] = z;
    f[MARKER_UNIFORM.radius / 4] = radius;
    this.device.queue.writeBuffer(this.uniform, 0, this.data);
  }

  draw(pass: GPURenderPassEncoder): void {
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.draw(6);
  }

  destroy(): void {
    this.uniform.destroy();
  }
}
