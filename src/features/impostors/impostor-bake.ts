import bakeWgsl from '../../../shaders/impostors/bake.wgsl?raw';
import { mat4 } from 'wgpu-matrix';
import type { Character } from '../../character/character';
import { Crowd } from '../../runtime/crowd';
import type { CrowdFeature, CrowdKernel } from '../../runtime/feature';
import { CAMERA } from '../../runtime/layout';
import { vertexConstants, vertexLayouts } from '../../runtime/mesh-buffers';
import { cullMode } from '../../runtime/material-data';
import { frameBindGroup, vertexEntryPoint, writeCamera } from '../../runtime/skin-pass';
import type { HeldProps, PropDraw } from '../../runtime/held-props';
import { AtlasGrid, boxSphere, viewBasis, viewFrame } from './impostor-atlas';
import { heldInAtlas } from './impostor-box';
import type { ImpostorLook } from './impostor-looks';

/**
 * The atlas textures, each width x height x one layer a look: albedo (sRGB), surface (octahedral
 * normal in the view's axes, roughness, metalness) and depth (the surface's offset along the view
 * direction from the box's centre, 0.5 + 0.5 z / radius: the draw's parallax; with props baked, G:
 * the share of the coverage the instance's tint applies to, depthFormat), and where a material
 * emits light or has an occlusion map the emitted colour and the occluded share (AtlasGrid.emissiveOcclusion).
 */
export interface ImpostorTextures {
  readonly albedo: GPUTexture;
  readonly surface: GPUTexture;
  readonly depth: GPUTexture;
  /** The emitted colour over AtlasGrid.emissiveScale (RGB) and the share of the indirect light the occlusion map takes (A), where a material baked emits light or has an occlusion map (AtlasGrid.emissiveOcclusion); else undefined. */
  readonly emissiveOcclusion: GPUTexture | undefined;
}

/** The atlas textures `grid` has, by name and format, in the bake's target order: albedo, surface, depth, and emissive-occlusion where its materials emit light or have an occlusion map. */
export function atlasFormats(grid: AtlasGrid): readonly (readonly [keyof ImpostorTextures, GPUTextureFormat])[] {
  const formats = [['albedo', ALBEDO_FORMAT], ['surface', surfaceFormat(grid)], ['depth', depthFormat(grid)]] as const;
  return grid.emissiveOcclusion ? [...formats, ['emissiveOcclusion', EMISSIVE_OCCLUSION_FORMAT]] : formats;
}

/** The atlas textures of `t` in the bake's target order (atlasFormats). */
export function atlasTextureList(t: ImpostorTextures): GPUTexture[] {
  return t.emissiveOcclusion ? [t.albedo, t.surface, t.depth, t.emissiveOcclusion] : [t.albedo, t.surface, t.depth];
}

export const ALBEDO_FORMAT: GPUTextureFormat = 'rgba8unorm-srgb';
/** The emissive-occlusion texture's format: sRGB-encoded, so that the dim emitted colours keep their steps (the occlusion in A is linear; ATLAS_TEXEL_BYTES_EMISSIVE_OCCLUSION). */
export const EMISSIVE_OCCLUSION_FORMAT: GPUTextureFormat = 'rgba8unorm-srgb';
/** The surface texture's format: RGBA8 (octahedral normal, roughness, metalness), or RG8 (the normal) where the grid keeps the character's one roughness and metalness out (AtlasGrid.surface). */
export function surfaceFormat(grid: AtlasGrid): GPUTextureFormat {
  return grid.surface ? 'rg8unorm' : 'rgba8unorm';
}
/** The depth texture's format: R8 (the depth), or RG8 where props are baked (AtlasGrid.tintMask: G, the share of the coverage the instance's tint applies to). */
export function depthFormat(grid: AtlasGrid): GPUTextureFormat {
  return grid.tintMask ? 'rg8unorm' : 'r8unorm';
}

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

/** A view's cells side by side on one shelf: its viewport (texels; y in the atlas), its instances (first, count: consecutive poses) and its camera's index. */
interface Run {
  x: number;
  y: number;
  width: number;
  height: number;
  first: number;
  count: number;
  frame: number;
}

