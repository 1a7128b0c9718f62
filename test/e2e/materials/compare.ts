/**
 * The materials comparison's measure and tolerance (materials.test.ts, docs/materials.md), shared
 * with the other pictures held to it (three-lighting.test.ts: the two shadings under three's lights).
 * Over the pixels either image covers (not black in both): a mean absolute difference of at most
 * MEAN_TOLERANCE (0-255, per channel) and at most SHARE_TOLERANCE of them differing by more than
 * PIXEL_THRESHOLD in some channel.
 */
import type { Image } from '../pixels';

export const MEAN_TOLERANCE = 6;
export const PIXEL_THRESHOLD = 32;
export const SHARE_TOLERANCE = 0.08;

/** What compare measures: mean absolute channel difference, share of pixels over PIXEL_THRESHOLD, pixels covered. */
export interface Difference { mean: number; share: number; covered: number }

/** Mean absolute channel difference and the share over PIXEL_THRESHOLD, over pixels not black in either image. */
export function compare(a: Image, b: Image): Difference {
  let sum = 0;
  let over = 0;
  let covered = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    const lit = (img: Image) => img.data[i] + img.data[i + 1] + img.data[i + 2] > 0;
    if (!lit(a) && !lit(b)) continue;
    covered++;
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(a.data[i + c] - b.data[i + c]);
      sum += d;
      worst = Math.max(worst, d);
    }
    if (worst > PIXEL_THRESHOLD) over++;
  }
  return { mean: covered ? sum / (3 * covered) : 0, share: covered ? over / covered : 0, covered };
}

/** Whether `d` is within the tolerance. */
export function withinTolerance(d: Difference): boolean {
  return d.mean <= MEAN_TOLERANCE && d.share <= SHARE_TOLERANCE;
}
