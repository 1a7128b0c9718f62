import type { CrowdImpostors } from '../../src/features/impostors/crowd-impostors';
import { boxSphere } from '../../src/features/impostors/impostor-atlas';
import { distanceForPixels, projectionScale } from '../../src/runtime/culling/cull-math';
import { lookAt } from './render';

/** The impostor GPU tests' crowd targets (8-bit colour read back, a depth buffer). */
export const IMPOSTOR_TARGETS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** A small atlas that bakes in a moment: 4 frames a clip (the tested times baked frames), 4 azimuths (90 and 180 degrees: view cells), one row. */
export const SMALL_ATLAS = { frames: 4, azimuths: 4, elevations: 1 } as const;

/** The impostor tests' view: a 128-pixel target whose field of view puts the camera as far from a character at the switch as a 1080-pixel view at 0.9 rad does. */
export const SWITCH_VIEW: { readonly size: number; readonly fovY: number } = { size: 128, fovY: 2 * Math.atan((Math.tan(0.45) * 128) / 1080) };

/**
 * A camera `factor` x the impostor switch distance from the centre of `impostors`' box (there its
 * framing sphere spans switchPixels / factor pixels of a `size`-pixel view of field of view `fovY`,
 * radians), on the model direction (sin a cos e, sin e, cos a cos e) of azimuth `a` and elevation
 * `e` (radians), looking at the centre: its eye and view-projection (near and far a quarter and 4x
 * the distance).
 */
export function cameraAtSwitch(impostors: CrowdImpostors, a: number, e: number, size: number = SWITCH_VIEW.size, fovY: number = SWITCH_VIEW.fovY, factor = 1.02) {
  const { centre, radius } = boxSphere(impostors.atlas.box);
  const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY });
  const d = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), size) * factor;
  const eye: [number, number, number] = [centre[0] + Math.sin(a) * Math.cos(e) * d, centre[1] + Math.sin(e) * d, centre[2] + Math.cos(a) * Math.cos(e) * d];
  return lookAt(eye, centre, { fovY, near: d / 4, far: 4 * d });
}
