import type { Character } from '../../character/character';
import { show } from '../../math/show';
import type { CrowdOptions, CullStats, ShadowOptions } from '../crowd-types';

/** The options Visibility reads (the WebGL 2 crowd hands its own, which have no render-pass formats). */
export type VisibilityOptions = Pick<CrowdOptions, 'culling' | 'maxDistance' | 'cullBounds' | 'lod' | 'animationLod' | 'shadows'>;
import type { DrawShadow } from '../feature';
import type { InstanceStore } from '../instance-store';
import type { MeshBuffers } from '../mesh-buffers';
import type { PosePass } from '../pose-pass';
import type { DrawArgs, SkinPass } from '../skin-pass';
import { frustumPlanes } from './cull-math';
import { CullPass } from './cull-pass';
import type { CullRoute, RoutedLists } from './cull-route';
import { CullSettings } from './cull-settings';
import { CullStatsReader } from './cull-stats';
import { PalettePass, paletteLists } from './palette-pass';
import { fitLight, ShadowPass } from './shadow-pass';

/**
 * What a crowd's camera decides each frame: culling, mesh LOD, animation LOD and the shadow map
 * (the cull pass lists the instances to pose and to draw, the pose pass and the indirect draws
 * read those lists, so this is the kernel's frame order, not a feature). Owns the cull pass, its
 * stats reader and the shadow pass; the Crowd owns this and forwards its settings. Options are
 * checked in the constructor, before any GPU object is made.
 */
export class Visibility {
  readonly settings: CullSettings;
  /** Texels per side of the shadow map, or undefined for a crowd made without shadows. */
  readonly shadowMapSize: number | undefined;
  private readonly shadow = { distance: 0, reach: 0, strength: 1 };
  private cullPass!: CullPass;
  private stats!: CullStatsReader;
  private shadowPass: ShadowPass | undefined;
  /** Made at the first frame whose store has an active palette (more instances than joint sets). */
  private palettePass: PalettePass | undefined;
  private device: GPUDevice | undefined;
  private levels = 1;
  /**
   * The store generation and instance count of the last palette frame without a camera (-1: the
   * last palette frame had one, or none ran). While both hold and no camera is set, the palette
   * is settled: every slot below the count holds a joint set or a shared pose, and nothing would
   * change but the shared poses' time buckets, which the pose pass brings up to date itself.
   */
  private settledGeneration = -1;
  private settledCount = -1;
  /** Whether the last encode ran the cull pass (draw() then draws through its lists) and drew the shadow map. */
  private culledFrame = false;
  private shadowedFrame = false;
  /** Store generation the shadow pass is bound to (-1: never). */
  private shadowGeneration = -1;
  private readonly drawShadow = { view: undefined as unknown as GPUTextureView, lightViewProjection: undefined as unknown as Float32Array, mapSize: 0, strength: 1 };
  /** The caller's timestamp writes split over the cull pass (beginning) and the pose pass (end). */
  private readonly cullTimestamps: GPUComputePassTimestampWrites = { querySet: undefined as unknown as GPUQuerySet };
  private readonly poseTimestamps: GPUComputePassTimestampWrites = { querySet: undefined as unknown as GPUQuerySet };

  constructor(private readonly character: Character, private readonly options: VisibilityOptions, maxTextureDimension2D: number) {
    const height = boxHeight(character.animationBounds.reach);
    this.settings = new CullSettings(character.lods?.errors ?? [0], height);
    this.applyOptions(options);
    this.shadowMapSize = options.shadows === undefined || options.shadows === false ? undefined : this.applyShadowOptions(options.shadows, height, maxTextureDimension2D);
    this.settings.shadows = this.shadowMapSize !== undefined;
  }

  /** The shadow map's reach as CrowdOptions.shadows set it (world units) and its strength, for a backend that fits its own light (the WebGL 2 crowd). */
  get shadowFit(): Readonly<{ distance: number; reach: number; strength: number }> {
    return this.shadow;
  }

  /** Whether shadows can be turned on (the crowd was made with CrowdOptions.shadows). */
  get canShadow(): boolean {
    return this.shadowMapSize !== undefined;
  }

