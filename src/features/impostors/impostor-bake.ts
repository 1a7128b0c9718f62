import bakeWgsl from '../../../shaders/impostors/bake.wgsl?raw';
import { mat4 } from 'wgpu-matrix';
import type { Character } from '../../character/character';
import { Crowd } from '../../runtime/crowd';
import type { CrowdKernel } from '../../runtime/feature';
import { CAMERA } from '../../runtime/layout';
import { vertexConstants, vertexLayouts } from '../../runtime/mesh-buffers';
import { cullMode } from '../../runtime/material-data';
import { frameBindGroup, vertexEntryPoint, writeCamera } from '../../runtime/skin-pass';
import { AtlasGrid, boxSphere, viewBasis } from './impostor-atlas';

/** The atlas textures: albedo (sRGB) and surface (octahedral model normal, roughness, metalness), both width x height. */
export interface ImpostorTextures {
  readonly albedo: GPUTexture;
  readonly surface: GPUTexture;
}

export const ALBEDO_FORMAT: GPUTextureFormat = 'rgba8unorm-srgb';
export const SURFACE_FORMAT: GPUTextureFormat = 'rgba8unorm';

/**
 * The bake (create / encode apart, then done): a hidden crowd of the same character holds one
 * instance per (pose, view), each frozen at its pose's clip time (frame / frames of the cycle)
 * and placed in its cell, turned so that one orthographic camera looking down -z sees it from its
 * view's direction; the crowd's own pose pass poses them and its skin shader's vertex stage draws
 * them, with shaders/impostors/bake.wgsl's fragment stage writing the two atlas textures. So the
 * images are the crowd's draw as authored: materials, skinning method, mesh (level 0).
 * Owns the hidden crowd until destroy(); the textures it draws into are the caller's.
 */
export class ImpostorBake {
  private readonly crowd: Crowd;
  private readonly kernel: CrowdKernel;
  private readonly camera: GPUBuffer;
  private readonly depth: GPUTexture;
  private readonly pipelines: GPURenderPipeline[];

  constructor(private readonly device: GPUDevice, character: Character, grid: AtlasGrid, skinning: 'linear' | 'dual-quaternion') {
    const capacity = grid.poses * grid.views;
    this.crowd = new Crowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity, skinning, culling: false, lod: false, animationLod: false });
    this.kernel = this.crowd.install({ featureName: 'impostor-bake' });
    const { centre, radius } = boxSphere(character.animationBounds.box);
    const span = 2 * radius;
    const d = new Float64Array(3);
    const world = new Float64Array(16);
    for (let view = 0; view < grid.views; view++) {
      grid.direction(view, d);
      const { right, up } = viewBasis(d);
      for (let pose = 0; pose < grid.poses; pose++) {
        const [column, row] = grid.cell(pose, view);
        // Rows of the rotation: right, up, d (model -> camera axes); then the sphere's centre to the cell's.
        for (let j = 0; j < 3; j++) {
          world[j * 4] = right[j]; world[j * 4 + 1] = up[j]; world[j * 4 + 2] = d[j]; world[j * 4 + 3] = 0;
        }
        const rc = right[0] * centre[0] + right[1] * centre[1] + right[2] * centre[2];
        const uc = up[0] * centre[0] + up[1] * centre[1] + up[2] * centre[2];
        const dc = d[0] * centre[0] + d[1] * centre[1] + d[2] * centre[2];
        world[12] = (column + 0.5) * span - rc;
        world[13] = -(row + 0.5) * span - uc;
        world[14] = -dc;
        world[15] = 1;
        const clip = Math.floor(pose / grid.frames), frame = pose % grid.frames;
        const time = (frame / grid.frames) * character.clipDurations[clip];
        this.crowd.add({ clipA: clip, timeA: time, speedA: 0, clipB: clip, timeB: time, speedB: 0, transform: world });
      }
    }
    // One orthographic camera over the whole atlas: x in [0, columns x span], y in [-rows x span, 0], z in [-2r, 2r].
    const projection = mat4.ortho(0, grid.columns * span, -grid.rows * span, 0, 0, 2 * span);
    const viewMatrix = mat4.translation([0, 0, -span]);
    const cameraData = new Float32Array(CAMERA.size / 4);
    writeCamera(cameraData, mat4.multiply(projection, viewMatrix), this.kernel.draws.skin.lights, new Float32Array(16));
    this.camera = device.createBuffer({ label: 'ImpostorBake.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.camera, 0, cameraData);
    this.depth = device.createTexture({ label: 'ImpostorBake.depth', size: [grid.width, grid.height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    const { skin, mesh } = this.kernel.draws;
    const module = device.createShaderModule({ label: 'ImpostorBake.shader', code: bakeWgsl });
    this.pipelines = mesh.primitives.map((p) => {
      const streams = vertexConstants(p);
      return device.createRenderPipeline({
        label: `ImpostorBake.pipeline.${p.label}`, layout: skin.pipelineLayout,
        // The vertex stage is the skin pass's own module: the crowd's skinning, not a copy of it.
        vertex: { module: skin.module, entryPoint: vertexEntryPoint(p), buffers: vertexLayouts(p), constants: { ...skin.vertexConstants, ...streams } },
        fragment: { module, entryPoint: 'bake', targets: [{ format: ALBEDO_FORMAT }, { format: SURFACE_FORMAT }], constants: { NORMALS: streams.NORMALS, COLORS: streams.COLORS } },
        primitive: { topology: 'triangle-list', cullMode: cullMode(p.primitive.material) },
        depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
      });
    });
  }

  /** Uploads the hidden crowd's records and records its pose pass and the bake's render pass into `encoder`, drawing into `target`. */
  encode(encoder: GPUCommandEncoder, target: ImpostorTextures): void {
    const crowd = this.crowd;
    crowd.update(0);
    crowd.encode(encoder);
    const { skin, mesh } = this.kernel.draws;
    const store = this.kernel.store;
    const frame = frameBindGroup(this.device, skin.frameBindGroupLayout, 'ImpostorBake.frame', this.camera, store, store.identityListBuffer, 0);
    const pass = encoder.beginRenderPass({
      label: 'ImpostorBake',
      colorAttachments: [target.albedo, target.surface].map((t) => ({ view: t.createView(), loadOp: 'clear' as const, storeOp: 'store' as const, clearValue: [0, 0, 0, 0] })),
      depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'discard', depthClearValue: 1 },
    });
    pass.setBindGroup(0, frame);
    const materials = skin.materials;
    mesh.primitives.forEach((p, i) => {
      pass.setPipeline(this.pipelines[i]);
      pass.setBindGroup(1, materials[i]);
      mesh.setBuffers(pass, p);
      pass.drawIndexed(p.ranges[0][0], crowd.count, p.ranges[0][1]);
    });
    pass.end();
  }

  /** Frees the hidden crowd and the bake's own objects (after the submit of the encoder encode() recorded into). */
  destroy(): void {
    this.crowd.destroy();
    this.camera.destroy();
    this.depth.destroy();
  }
}
