import type { Crowd } from '../../runtime/crowd';
import type { CrowdFeature, CrowdKernel } from '../../runtime/feature';
import { AtlasGrid } from './impostor-atlas';
import { ALBEDO_FORMAT, ImpostorBake, SURFACE_FORMAT, type ImpostorTextures } from './impostor-bake';
import type { ImpostorOptions } from './types';

export type { ImpostorOptions } from './types';

/** What the atlas holds, once made (CrowdImpostors.atlas). */
export interface ImpostorAtlasInfo {
  /** Frames per clip, view directions (azimuths x elevations), texels per cell side. */
  readonly frames: number;
  readonly azimuths: number;
  readonly elevations: number;
  readonly cellSize: number;
  /** The atlas's size in texels (two textures of this size). */
  readonly width: number;
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

  /** Installs impostors on `crowd`; a RangeError or TypeError naming the option that is wrong (nothing is installed then). */
  constructor(crowd: Crowd, options: ImpostorOptions = {}) {
    this.grid = new AtlasGrid(crowd.character.clipDurations.length, crowd.device.limits.maxTextureDimension2D, options);
    this.kernel = crowd.install(this);
  }

  /** The atlas's layout and size (fixed at construction; the textures are made at the bake). */
  get atlas(): ImpostorAtlasInfo {
    const g = this.grid;
    return { frames: g.frames, azimuths: g.azimuths, elevations: g.elevations, cellSize: g.cellSize, width: g.width, height: g.height, bytes: g.bytes };
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

  /** restore(device): the atlas is baked again on the new device at the next update. */
  restore(): void {
    this.textures = undefined;
  }

  destroy(): void {
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
