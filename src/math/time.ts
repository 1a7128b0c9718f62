/** Clip time arithmetic shared by the exact sampler, the lookup tables, the controllers and the GPU records. */

/** Wraps t into [0, d) as t - floor(t/d)*d (t = d gives 0, negative t wraps forward); 0 when d = 0. */
export function wrapTime(t: number, duration: number): number {
  if (!(duration > 0)) return 0;
  const wrapped = t - Math.floor(t / duration) * duration;
  return wrapped >= duration ? 0 : wrapped; // guards float rounding of tiny negative t
}
