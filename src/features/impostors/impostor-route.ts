import type { CullStats } from '../../runtime/crowd-types';
import type { CullFrame } from '../../runtime/culling/cull-pass';
import { distanceForPixels, NEVER } from '../../runtime/culling/cull-math';
import type { CullRoute, RoutedLists } from '../../runtime/culling/cull-route';
import type { CrowdKernel } from '../../runtime/feature';
import { CULL_ARGS, CULL_COUNTERS, CULL_LOD, IMPOSTOR_VERTICES, LOD_NOT_FORCED } from '../../runtime/layout';

/** The impostor list of a culled frame (ImpostorRoute.draws): not owned by the reader. */
export interface ImpostorDraws {
  /** The cull pass's arguments buffer (replaced when it grows): the drawIndirect arguments (IMPOSTOR_VERTICES, impostor count, 0, 0) at `argsOffset` bytes, the list (u32 slots) from `listOffset` bytes. */
  args: GPUBuffer;
  argsOffset: number;
  listOffset: number;
  /** The band: its impostors' drawIndirect arguments at `bandArgsOffset` bytes, then its meshes' drawIndexedIndirect arguments (one quintuple per primitive, at the band's level). */
  bandArgsOffset: number;
  /** The band list at `bandListOffset` bytes: listStride u32 slots (the band's count of them), then listStride f32 fades by slot (0 at the band's start, 1 at the switch); `bandListBytes` bytes in all. */
  bandListOffset: number;
  bandListBytes: number;
}

/**
 * The impostor feature's route through the kernel's cull pass (CullRoute, handed in by
 * CrowdKernel.routeFar): visible instances whose `size` (model units, scaled with the instance)
 * spans at most `pixels` pixels on the camera's viewport go to the impostor list, neither posed
 * nor drawn as meshes (unless they cast into the shadow map), counted by the cull stats as one
 * more level of IMPOSTOR_VERTICES (4) each. `band` in [0, 1): instances from (1 - band) x the
 * switch distance up to it are the band, posed and listed with a fade, drawn both ways by the
 * feature. Owned by CrowdImpostors; fill and draws allocate nothing.
 */
export class ImpostorRoute implements CullRoute {
  /** Model units the cull pass's distance leaves out (the radius of the box it tests): taken off the switch so that it measures from the centre. */
  private readonly offset: number;
  /** The frame the last fill filled (CullSettings.frame, refilled each frame; the crowd clears its flags when it has no camera). */
  private frame: CullFrame | undefined;
  private readonly lists: ImpostorDraws = { args: undefined as unknown as GPUBuffer, argsOffset: 0, listOffset: 0, bandArgsOffset: 0, bandListOffset: 0, bandListBytes: 0 };

  /**
   * @param kernel the crowd's (its cull bounds and character say which box the cull pass tests)
   * @param size model units the switch measures
   * @param pixels pixels `size` spans at the switch (> 0)
   * @param band the band's fraction of the switch distance, in [0, 1)
   */
  constructor(private readonly kernel: CrowdKernel, private readonly size: number, private readonly pixels: number, private readonly band: number) {
    const bounds = kernel.character.animationBounds;
    const box = kernel.options.cullBounds === 'authored' ? bounds.box : bounds.reach;
    // The cull pass measures from the box's bounding sphere, the switch from its centre.
    this.offset = Math.hypot(box[3] - box[0], box[4] - box[1], box[5] - box[2]) / 2;
  }

  fill(f: CullFrame, projection: number, viewportHeight: number): void {
    const switchDistance = distanceForPixels(this.size, this.pixels, projection, viewportHeight);
    f.impostorDistance = Math.max(0, switchDistance - this.offset);
    // The band's meshes draw one level (lodLevel of its start): it starts no nearer than the coarsest level, so none changes level in it.
    const lod = (f.flags & CULL_LOD) !== 0 && f.forcedLevel === LOD_NOT_FORCED;
    let coarsest = 0;
    for (let i = 0; i < 4 && lod; i++) if (f.lodDistances[i] < NEVER / 2) coarsest = Math.max(coarsest, f.lodDistances[i]);
    f.impostorBand = Math.min(f.impostorDistance, Math.max(0, switchDistance * (1 - this.band) - this.offset, coarsest));
    this.frame = f;
  }

  count(words: Uint32Array, stats: CullStats, indicesPerLevel: readonly number[]): CullStats {
    // The band's instances are drawn twice (a mesh at bandLevel and an impostor, each faded): in
    // both of those perLevel entries and in `band`, once in `visible`, both draws in `vertices`.
    const band = words[CULL_COUNTERS.band];
    const level = this.bandLevel(indicesPerLevel.length);
    const impostors = words[CULL_COUNTERS.impostor];
    stats.visible += impostors + band;
    stats.perLevel[level] += band;
    stats.perLevel.push(impostors + band);
    stats.vertices += band * indicesPerLevel[level] + IMPOSTOR_VERTICES * (impostors + band);
    stats.band = band;
    return stats;
  }

  /** The LOD level the band's meshes draw, of `levels`: the cull pass's lodLevel (cull.wgsl) at the band's start in the last filled frame. */
  private bandLevel(levels: number): number {
    const f = this.frame;
    if (!f) return 0;
    if (f.forcedLevel !== LOD_NOT_FORCED) return Math.min(f.forcedLevel, levels - 1);
    let level = 0;
    if ((f.flags & CULL_LOD) !== 0) for (let i = 0; i + 1 < levels; i++) if (f.impostorBand >= f.lodDistances[i]) level = i + 1;
    return level;
  }

  /** Where the impostor and band lists and their draws' arguments sit in `lists` (the frame's, EncodedFrame.routed): one object, refilled. */
  draws(lists: RoutedLists): ImpostorDraws {
    const d = this.lists;
    const listStride = this.kernel.store.listStride;
    d.args = lists.args;
    d.argsOffset = lists.argsOffset(2, 0, 0);
    d.listOffset = lists.impostorListOffset;
    d.bandArgsOffset = d.argsOffset + CULL_ARGS.impostorWords * 4;
    d.bandListOffset = lists.bandListOffset(listStride);
    d.bandListBytes = 2 * listStride * 4;
    return d;
  }
}
