/**
 * The cull pass's arithmetic in TypeScript: frustum planes from a view-projection matrix, the
 * box-against-planes test, and the choice of mesh LOD level and animation step by distance. The
 * CPU side (Crowd) uses it to fill the pass's uniforms, and tests check shaders/culling/cull.wgsl
 * against it. Matrices are column-major 4x4s, world to WebGPU clip space (z in [0, w]).
 */

import { CULL_LOD, LOD_NOT_FORCED } from '../layout';

/** A distance beyond every threshold (the largest float32, so it survives the uniform upload). */
export const NEVER = 3.4e38;

/**
 * Per plane of frustumPlanes: the sign of row a, row a, and row b added (-1: none; the near plane
 * is row 2 alone, as clip z >= 0). Rows of the column-major matrix m: row r, column k is m[k * 4 + r].
 * A table, not literals in the function: it runs two or three times a frame and allocates nothing.
 */
const PLANE_ROWS = [1, 0, 3, -1, 0, 3, 1, 1, 3, -1, 1, 3, 1, 2, -1, -1, 2, 3] as const;

/**
 * The six planes of the frustum of `viewProjection` (left, right, bottom, top, near, far) as
 * (unit normal, d), 4 numbers each, into `out` (24 numbers): a point p is inside a plane when
 * dot(normal, p) + d >= 0 (Gribb and Hartmann's extraction, for clip z in [0, w]).
 */
export function frustumPlanes(m: ArrayLike<number>, out: Float32Array | Float64Array): void {
  for (let i = 0; i < 6; i++) {
    const sign = PLANE_ROWS[3 * i], a = PLANE_ROWS[3 * i + 1], b = PLANE_ROWS[3 * i + 2];
    let len = 0;
    for (let k = 0; k < 4; k++) {
      out[i * 4 + k] = sign * m[k * 4 + a] + (b < 0 ? 0 : m[k * 4 + b]);
      if (k < 3) len += out[i * 4 + k] ** 2;
    }
    len = Math.sqrt(len) || 1;
    for (let k = 0; k < 4; k++) out[i * 4 + k] /= len;
  }
}

/**
 * Vertical projection scale of a view-projection: |row 1 of the 3x3| (cot(fovY / 2) for a
 * perspective camera with a rigid view), so that a length L at distance d spans
 * L * scale / d of the clip space's height of 2.
 */
export function projectionScale(m: ArrayLike<number>): number {
  return Math.hypot(m[1], m[5], m[9]);
}

/**
 * The distance (world units per unit of instance scale) beyond which a feature of `size` model
 * units spans at most `pixels` pixels on a `viewportHeight`-pixel-high view.
 */
export function distanceForPixels(size: number, pixels: number, projection: number, viewportHeight: number): number {
  if (!(size > 0)) return 0;
  if (!(pixels > 0)) return NEVER;
  return Math.min(NEVER, (size * projection * viewportHeight) / (2 * pixels));
}

/** What the cull pass computes for one instance: its oriented box, distance and scale. */
export interface InstanceBounds {
  /** World centre of the box. */
  centre: [number, number, number];
  /** The box's half axes in world space (world columns times half extents). */
  axes: [number, number, number][];
  /** Distance from the camera to the box's bounding sphere (0 inside it). */
  distance: number;
  /** Largest column norm of the world matrix's 3x3. */
  scale: number;
}

/** The oriented box of a model-space box (`box`: min x, y, z, max x, y, z) under `world`, seen from `camera`. */
export function instanceBounds(world: ArrayLike<number>, box: ArrayLike<number>, camera: ArrayLike<number>): InstanceBounds {
  const mid = [0, 1, 2].map((c) => (box[c] + box[c + 3]) / 2);
  const half = [0, 1, 2].map((c) => (box[c + 3] - box[c]) / 2);
  const centre = [0, 1, 2].map((r) => world[r] * mid[0] + world[4 + r] * mid[1] + world[8 + r] * mid[2] + world[12 + r]) as [number, number, number];
  const axes = [0, 1, 2].map((k) => [0, 1, 2].map((r) => world[k * 4 + r] * half[k])) as [number, number, number][];
  const radius = Math.sqrt(axes.reduce((sum, a) => sum + a[0] ** 2 + a[1] ** 2 + a[2] ** 2, 0));
  const distance = Math.max(Math.hypot(centre[0] - camera[0], centre[1] - camera[1], centre[2] - camera[2]) - radius, 0);
  const scale = Math.max(...[0, 1, 2].map((k) => Math.hypot(world[k * 4], world[k * 4 + 1], world[k * 4 + 2])));
  return { centre, axes, distance, scale };
}

