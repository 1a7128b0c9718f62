import skinWgsl from '../../shaders/skin.wgsl?raw';
import type { EncodedImage } from '../bake/gltf-json';
import type { SkinnedPrimitive } from '../bake/rig';
import { CAMERA, MATERIAL } from './layout';
import { primitiveVertices } from './mesh-data';

/** The render targets a crowd draws into: fixed when its pipelines are made. */
export interface SkinPassOptions {
  /** Format of the colour attachment the crowd draws into (e.g. `navigator.gpu.getPreferredCanvasFormat()`). */
  colorFormat: GPUTextureFormat;
  /** Format of the render pass's depth attachment (e.g. 'depth24plus'); the crowd tests and writes depth with 'less'. */
  depthFormat: GPUTextureFormat;
  /** MSAA samples of the render pass it draws into (default 1). */
  sampleCount?: number;
}

interface DrawItem {
  label: string;
  pipeline: GPURenderPipeline;
  vertexBuffers: GPUBuffer[];
  indexBuffer?: GPUBuffer;
  indexFormat?: GPUIndexFormat;
  drawCount: number;
  material: GPUBindGroup;
}

const LIGHT_DIRECTION = normalize3([-0.4, -1, -0.55]);

/**
 * The instanced skinned draw (shaders/skin.wgsl): exactly one draw call per mesh primitive,
 * whatever the instance count. create: the constructor uploads vertices, materials, textures
 * and builds both pipeline variants (4 and 8 influences); bind(): the joint-matrix buffer (on
 * creation and growth); update(): the camera uniform; draw(): records into the caller's pass.
 */
export class SkinPass {
  private readonly items: DrawItem[] = [];
  private readonly camera: GPUBuffer;
  private readonly cameraData = new Float32Array(CAMERA.size / 4);
  private readonly frameLayout: GPUBindGroupLayout;
  private readonly owned: { destroy(): void }[] = [];
  private frame: GPUBindGroup | undefined;

  constructor(
    private readonly device: GPUDevice,
    primitives: SkinnedPrimitive[],
    skinSlotOffset: Uint32Array,
    slotCount: number,
    textures: ReadonlyMap<EncodedImage, ImageBitmap>,
    options: SkinPassOptions,
  ) {
    if (!options.colorFormat || !options.depthFormat) throw new TypeError('SkinPass needs colorFormat and depthFormat');
    this.camera = this.track(device.createBuffer({ label: 'SkinPass.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }));
    this.frameLayout = device.createBindGroupLayout({
      label: 'SkinPass.frameLayout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
        { binding: 1, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } },
      ],
    });
    const materialLayout = device.createBindGroupLayout({
      label: 'SkinPass.materialLayout',
      entries: [
        { binding: 0, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, buffer: { type: 'uniform' } },
        { binding: 1, visibility: GPUShaderStage.FRAGMENT, texture: {} },
        { binding: 2, visibility: GPUShaderStage.FRAGMENT, sampler: {} },
      ],
    });
    const layout = device.createPipelineLayout({ label: 'SkinPass.layout', bindGroupLayouts: [this.frameLayout, materialLayout] });
    const module = device.createShaderModule({ label: 'SkinPass.shader', code: skinWgsl });
    const pipelines = new Map<number, GPURenderPipeline>();
    const pipelineFor = (influences: 4 | 8) => {
      let pipeline = pipelines.get(influences);
      if (!pipeline) pipelines.set(influences, (pipeline = this.createPipeline(module, layout, influences, options)));
      return pipeline;
    };
    const sampler = device.createSampler({ label: 'SkinPass.sampler', magFilter: 'linear', minFilter: 'linear', addressModeU: 'repeat', addressModeV: 'repeat' });
    const white = this.createTexture('SkinPass.whiteTexture', undefined);
    const textureViews = new Map<EncodedImage, GPUTextureView>();

    primitives.forEach((prim, p) => {
      const label = `SkinPass.primitive${p}`;
      const v = primitiveVertices(prim, skinSlotOffset[prim.skin]);
      const vertexBuffers = [v.positions, v.normals, v.uvs, v.joints, v.weights].map((data, k) =>
        this.upload(`${label}.vertex${k}`, data, GPUBufferUsage.VERTEX));
      const materialData = new ArrayBuffer(MATERIAL.size);
      new Float32Array(materialData, MATERIAL.baseColorFactor, 4).set(prim.material.baseColorFactor);
      new Uint32Array(materialData, MATERIAL.slotCount, 1)[0] = slotCount;
      const image = prim.material.baseColorImage;
      let view = white;
      const bitmap = image && textures.get(image);
      if (image && bitmap) {
        if (!textureViews.has(image)) textureViews.set(image, this.createTexture(`${label}.baseColor`, bitmap));
        view = textureViews.get(image)!;
      }
      this.items.push({
        label,
        pipeline: pipelineFor(v.influences),
        vertexBuffers,
        indexBuffer: v.indices && this.upload(`${label}.indices`, v.indices, GPUBufferUsage.INDEX),
        indexFormat: v.indices instanceof Uint16Array ? 'uint16' : 'uint32',
        drawCount: v.drawCount,
        material: device.createBindGroup({
          label: `${label}.material`,
          layout: materialLayout,
          entries: [
            { binding: 0, resource: { buffer: this.upload(`${label}.material`, materialData, GPUBufferUsage.UNIFORM) } },
            { binding: 1, resource: view },
            { binding: 2, resource: sampler },
          ],
        }),
      });
    });
  }

  /** Draw calls per frame: one per primitive. */
  get drawCount(): number {
    return this.items.length;
  }

  /** Points the pass at the joint matrices written by the pose pass. Does not own the buffer. */
  bind(joints: GPUBuffer): void {
    this.frame = this.device.createBindGroup({
      label: 'SkinPass.frame',
      layout: this.frameLayout,
      entries: [{ binding: 0, resource: { buffer: this.camera } }, { binding: 1, resource: { buffer: joints } }],
    });
  }

  /** Writes the camera: `viewProjection` is a column-major 4x4 (world -> clip space). */
  update(viewProjection: ArrayLike<number>): void {
    if (viewProjection.length !== 16) throw new RangeError(`viewProjection must have 16 numbers, got ${viewProjection.length}`);
    this.cameraData.set(viewProjection, CAMERA.viewProjection / 4);
    this.cameraData.set(LIGHT_DIRECTION, CAMERA.lightDirection / 4);
    this.device.queue.writeBuffer(this.camera, 0, this.cameraData);
  }

  /** Records one draw per primitive of `instanceCount` instances into `pass`. */
  draw(pass: GPURenderPassEncoder, instanceCount: number): void {
    if (!this.frame) throw new Error('SkinPass.draw: call bind() first');
    if (instanceCount === 0) return;
    pass.setBindGroup(0, this.frame);
    let current: GPURenderPipeline | undefined;
    for (const item of this.items) {
      if (item.pipeline !== current) pass.setPipeline((current = item.pipeline));
      pass.setBindGroup(1, item.material);
      for (let slot = 0; slot < item.vertexBuffers.length; slot++) pass.setVertexBuffer(slot, item.vertexBuffers[slot]);
      if (item.indexBuffer) {
        pass.setIndexBuffer(item.indexBuffer, item.indexFormat!);
        pass.drawIndexed(item.drawCount, instanceCount);
      } else {
        pass.draw(item.drawCount, instanceCount);
      }
    }
  }

  destroy(): void {
    for (const resource of this.owned) resource.destroy();
  }

  private track<T extends { destroy(): void }>(resource: T): T {
    this.owned.push(resource);
    return resource;
  }

  private upload(label: string, data: ArrayBufferView | ArrayBuffer, usage: number): GPUBuffer {
    const bytes = data.byteLength;
    const buffer = this.track(this.device.createBuffer({ label, size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: usage | GPUBufferUsage.COPY_DST, mappedAtCreation: true }));
    const source = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, bytes);
    new Uint8Array(buffer.getMappedRange()).set(source);
    buffer.unmap();
    return buffer;
  }