  /** The per-level draw counters of the last culled frame, else undefined. */
  get counters(): GPUBuffer | undefined {
    return this.culledFrame ? this.cullPass.counters : undefined;
  }

  /** Hands the cull pass a feature's routing of far instances (CrowdKernel.routeFar), or none (undefined). */
  routeFar(route: CullRoute | undefined): void {
    this.settings.route = this.stats.route = route;
  }

  /** The cull pass's routed lists of the last culled frame with a camera while a route is set (EncodedFrame.routed), else undefined. */
  get routed(): RoutedLists | undefined {
    return this.culledFrame && this.settings.route && this.settings.active ? this.cullPass : undefined;
  }

  /** The cull pass's indirect arguments of the last culled frame, else undefined. */
  get drawArgs(): DrawArgs | undefined {
    return this.culledFrame ? this.cullPass : undefined;
  }

  /** The shadow map of the last encoded frame, or undefined when none was drawn. */
  get frameShadow(): DrawShadow | undefined {
    const pass = this.shadowPass;
    if (!pass || !this.shadowedFrame) return undefined;
    const s = this.drawShadow;
    s.view = pass.view;
    s.lightViewProjection = pass.lightViewProjection;
    s.mapSize = pass.mapSize;
    s.strength = this.shadow.strength;
    return s;
  }

  /** Creates the cull pass, its stats reader and the shadow pass over `mesh` and `skin`, each handed to `own` (so a failure frees them). */
  create(device: GPUDevice, mesh: MeshBuffers, skin: SkinPass, own: <T extends { destroy(): void }>(object: T) => T): void {
    const authored = this.options.cullBounds === 'authored';
    const bounds = this.character.animationBounds;
    this.cullPass = own(new CullPass(device, {
      primitives: mesh.primitives.length, levels: mesh.levels, lodRanges: mesh.lodRanges(),
      box: authored ? bounds.box : bounds.reach, layeredBox: authored ? bounds.box : bounds.reachLayered,
    }));
    this.stats = own(new CullStatsReader(device, this.cullPass.counters, mesh.levels, mesh.indicesPerInstance()));
    this.stats.route = this.settings.route;
    if (this.shadowMapSize !== undefined) this.shadowPass = own(new ShadowPass(device, skin, mesh, { mapSize: this.shadowMapSize }));
    this.shadowGeneration = -1;
    this.culledFrame = this.shadowedFrame = false;
    this.device = device;
    this.levels = mesh.levels;
    this.palettePass = undefined;
    this.settledGeneration = this.settledCount = -1;
  }

  /** Bytes of the GPU buffers this owns beyond the store's (the palette pass's; Crowd.gpuBytes). */
  get gpuBytes(): number {
    return this.palettePass?.gpuBytes ?? 0;
  }

  /** Frees what create made (a no-op for objects of a lost device). */
  destroy(): void {
    this.cullPass.destroy();
    this.shadowPass?.destroy();
    this.palettePass?.destroy();
    this.stats.destroy();
  }

