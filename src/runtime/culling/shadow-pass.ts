import { mat4, vec3 } from 'wgpu-matrix';
import { CAMERA } from '../layout';
import { streamsKey, vertexConstants, vertexLayouts, type MeshBuffers } from '../mesh-buffers';
import { frameBindGroup, vertexEntryPoint, type DrawArgs, type SkinInputs, type SkinPass } from '../skin-pass';
import type { PrimitiveBuffers } from '../mesh-buffers';

export interface ShadowPassOptions {
  /** Shadow map size in texels (square, default 2048). */
  mapSize?: number;
}

/**
 * The directional shadow map (depth32float): the instances the cull pass listed as casters
 * (inside the light's frustum), at their shadow LOD level (one coarser than the camera's),
 * drawn depth-only with the skin shader's vertex entry points and the light's camera.
 * create: the constructor makes the map, the camera uniform and both pipelines (4 and 8
 * influences); bind(): the store's buffers (creation and growth); update(): the light's
 * view-projection; encode(): the render pass. The skin pass then samples the map (PCF).
 */
export class ShadowPass {
  readonly mapSize: number;
  /** The map's view, for the skin pass (and a ground that receives shadows). Owned by the pass. */
  readonly view: GPUTextureView;
  /** World -> the map's clip space, as written by the last update(). */
  readonly lightViewProjection = new Float32Array(16);
  private readonly texture: GPUTexture;
  private readonly camera: GPUBuffer;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);
  private readonly pipelines: GPURenderPipeline[];
  private readonly levelGroups: GPUBindGroup[] = [];
  private readonly passDescriptor: GPURenderPassDescriptor;

  constructor(private readonly device: GPUDevice, private readonly skin: SkinPass, private readonly mesh: MeshBuffers, options: ShadowPassOptions = {}) {
    this.mapSize = options.mapSize ?? 2048;
    if (!Number.isInteger(this.mapSize) || this.mapSize < 1 || this.mapSize > device.limits.maxTextureDimension2D) {
      throw new RangeError(`shadows.mapSize must be an integer in [1, ${device.limits.maxTextureDimension2D}], got ${options.mapSize}`);
    }
    this.texture = device.createTexture({
      label: 'ShadowPass.map', size: [this.mapSize, this.mapSize], format: 'depth32float',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING,
    });
    this.view = this.texture.createView({ label: 'ShadowPass.map.view' });
    this.camera = device.createBuffer({ label: 'ShadowPass.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const byEntryPoint = new Map<string, GPURenderPipeline>();
    this.pipelines = mesh.primitives.map((p) => {
      const entryPoint = skin.appearance?.entryPoint(p) ?? vertexEntryPoint(p);
      const key = `${entryPoint}.${p.primitive.material.alphaMode === 'MASK' ? 'mask' : 'solid'}.${streamsKey(p)}`;
      if (!byEntryPoint.has(key)) byEntryPoint.set(key, this.pipeline(p));
      return byEntryPoint.get(key)!;
    });
    this.passDescriptor = {
      label: 'ShadowPass', colorAttachments: [],
      depthStencilAttachment: { view: this.view, depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'store' },
    };
  }

  /** The direction the sun travels (world, unit): the skin pass's lights.sun.direction, which the map is fitted along. */
  get lightDirection(): ArrayLike<number> {
    return this.skin.lights.direction;
  }

  /** Points the pass at the store's shadow lists (creation and growth), and at the morph weights when the character has morph targets. Does not own them. */
  bind(inputs: SkinInputs, morphWeights?: GPUBuffer): void {
    this.levelGroups.length = 0;
    for (let level = 0; level < inputs.lodLevels; level++) {
      this.levelGroups.push(frameBindGroup(this.device, this.skin.frameBindGroupLayout, `ShadowPass.frameLevel${level}`, this.camera, inputs, inputs.drawListBuffer,
        inputs.lodLevels + level, morphWeights));
    }
  }

  /** Writes the light's view-projection (world -> the map's clip space, column-major). */
  update(lightViewProjection: ArrayLike<number>): void {
    this.lightViewProjection.set(lightViewProjection);
    this.cameraData.set(lightViewProjection, CAMERA.viewProjection / 4);
    this.device.queue.writeBuffer(this.camera, 0, this.cameraData);
  }

  /** Records the depth-only render pass: one indirect draw per (LOD level, primitive) of the caster lists. */
  encode(encoder: GPUCommandEncoder, draws: DrawArgs): void {
    if (this.levelGroups.length === 0) throw new Error('ShadowPass.encode: call bind() first');
    const pass = encoder.beginRenderPass(this.passDescriptor);
    const materials = this.skin.materials;
    // Per-instance appearance: a primitive an instance hides casts no shadow (the same mask test).
    const looks = this.skin.appearance?.refresh();
    if (looks) pass.setBindGroup(2, this.skin.appearance!.emptyGroup);
    this.mesh.primitives.forEach((p, i) => {
      pass.setPipeline(this.pipelines[i]);
      pass.setBindGroup(1, materials[i]);
      if (looks) pass.setBindGroup(3, looks[i]);
      this.mesh.setBuffers(pass, p);
      for (let level = 0; level < this.levelGroups.length; level++) {
        pass.setBindGroup(0, this.levelGroups[level]);
        pass.drawIndexedIndirect(draws.args, draws.argsOffset(1, level, i));
      }
    });
    pass.end();
  }

  destroy(): void {
    this.texture.destroy();
    this.camera.destroy();
  }

  private pipeline(p: PrimitiveBuffers): GPURenderPipeline {
    const entryPoint = this.skin.appearance?.entryPoint(p) ?? vertexEntryPoint(p);
    return this.device.createRenderPipeline({
      label: `ShadowPass.pipeline.${entryPoint}`,
      layout: this.skin.appearance?.depthLayout ?? this.skin.pipelineLayout,
      vertex: { module: this.skin.module, entryPoint, buffers: vertexLayouts(p), constants: { ...this.skin.vertexConstants, ...vertexConstants(p) } },
      // alphaMode MASK: the cut-out texels cast no shadow (skin.wgsl shadowMask discards them).
      ...(p.primitive.material.alphaMode === 'MASK' ? { fragment: { module: this.skin.module, entryPoint: 'shadowMask', targets: [], constants: vertexConstants(p) } } : {}),
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      // Slope-scaled bias against self-shadowing acne.
      depthStencil: { format: 'depth32float', depthWriteEnabled: true, depthCompare: 'less', depthBias: 2, depthBiasSlopeScale: 2 },
    });
  }
}

/** Scratch of fitLight: no allocation per frame. */
const scratch = {
  inverse: mat4.create(), view: mat4.create(), projection: mat4.create(), corner: vec3.create(), ndc: vec3.create(),
  centre: vec3.create(), eye: vec3.create(), up: vec3.create(), corners: new Float64Array(24),
};

/**
 * The light's view-projection for a directional light travelling along `direction` (unit):
 * an orthographic box around the part of the camera's frustum within `distance` of the eye
 * (its bounding sphere, so the map does not swim as the camera turns), reaching `reach` world
 * units further towards the light so that casters outside the view (taller than the ground they
 * stand on) still cast. Writes into `out`.
 */
export function fitLight(viewProjection: ArrayLike<number>, eye: ArrayLike<number>, direction: ArrayLike<number>, distance: number, reach: number, out: Float32Array): Float32Array {
  const { inverse, corner, centre, corners } = scratch;
  mat4.inverse(viewProjection as Float32Array, inverse);
  // The 8 corners of the frustum, far ones pulled in to `distance` from the eye; their centroid and radius.
  vec3.zero(centre);
  for (let i = 0; i < 8; i++) {
    vec3.transformMat4(vec3.set(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : 0, scratch.ndc), inverse, corner);
    const dx = corner[0] - eye[0], dy = corner[1] - eye[1], dz = corner[2] - eye[2];
    const length = Math.hypot(dx, dy, dz);
    const k = length > distance ? distance / length : 1;
    corners[i * 3] = eye[0] + dx * k; corners[i * 3 + 1] = eye[1] + dy * k; corners[i * 3 + 2] = eye[2] + dz * k;
    for (let c = 0; c < 3; c++) centre[c] += corners[i * 3 + c] / 8;
  }
  let radius = 0;
  for (let i = 0; i < 8; i++) radius = Math.max(radius, Math.hypot(corners[i * 3] - centre[0], corners[i * 3 + 1] - centre[1], corners[i * 3 + 2] - centre[2]));
  const back = radius + reach;
  vec3.set(centre[0] - direction[0] * back, centre[1] - direction[1] * back, centre[2] - direction[2] * back, scratch.eye);
  vec3.set(Math.abs(direction[1]) > 0.99 ? 1 : 0, Math.abs(direction[1]) > 0.99 ? 0 : 1, 0, scratch.up);
  mat4.lookAt(scratch.eye, centre, scratch.up, scratch.view);
  mat4.ortho(-radius, radius, -radius, radius, 0, back + radius, scratch.projection);
  return mat4.multiply(scratch.projection, scratch.view, out) as Float32Array;
}
