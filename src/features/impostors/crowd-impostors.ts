import type { Crowd } from '../../runtime/crowd';
import type { CrowdTargetFormats } from '../../runtime/crowd-types';
import type { CrowdFeature, CrowdKernel, DrawShadow, EncodedFrame, FeatureStage } from '../../runtime/feature';
import { AtlasGrid, boxSphere } from './impostor-atlas';
import { ALBEDO_FORMAT, ImpostorBake, SURFACE_FORMAT, type ImpostorTextures } from './impostor-bake';
import { ImpostorPass } from './impostor-pass';
import { BandMeshes } from './band-meshes';
import { ImpostorRoute, type ImpostorDraws } from './impostor-route';
import type { ImpostorOptions } from './types';

export type { ImpostorOptions } from './types';

/** What the atlas holds, once made (CrowdImpostors.atlas). */
export interface ImpostorAtlasInfo {
  /** Frames per clip. */
  readonly frames: number;
  /** View directions around the character. */
  readonly azimuths: number;
  /** View directions from the horizon up. */
  readonly elevations: number;
  /** Texels per cell side (after the budget). */
  readonly cellSize: number;
  /** The atlas's width in texels (two textures of this size). */
  readonly width: number;
  /** The atlas's height in texels. */
  readonly height: number;
  /** Bytes of the two textures. */
  readonly bytes: number;
}

/**
 * The far crowd as animated impostors, a crowd feature: `new CrowdImpostors(crowd, options)`
 * (docs/impostors.md). At first use (the first update after it is made, or bake()) it bakes an
 * atlas on the GPU from the crowd's own pose pass and skin shader: every clip at `frames` times
 * over its cycle, seen from `azimuths` x `elevations` directions, base colour and surface
 * (normal, roughness, metalness) per texel. Options are checked by name before anything is made.
 */
export class CrowdImpostors implements CrowdFeature {
  readonly featureName = 'impostors';
  /** @internal The cell layout of the atlas. */
  readonly grid: AtlasGrid;
  private readonly kernel: CrowdKernel;
  private textures: ImpostorTextures | undefined;
  private bakeMs = 0;
  private pass: ImpostorPass;
  /** The cull pass's impostor list of the frame being drawn (EncodedFrame.impostors), else undefined. */
  private frameList: ImpostorDraws | undefined;
  /** The far instances' route through the kernel's cull pass (the switch measures the diameter of the sphere the cells frame). */
  private readonly route: ImpostorRoute;
  /** The band's meshes, through the crowd's skin pass. */
  private readonly bandMeshes = new BandMeshes();
  private readonly targets: CrowdTargetFormats;
  private on = true;
  private readonly inputs = { instances: undefined as unknown as GPUBuffer, list: undefined as unknown as GPUBuffer, listOffset: 0, looks: undefined as GPUBuffer | undefined, atlas: undefined as unknown as ImpostorTextures, environment: undefined as GPUTextureView | undefined };

  /** Installs impostors on `crowd`; a RangeError or TypeError naming the option that is wrong (nothing is installed then). */
  constructor(crowd: Crowd, options: ImpostorOptions = {}) {
    this.grid = new AtlasGrid(crowd.character.clipDurations.length, crowd.device.limits.maxTextureDimension2D, options);
    const box = crowd.character.animationBounds.box;
    this.targets = crowd.targetFormats;
    this.pass = new ImpostorPass(crowd.device, this.grid, box, this.targets);
    this.kernel = crowd.install(this);
    this.route = new ImpostorRoute(this.kernel, 2 * boxSphere(box).radius, this.grid.switchPixels, this.grid.band);
    this.kernel.routeFar(this.route);
  }

  /** Whether far instances are drawn as impostors (default true); false draws every instance as a mesh again (for comparison). */
  get enabled(): boolean {
    return this.on;
  }

  /** Turns impostors on or off (a TypeError for anything but a boolean). */
  set enabled(on: boolean) {
    if (typeof on !== 'boolean') throw new TypeError(`impostors.enabled must be true or false, got ${String(on)}`);
    this.on = on;
    this.kernel.routeFar(on ? this.route : undefined);
  }

  /** Instances whose framed sphere spans at most this many pixels on the crowd's viewport are drawn as impostors (ImpostorOptions.switchPixels). */
  get switchPixels(): number {
    return this.grid.switchPixels;
  }

  /** The band's width, a fraction of the switch distance (ImpostorOptions.band; 0: a hard cut). */
  get band(): number {
    return this.grid.band;
  }

  /** Draw calls draw() records (all indirect): the impostors, and with a band its impostors and one per mesh primitive for its meshes. */
  get drawCount(): number {
    return this.grid.band > 0 ? 2 + this.kernel.draws.mesh.primitives.length : 1;
  }

