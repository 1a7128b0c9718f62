import type { CullFrame } from './cull-pass';
import type { CullRoute } from './cull-route';
import { distanceForPixels, frustumPlanes, lodDistances, NEVER, projectionScale } from './cull-math';
import { CULL_ANIMATION_LOD, CULL_FRUSTUM, CULL_LOD, CULL_SHADOWS, IMPOSTOR_CLIPS, LOD_NOT_FORCED, MAX_LOD_LEVELS } from '../layout';
import { checkNumbers, checkWorldNumber } from '../record-buffer';
import { show } from '../../math/show';

/** Defaults of the screen-space thresholds, in pixels. */
export const DEFAULT_PIXEL_ERROR = 1;
export const DEFAULT_EVERY_2ND_BELOW = 24;
export const DEFAULT_EVERY_4TH_BELOW = 12;

/**
 * The camera and the switches of culling and LOD for one crowd, turned into a CullFrame each
 * frame without allocating. Owned by the Crowd; validated on every change.
 */
export class CullSettings {
  culling = true;
  lod = true;
  animationLod = true;
  /** Whether the cull pass lists shadow casters (the Crowd fills frame.lightPlanes). */
  shadows = false;
  maxDistance = Infinity;
  pixelError = DEFAULT_PIXEL_ERROR;
  every2ndBelow = DEFAULT_EVERY_2ND_BELOW;
  every4thBelow = DEFAULT_EVERY_4TH_BELOW;
  /** LOD level every instance draws, or undefined to choose by distance. */
  forcedLevel: number | undefined;
  readonly frame: CullFrame = {
    flags: 0, planes: new Float32Array(24), lightPlanes: new Float32Array(24), cameraPosition: new Float32Array(3),
    maxDistance: Infinity, lodDistances: new Float32Array(4).fill(NEVER), animationDistances: new Float32Array(4).fill(NEVER),
    forcedLevel: LOD_NOT_FORCED, shadowLodBias: 1, frame: 0, impostorDistance: NEVER, impostorBand: NEVER, bandLevel: 0, impostorDot: NEVER,
    impostorClips: new Uint32Array(IMPOSTOR_CLIPS / 32).fill(0xffffffff),
  };
  /** A feature's routing of far instances (CrowdKernel.routeFar: impostors), which sets the frame's impostor distances; undefined: none routed. */
  route: CullRoute | undefined;
  private readonly viewProjection = new Float64Array(16);
  /** The light camera of a shadow map drawn by someone else (setCasterCamera), world -> clip. */
  private readonly casterViewProjection = new Float64Array(16);
  private viewportHeight = 1080;
  private hasCamera = false;
  private hasCaster = false;

  /**
   * @param levelErrors simplification error of each mesh LOD level in model units (level 0: 0)
   * @param size the character's size in model units (the height animation LOD measures)
   */
  constructor(private readonly levelErrors: readonly number[], private readonly size: number) {
    if (levelErrors.length < 1 || levelErrors.length > MAX_LOD_LEVELS) throw new RangeError(`a crowd draws 1 to ${MAX_LOD_LEVELS} LOD levels, got ${levelErrors.length}`);
  }

  /** Whether a camera was set: without one nothing is culled and every instance draws level 0. */
  get active(): boolean {
    return this.hasCamera;
  }

  /** Whether the cull pass has anything to do this frame. */
  get needed(): boolean {
    return this.hasCamera && (this.culling || this.lod || this.animationLod || this.shadows || this.forcedLevel !== undefined);
  }

  setCamera(viewProjection: ArrayLike<number>, position: ArrayLike<number>, viewportHeight: number | undefined): void {
    checkNumbers(viewProjection, 16, 'viewProjection');
    checkNumbers(position, 3, 'camera position');
    for (let i = 0; i < 3; i++) checkWorldNumber(position[i], `camera position element ${i}`);
    if (viewportHeight !== undefined && !(typeof viewportHeight === 'number' && viewportHeight > 0 && Number.isFinite(viewportHeight))) {
      throw new RangeError(`viewportHeight must be a positive number of pixels, got ${show(viewportHeight)}`);
    }
    this.viewProjection.set(viewProjection);
    this.frame.cameraPosition.set(position);
    if (viewportHeight !== undefined) this.viewportHeight = viewportHeight;
    this.hasCamera = true;
  }

