import type { CullStats } from '../crowd-types';
import type { CullFrame } from './cull-pass';

/**
 * A feature's routing of far instances away from the crowd's meshes (CrowdKernel.routeFar; the
 * impostor feature's, src/features/impostors/impostor-route.ts). The kernel's cull pass holds the
 * lists (shaders/culling/cull.wgsl: the impostor list, unposed, and the band's list with a fade,
 * posed) and its palette pass hands the band's meshes joint sets; what only a page that routes
 * needs lives with the feature: each frame's switch distances, where the lists sit in the cull
 * pass's arguments, and how the cull stats count the routed instances. A crowd without a route
 * fills its frames with NEVER for both distances: nothing is routed.
 */
export interface CullRoute {
  /**
   * Last in CullSettings.fill, every culled frame: sets `frame.impostorDistance` and
   * `frame.impostorBand` and `frame.impostorDot` (distances / scale; NEVER: none), `frame.bandLevel` (the LOD level
   * the band's meshes draw) and `frame.impostorClips` (the clips it has impostors of) from the frame's flags, LOD distances
   * and forced level (filled before), `projection` (cull-math.ts projectionScale of the camera)
   * and the viewport's height in pixels; `viewProjection` is the camera's (column-major, world to
   * clip; the settings' own array, read until the next fill).
   */
  fill(frame: CullFrame, projection: number, viewportHeight: number, viewProjection: ArrayLike<number>): void;
  /**
   * The cull stats of a frame that routed (CullStatsReader): `stats` as the kernel counts its
   * meshes (camera lists only), with the routed instances added from the counter words
   * (CULL_COUNTERS); `indicesPerLevel`: indices one instance draws at each LOD level.
   */
  count(words: Uint32Array, stats: CullStats, indicesPerLevel: readonly number[]): CullStats;
}

/**
 * The cull pass's routed lists of the last culled frame (EncodedFrame.routed; CullPass satisfies
 * it): not owned by the reader, and read at encode or draw time (the buffer is replaced when it grows).
 */
export interface RoutedLists {
  /** The cull pass's arguments buffer: indirect arguments (CULL_ARGS), then the routed lists. */
  readonly args: GPUBuffer;
  /** The cull pass's counters (CULL_COUNTERS): how many each list holds. */
  readonly counters: GPUBuffer;
  /** Byte offset in `args` of the arguments of (list, level, primitive): list 2, level 0, primitive 0 is the impostor draw's. */
  argsOffset(list: number, level: number, primitive: number): number;
  /** Byte offset in `args` of the impostor list (u32 slots; 256-aligned). */
  readonly impostorListOffset: number;
  /** Byte offset in `args` of the band list for lists of `listStride` entries. */
  bandListOffset(listStride: number): number;
}