/** A prop every instance holds, as the bake draws it: its hidden attachment's GPU objects, a pipeline per primitive, and a frame bind group per run's camera (made at encode, over its records). */
interface BakeProp {
  readonly draw: PropDraw;
  readonly pipelines: GPURenderPipeline[];
  frames: GPUBindGroup[];
  /** Its bit in a look's prop set (ImpostorLook.props), or -1 for a prop every instance holds (in every look). */
  readonly bit: number;
}

/** Bytes between two looks' uniforms (bake.wgsl `BakeLook`, at a uniform offset's alignment). */
const LOOK_STRIDE = 256;
/**
 * Samples a texel of the bake: 4 (WebGPU's one multisample count), resolved, give each texel the
 * fraction of it the character covers, so the draw's coverage cut follows the outline within a
 * fraction of a texel (binary coverage: 2.4% of the Fox's pixels off at the switch against 5.5%).
 */
const BAKE_SAMPLES = 4;
/** Most texels of a strip of shelves baked at once (its multisampled targets: 13 bytes a sample, 52 MiB), but for a strip of one shelf. */
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
  /** Per run (a view's cells side by side on a shelf): its camera (framing the view's rectangle, viewFrame, onto each cell) and frame bind group. */
  private readonly cameras: GPUBuffer[] = [];
  private readonly frames: GPUBindGroup[] = [];
  /** Strips of shelves (AtlasGrid.shelves) baked at once: each one's top texel row, its height and its runs. */
  private readonly strips: { top: number; height: number; runs: Run[] }[] = [];
  /** A strip's multisampled depth buffer and targets (atlasFormats), and the textures they resolve into. */
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
  /** The props the instances hold, attached to every instance of the hidden crowd: those every instance holds drawn in every look, those of chosen instances in the looks that hold them. */
  private readonly props: BakeProp[] = [];

  /**
   * @param clips the clips to bake, in the atlas's order (character clip indices; pose p is clip clips[p / frames])
   * @param level the mesh LOD level to bake (impostor-route.ts levelAtSwitch: the level the crowd
   * draws just before the switch, so the impostor takes over from the mesh it replaces)
   * @param morph the crowd's morph feature (CrowdMorph), when it has one: the hidden crowd gets one of its own, so each frame shows its clip's morph weights
   * @param props the crowd's props feature (CrowdProps), when it has one: the hidden crowd gets one of its own holding the props the instances hold (heldByAll, then heldByChosen), drawn into the cells of every look (of the looks whose prop set holds it)
   */
  constructor(private readonly device: GPUDevice, character: Character, private readonly grid: AtlasGrid, clips: readonly number[], skinning: 'linear' | 'dual-quaternion', private readonly level: number, variants?: BakeVariants, morph?: CrowdFeature, props?: HeldProps) {
    const capacity = grid.poses * grid.views;
    this.crowd = new Crowd(device, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', capacity, skinning, culling: false, lod: false, animationLod: false });
    // Made from the crowd's own features' classes: the impostors do not import the morph or props feature (a page ships the features it uses).
    if (morph) new (morph.constructor as new (crowd: Crowd) => CrowdFeature)(this.crowd);
    const held = heldInAtlas(props, grid.capacity);
    const hidden = held.length > 0 ? new (props!.constructor as new (crowd: Crowd) => HeldProps)(this.crowd) : undefined;
    const propDraws = held.map((h) => hidden!.propDraw(hidden!.attach(h.prop, { joint: h.joint, offset: h.offset })));
    // The prop set bit of each (-1: every instance holds it).
    const byAll = props?.heldByAll.length ?? 0;
    this.kernel = this.crowd.install({ featureName: 'impostor-bake' });
    const { centre: boxCentre, radius } = boxSphere(grid.box);
    const centre = [0, 0, 0];
    const d = new Float64Array(3);
    const world = new Float64Array(16);
    const { skin, mesh } = this.kernel.draws;
    const cameraData = new Float32Array(CAMERA.size / 4);
    const store = this.kernel.store;
    // Strips of shelves, each drawn 4x multisampled (so a texel's alpha is the fraction of it covered, its colour premultiplied by it), resolved, then copied into the atlas's layer.
    const shelves = grid.shelves;
    for (let s = 0; s + 1 < shelves.length;) {
      let e = s + 1;
      while (e + 1 < shelves.length && (shelves[e + 1] - shelves[s]) * grid.width <= STRIP_TEXELS) e++;
      this.strips.push({ top: shelves[s], height: shelves[e] - shelves[s], runs: [] });
      s = e;
    }
    // Runs: a view's consecutive poses side by side on one shelf (AtlasGrid packs them so), each one instanced draw into its viewport.
    for (let view = 0; view < grid.views; view++) {
      grid.direction(view, d);
      const { right, up } = viewBasis(d);
      const [halfRight, halfUp] = viewFrame(grid.frameBox, right, up);
      for (let pose = 0; pose < grid.poses;) {
        const [x, y, w, h] = grid.cell(pose, view);
        let count = 1;
        while (pose + count < grid.poses && grid.cell(pose + count, view)[1] === y && grid.cell(pose + count, view)[0] === x + count * w) count++;
        const run: Run = { x, y, width: count * w, height: h, first: this.crowd.count, count, frame: this.frames.length };
        this.strips.find((strip) => y < strip.top + strip.height)!.runs.push(run);
        for (let k = 0; k < count; k++) {
          // The pose's centre (AtlasGrid.poseOffsets): its cells frame the poses' half extents about it.
          for (let c = 0; c < 3; c++) centre[c] = boxCentre[c] + grid.poseOffsets[3 * (pose + k) + c];
          // Rows of the rotation: right, up, d (model -> camera axes); then the pose's centre to the centre of the run's k-th cell (2 halfRight model units across).
          for (let j = 0; j < 3; j++) {
            world[j * 4] = right[j]; world[j * 4 + 1] = up[j]; world[j * 4 + 2] = d[j]; world[j * 4 + 3] = 0;
          }
          world[12] = (2 * k + 1) * halfRight - (right[0] * centre[0] + right[1] * centre[1] + right[2] * centre[2]);
          world[13] = -(up[0] * centre[0] + up[1] * centre[1] + up[2] * centre[2]);
          world[14] = -(d[0] * centre[0] + d[1] * centre[1] + d[2] * centre[2]);
          world[15] = 1;
          const clip = clips[Math.floor((pose + k) / grid.frames)], frame = (pose + k) % grid.frames;
          const time = (frame / grid.frames) * character.clipDurations[clip];
          this.crowd.add({ clipA: clip, timeA: time, speedA: 0, clipB: clip, timeB: time, speedB: 0, transform: world });
        }
        // The run's orthographic camera: x in [0, count x 2 halfRight] across the run's cells, y in [-halfUp, halfUp], z in [-2r, 2r]; anisotropic, as a cell's texels are the rectangle's at the grid's density, rounded.
        const projection = mat4.ortho(0, count * 2 * halfRight, -halfUp, halfUp, 0, 4 * radius);
        writeCamera(cameraData, mat4.multiply(projection, mat4.translation([0, 0, -2 * radius])), skin.lights, new Float32Array(16));
        const camera = device.createBuffer({ label: 'ImpostorBake.camera', size: CAMERA.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
        device.queue.writeBuffer(camera, 0, cameraData);
        this.cameras.push(camera);
        this.frames.push(frameBindGroup(device, skin.frameBindGroupLayout, 'ImpostorBake.frame', camera, store, store.identityListBuffer, 0, this.kernel.draws.vertexWeights));
        pose += count;
      }
    }
    const stripSize = [grid.width, Math.max(...this.strips.map((strip) => strip.height))];
    const texture = (label: string, format: GPUTextureFormat, sampleCount: number, usage: number) => device.createTexture({ label: `ImpostorBake.${label}`, size: stripSize, format, sampleCount, usage });
    this.depth = texture('depth', 'depth24plus', BAKE_SAMPLES, GPUTextureUsage.RENDER_ATTACHMENT);
    const formats = atlasFormats(grid);
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
    // Model units a screen pixel spans at the switch: the textures are sampled over it (bake.wgsl footprint).
    const pixel = (2 * grid.frameRadius) / grid.switchPixels;
    // Where a material emits light or has an occlusion map, every primitive writes the emissive-occlusion texture too (bake.wgsl bakeEmissiveOcclusion).
    const emissiveOcclusion = grid.emissiveOcclusion;
    // `tinted`: the character's primitives (CrowdAppearance tints them), not the props'.
    const pipeline = (drawn: typeof skin, pipelineLayout: GPUPipelineLayout, p: (typeof mesh.primitives)[number], isVaried: boolean, tinted: boolean) => {
      const streams = vertexConstants(p);
      return device.createRenderPipeline({
        label: `ImpostorBake.pipeline.${p.label}`, layout: pipelineLayout,
        // The vertex stage is the skin pass's own module: the crowd's skinning, not a copy of it.
        vertex: { module: drawn.module, entryPoint: vertexEntryPoint(p), buffers: vertexLayouts(p), constants: { ...drawn.vertexConstants, ...streams } },
        fragment: {
          module, entryPoint: emissiveOcclusion ? 'bakeEmissiveOcclusion' : 'bake', targets: formats.map(([, format]) => ({ format })),
          constants: { NORMALS: streams.NORMALS, COLORS: streams.COLORS, TANGENTS: streams.TANGENTS, UV1: streams.UV1, VARIED: Number(isVaried), PIXEL: pixel, RADIUS: radius, TINTED: Number(tinted), BLEND: Number(p.primitive.material.alphaMode === 'BLEND'), SAMPLES: BAKE_SAMPLES, ...(emissiveOcclusion ? { EMISSIVE_SCALE: grid.emittedUnit } : {}) },
        },
        primitive: { topology: 'triangle-list', cullMode: cullMode(p.primitive.material) },
        depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
        multisample: { count: BAKE_SAMPLES },
      });
    };
    this.pipelines = mesh.primitives.map((p, i) => pipeline(skin, layout, p, i < 32 && (varied & (1 << i)) !== 0, true));
    // The props' own skin passes (their rest joints, linear), with this fragment stage: not varied.
    propDraws.forEach((draw, k) => {
      const drawn = draw.skin;
      const propLayout = device.createPipelineLayout({ label: 'ImpostorBake.propLayout', bindGroupLayouts: [drawn.frameBindGroupLayout, drawn.materialBindGroupLayout, this.lookLayout] });
      this.props.push({ draw, pipelines: draw.mesh.primitives.map((p) => pipeline(drawn, propLayout, p, false, false)), frames: [], bit: k < byAll ? -1 : k - byAll });
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
    const store = this.kernel.store;
    // The props' records are the hidden crowd's props pass's (written by that encode, one per slot, every slot placed): a frame group per run's camera over them.
    for (const prop of this.props) {
      const { skin: drawn, inputs } = prop.draw;
      // Over the hidden crowd's identity list: a run draws its instances by first instance, as the character's draws.
      prop.frames = this.cameras.map((camera) => frameBindGroup(device, drawn.frameBindGroupLayout, 'ImpostorBake.propFrame', camera, inputs, store.identityListBuffer, 0));
    }
    const propMaterials = this.props.map((prop) => prop.draw.skin.materials);
    this.looks?.destroy();
    const looks = (this.looks = device.createBuffer({ label: 'ImpostorBake.looks', size: Math.max(1, layers.length) * LOOK_STRIDE, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }));
    const materials = skin.materials;
    layers.forEach(({ layer, look }, k) => {
      device.queue.writeBuffer(looks, k * LOOK_STRIDE, new Uint32Array([look.variant, 0, 0, 0]));
      const group = device.createBindGroup({
        label: `ImpostorBake.look${k}`, layout: this.lookLayout,
        entries: [{ binding: 0, resource: { buffer: looks, offset: k * LOOK_STRIDE, size: 16 } }, { binding: 1, resource: this.variants }, { binding: 2, resource: this.sampler }],
      });
      // Looks x strips: each strip of shelves drawn 4x multisampled (run by run, each in its viewport with its camera), resolved, then copied into the look's layer.
      this.strips.forEach(({ top, height, runs }, strip) => {
        const pass = encoder.beginRenderPass({
          label: `ImpostorBake.layer${layer}.strip${strip}`,
          colorAttachments: this.samples.map((t, s) => ({ view: t.createView(), resolveTarget: this.resolved[s].createView(), loadOp: 'clear' as const, storeOp: 'discard' as const, clearValue: [0, 0, 0, 0] })),
          depthStencilAttachment: { view: this.depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'discard', depthClearValue: 1 },
        });
        pass.setBindGroup(2, group);
        for (const run of runs) {
          pass.setViewport(run.x, run.y - top, run.width, run.height, 0, 1);
          pass.setBindGroup(0, this.frames[run.frame]);
          mesh.primitives.forEach((p, i) => {
            if (i < 32 && (look.parts & (1 << i)) === 0) return; // a part the look hides
            // The level the crowd draws just before the switch (impostor-route.ts levelAtSwitch), so the impostor takes over from the mesh it replaces.
            const [indices, firstIndex] = p.ranges[Math.min(this.level, p.ranges.length - 1)];
            pass.setPipeline(this.pipelines[i]);
            pass.setBindGroup(1, materials[i]);
            mesh.setBuffers(pass, p);
            pass.drawIndexed(indices, run.count, firstIndex, 0, run.first);
          });
          // The props every instance holds, in every look, and those of chosen instances in the looks holding them (their level 0, as CrowdProps draws them).
          this.props.forEach(({ draw, pipelines, frames, bit }, k) => {
            if (bit >= 0 && Math.floor(look.props / 2 ** bit) % 2 === 0) return;
            pass.setBindGroup(0, frames[run.frame]);
            draw.mesh.primitives.forEach((p, i) => {
              const [indices, firstIndex] = p.ranges[0];
              pass.setPipeline(pipelines[i]);
              pass.setBindGroup(1, propMaterials[k][i]);
              draw.mesh.setBuffers(pass, p);
              pass.drawIndexed(indices, run.count, firstIndex, 0, run.first);
            });
          });
        }
        pass.end();
        atlasTextureList(target).forEach((texture, t) => encoder.copyTextureToTexture({ texture: this.resolved[t] }, { texture, origin: [0, top, layer] }, [grid.width, height, 1]));
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

/**
 * The atlas textures for `looks` (a layer each, in order; written by copies only: the bake's
 * resolved strips and the kept layers of `old`): a look `old` holds (`layerIn` its layer there,
 * or -1) is copied from it in `encoder`; returns the textures and the layers left to bake.
 */
export function atlasLayers(device: GPUDevice, encoder: GPUCommandEncoder, grid: AtlasGrid, looks: readonly ImpostorLook[], old: ImpostorTextures | undefined, layerIn: (look: ImpostorLook) => number): { made: ImpostorTextures; layers: BakeLayer[] } {
  const usage = GPUTextureUsage.COPY_DST | GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_SRC;
  const size = [grid.width, grid.height, looks.length];
  const texture = (name: string, format: GPUTextureFormat) => device.createTexture({ label: `CrowdImpostors.${name}`, size, format, usage });
  const made: ImpostorTextures = {
    albedo: texture('albedo', ALBEDO_FORMAT), surface: texture('surface', surfaceFormat(grid)), depth: texture('depth', depthFormat(grid)),
    emissiveOcclusion: grid.emissiveOcclusion ? texture('emissiveOcclusion', EMISSIVE_OCCLUSION_FORMAT) : undefined,
  };
  const into = atlasTextureList(made);
  const layers: BakeLayer[] = [];
  looks.forEach((look, layer) => {
    const from = old ? layerIn(look) : -1;
    if (from < 0) return void layers.push({ layer, look });
    atlasTextureList(old!).forEach((texture, t) => encoder.copyTextureToTexture({ texture, origin: [0, 0, from] }, { texture: into[t], origin: [0, 0, layer] }, [grid.width, grid.height, 1]));
  });
  return { made, layers };
}
