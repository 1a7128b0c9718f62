import { morphLayout } from '../bake/bake-morph';
import type { Rig, SkinnedPrimitive } from '../bake/rig';
import { sampleWeightsChannel } from '../bake/sampler';
import { wrapTime } from '../math/time';
import type { TwoClipRequest } from './evaluate';
import type { CpuLayerStack } from './layers';

/**
 * Morph weights on the CPU: the reference that shaders/morph/morph.wgsl (weights per instance) and the
 * morph entry points of shaders/skin.wgsl (displaced vertices) are checked against.
 *
 * Weights are the padded vector of BakedMorph (set m's targets from setBase[m], 4 x groups
 * floats). They blend with the weights of the clips, the rules of src/anim/layers.ts applied to
 * numbers, group by group, a group's mask weight being that of its set's maskNode:
 * 1. W = weights(base clip); a two-clip record: W = mix(W(A), W(B), blend).
 * 2. Each override layer: W = mix(W, W(layer clip), weight * mask).
 * 3. Each additive layer: W += weight * mask * (W(layer clip) - W(reference)), the reference's
 *    weights being a clip's, the default weights ('rest'), or 0 ('identity', difference clips).
 * 4. Per-instance overrides (CrowdMorph.set) replace the result where set.
 * A clip that does not animate a morph set holds its default weights.
 */

/** Writes clip `clip`'s padded morph weights at `time` (seconds, wrapped) into `out`. */
export type MorphSampler = (clip: number, time: number, out: Float64Array) => Float64Array;

/** The exact morph sampler of `rig`'s clips (the glTF sampler on each weights channel), in the padded layout. */
export function exactMorphSampler(rig: Rig): MorphSampler {
  const layout = morphLayout(rig);
  const scratch = new Float64Array(Math.max(0, ...layout.targetCounts));
  return (clip, time, out) => {
    out.fill(0, 0, layout.groups * 4);
    out.set(layout.rest);
    const c = rig.clips[clip];
    const t = wrapTime(time, c.duration);
    for (const channel of c.weights ?? []) {
      const n = layout.targetCounts[channel.morph];
      sampleWeightsChannel(channel, n, t, scratch, 0);
      for (let i = 0; i < n; i++) out[layout.setBase[channel.morph] + i] = scratch[i];
    }
    return out;
  };
}

/** What MorphEvaluator needs of the bake: BakedMorph satisfies it. */
export interface MorphShape {
  groups: number;
  /** Default weights, padded. */
  rest: Float32Array;
  /** Rig node of each group's mask weight. */
  maskNodes: Uint32Array;
}

/** Evaluates blended morph weights (rules above). Owns its scratch: no allocation per call. */
export class MorphEvaluator {
  private readonly layer: Float64Array;
  private readonly reference: Float64Array;

  constructor(private readonly shape: MorphShape, private readonly sampler: MorphSampler) {
    this.layer = new Float64Array(shape.groups * 4);
    this.reference = new Float64Array(shape.groups * 4);
  }

  /** Weights of a two-clip record into `out` (4 x groups floats). */
  blend(request: TwoClipRequest, out: Float64Array): Float64Array {
    this.sampler(request.clipA, request.timeA, out);
    const blend = request.blend ?? 0;
    if (request.clipB !== undefined && blend > 0) {
      this.sampler(request.clipB, request.timeB ?? request.timeA, this.layer);
      for (let i = 0; i < this.layer.length; i++) out[i] += (this.layer[i] - out[i]) * blend;
    }
    return out;
  }

  /** Weights of a layer stack (masks indexed by rig node, as StackEvaluator takes them) into `out`. */
  stack(stack: CpuLayerStack, out: Float64Array): Float64Array {
    const { groups, maskNodes, rest } = this.shape;
    this.sampler(stack.base.clip, stack.base.time, out);
    for (const layer of stack.layers) {
      if (!(layer.weight > 0)) continue;
      this.sampler(layer.clip, layer.time, this.layer);
      for (let g = 0; g < groups; g++) {
        const w = layer.weight * (layer.mask ? layer.mask[maskNodes[g]] : 1);
        if (w > 0) for (let c = g * 4; c < g * 4 + 4; c++) out[c] += (this.layer[c] - out[c]) * w;
      }
    }
    for (const layer of stack.additive) {
      if (!(layer.weight > 0)) continue;
      this.sampler(layer.clip, layer.time, this.layer);
      if (layer.reference === 'rest') this.reference.set(rest);
      else if (layer.reference === 'identity') this.reference.fill(0);
      else this.sampler(layer.reference.clip, layer.reference.time, this.reference);
      for (let g = 0; g < groups; g++) {
        const w = layer.weight * (layer.mask ? layer.mask[maskNodes[g]] : 1);
        if (w > 0) for (let c = g * 4; c < g * 4 + 4; c++) out[c] += w * (this.layer[c] - this.reference[c]);
      }
    }
    return out;
  }
}

/** Replaces `weights[i]` by `overrides[i]` wherever the override is set (not NaN). */
export function applyMorphOverrides(weights: Float64Array, overrides: ArrayLike<number>): Float64Array {
  for (let i = 0; i < weights.length; i++) if (!Number.isNaN(overrides[i])) weights[i] = overrides[i];
  return weights;
}

/**
 * The morphed positions (and normals, when the primitive has normal displacements and `normals`
 * is given: its unmorphed normals in, morphed out) of `prim` under padded `weights`, set after
 * set from `setBase`: p = p0 + sum_t w_t * delta_t, not normalised (as the vertex shader).
 * A primitive without morph targets is copied.
 */
export function morphPrimitive(prim: SkinnedPrimitive, weights: ArrayLike<number>, setBase: ArrayLike<number>, positions: Float64Array,
  normals?: Float64Array): Float64Array {
  positions.set(prim.positions);
  const morph = prim.morph;
  if (!morph) return positions;
  const base = setBase[morph.set];
  morph.positions.forEach((delta, t) => {
    const w = weights[base + t];
    if (w === 0) return;
    for (let i = 0; i < delta.length; i++) positions[i] += w * delta[i];
    const n = morph.normals?.[t];
    if (normals && n) for (let i = 0; i < n.length; i++) normals[i] += w * n[i];
  });
  return positions;
}
