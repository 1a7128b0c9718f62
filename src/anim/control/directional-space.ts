import { BlendSpace2D, type BlendSpace2DEntry } from '../blend-space-2d';
import { DIRECTIONS, type LocomotionConfig } from './config';

/**
 * The 2D locomotion blend (LocomotionConfig.blendSpace "2d"): one BlendSpace2D over the
 * character's velocity relative to its heading, in units of walkSpeed (x to the character's
 * right, y forward). The idle clip sits at the origin; each direction's walk clip at distance 1
 * in that direction and its run clip at distance 2 (running doubles the maximum speed), so
 *
 *   forward (0, 1), forward-right (0.71, 0.71), right (1, 0), ..., forward-left (-0.71, 0.71)
 *
 * for walks, twice that for runs: 17 points, Delaunay-triangulated once. A velocity between two
 * directions blends their clips (and idle or the runs) by barycentric weights, so a character
 * turns from walking forward to strafing through the diagonals without a switch of clip set. A
 * direction set to "none" puts the idle clip at its walk and run points (idle while moving that
 * way, as with sectors). Outside the run ring the blend is clamped to the ring.
 *
 * Between two neighbouring walk points the ring's chord lies inside the circle of radius 1 (at
 * cos 22.5 deg = 0.92 halfway), so a velocity of exactly walkSpeed halfway between two directions
 * carries up to 8% of the run clips; one that follows a direction of the ring is exact.
 */
export function directionalBlendSpace(config: LocomotionConfig, duration: (clip: number) => number): BlendSpace2D {
  const entries: BlendSpace2DEntry[] = [{ clip: config.idle, x: 0, y: 0, duration: duration(config.idle) }];
  DIRECTIONS.forEach((direction, k) => {
    // DIRECTIONS go clockwise from forward seen from above, 45 degrees apart: right is +x here.
    const angle = (k * Math.PI) / 4;
    const x = round(Math.sin(angle));
    const y = round(Math.cos(angle));
    const set = config.directions[direction];
    const walk = set ? set.walk : config.idle;
    const run = set ? set.run : config.idle;
    entries.push({ clip: walk, x, y, duration: duration(walk) }, { clip: run, x: 2 * x, y: 2 * y, duration: duration(run) });
  });
  return new BlendSpace2D(entries);
}

/** sin and cos of multiples of 45 degrees without float dust (cos 90 deg is 6e-17, not 0). */
const round = (v: number): number => (Math.abs(v) < 1e-12 ? 0 : v);