  /**
   * Records the cull pass, the pose pass (for the instances it listed, or for every instance
   * without a camera) and the shadow map. `vertexWeights`: the skin pass's per-slot vertex weights.
   */
  encode(encoder: GPUCommandEncoder, store: InstanceStore, pose: PosePass, clock: number, timestampWrites: GPUComputePassTimestampWrites | undefined, vertexWeights: GPUBuffer | undefined,
    poseTimestampWrites?: GPUComputePassTimestampWrites): void {
    const settings = this.settings;
    // A palette hands joint sets to the drawn instances: it needs the cull pass's lists, camera or
    // not, until it is settled (see settledGeneration): then a crowd without a camera is posed and
    // drawn as one without a palette, every slot through its entry (issue 42: the cull and palette
    // passes cost a steady 100,000 crowd 3x the CPU of its pose pass alone).
    const palette = store.palette.active;
    const unculled = !settings.needed && settings.forcedLevel === undefined; // every instance drawn at level 0, as a crowd without a palette draws
    const settled = palette && unculled && store.generation === this.settledGeneration && store.count === this.settledCount;
    this.culledFrame = settings.needed || (palette && !settled);
    const shadowPass = settings.shadows && settings.needed ? this.shadowPass : undefined;
    this.shadowedFrame = shadowPass !== undefined;
    const sharedBase = palette ? store.palette.size : 0;
    if (!this.culledFrame) {
      pose.update(store, clock, undefined, sharedBase);
      pose.encode(encoder, poseTimestampWrites ?? timestampWrites); // no cull pass: a separate cull range stays unwritten
      return;
    }
    const frame = settings.fill();
    if (!settings.active) frame.flags = 0; // no camera: every instance is drawn, at level 0
    if (shadowPass) {
      const light = shadowPass.lightViewProjection;
      fitLight(settings.cameraViewProjection, frame.cameraPosition, shadowPass.lightDirection, this.shadow.distance, this.shadow.reach, light);
      frustumPlanes(light, frame.lightPlanes);
      shadowPass.update(light);
      if (this.shadowGeneration !== store.generation) {
        shadowPass.bind(store, vertexWeights);
        this.shadowGeneration = store.generation;
      }
    }
    this.cullPass.update(store, frame);
    const palettePass = palette ? (this.palettePass ??= new PalettePass(this.device!, { levels: this.levels, clipDurations: this.character.clipDurations })) : undefined;
    if (palettePass) {
      palettePass.update(store, this.cullPass, frame.frame, clock, paletteLists(frame, this.levels));
      palettePass.poseShared(encoder, store, pose);
      this.settledGeneration = unculled ? store.generation : -1;
      this.settledCount = store.count;
    }
    pose.update(store, clock, this.cullPass, sharedBase);
    // timestampWrites alone: the cull pass's beginning to the pose pass's end. With poseTimestampWrites:
    // timestampWrites spans the cull pass and the palette pass after it, poseTimestampWrites the pose pass.
    const [first, last] = this.splitTimestamps(timestampWrites);
    const split = poseTimestampWrites !== undefined;
    this.cullPass.encode(encoder, split && !palettePass ? timestampWrites : first);
    this.stats.encode(encoder);
    palettePass?.encode(encoder, split ? last : undefined);
    pose.encode(encoder, poseTimestampWrites ?? last);
    shadowPass?.encode(encoder, this.cullPass);
  }

  /**
   * Records the crowd's draws with the skin pass as prepareSkin set it (camera, shadow map of the
   * frame): through the cull pass's lists after a culled frame, else every instance.
   */
  draw(pass: GPURenderPassEncoder, skin: SkinPass, count: number): void {
    if (this.culledFrame) skin.drawIndirect(pass, this.cullPass);
    else skin.draw(pass, count);
  }

  /** The skin pass's shadow map, camera and lights for this frame's draws (before draw(); the features' draws read them too: the band's meshes). */
  prepareSkin(skin: SkinPass, viewProjection: ArrayLike<number>): void {
    const shadow = this.frameShadow;
    skin.setShadowMap(shadow?.view, shadow?.lightViewProjection, shadow?.mapSize, this.shadow.strength);
    skin.update(viewProjection);
  }

  /** The cull counts of a recent frame (see Crowd.cullStats); without a culled frame, every instance at level 0. */
  cullStats(count: number, mesh: MeshBuffers): CullStats | undefined {
    if (this.culledFrame) return this.stats.latest;
    const perLevel = Array.from({ length: mesh.levels }, (_, l) => (l === 0 ? count : 0));
    return { visible: count, posed: count, perLevel, vertices: count * mesh.indicesPerInstance()[0] };
  }

  /** The counts after the last submitted frame, awaited. */
  readCullStats(): Promise<CullStats> {
    return this.stats.read();
  }

  /** Shadow map, light and size of the last encoded frame (Crowd.shadowMap). */
  get shadowMap(): { view: GPUTextureView; lightViewProjection: Float32Array; mapSize: number } | undefined {
    const pass = this.shadowPass;
    return pass && this.shadowedFrame ? { view: pass.view, lightViewProjection: pass.lightViewProjection, mapSize: pass.mapSize } : undefined;
  }

