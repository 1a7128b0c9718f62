import { IDENTITY_MATRIX } from '../../math/affine';
import type { CullStats } from '../../runtime/crowd-types';
import type { CullFrame } from '../../runtime/culling/cull-pass';
import { distanceForPixels, frameLodLevel, lodDistances } from '../../runtime/culling/cull-math';
import type { CullRoute, RoutedLists } from '../../runtime/culling/cull-route';
import type { CrowdKernel } from '../../runtime/feature';
import { CULL_ARGS, CULL_COUNTERS, CULL_LOD, IMPOSTOR_CLIPS, IMPOSTOR_VERTICES, LOD_NOT_FORCED, MAX_LOD_LEVELS } from '../../runtime/layout';

/** levelAtSwitch's frame: a unit camera's thresholds (reused). */
const unit = { flags: 0, forcedLevel: LOD_NOT_FORCED, lodDistances: new Float64Array(MAX_LOD_LEVELS) };

/**
 * @internal The mesh LOD level a crowd draws at the impostor switch: the level the atlas is baked
 * from and the band's meshes draw. The cull pass's own rule (cull-math.ts frameLodLevel, over the
 * thresholds lodDistances makes of `errors`, model units a level, and `lod.pixelError`) at the
 * switch distance (distanceForPixels: where `size` model units span `pixels` pixels), measured
 * from the instance's centre: `lod.forcedLevel` when set, 0 with LOD off. Both distances scale
 * alike with the camera (projection x viewport height), so a unit camera gives the level of every
 * camera; the cull pass measures its levels from the box's bounding sphere instead, so the level
 * it draws an instance just before the switch (with no band) may be finer by that offset.
 */
export function levelAtSwitch(errors: readonly number[], lod: CrowdKernel['lodSettings'], size: number, pixels: number): number {
  unit.flags = lod.lod ? CULL_LOD : 0;
  unit.forcedLevel = lod.forcedLevel ?? LOD_NOT_FORCED;
  lodDistances(errors, lod.pixelError, 1, 1, unit.lodDistances);
  return frameLodLevel(distanceForPixels(size, pixels, 1, 1), unit, errors.length);
}

/** The impostor list of a culled frame (ImpostorRoute.draws): not owned by the reader. */
export interface ImpostorDraws {
  /** The cull pass's arguments buffer (replaced when it grows): the impostor draw's drawIndexedIndirect quintuple (cull.wgsl impostorArgs) at `argsOffset` bytes, the list (u32 slots) from `listOffset` bytes. */
  args: GPUBuffer;
  /** The cull pass's counters (CULL_COUNTERS): the lists' counts (the draw's last instance ends at them). */
  counters: GPUBuffer;
  argsOffset: number;
  listOffset: number;
  /** The band: its impostors' quintuple at `bandArgsOffset` bytes, then its meshes' drawIndexedIndirect arguments (one quintuple per primitive, at the band's level). */
  bandArgsOffset: number;
  /** The dots' drawIndirect quadruple (cull.wgsl finalize: a point a dot, firstVertex the word of the list where they begin) at `dotArgsOffset` bytes. */
  dotArgsOffset: number;
  /** The band list at `bandListOffset` bytes: listStride u32 slots (the band's count of them), then listStride f32 fades by slot (0 at the band's start, 1 at the switch); `bandListBytes` bytes in all. */
  bandListOffset: number;
  bandListBytes: number;
}

/**
 * The impostor feature's route through the kernel's cull pass (CullRoute, handed in by
 * CrowdKernel.routeFar): visible instances whose `size` (model units, scaled with the instance)
 * spans at most `pixels` pixels on the camera's viewport go to the impostor list, neither posed
 * nor drawn as meshes (unless they cast into the shadow map), counted by the cull stats as one
 * more level of IMPOSTOR_VERTICES (6) each. `band` in [0, 1): instances from (1 - band) x the
 * switch distance up to it are the band, posed and listed with a fade, drawn both ways by the
 * feature, their meshes at levelAtSwitch (the atlas's level), whatever the LOD levels there.
 * Owned by CrowdImpostors; fill and draws allocate nothing.
 */
export class ImpostorRoute implements CullRoute {
  /** Model units the cull pass's distance leaves out (the radius of the box it tests): taken off the switch so that it measures from the centre. */
  private readonly offset: number;
  /** The frame the last fill filled (CullSettings.frame, refilled each frame; the crowd clears its flags when it has no camera). */
  private frame: CullFrame | undefined;
  /** The character's LOD levels' simplification errors (model units; [0]: none). */
  private readonly errors: readonly number[];
  /** Bit c set (word c / 32): the atlas holds clip c (CullFrame.impostorClips; the shown pass's too). */
  readonly clipBits = new Uint32Array(IMPOSTOR_CLIPS / 32);
  /** The last fill's switch distance from the box's centre (model units: where `size` spans `pixels`; 0 before the first fill): the draw's parallax march steps by it (impostor-layout.ts marchSteps). */
  switchDistance = 0;
  /** The last fill's pixels one model unit spans one unit away (projection x viewport height / 2; 0 before the first fill): a dot's area on screen (impostor.wgsl dotVertex). */
  pixelsAtUnit = 0;
  /** The last fill's camera (world to clip, column-major; the cull settings' array): the dots' listing before the draw (CrowdImpostors.encode). */
  viewProjection: ArrayLike<number> = IDENTITY_MATRIX;
  private readonly lists: ImpostorDraws = { args: undefined as unknown as GPUBuffer, counters: undefined as unknown as GPUBuffer, argsOffset: 0, listOffset: 0, bandArgsOffset: 0, dotArgsOffset: 0, bandListOffset: 0, bandListBytes: 0 };

