import type { LayerStackArrays } from '../src/index';

/**
 * How much each clip shows in a controller's output stack, for plotting: `dst[clip]` in
 * [0, 1]. The stack is a base clip and override layers applied in order (layer i mixes its clip
 * in with weight w_i), so an unmasked layer's clip shows w_i times the (1 - w_j) of every
 * unmasked layer after it, and the base the product of all (1 - w_j). A masked layer (an
 * upper-body action) moves only part of the body: it is reported at its own weight and does not
 * reduce the others. Allocation-free; `dst` holds one entry per clip.
 */
export function clipWeights(out: LayerStackArrays, dst: Float32Array): void {
  dst.fill(0);
  let remaining = 1;
  for (let i = out.layerCount - 1; i >= 0; i--) {
    const w = out.layerWeight[i];
    if (out.layerMask[i] >= 0) {
      dst[out.layerClip[i]] = Math.max(dst[out.layerClip[i]], w);
      continue;
    }
    dst[out.layerClip[i]] += remaining * w;
    remaining *= 1 - w;
  }
  dst[out.baseClip] += remaining;
}