  private applyOptions(options: VisibilityOptions): void {
    const { culling, lod, animationLod, maxDistance, cullBounds } = options;
    const cull = this.settings;
    if (cullBounds !== undefined && cullBounds !== 'reach' && cullBounds !== 'authored') throw new RangeError(`cullBounds must be 'reach' or 'authored', got ${show(cullBounds)}`);
    if (culling !== undefined) cull.culling = checkBoolean(culling, 'culling');
    if (maxDistance !== undefined) cull.setMaxDistance(maxDistance);
    if (lod !== undefined) {
      checkSwitch(lod, 'lod', '{ pixelError }');
      cull.lod = lod !== false;
      if (typeof lod === 'object' && lod.pixelError !== undefined) cull.setPixelError(lod.pixelError);
    }
    if (animationLod !== undefined) {
      checkSwitch(animationLod, 'animationLod', '{ every2ndBelow, every4thBelow }');
      cull.animationLod = animationLod !== false;
      if (typeof animationLod === 'object') {
        cull.setAnimationThresholds(animationLod.every2ndBelow ?? cull.every2ndBelow, animationLod.every4thBelow ?? cull.every4thBelow);
      }
    }
  }

  /** Checks CrowdOptions.shadows (given and not false) and keeps its distances and strength; returns the map size to make. */
  private applyShadowOptions(shadows: true | ShadowOptions, height: number, largest: number): number {
    checkSwitch(shadows, 'shadows', '{ mapSize, distance, reach, strength }');
    const o = shadows === true ? {} : shadows;
    this.shadow.distance = checkPositive(o.distance ?? 20 * height, 'shadows.distance');
    this.shadow.reach = checkPositive(o.reach ?? 2 * height, 'shadows.reach');
    const strength = o.strength ?? 1;
    if (typeof strength !== 'number' || !(strength >= 0 && strength <= 1)) throw new RangeError(`shadows.strength must be in [0, 1], got ${show(o.strength)}`);
    this.shadow.strength = strength;
    const mapSize = o.mapSize ?? 2048;
    if (!Number.isInteger(mapSize) || mapSize < 1 || mapSize > largest) throw new RangeError(`shadows.mapSize must be an integer in [1, ${largest}], got ${show(o.mapSize)}`);
    return mapSize;
  }

  /** The caller's timestamp writes as (beginning on the cull pass, end on the pose pass), kept in two reused objects. */
  private splitTimestamps(writes: GPUComputePassTimestampWrites | undefined): [GPUComputePassTimestampWrites | undefined, GPUComputePassTimestampWrites | undefined] {
    if (!writes) return [undefined, undefined];
    this.cullTimestamps.querySet = this.poseTimestamps.querySet = writes.querySet;
    this.cullTimestamps.beginningOfPassWriteIndex = writes.beginningOfPassWriteIndex;
    this.poseTimestamps.endOfPassWriteIndex = writes.endOfPassWriteIndex;
    return [
      writes.beginningOfPassWriteIndex === undefined ? undefined : this.cullTimestamps,
      writes.endOfPassWriteIndex === undefined ? undefined : this.poseTimestamps,
    ];
  }
}

/** Throws a TypeError naming `what` unless `value` is true or false; returns it. */
export function checkBoolean(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${what} must be true or false, got ${show(value)}`);
  return value;
}

/** Throws a TypeError naming `what` unless `value` is true, false or an object of settings. */
function checkSwitch(value: unknown, what: string, shape: string): void {
  if (typeof value !== 'boolean' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new TypeError(`${what} must be true, false or ${shape}, got ${show(value)}`);
  }
}

function checkPositive(value: number, what: string): number {
  if (typeof value !== 'number' || !(value > 0)) throw new RangeError(`${what} must be a positive number of world units, got ${show(value)}`);
  return value;
}

/** Height (y extent) of a box (min x, y, z, max x, y, z); its largest extent when that is larger than twice the height. */
function boxHeight(box: ArrayLike<number>): number {
  return Math.max(box[4] - box[1], (Math.max(box[3] - box[0], box[5] - box[2])) / 2);
}
