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
import type { ImpostorLook } from './impostor-looks';

/**
 * The atlas textures, each width x height x one layer a look: albedo (sRGB), surface (octahedral
 * normal in the view's axes, roughness, metalness) and depth (the surface's offset along the view
 * direction from the framed sphere's centre, 0.5 + 0.5 z / radius: the draw's parallax).
 */
export interface ImpostorTextures {
  readonly albedo: GPUTexture;
  readonly surface: GPUTexture;
  readonly depth: GPUTexture;
}

export const ALBEDO_FORMAT: GPUTextureFormat = 'rgba8unorm-srgb';
export const SURFACE_FORMAT: GPUTextureFormat = 'rgba8unorm';
export const DEPTH_FORMAT: GPUTextureFormat = 'r8unorm';

/** The variant images a bake draws looks with (CrowdAppearance's, AppearanceSource): none without appearance. */
export interface BakeVariants {
  /** The variant base-colour textures, a texture_2d_array view (layer k - 1: variant k); not owned. */
  readonly view: GPUTextureView;
  /** Bit p set: primitive p takes its base colour from the variant for variants >= 1. */
  readonly varied: number;
}

/** One layer to bake: its index in the target textures and its look. */
export interface BakeLayer {
  readonly layer: number;
  readonly look: ImpostorLook;
}

/** Bytes between two looks' uniforms (bake.wgsl `BakeLook`, at a uniform offset's alignment). */
const LOOK_STRIDE = 256;
/**
 * Samples a texel of the bake: 4 (WebGPU's one multisample count), resolved, give each texel the
 * fraction of it the character covers, so the draw's coverage cut follows the outline within a
 * fraction of a texel (binary coverage: 2.4% of the Fox's pixels off at the switch against 5.5%).
 */
const BAKE_SAMPLES = 4;
/** Most texels of a strip of atlas rows baked at once (its multisampled targets: 13 bytes a sample, 52 MiB). */
const STRIP_TEXELS = 1 << 20;

/**
 * The bake (create / encode apart, then done): a hidden crowd of the same character holds one
 * instance per (pose, view), each frozen at its pose's clip time (frame / frames of the cycle)
 * and placed in its cell, turned so that an orthographic camera looking down -z sees it from its
 * view's direction; the crowd's own pose pass poses them and its skin shader's vertex stage draws
 * them, with shaders/impostors/bake.wgsl's fragment stage writing the three atlas textures (4x
 * multisampled in strips of rows, one camera a strip, resolved and copied in). So the images are
 * the crowd's draw as authored: materials, normal maps, skinning method, the mesh level drawn at
 * the switch. Each look
 * (CrowdAppearance's variant and parts) is one layer of the textures: its parts' primitives drawn
 * alone, its variant's image in place of the varied parts' base-colour texture (bake.wgsl group 2).
 * Owns the hidden crowd and its stand-in variant texture until destroy(); the textures it draws into are the caller's.
 */
export class ImpostorBake {
  private readonly crowd: Crowd;
  private readonly kernel: CrowdKernel;
  /** Per strip of `stripRows` atlas rows: its camera and frame bind group. */
  private readonly cameras: GPUBuffer[] = [];
  private readonly frames: GPUBindGroup[] = [];
  /** The first instance of each atlas row, then the instance count. */
  private readonly rowStart: number[] = [];
  private readonly stripRows: number;
  /** A strip's multisampled depth buffer and (albedo, surface, depth) targets, and the (albedo, surface, depth) they resolve into. */
  private readonly depth: GPUTexture;
  private readonly samples: GPUTexture[];
  private readonly resolved: GPUTexture[];
  private readonly pipelines: GPURenderPipeline[];
  private readonly lookLayout: GPUBindGroupLayout;
  private readonly variants: GPUTextureView;
  private readonly sampler: GPUSampler;
  /** A 1 x 1 white variant layer when the crowd has no variants (the binding must exist). */
  private readonly white: GPUTexture | undefined;
  private looks: GPUBuffer | undefined;

