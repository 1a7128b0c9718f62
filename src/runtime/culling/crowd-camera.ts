import { FeatureMethods } from '../legacy';
import type { CameraOptions, CullStats } from '../crowd-types';
import type { LightOptions } from '../lights';
import type { KernelPasses } from '../passes';
import { checkObject } from '../input';
import { checkBoolean, type Visibility } from './visibility';

/**
 * The camera side of Crowd's public surface: culling, mesh LOD, animation LOD and the shadow map
 * (all decided by the Visibility the kernel owns), and the lights the shadow map follows. Crowd
 * extends it; it keeps no state of its own.
 */
export abstract class CrowdCamera extends FeatureMethods {
  protected abstract readonly view: Visibility;
  protected abstract readonly passes: KernelPasses;
  /** Live instances. */
  abstract readonly count: number;

  /**
   * Replaces the lights at run time (same rules as CrowdOptions.lights: each omitted part takes
   * its default, `ambient: false` drops it; docs/materials.md). Throws a TypeError / RangeError
   * naming the wrong field and leaves the lights as they were; otherwise the next draw shades
   * with them and the shadow map follows the new sun. No GPU allocation (but a given
   * `environment`, prefiltered anew here); kept across restore().
   */
  setLights(options: LightOptions): void {
    this.passes.setLights(options);
  }

  /** Whether the shadow map is drawn and sampled (needs CrowdOptions.shadows and a camera). */
  get shadows(): boolean {
    return this.view.settings.shadows;
  }

  /** Turns the shadow map on or off (it needs CrowdOptions.shadows to have been given). */
  set shadows(on: boolean) {
    checkBoolean(on, 'shadows');
    if (on && !this.view.canShadow) throw new Error('this crowd was created without shadows (CrowdOptions.shadows)');
    this.view.settings.shadows = on;
  }

  /**
   * The shadow map of the last encoded frame and the light's view-projection (world -> the map's
   * clip space, column-major 4x4), for other passes that receive the crowd's shadows (a ground);
   * undefined when no shadow map was drawn. The view is a depth32float texture's, `mapSize`
   * texels a side. Owned by the crowd.
   */
  get shadowMap(): {
    /** The depth texture's view (depth32float). */
    view: GPUTextureView;
    /** World to the shadow map's clip space, column-major 4x4. */
    lightViewProjection: Float32Array;
    /** Width and height of the map in texels. */
    mapSize: number;
  } | undefined {
    return this.view.shadowMap;
  }

  /**
   * What the cull pass did in a recent frame (visible and posed instances, instances per LOD
   * level, indices drawn), read back without stalling: one or two frames old, undefined before
   * the first culled frame. Without a camera every instance is visible and posed.
   */
  get cullStats(): CullStats | undefined {
    return this.view.cullStats(this.count, this.passes.mesh);
  }

  /** The cull pass's counts after the last submitted frame, awaited (tests and tools; not for the frame loop). */
  readCullStats(): Promise<CullStats> {
    return this.view.readCullStats();
  }

  /** Whether culling runs once a camera is set (CrowdOptions.culling). Turning it off never changes a pixel. */
  get culling(): boolean { return this.view.settings.culling; }
  /** Turns culling on or off (for comparison: culling never changes a pixel). */
  set culling(on: boolean) { this.view.settings.culling = checkBoolean(on, 'culling'); }

  /** Whether mesh LOD levels are chosen by distance once a camera is set (CrowdOptions.lod). */
  get lod(): boolean { return this.view.settings.lod; }
  /** Turns mesh LOD on or off. */
  set lod(on: boolean) { this.view.settings.lod = checkBoolean(on, 'lod'); }

  /** Whether far instances are posed every 2nd / 4th frame once a camera is set (CrowdOptions.animationLod). */
  get animationLod(): boolean { return this.view.settings.animationLod; }
  /** Turns animation LOD on or off. */
  set animationLod(on: boolean) { this.view.settings.animationLod = checkBoolean(on, 'animationLod'); }

  /** Mesh LOD levels the character has (1 when loaded without `lod`). */
  get lodLevels(): number {
    return this.passes.mesh.levels;
  }

  /** Makes every instance draw LOD level `level` (for comparison; needs a camera), or chooses by distance again with undefined. */
  forceLodLevel(level: number | undefined): void {
    this.view.settings.setForcedLevel(level);
  }

  /**
   * The camera that culling and LOD use, for the frames encoded from now on: `viewProjection`
   * (column-major 4x4, world to clip space, WebGPU's z in [0, 1]) and the eye `position` (world).
   * Call it before encode() each frame the camera moves, with the matrix draw() will get. Without
   * a camera (never set, or clearCamera()) every instance is posed and drawn at full detail.
   */
  setCamera(viewProjection: ArrayLike<number>, position: ArrayLike<number>, options: CameraOptions = {}): void {
    checkObject(options, 'camera options', '{ viewportHeight }');
    this.view.settings.setCamera(viewProjection, position, options.viewportHeight);
  }

  /**
   * The light camera of a shadow map another renderer draws (three.js's shadow pass under
   * `shading: 'three'`): `viewProjection` (column-major 4x4, world to clip space, WebGPU's z in
   * [0, 1]). With a camera set, the cull pass then lists the instances inside its frustum as
   * shadow casters (the draw lists' list 1, posed like the visible ones), so characters beside the
   * view still cast into it. undefined forgets it. A crowd made with CrowdOptions.shadows fits its
   * own light instead.
   */
  setCasterCamera(viewProjection: ArrayLike<number> | undefined): void {
    this.view.settings.setCasterCamera(viewProjection);
  }

  /** Forgets the camera (see setCamera). */
  clearCamera(): void {
    this.view.settings.clearCamera();
  }
}
