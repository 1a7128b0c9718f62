import type { RigNodes } from '../bake/rig';
import type { ClipSampler } from './evaluate';
import { blendPoses, createPose, type Pose } from '../math/pose';
import { nlerpInto, quatMulAt } from '../math/quat';

/**
 * Layered blending: the semantics that shaders/pose.wgsl implements for a layer stack. All of it
 * is evaluated per rig node j in local space:
 *
 * 1. P = sample(base clip, base time).
 * 2. Each override layer i, in order: P_j = mix(P_j, sample(clip_i, time_i)_j, weight_i * mask_i(j)),
 *    lerp for translation and scale, shortest-path nlerp for rotation (the project's blend, see
 *    pose.ts). With one unmasked override layer this is exactly the two-clip blend.
 * 3. Each additive layer k, after all override layers, with w = weight_k * mask_k(j), A the
 *    layer's pose and R its reference pose (the same clip at another time, another clip, or the
 *    rest pose):
 *      translation += w * (A.t - R.t)
 *      rotation     = normalise(rotation * nlerp(identity, conj(R.r) * A.r, w))   (shortest path)
 *      scale       *= 1 + w * (A.s / R.s - 1)    (componentwise; where a reference scale component is 0
 *                                                 the ratio is taken as 1, leaving that component unchanged)
 *    so w = 0 changes nothing and w = 1 adds the whole difference; scale differences multiply.
 *
 * A mask gives every rig node a weight in [0, 1] (see masks.ts); no mask means 1 everywhere.
 * Weights are in [0, 1]; a node whose effective weight is 0 is left untouched.
 */

export interface ClipTime {
  clip: number;
  /** Seconds, wrapped into the clip. */
  time: number;
}

export interface OverrideLayer extends ClipTime {
  weight: number;
  /** Weight per rig node in [0, 1], or undefined for 1 everywhere. */
  mask?: Float32Array;
}

export interface AdditiveLayer extends ClipTime {
  weight: number;
  /**
   * The pose the difference is taken from: a clip at a time, the rest pose, or 'identity'
   * (translation 0, rotation identity, scale 1) for a difference clip, which already holds A - R.
   */
  reference: ClipTime | 'rest' | 'identity';
  mask?: Float32Array;
}

/**
 * A layer stack resolved for the CPU reference (StackEvaluator, CpuPoser, the pose dump's
 * exact and lut backends): clip indices, masks as weights per node. Internal: people write a
 * LayerStackInit (layer-stack.ts), which stack-json.ts resolves into this.
 */
export interface CpuLayerStack {
  base: ClipTime;
  layers: OverrideLayer[];
  additive: AdditiveLayer[];
}

/**
 * Evaluates layer stacks into local poses. Owns its scratch poses: one instance serves any
 * number of calls without allocating.
 */
export class StackEvaluator {
  private readonly layer: Pose;
  private readonly reference: Pose;

  constructor(private readonly nodes: RigNodes, private readonly sampler: ClipSampler) {
    this.layer = createPose(nodes.count);
    this.reference = createPose(nodes.count);
  }

  evaluate(stack: CpuLayerStack, out: Pose): Pose {
    const n = this.nodes.count;
    checkLayers(stack.layers, n);
    checkLayers(stack.additive, n);
    this.sampler(stack.base.clip, stack.base.time, out);
    for (const layer of stack.layers) {
      if (!(layer.weight > 0)) continue;
      this.sampler(layer.clip, layer.time, this.layer);
      if (!layer.mask) {
        blendPoses(out, this.layer, layer.weight, out);
        continue;
      }
      for (let j = 0; j < n; j++) mixNode(out, this.layer, j, layer.weight * layer.mask[j]);
    }
    for (const layer of stack.additive) {
      if (!(layer.weight > 0)) continue;
      this.sampler(layer.clip, layer.time, this.layer);
      if (layer.reference === 'rest') {
        this.reference.translation.set(this.nodes.restTranslation);
        this.reference.rotation.set(this.nodes.restRotation);
        this.reference.scale.set(this.nodes.restScale);
      } else if (layer.reference === 'identity') {
        this.reference.translation.fill(0);
        this.reference.scale.fill(1);
        for (let j = 0; j < n; j++) this.reference.rotation.set(IDENTITY, j * 4);
      } else {
        this.sampler(layer.reference.clip, layer.reference.time, this.reference);
      }
      for (let j = 0; j < n; j++) {
        addNode(out, this.layer, this.reference, j, layer.weight * (layer.mask ? layer.mask[j] : 1));
      }
    }
    return out;
  }
}