  /**
   * @param kernel the crowd's (its cull bounds and character say which box the cull pass tests)
   * @param size model units the switch measures
   * @param pixels pixels `size` spans at the switch (> 0)
   * @param band the band's fraction of the switch distance, in [0, 1)
   * @param clips the clips the atlas holds (character clip indices): an instance showing another is drawn as a mesh
   * @param dotPixels pixels `size` spans where an impostor becomes a dot (under `pixels`; 0: no dots)
   */
  constructor(private readonly kernel: CrowdKernel, private readonly size: number, private readonly pixels: number, private readonly band: number, clips: readonly number[], private readonly dotPixels = 0) {
    for (const c of clips) if (c < IMPOSTOR_CLIPS) this.clipBits[c >>> 5] |= 1 << (c & 31);
    this.errors = kernel.character.lods?.errors ?? [0];
    const bounds = kernel.character.animationBounds;
    const box = kernel.options.cullBounds === 'authored' ? bounds.box : bounds.reach;
    // The cull pass measures from the box's bounding sphere, the switch from its centre.
    this.offset = Math.hypot(box[3] - box[0], box[4] - box[1], box[5] - box[2]) / 2;
  }

  fill(f: CullFrame, projection: number, viewportHeight: number, viewProjection: ArrayLike<number>): void {
    this.viewProjection = viewProjection;
    const switchDistance = distanceForPixels(this.size, this.pixels, projection, viewportHeight);
    this.switchDistance = switchDistance;
    f.impostorDistance = Math.max(0, switchDistance - this.offset);
    this.pixelsAtUnit = (projection * viewportHeight) / 2;
    // Dots: where the sphere spans dotPixels (distanceForPixels: NEVER for 0), from the centre as the switch.
    f.impostorDot = Math.max(f.impostorDistance, distanceForPixels(this.size, this.dotPixels, projection, viewportHeight) - this.offset);
    // The band: (1 - band) x the switch distance up to it, its meshes at the level the atlas shows
    // (the level at the switch), so that the impostor takes over from the mesh it was baked from.
    f.impostorBand = Math.min(f.impostorDistance, Math.max(0, switchDistance * (1 - this.band) - this.offset));
    f.bandLevel = levelAtSwitch(this.errors, this.kernel.lodSettings, this.size, this.pixels);
    f.impostorClips.set(this.clipBits);
    this.frame = f;
  }

  count(words: Uint32Array, stats: CullStats, indicesPerLevel: readonly number[]): CullStats {
    // The band's instances are drawn twice (a mesh at the frame's bandLevel and an impostor, each faded): in
    // both of those perLevel entries and in `band`, once in `visible`, both draws in `vertices`.
    const band = words[CULL_COUNTERS.band];
    const level = Math.min(this.frame?.bandLevel ?? 0, indicesPerLevel.length - 1);
    // Dots are impostors (the impostor level) of one vertex each, also counted in `dots`.
    const dots = words[CULL_COUNTERS.dot];
    const impostors = words[CULL_COUNTERS.impostor];
    stats.visible += impostors + dots + band;
    stats.perLevel[level] += band;
    stats.perLevel.push(impostors + dots + band);
    stats.vertices += band * indicesPerLevel[level] + IMPOSTOR_VERTICES * (impostors + band) + dots;
    stats.band = band;
    stats.dots = dots;
    return stats;
  }

  /** Where the impostor and band lists and their draws' arguments sit in `lists` (the frame's, EncodedFrame.routed): one object, refilled. */
  draws(lists: RoutedLists): ImpostorDraws {
    const d = this.lists;
    const listStride = this.kernel.store.listStride;
    d.args = lists.args;
    d.counters = lists.counters;
    d.argsOffset = lists.argsOffset(2, 0, 0);
    d.listOffset = lists.impostorListOffset;
    d.bandArgsOffset = d.argsOffset + CULL_ARGS.impostorWords * 4;
    d.dotArgsOffset = d.bandArgsOffset + (CULL_ARGS.impostorWords + this.kernel.draws.mesh.primitives.length * CULL_ARGS.drawWords) * 4;
    d.bandListOffset = lists.bandListOffset(listStride);
    d.bandListBytes = 2 * listStride * 4;
    return d;
  }
}