  /** The camera's view-projection (world -> clip, column-major), as last set. */
  get cameraViewProjection(): Float64Array {
    return this.viewProjection;
  }

  /**
   * The view-projection (world -> clip, WebGPU's z in [0, 1]) of a light camera whose shadow map
   * another renderer draws: the cull pass lists the instances inside its frustum as shadow
   * casters (the crowd's own shadow map, when it has one, fits its light itself and wins).
   * undefined forgets it.
   */
  setCasterCamera(viewProjection: ArrayLike<number> | undefined): void {
    if (viewProjection === undefined) {
      this.hasCaster = false;
      return;
    }
    checkNumbers(viewProjection, 16, 'caster viewProjection');
    this.casterViewProjection.set(viewProjection);
    this.hasCaster = true;
  }

  /** Forgets the camera: from the next frame every instance is posed and drawn at level 0. */
  clearCamera(): void {
    this.hasCamera = false;
  }

  setMaxDistance(distance: number): void {
    if (!(distance > 0)) throw new RangeError(`maxDistance must be a positive number of world units (or Infinity), got ${distance}`);
    this.maxDistance = distance;
  }

  setPixelError(pixels: number): void {
    if (!(pixels > 0 && Number.isFinite(pixels))) throw new RangeError(`lod.pixelError must be a positive number of pixels, got ${pixels}`);
    this.pixelError = pixels;
  }

  setAnimationThresholds(every2ndBelow: number, every4thBelow: number): void {
    for (const [name, v] of [['every2ndBelow', every2ndBelow], ['every4thBelow', every4thBelow]] as const) {
      if (!(v >= 0 && Number.isFinite(v))) throw new RangeError(`animationLod.${name} must be a number of pixels >= 0, got ${v}`);
    }
    if (every4thBelow > every2ndBelow) throw new RangeError(`animationLod.every4thBelow (${every4thBelow}) must not exceed every2ndBelow (${every2ndBelow})`);
    this.every2ndBelow = every2ndBelow;
    this.every4thBelow = every4thBelow;
  }

  setForcedLevel(level: number | undefined): void {
    if (level !== undefined && !(Number.isInteger(level) && level >= 0 && level < this.levelErrors.length)) {
      throw new RangeError(`LOD level must be an integer in [0, ${this.levelErrors.length - 1}] or undefined, got ${show(level)}`);
    }
    this.forcedLevel = level;
  }

  /** Fills and returns the frame's CullFrame (advancing the frame counter). */
  fill(): CullFrame {
    const f = this.frame;
    f.flags = (this.culling ? CULL_FRUSTUM : 0) | (this.lod ? CULL_LOD : 0) | (this.animationLod ? CULL_ANIMATION_LOD : 0) | (this.shadows || this.hasCaster ? CULL_SHADOWS : 0);
    frustumPlanes(this.viewProjection, f.planes);
    // The crowd's own shadow map (Visibility) overwrites these with its fitted light's planes.
    if (this.hasCaster) frustumPlanes(this.casterViewProjection, f.lightPlanes);
    f.maxDistance = this.maxDistance;
    const projection = projectionScale(this.viewProjection);
    lodDistances(this.levelErrors, this.pixelError, projection, this.viewportHeight, f.lodDistances);
    f.animationDistances[0] = distanceForPixels(this.size, this.every2ndBelow, projection, this.viewportHeight);
    f.animationDistances[1] = distanceForPixels(this.size, this.every4thBelow, projection, this.viewportHeight);
    f.forcedLevel = this.forcedLevel ?? LOD_NOT_FORCED;
    // Without a camera nothing is routed: there is no view to draw an impostor in (a palette frame still culls).
    if (this.route && this.hasCamera) this.route.fill(f, projection, this.viewportHeight, this.viewProjection);
    else f.impostorDistance = f.impostorBand = f.impostorDot = NEVER;
    f.frame = (f.frame + 1) >>> 0;
    return f;
  }
}