  private createTexture(label: string, bitmap: ImageBitmap | undefined): GPUTextureView {
    const size = bitmap ? [bitmap.width, bitmap.height] : [1, 1];
    const texture = this.track(this.device.createTexture({
      label, size, format: 'rgba8unorm-srgb',
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT,
    }));
    if (bitmap) this.device.queue.copyExternalImageToTexture({ source: bitmap }, { texture }, size);
    else this.device.queue.writeTexture({ texture }, new Uint8Array([255, 255, 255, 255]), { bytesPerRow: 4 }, [1, 1]);
    return texture.createView({ label: `${label}.view` });
  }

  private createPipeline(module: GPUShaderModule, layout: GPUPipelineLayout, influences: 4 | 8, options: SkinPassOptions): GPURenderPipeline {
    const attribute = (shaderLocation: number, format: GPUVertexFormat, offset = 0): GPUVertexAttribute => ({ shaderLocation, format, offset });
    const buffers: GPUVertexBufferLayout[] = [
      { arrayStride: 12, attributes: [attribute(0, 'float32x3')] },
      { arrayStride: 12, attributes: [attribute(1, 'float32x3')] },
      { arrayStride: 8, attributes: [attribute(2, 'float32x2')] },
      { arrayStride: influences * 2, attributes: influences === 8 ? [attribute(3, 'uint16x4'), attribute(5, 'uint16x4', 8)] : [attribute(3, 'uint16x4')] },
      { arrayStride: influences * 4, attributes: influences === 8 ? [attribute(4, 'float32x4'), attribute(6, 'float32x4', 16)] : [attribute(4, 'float32x4')] },
    ];
    return this.device.createRenderPipeline({
      label: `SkinPass.pipeline${influences}`,
      layout,
      vertex: { module, entryPoint: influences === 8 ? 'vertex8' : 'vertex4', buffers },
      fragment: {
        module, entryPoint: 'fragment', targets: [{ format: options.colorFormat }],
        constants: { ENCODE_SRGB: options.colorFormat.endsWith('-srgb') ? 0 : 1 },
      },
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: options.depthFormat, depthWriteEnabled: true, depthCompare: 'less' },
      multisample: { count: options.sampleCount ?? 1 },
    });
  }
}

function normalize3(v: number[]): number[] {
  const len = Math.hypot(...v);
  return v.map((x) => x / len);
}