function checkLayers(layers: readonly { weight: number; mask?: Float32Array }[], nodeCount: number): void {
  for (const layer of layers) {
    if (!(layer.weight >= 0 && layer.weight <= 1)) throw new RangeError(`layer weight must be in [0, 1], got ${layer.weight}`);
    if (layer.mask && layer.mask.length !== nodeCount) throw new RangeError(`mask has ${layer.mask.length} weights, the rig has ${nodeCount} nodes`);
  }
}

/** P_j = mix(P_j, B_j, w) for one node. */
function mixNode(p: Pose, b: Pose, j: number, w: number): void {
  if (!(w > 0)) return;
  for (let c = 0; c < 3; c++) {
    p.translation[j * 3 + c] += (b.translation[j * 3 + c] - p.translation[j * 3 + c]) * w;
    p.scale[j * 3 + c] += (b.scale[j * 3 + c] - p.scale[j * 3 + c]) * w;
  }
  nlerpInto(p.rotation, b.rotation, j * 4, w, p.rotation);
}

const IDENTITY = new Float64Array([0, 0, 0, 1]);
const delta = new Float64Array(4);
const weighted = new Float64Array(4);
const product = new Float64Array(4);

/** Adds w times the difference A_j - R_j onto P_j (rules in the header). */
function addNode(p: Pose, a: Pose, r: Pose, j: number, w: number): void {
  if (!(w > 0)) return;
  const t = j * 3;
  const o = j * 4;
  for (let c = 0; c < 3; c++) {
    p.translation[t + c] += w * (a.translation[t + c] - r.translation[t + c]);
    const ref = r.scale[t + c];
    const ratio = ref === 0 ? 1 : a.scale[t + c] / ref;
    p.scale[t + c] *= 1 + w * (ratio - 1);
  }
  quatMulAt(r.rotation, o, true, a.rotation, o, delta, 0); // conj(R) * A
  nlerpInto(IDENTITY, delta, 0, w, weighted);
  quatMulAt(p.rotation, o, false, weighted, 0, product, 0); // rotation * weighted, then normalised
  const [x, y, z, ww] = product;
  const inv = 1 / Math.hypot(x, y, z, ww);
  p.rotation[o] = x * inv; p.rotation[o + 1] = y * inv; p.rotation[o + 2] = z * inv; p.rotation[o + 3] = ww * inv;
}

/**
 * A weighted average of several clips (a blend space's 3 or 4 clips) as a layer stack: the first
 * clip is the base, clip i (i >= 2) an override layer of weight w_i / (w_1 + ... + w_i), which
 * reproduces the normalised weighted sum for translation and scale exactly. Each entry is a clip
 * index, a time in seconds (wrapped into the clip) and a weight: finite, >= 0, at least one > 0
 * (weights need not sum to 1; zero weights are left out). Throws a RangeError otherwise.
 */
export function weightedAverageStack(entries: (ClipTime & { weight: number })[]): CpuLayerStack {
  if (entries.length === 0) throw new RangeError('weightedAverageStack needs at least one clip');
  let total = 0;
  for (const e of entries) {
    if (!(e.weight >= 0) || !Number.isFinite(e.weight)) throw new RangeError(`weights must be finite and >= 0, got ${e.weight}`);
  }
  const start = entries.findIndex((e) => e.weight > 0);
  if (start < 0) throw new RangeError('weightedAverageStack needs a positive weight');
  const layers: OverrideLayer[] = [];
  for (let i = start; i < entries.length; i++) {
    total += entries[i].weight;
    if (i > start && entries[i].weight > 0) layers.push({ clip: entries[i].clip, time: entries[i].time, weight: entries[i].weight / total });
  }
  return { base: { clip: entries[start].clip, time: entries[start].time }, layers, additive: [] };
}
