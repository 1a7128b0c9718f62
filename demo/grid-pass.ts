import gridWgsl from './shaders/grid.wgsl?raw';
import { GRID_LINE_COLOR, GROUND_COLOR, SKY_COLOR } from './theme';

/** Byte offsets of shaders/grid.wgsl `Grid` (WGSL alignment: vec3f is 16-aligned, 12 bytes). */
const GRID_UNIFORM = {
  viewProjection: 0, // mat4x4f: 64
  center: 64, //        vec3f: 12
  extent: 76, //        f32
  eye: 80, //           vec3f: 12
  majorEvery: 92, //    f32
  groundColor: 96, //   vec4f
  lineColor: 112, //    vec4f
  skyColor: 128, //     vec4f
  cellSize: 144, //     vec2f: 8 (8-aligned)
  fogStart: 152, //     f32
  fogEnd: 156, //       f32
  lightViewProjection: 160, // mat4x4f: world -> the crowd's shadow map
  shadowTexel: 224, //  f32: 1 / map size
  shadowStrength: 228, // f32: 0 without a map
  // 8 bytes of padding
} as const;
GRID_UNIFORM satisfies Record<string, number>;
const GRID_UNIFORM_SIZE = 240;

/** A crowd's shadow map as Crowd.shadowMap gives it. */
export interface GroundShadow {
  view: GPUTextureView;
  lightViewProjection: Float32Array;
  mapSize: number;
}

export interface GridPassOptions {
  colorFormat: GPUTextureFormat;
  depthFormat: GPUTextureFormat;
  sampleCount: number;
}

/**
 * The ground: one procedural-grid quad (shaders/grid.wgsl). The constructor creates the
 * pipeline, uniform buffer and bind group; update() writes the uniform (one writeBuffer);
 * draw() records one draw into the caller's render pass.
 */
export class GridPass {
  /** Minor cell size along x and z, world units (the crowd's spacing: a character per cell). */
  readonly cellSize = new Float32Array([1, 1]);
  private readonly pipeline: GPURenderPipeline;
  private readonly uniform: GPUBuffer;
  private bindGroup: GPUBindGroup;
  private readonly data = new Float32Array(GRID_UNIFORM_SIZE / 4);
  private readonly shadowSampler: GPUSampler;
  private readonly noShadow: GPUTextureView;
  private shadowView: GPUTextureView;

  constructor(private readonly device: GPUDevice, options: GridPassOptions) {
    const module = device.createShaderModule({ label: 'GridPass.shader', code: gridWgsl });
    this.pipeline = device.createRenderPipeline({
      label: 'GridPass.pipeline',
      layout: 'auto',
      vertex: { module, entryPoint: 'vertexMain' },
      fragment: {
        module, entryPoint: 'fragmentMain', targets: [{ format: options.colorFormat }],
        constants: { DECODE_SRGB: options.colorFormat.endsWith('-srgb') ? 1 : 0 },
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: options.depthFormat, depthWriteEnabled: true, depthCompare: 'less' },
      multisample: { count: options.sampleCount },
    });
    this.uniform = device.createBuffer({ label: 'GridPass.uniform', size: GRID_UNIFORM_SIZE, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.shadowSampler = device.createSampler({ label: 'GridPass.shadowSampler', compare: 'less-equal', magFilter: 'linear', minFilter: 'linear' });
    this.noShadow = device.createTexture({ label: 'GridPass.noShadow', size: [1, 1], format: 'depth32float', usage: GPUTextureUsage.TEXTURE_BINDING }).createView();
    this.shadowView = this.noShadow;
    this.bindGroup = this.createBindGroup();
    const f = this.data;
    f.set(GROUND_COLOR, GRID_UNIFORM.groundColor / 4);
    f.set(GRID_LINE_COLOR, GRID_UNIFORM.lineColor / 4);
    f[GRID_UNIFORM.skyColor / 4] = SKY_COLOR.r;
    f[GRID_UNIFORM.skyColor / 4 + 1] = SKY_COLOR.g;
    f[GRID_UNIFORM.skyColor / 4 + 2] = SKY_COLOR.b;
    f[GRID_UNIFORM.skyColor / 4 + 3] = 1;
    f[GRID_UNIFORM.majorEvery / 4] = 10;
  }

  /**
   * Writes the frame's uniform. The quad is centred on `target` (xz) and reaches `fogEnd`
   * beyond it, where the ground has faded into the sky anyway.
   */
  update(viewProjection: Float32Array, eye: Float32Array, target: Float32Array, fogStart: number, fogEnd: number): void {
    const f = this.data;
    f.set(viewProjection, GRID_UNIFORM.viewProjection / 4);
    f[GRID_UNIFORM.center / 4] = target[0];
    f[GRID_UNIFORM.center / 4 + 1] = 0;
    f[GRID_UNIFORM.center / 4 + 2] = target[2];
    f[GRID_UNIFORM.extent / 4] = fogEnd * 1.1;
    f.set(eye, GRID_UNIFORM.eye / 4);
    f.set(this.cellSize, GRID_UNIFORM.cellSize / 4);
    f[GRID_UNIFORM.fogStart / 4] = fogStart;
    f[GRID_UNIFORM.fogEnd / 4] = fogEnd;
    this.device.queue.writeBuffer(this.uniform, 0, this.data);
  }

  /**
   * Receives the crowd's shadows this frame (its shadow map after crowd.encode), or none.
   * Rebuilds the bind group only when the map changes; call before draw().
   */
  setShadow(shadow: GroundShadow | undefined): void {
    const view = shadow?.view ?? this.noShadow;
    if (view !== this.shadowView) {
      this.shadowView = view;
      this.bindGroup = this.createBindGroup();
    }
    const f = this.data;
    f[GRID_UNIFORM.shadowStrength / 4] = shadow ? 0.6 : 0;
    if (shadow) {
      f.set(shadow.lightViewProjection, GRID_UNIFORM.lightViewProjection / 4);
      f[GRID_UNIFORM.shadowTexel / 4] = 1 / shadow.mapSize;
    }
    this.device.queue.writeBuffer(this.uniform, 0, this.data);
  }

  private createBindGroup(): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'GridPass.bindGroup',
      layout: this.pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: this.uniform } },
        { binding: 1, resource: this.shadowView },
        { binding: 2, resource: this.shadowSampler },
      ],
    });
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
