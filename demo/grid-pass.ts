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
  shadows: 160, //      array<Shadow, GROUND_SHADOWS>, SHADOW_STRIDE bytes each
} as const;
GRID_UNIFORM satisfies Record<string, number>;
/** Byte offsets within one `Shadow` of shaders/grid.wgsl, and its size (mat4x4f, 2 x f32, 8 bytes of padding). */
const SHADOW = {
  lightViewProjection: 0, // mat4x4f: world -> the crowd's shadow map
  texel: 64, //              f32: 1 / map size
  strength: 68, //           f32: 0 without a map
} as const;
const SHADOW_STRIDE = 80;
/** Crowds whose shadows the ground receives (the length of `shadows` in shaders/grid.wgsl). */
export const GROUND_SHADOWS = 3;
const GRID_UNIFORM_SIZE = GRID_UNIFORM.shadows + GROUND_SHADOWS * SHADOW_STRIDE;

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
  /** The shadow map each of the GROUND_SHADOWS slots samples (noShadow when empty). */
  private readonly shadowViews: GPUTextureView[];

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
    this.shadowViews = new Array<GPUTextureView>(GROUND_SHADOWS).fill(this.noShadow);
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
   * Receives the shadows of crowd `slot` (0 to GROUND_SHADOWS - 1) this frame: its shadow map
   * after crowd.encode, or none. Rebuilds the bind group only when a map changes; call before draw().
   */
  setShadow(slot: number, shadow: GroundShadow | undefined): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= GROUND_SHADOWS) throw new RangeError(`GridPass.setShadow: slot ${slot} is not an integer in [0, ${GROUND_SHADOWS - 1}]`);
    const view = shadow?.view ?? this.noShadow;
    if (view !== this.shadowViews[slot]) {
      this.shadowViews[slot] = view;
      this.bindGroup = this.createBindGroup();
    }
    const f = this.data;
    const at = (GRID_UNIFORM.shadows + slot * SHADOW_STRIDE) / 4;
    f[at + SHADOW.strength / 4] = shadow ? 0.6 : 0;
    if (shadow) {
      f.set(shadow.lightViewProjection, at + SHADOW.lightViewProjection / 4);
      f[at + SHADOW.texel / 4] = 1 / shadow.mapSize;
    }
    this.device.queue.writeBuffer(this.uniform, at * 4, this.data, at, SHADOW_STRIDE / 4);
  }

  private createBindGroup(): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'GridPass.bindGroup',
      layout: this.pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: this.uniform } },
        { binding: 1, resource: this.shadowViews[0] },
        { binding: 2, resource: this.shadowSampler },
        { binding: 3, resource: this.shadowViews[1] },
        { binding: 4, resource: this.shadowViews[2] },
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
