import pickWgsl from '../../../shaders/picking/pick.wgsl?raw';
import type { CrowdFeature, EncodedFrame, KernelDraws } from '../../runtime/feature';
import type { InstanceStore } from '../../runtime/instance-store';
import { CAMERA } from '../../runtime/layout';
import { streamsKey, vertexConstants, vertexLayouts } from '../../runtime/mesh-buffers';
import { frameBindGroup, vertexEntryPoint } from '../../runtime/skin-pass';
import { frameBindGroupAt } from '../../runtime/skin-frame';

/** Bytes a pick reads back: the slot + 1 (u32, 0 for nothing) and the depth's f32 bits. */
export const PICK_READBACK_BYTES = 8;

/**
 * What one pick in flight owns: its camera uniform (one per pick, since every writeBuffer of a
 * submit lands before its first pass), its frame bind groups and its readback buffer (mapped
 * after the frame's submit, then returned to the pool). Made by createPickTarget; its owner
 * destroys the two buffers. It outlives a PickPass re-made with the kernel's passes.
 */
export interface PickTarget {
  readonly camera: GPUBuffer;
  readonly readback: GPUBuffer;
  /** Frame bind group over the identity list, and one per LOD level over the cull pass's camera lists. */
  direct: GPUBindGroup | undefined;
  readonly levels: GPUBindGroup[];
  /** Frame bind group over a feature's list (drawMeshList: the impostor band's), and the list it was made over. */
  routed: { group: GPUBindGroup; list: GPUBuffer; offset: number; bytes: number } | undefined;
  /** The store generation and skin pass the bind groups were made for. */
  generation: number;
  skin: unknown;
}

/**
 * The pick pass: the crowd's drawn instances rasterised into a 1 x 1 target (rg32uint: slot + 1,
 * depth bits; and a depth32float buffer, 'less') from a camera placed on a ray, with the skin
 * pass's own shader module for the vertex stage (shaders/skin.wgsl) and shaders/picking/pick.wgsl
 * for the fragment stage, the kernel's
 * pipeline layout, materials, frame bind groups and mesh buffers, and the cull pass's indirect
 * arguments when it ran (so what is hit is what was drawn: the same instances at the same LOD
 * level). create: the constructor builds a pipeline per vertex entry point and the two 1 x 1
 * textures; encode(): one render pass and a copy into the target's readback buffer. Owns its
 * textures (destroy()); made again with the kernel's passes.
 */