/**
 * The box's reach towards a plane is scaled by this before the inside test: a 1e-4 relative margin
 * for float32 rounding in the vertex shader. cull.wgsl gets it through its generated block.
 */
export const PLANE_REACH_SCALE = 1.0001;

/** Whether the box reaches the inner side of all six planes (24 numbers), with the shader's margin (PLANE_REACH_SCALE). */
export function insideAll(planes: ArrayLike<number>, b: InstanceBounds): boolean {
  for (let i = 0; i < 6; i++) {
    const n = [planes[i * 4], planes[i * 4 + 1], planes[i * 4 + 2]];
    const reach = b.axes.reduce((sum, a) => sum + Math.abs(n[0] * a[0] + n[1] * a[1] + n[2] * a[2]), 0);
    if (n[0] * b.centre[0] + n[1] * b.centre[1] + n[2] * b.centre[2] + planes[i * 4 + 3] < -reach * PLANE_REACH_SCALE) return false;
  }
  return true;
}

/**
 * The mesh LOD level for a distance divided by the instance's scale: the number of thresholds
 * (`distances[i]`, where level i + 1 begins) it has reached, below `levels`.
 */
export function lodLevel(scaledDistance: number, distances: ArrayLike<number>, levels: number): number {
  let level = 0;
  for (let i = 0; i + 1 < levels; i++) if (scaledDistance >= distances[i]) level = i + 1;
  return level;
}

/**
 * Into `out` (one number a level after level 0, MAX_LOD_LEVELS of them): the distance / scale
 * at which mesh LOD level l begins, where its simplification error `errors[l]` (model units)
 * spans `pixelError` pixels (distanceForPixels); NEVER past the last level. CullSettings fills
 * each frame's thresholds with it, and the impostor feature the level at its switch.
 */
export function lodDistances(errors: readonly number[], pixelError: number, projection: number, viewportHeight: number, out: Float32Array | Float64Array): void {
  for (let level = 1; level <= out.length; level++) {
    out[level - 1] = level < errors.length ? distanceForPixels(errors[level], pixelError, projection, viewportHeight) : NEVER;
  }
}

/**
 * The level cull.wgsl's lodLevel gives a distance divided by the instance's scale under a
 * frame's switches: the forced level (below `levels`) when `frame.forcedLevel` is not
 * LOD_NOT_FORCED, 0 without CULL_LOD in `frame.flags`, else lodLevel of its thresholds.
 */
export function frameLodLevel(scaledDistance: number, frame: { readonly flags: number; readonly forcedLevel: number; readonly lodDistances: ArrayLike<number> }, levels: number): number {
  if (frame.forcedLevel !== LOD_NOT_FORCED) return Math.min(frame.forcedLevel, levels - 1);
  return (frame.flags & CULL_LOD) === 0 ? 0 : lodLevel(scaledDistance, frame.lodDistances, levels);
}

/** Pose every 1st, 2nd or 4th frame: 4 beyond distances[1], 2 beyond distances[0] (scaled distances). */
export function animationStep(scaledDistance: number, distances: ArrayLike<number>): 1 | 2 | 4 {
  return scaledDistance >= distances[1] ? 4 : scaledDistance >= distances[0] ? 2 : 1;
}

/**
 * Whether an instance in `slot` with animation step `step` is posed on `frame`: always when the
 * pose in its joint matrices belongs to another instance (`stampChanged`) or is `step` frames
 * old or more (it was not visible), else on its phase, so that the load spreads over frames.
 * Frames are u32 counters (wrapping).
 */
export function poseDue(frame: number, slot: number, step: number, posedFrame: number, stampChanged: boolean): boolean {
  return stampChanged || ((frame - posedFrame) >>> 0) >= step || ((frame + slot) >>> 0) % step === 0;
}