  /**
   * @param level the mesh LOD level to bake (impostor-route.ts levelAtSwitch: the level the crowd
   * draws just before the switch, so the impostor takes over from the mesh it replaces)
   */
  constructor(private readonly device: GPUDevice, character: Character, private readonly grid: AtlasGrid, skinning: 'linear' | 'dual-quaternion', private readonly level: number, variants?: BakeVariants) {
    const capacity = grid.poses * grid.views;
    this.crowd = new Crowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity, skinning, culling: false, lod: false, animationLod: false });
    this.kernel = this.crowd.install({ featureName: 'impostor-bake' });
    const { centre, radius } = boxSphere(character.animationBounds.box);
    const span = 2 * radius;
    const d = new Float64Array(3);
    const world = new Float64Array(16);
    // Instances in the atlas's row order (row r holds view r % views of the poses of band r / views, AtlasGrid.cell), so a strip of rows is one instance range.
    for (let row = 0; row < grid.rows; row++) {
      this.rowStart.push(this.crowd.count);
      const view = row % grid.views;
      grid.direction(view, d);
      const { right, up } = viewBasis(d);
      for (let column = 0; column < grid.columns; column++) {
        const pose = Math.floor(row / grid.views) * grid.columns + column;
        if (pose >= grid.poses) break;
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
    this.rowStart.push(this.crowd.count);
    // Strips of rows, each drawn 4x multisampled and resolved (so a texel's alpha is the fraction of it covered, its colour premultiplied by it), then copied into the atlas's layer.
    this.stripRows = Math.max(1, Math.min(grid.rows, Math.floor(STRIP_TEXELS / (grid.width * grid.cellSize))));
    const stripSize = [grid.width, this.stripRows * grid.cellSize];
    const { skin, mesh } = this.kernel.draws;
    const cameraData = new Float32Array(CAMERA.size / 4);
    const store = this.kernel.store;
    for (let row = 0; row < grid.rows; row += this.stripRows) {
      // An orthographic camera over the strip: x in [0, columns x span], y in [-(row + stripRows) x span, -row x span], z in [-2r, 2r].
      const projection = mat4.ortho(0, grid.columns * span, -(row + this.stripRows) * span, -row * span, 0, 2 * span);
      writeCamera(cameraData, mat4.multiply(projection, mat4.translation([0, 0, -span])), skin.lights, new Float32Array(16));
      const camera = device.createBuffer({ label: 'ImpostorBake.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(camera, 0, cameraData);
      this.cameras.push(camera);
      this.frames.push(frameBindGroup(device, skin.frameBindGroupLayout, 'ImpostorBake.frame', camera, store, store.identityListBuffer, 0));
    }
    const texture = (label: string, format: GPUTextureFormat, sampleCount: number, usage: number) => device.createTexture({ label: `ImpostorBake.${label}`, size: stripSize, format, sampleCount, usage });
    this.depth = texture('depth', 'depth24plus', BAKE_SAMPLES, GPUTextureUsage.RENDER_ATTACHMENT);
    const formats = [['albedo', ALBEDO_FORMAT], ['surface', SURFACE_FORMAT], ['depth', DEPTH_FORMAT]] as const;
    this.samples = formats.map(([name, format]) => texture(`${name}Samples`, format, BAKE_SAMPLES, GPUTextureUsage.RENDER_ATTACHMENT));
    this.resolved = formats.map(([name, format]) => texture(`${name}Strip`, format, 1, GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC));
    const module = device.createShaderModule({ label: 'ImpostorBake.shader', code: bakeWgsl });
    const fragment = GPUShaderStage.FRAGMENT;
    this.lookLayout = device.createBindGroupLayout({
      label: 'ImpostorBake.lookLayout',
      entries: [{ binding: 0, visibility: fragment, buffer: { type: 'uniform' } }, { binding: 1, visibility: fragment, texture: { viewDimension: '2d-array' } }, { binding: 2, visibility: fragment, sampler: {} }],
    });
    const layout = device.createPipelineLayout({ label: 'ImpostorBake.layout', bindGroupLayouts: [skin.frameBindGroupLayout, skin.materialBindGroupLayout, this.lookLayout] });
    if (!variants) this.white = device.createTexture({ label: 'ImpostorBake.white', size: [1, 1, 1], format: 'rgba8unorm-srgb', usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
    if (this.white) device.queue.writeTexture({ texture: this.white }, new Uint8Array([255, 255, 255, 255]), { bytesPerRow: 4 }, [1, 1, 1]);
    this.variants = variants?.view ?? this.white!.createView({ dimension: '2d-array' });
    // As CrowdAppearance's draw samples the variants (AppearanceGroups.sampler).
    this.sampler = device.createSampler({ label: 'ImpostorBake.sampler', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear', addressModeU: 'repeat', addressModeV: 'repeat' });
    const varied = variants?.varied ?? 0;
    // Atlas texels per screen pixel at the switch, as a mip bias (1 at the default switch, half the cell).
    const bias = Math.min(Math.max(Math.log2(grid.cellSize / grid.switchPixels), 0), 15);
    this.pipelines = mesh.primitives.map((p, i) => {
      const streams = vertexConstants(p);
      return device.createRenderPipeline({
        label: `ImpostorBake.pipeline.${p.label}`, layout,
        // The vertex stage is the skin pass's own module: the crowd's skinning, not a copy of it.
        vertex: { module: skin.module, entryPoint: vertexEntryPoint(p), buffers: vertexLayouts(p), constants: { ...skin.vertexConstants, ...streams } },
        fragment: { module, entryPoint: 'bake', targets: [{ format: ALBEDO_FORMAT }, { format: SURFACE_FORMAT }, { format: DEPTH_FORMAT }], constants: { NORMALS: streams.NORMALS, COLORS: streams.COLORS, TANGENTS: streams.TANGENTS, UV1: streams.UV1, VARIED: Number(i < 32 && (varied & (1 << i)) !== 0), LOD_BIAS: bias, RADIUS: radius } },
        primitive: { topology: 'triangle-list', cullMode: cullMode(p.primitive.material) },
        depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
        multisample: { count: BAKE_SAMPLES },
      });
    });
  }

  /**
   * Uploads the hidden crowd's records and records its pose pass and one render pass a (layer,
   * strip of rows) into `encoder`: layer `layer` of `target` gets look `look` (the primitives its
   * parts mask shows, the varied ones with its variant's image), strip by strip.
   */
  encode(encoder: GPUCommandEncoder, target: ImpostorTextures, layers: readonly BakeLayer[]): void {
    const crowd = this.crowd;
    const device = this.device;
    const grid = this.grid;
    crowd.update(0);
    crowd.encode(encoder);
    const { skin, mesh } = this.kernel.draws;
    this.looks?.destroy();
    const looks = (this.looks = device.createBuffer({ label: 'ImpostorBake.looks', size: Math.max(1, layers.length) * LOOK_STRIDE, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }));
    const materials = skin.materials;
    layers.forEach(({ layer, look }, k) => {
      device.queue.writeBuffer(looks, k * LOOK_STRIDE, new Uint32Array([look.variant, 0, 0, 0]));
      const group = device.createBindGroup({
        label: `ImpostorBake.look${k}`, layout: this.lookLayout,
        entries: [{ binding: 0, resource: { buffer: looks, offset: k * LOOK_STRIDE, size: 16 } }, { binding: 1, resource: this.variants }, { binding: 2, resource: this.sampler }],
      });
      // Looks x strips: each strip of rows (one instance range) drawn 4x multisampled, resolved, then copied into the look's layer.
      this.frames.forEach((frame, strip) => {
        const row = strip * this.stripRows, end = Math.min(grid.rows, row + this.stripRows);
        const first = this.rowStart[row], count = this.rowStart[end] - first;
        const pass = encoder.beginRenderPass({
          label: `ImpostorBake.layer${layer}.strip${strip}`,
          colorAttachments: this.samples.map((t, s) => ({ view: t.createView(), resolveTarget: this.resolved[s].createView(), loadOp: 'clear' as const, storeOp: 'discard' as const, clearValue: [0, 0, 0, 0] })),
          depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'discard', depthClearValue: 1 },
        });
        pass.setBindGroup(0, frame);
        pass.setBindGroup(2, group);
        mesh.primitives.forEach((p, i) => {
          if (i < 32 && (look.parts & (1 << i)) === 0) return; // a part the look hides
          // The level the crowd draws just before the switch (impostor-route.ts levelAtSwitch), so the impostor takes over from the mesh it replaces.
          const [indices, firstIndex] = p.ranges[Math.min(this.level, p.ranges.length - 1)];
          pass.setPipeline(this.pipelines[i]);
          pass.setBindGroup(1, materials[i]);
          mesh.setBuffers(pass, p);
          pass.drawIndexed(indices, count, firstIndex, 0, first);
        });
        pass.end();
        const size = [grid.width, (end - row) * grid.cellSize, 1];
        [target.albedo, target.surface, target.depth].forEach((texture, t) => encoder.copyTextureToTexture({ texture: this.resolved[t] }, { texture, origin: [0, row * grid.cellSize, layer] }, size));
      });
    });
  }

  /** Frees the hidden crowd and the bake's own objects (after the submit of the encoder encode() recorded into). */
  destroy(): void {
    this.crowd.destroy();
    for (const resource of [...this.cameras, this.depth, ...this.samples, ...this.resolved]) resource.destroy();
    this.white?.destroy();
    this.looks?.destroy();
  }
}