export class PickPass {
  private readonly pipelines: GPURenderPipeline[];
  private readonly color: GPUTexture;
  private readonly depth: GPUTexture;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);

  constructor(private readonly device: GPUDevice, private readonly draws: KernelDraws) {
    const { skin, mesh } = draws;
    // The vertex stage is the skin pass's own module: no copy of its code, not even a recompile.
    const module = device.createShaderModule({ label: 'PickPass.shader', code: pickWgsl });
    const byEntryPoint = new Map<string, GPURenderPipeline>();
    // With per-instance appearance, its entry points and group 3: a hidden part is not hit.
    this.pipelines = mesh.primitives.map((p) => {
      const entryPoint = skin.appearance?.entryPoint(p) ?? vertexEntryPoint(p);
      const key = `${entryPoint}.${streamsKey(p)}`;
      let pipeline = byEntryPoint.get(key);
      if (!pipeline) {
        byEntryPoint.set(key, (pipeline = device.createRenderPipeline({
          label: `PickPass.pipeline.${entryPoint}`,
          layout: skin.appearance?.depthLayout ?? skin.pipelineLayout,
          vertex: { module: skin.module, entryPoint, buffers: vertexLayouts(p), constants: { ...skin.vertexConstants, ...vertexConstants(p) } },
          fragment: { module, entryPoint: 'pick', targets: [{ format: 'rg32uint' }] },
          primitive: { topology: 'triangle-list', cullMode: 'none' },
          depthStencil: { format: 'depth32float', depthWriteEnabled: true, depthCompare: 'less' },
        })));
      }
      return pipeline;
    });
    this.color = device.createTexture({ label: 'PickPass.color', size: [1, 1], format: 'rg32uint', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
    this.depth = device.createTexture({ label: 'PickPass.depth', size: [1, 1], format: 'depth32float', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    this.passDescriptor = {
      label: 'PickPass',
      colorAttachments: [{ view: this.color.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 0] }],
      depthStencilAttachment: { view: this.depth.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' },
    };
  }

  /**
   * Records the pick of `target` with `viewProjection` (a ray's camera, rayViewProjection): the
   * camera's instances of this frame through `drawArgs` when the cull pass ran, else the first
   * `count` slots; then the copy of the one pixel into target.readback.
   */
  encode(encoder: GPUCommandEncoder, target: PickTarget, viewProjection: Float32Array, eye: ArrayLike<number>, store: InstanceStore, frame: EncodedFrame, far: CrowdFeature | undefined): void {
    const drawArgs = frame.drawArgs;
    this.cameraData.set(viewProjection, CAMERA.viewProjection / 4);
    // The ray's origin as the camera's position: what a feature's pick draw orients to (CrowdFeature.drawPick).
    this.cameraData.set([eye[0], eye[1], eye[2], 1], CAMERA.eye / 4);
    this.device.queue.writeBuffer(target.camera, 0, this.cameraData);
    this.bind(target, store);
    const { mesh, skin } = this.draws;
    const materials = skin.materials;
    const pass = encoder.beginRenderPass(this.passDescriptor);
    const count = store.count;
    const looks = skin.appearance?.refresh();
    if (looks) pass.setBindGroup(2, skin.appearance!.emptyGroup);
    mesh.primitives.forEach((p, i) => {
      pass.setPipeline(this.pipelines[i]);
      pass.setBindGroup(1, materials[i]);
      if (looks) pass.setBindGroup(3, looks[i]);
      mesh.setBuffers(pass, p);
      if (drawArgs) {
        for (let level = 0; level < target.levels.length; level++) {
          pass.setBindGroup(0, target.levels[level]);
          pass.drawIndexedIndirect(drawArgs.args, drawArgs.argsOffset(0, level, i));
        }
      } else if (count > 0) {
        pass.setBindGroup(0, target.direct!);
        pass.drawIndexed(p.ranges[0][0], count);
      }
    });
    // The instances a feature draws from lists of its own (the impostor band's meshes, the far impostors).
    far?.drawPick?.(pass, target.camera, frame, (list, listOffset, listBytes, args, argsOffset) => this.drawMeshList(pass, target, store, list, listOffset, listBytes, args, argsOffset));
    pass.end();
    encoder.copyTextureToBuffer({ texture: this.color }, { buffer: target.readback, bytesPerRow: 256 }, [1, 1]);
  }

  /** CrowdFeature.drawPick's `meshes`: the instances of a list (u32 slots) as meshes, each primitive by its indirect arguments. */
  private drawMeshList(pass: GPURenderPassEncoder, target: PickTarget, store: InstanceStore, list: GPUBuffer, listOffset: number, listBytes: number, args: GPUBuffer, argsOffset: (primitive: number) => number): void {
    const { mesh, skin, vertexWeights } = this.draws;
    const r = target.routed;
    if (r?.list !== list || r.offset !== listOffset || r.bytes !== listBytes) {
      target.routed = { group: frameBindGroupAt(this.device, skin.frameBindGroupLayout, 'PickPass.frameRouted', target.camera, store, list, listOffset, listBytes, vertexWeights), list, offset: listOffset, bytes: listBytes };
    }
    const materials = skin.materials;
    const looks = skin.appearance?.refresh();
    if (looks) pass.setBindGroup(2, skin.appearance!.emptyGroup);
    pass.setBindGroup(0, target.routed!.group);
    mesh.primitives.forEach((p, i) => {
      pass.setPipeline(this.pipelines[i]);
      pass.setBindGroup(1, materials[i]);
      if (looks) pass.setBindGroup(3, looks[i]);
      mesh.setBuffers(pass, p);
      pass.drawIndexedIndirect(args, argsOffset(i));
    });
  }

  destroy(): void {
    this.color.destroy();
    this.depth.destroy();
  }

  /** (Re)makes the target's frame bind groups when the store's buffers or the kernel's passes were replaced. */
  private bind(target: PickTarget, store: InstanceStore): void {
    const { skin, vertexWeights } = this.draws;
    if (target.generation === store.generation && target.skin === skin) return;
    const layout = skin.frameBindGroupLayout;
    target.direct = frameBindGroup(this.device, layout, 'PickPass.frame', target.camera, store, store.identityListBuffer, 0, vertexWeights);
    target.routed = undefined;
    target.levels.length = 0;
    for (let level = 0; level < store.lodLevels; level++) {
      target.levels.push(frameBindGroup(this.device, layout, `PickPass.frameLevel${level}`, target.camera, store, store.drawListBuffer, level, vertexWeights));
    }
    target.generation = store.generation;
    target.skin = skin;
  }
}

/** A new pick target on `device`: its camera uniform and readback buffer (the caller owns them). */
export function createPickTarget(device: GPUDevice, label: string): PickTarget {
  return {
    camera: device.createBuffer({ label: `${label}.camera`, size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }),
    readback: device.createBuffer({ label: `${label}.readback`, size: PICK_READBACK_BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }),
    direct: undefined, levels: [], routed: undefined, generation: -1, skin: undefined,
  };
}
