/**
 * Blend curves: the weight of a fade's target as a function of normalised fade time u in [0, 1]
 * (0 at the start, 1 at the end). A curve must map 0 to 0 and 1 to 1.
 */
export type BlendCurve = 'linear' | 'cubic' | ((u: number) => number);

/**
 * The cubic ease of the animation literature: beta(u) = (v^3 + 3v^2 u) beta_start +
 * (3 v u^2 + u^3) beta_end with v = 1 - u. For a fade-in (beta_start 0, beta_end 1) that is
 * 3u^2 - 2u^3: zero slope at both ends, so the weight starts and lands without a kink.
 */
export function cubicEase(u: number, start = 0, end = 1): number {
  const v = 1 - u;
  return (v * v * v + 3 * v * v * u) * start + (3 * v * u * u + u * u * u) * end;
}

export function evaluateCurve(curve: BlendCurve, u: number): number {
  const x = u <= 0 ? 0 : u >= 1 ? 1 : u;
  if (curve === 'linear') return x;
  if (curve === 'cubic') return cubicEase(x);
  const w = curve(x);
  if (!Number.isFinite(w)) throw new RangeError(`custom blend curve returned ${w} at u = ${x}`);
  return w < 0 ? 0 : w > 1 ? 1 : w;
}

/** Points a custom curve is sampled at (u = i / CURVE_CHECK_SAMPLES) before a fade may use it. */
const CURVE_CHECK_SAMPLES = 64;

/**
 * Throws a RangeError starting with `where` when custom `curve` throws or returns a non-finite
 * weight anywhere in [0, 1] (sampled at 65 points), so that a fade refuses it up front instead
 * of failing frames later, mid-fade. 'linear' and 'cubic' pass.
 */
export function checkCurveValues(curve: BlendCurve, where: string): void {
  if (typeof curve !== 'function') return;
  for (let i = 0; i <= CURVE_CHECK_SAMPLES; i++) {
    try {
      evaluateCurve(curve, i / CURVE_CHECK_SAMPLES);
    } catch (error) {
      throw new RangeError(`${where}: ${(error as Error).message}`);
    }
  }
}

export function checkCurve(curve: unknown, where: string): BlendCurve {
  if (curve === 'linear' || curve === 'cubic' || typeof curve === 'function') return curve as BlendCurve;
  throw new RangeError(`${where} must be "linear", "cubic" or a function of u in [0, 1], got ${JSON.stringify(curve)}`);
}

/**
 * Numbers for blend curves, so that a controller's state can be saved into a typed array
 * (AnimationController.saveState): 0 'linear', 1 'cubic', 2 + k the k-th custom function seen.
 * One per ControllerRuntime; it keeps every custom function it has numbered (a driver that saves
 * states, the GPU one, holds at most 64: CurveTables).
 */
export class CurveCodes {
  private readonly functions: ((u: number) => number)[] = [];
  private readonly index = new Map<(u: number) => number, number>();

  /** The number of `curve`, given one on first sight. */
  code(curve: BlendCurve): number {
    if (curve === 'linear') return 0;
    if (curve === 'cubic') return 1;
    let k = this.index.get(curve);
    if (k === undefined) {
      k = this.functions.push(curve) - 1;
      this.index.set(curve, k);
    }
    return 2 + k;
  }

  /** The curve numbered `code` by code(). */
  curve(code: number): BlendCurve {
    return code === 0 ? 'linear' : code === 1 ? 'cubic' : this.functions[code - 2];
  }
}