  /** The atlas's layout and size (fixed at construction; the textures are made at the bake). */
  get atlas(): ImpostorAtlasInfo {
    const g = this.grid;
    return { frames: g.frames, azimuths: g.azimuths, elevations: g.elevations, cellSize: g.cellSize, width: g.width, height: g.height, bytes: g.bytes };
  }

  /**
   * What the impostors do not show as the crowd's meshes do, now ([] when nothing): with
   * CrowdAppearance, each instance's base-colour variant and parts mask (impostors show the
   * materials' own base colour and every part, tinted). The atlas itself never goes stale
   * silently: the character's clips and materials are fixed at load, and a new skinning method
   * (Crowd.skinning) or device (restore) bakes it again at the next update.
   */
  get stale(): string[] {
    return this.kernel.draws.appearance ? ['appearance variants and parts masks (impostors show the materials\' own base colour and every part, tinted)'] : [];
  }

  /** Whether the atlas has been baked. */
  get baked(): boolean {
    return this.textures !== undefined;
  }

  /** CPU milliseconds the last bake took to make and record its work (its GPU time: await bake()). */
  get bakeMilliseconds(): number {
    return this.bakeMs;
  }

  /** Bytes of the atlas once baked (Crowd.gpuBytes adds them). */
  get gpuBytes(): number {
    return this.textures ? this.grid.bytes : 0;
  }

  /** @internal The atlas textures, baked now if they were not. */
  get atlasTextures(): ImpostorTextures {
    return this.textures ?? this.bakeNow();
  }

  /** Bakes the atlas now (again, when it was baked) and resolves when the GPU has done it. */
  async bake(): Promise<void> {
    this.bakeNow();
    await this.kernel.device.queue.onSubmittedWorkDone();
  }

  /** First use: the atlas is baked in the first update after the feature is made. */
  prepare(): void {
    if (!this.textures) this.bakeNow();
  }

  /** Keeps the frame's impostor list for draw(). */
  encode(_encoder: GPUCommandEncoder, stage: FeatureStage, frame: EncodedFrame): void {
    if (stage === 'after-pose') this.frameList = frame.routed && this.route.draws(frame.routed);
  }

  /** Draws the frame's impostors (when the cull pass listed any) into the crowd's render pass. */
  draw(pass: GPURenderPassEncoder, viewProjection: ArrayLike<number>, shadow: DrawShadow | undefined): void {
    const list = this.frameList;
    if (!list || !this.on) return;
    const kernel = this.kernel;
    const inputs = this.inputs;
    inputs.instances = kernel.store.instanceBuffer;
    inputs.list = list.args;
    inputs.listOffset = list.listOffset;
    inputs.looks = kernel.draws.appearance?.buffer;
    inputs.atlas = this.atlasTextures;
    inputs.environment = kernel.draws.skin.environmentView;
    this.pass.update(viewProjection, kernel.draws.skin.lights, shadow, kernel.clock);
    this.pass.draw(pass, inputs, shadow?.view, list.args, list.argsOffset);
    if (this.grid.band > 0) {
      // The band: its meshes, then its impostors, each keeping the pixels its fade leaves to it.
      this.bandMeshes.draw(pass, kernel.draws, kernel.device, list);
      this.pass.drawBand(pass, inputs, shadow?.view, list.bandListOffset, list.bandListBytes, list.bandArgsOffset);
    }
  }

  /** The skinning method changed (or a feature re-made the passes): the atlas is baked again at the next update. */
  passesCreated(): void {
    if (this.kernel) this.freeTextures();
  }

  /** restore(device): the pass is re-made and the atlas baked again on the new device at the next update. */
  restore(device: GPUDevice): void {
    this.textures = undefined;
    this.pass = new ImpostorPass(device, this.grid, this.kernel.character.animationBounds.box, this.targets);
  }

  destroy(): void {
    this.kernel.routeFar(undefined);
    this.pass.destroy();
    this.freeTextures();
  }

  private bakeNow(): ImpostorTextures {
    const start = performance.now();
    const device = this.kernel.device;
    const g = this.grid;
    const usage = GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_SRC;
    const made: ImpostorTextures = {
      albedo: device.createTexture({ label: 'CrowdImpostors.albedo', size: [g.width, g.height], format: ALBEDO_FORMAT, usage }),
      surface: device.createTexture({ label: 'CrowdImpostors.surface', size: [g.width, g.height], format: SURFACE_FORMAT, usage }),
    };
    const bake = new ImpostorBake(device, this.kernel.character, g, this.kernel.skinning);
    try {
      const encoder = device.createCommandEncoder({ label: 'CrowdImpostors.bake' });
      bake.encode(encoder, made);
      device.queue.submit([encoder.finish()]);
    } finally {
      bake.destroy();
    }
    this.freeTextures();
    this.textures = made;
    this.bakeMs = performance.now() - start;
    return made;
  }

  private freeTextures(): void {
    this.textures?.albedo.destroy();
    this.textures?.surface.destroy();
    this.textures = undefined;
  }
}
