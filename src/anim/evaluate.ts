import type { Rig, SkinnedPrimitive } from '../bake/rig';
import { StackEvaluator, type CpuLayerStack } from './layers';
import { MorphEvaluator, exactMorphSampler, morphPrimitive, type MorphSampler } from './morph';
import { morphLayout, type MorphLayout } from '../bake/bake-morph';
import { skinPositions } from './skinning';
import { blendPoses, createPose, jointMatrices, localToModel, type Pose } from '../math/pose';

/** Samples a clip into a local pose: the exact sampler or the lookup-table evaluator. */
export type ClipSampler = (clip: number, time: number, out: Pose) => Pose;

/** The card's two-clip record: clip A at time A, blended toward clip B at time B by `blend`. */
export interface TwoClipRequest {
  clipA: number;
  /** Seconds, wrapped into clip A's duration. */
  timeA: number;
  clipB?: number;
  timeB?: number;
  /** In [0, 1]; 0 = only clip A. */
  blend?: number;
}

/**
 * CPU evaluation of one character: local pose -> model matrices -> joint matrices. Owns its
 * scratch poses and matrices, so repeated calls do not allocate.
 */
export class CpuPoser {
  readonly poseA: Pose;
  readonly poseB: Pose;
  /** 16 numbers per rig node, scene space. */
  readonly model: Float64Array;

  /**
   * `sampler` samples clips into local poses; `morphSampler` samples their morph weights (default:
   * the exact glTF sampler; sampleMorphLut reads the lookup tables instead).
   */
  constructor(readonly rig: Rig, readonly sampler: ClipSampler, readonly morphSampler?: MorphSampler) {
    this.poseA = createPose(rig.nodes.count);
    this.poseB = createPose(rig.nodes.count);
    this.model = new Float64Array(rig.nodes.count * 16);
  }

  /** Local pose of the request, left in `poseA`. */
  pose(request: TwoClipRequest): Pose {
    this.sampler(request.clipA, request.timeA, this.poseA);
    const blend = request.blend ?? 0;
    if (request.clipB !== undefined && blend > 0) {
      this.sampler(request.clipB, request.timeB ?? request.timeA, this.poseB);
      blendPoses(this.poseA, this.poseB, blend, this.poseA);
    }
    return this.poseA;
  }

  /** Evaluates the request and fills `model` with scene-space node matrices. */
  evaluate(request: TwoClipRequest): Float64Array {
    return localToModel(this.rig.nodes.parent, this.pose(request), this.model);
  }

  /** Evaluates a layer stack (semantics: layers.ts) and fills `model`. */
  evaluateStack(stack: CpuLayerStack): Float64Array {
    this.stacks ??= new StackEvaluator(this.rig.nodes, this.sampler);
    return localToModel(this.rig.nodes.parent, this.stacks.evaluate(stack, this.poseA), this.model);
  }

  private stacks: StackEvaluator | undefined;

  /** Joint matrices of skin `skin` (index into rig.skins) for the last `evaluate`. */
  jointMatrices(skin: number, out = new Float64Array(this.rig.skins[skin].joints.length * 16)): Float64Array {
    const s = this.rig.skins[skin];
    return jointMatrices(s.joints, s.inverseBind, this.model, out);
  }

  /**
   * Skinned positions (3 per vertex, concatenated) of `primitives` for the last `evaluate`; with
   * `morphWeights` (padded, as `morphWeights()` returns them) morphed before skinning.
   */
  positions(primitives: SkinnedPrimitive[], morphWeights?: ArrayLike<number>): Float64Array {
    const out = new Float64Array(primitives.reduce((n, p) => n + p.vertexCount * 3, 0));
    let o = 0;
    const cache = new Map<number, Float64Array>();
    for (const prim of primitives) {
      let joints = cache.get(prim.skin);
      if (!joints) cache.set(prim.skin, (joints = this.jointMatrices(prim.skin)));
      const source = morphWeights && prim.morph ? morphPrimitive(prim, morphWeights, this.morphShape.setBase, new Float64Array(prim.vertexCount * 3)) : prim.positions;
      skinPositions(prim, joints, out, o, source);
      o += prim.vertexCount * 3;
    }
    return out;
  }

  /**
   * Morph weights of a two-clip record (src/anim/morph.ts: padded, 4 per group) into `out`,
   * sampled by `morphSampler` (default: the exact glTF sampler of the rig's clips).
   */
  morphWeights(request: TwoClipRequest, out = new Float64Array(this.morphShape.groups * 4)): Float64Array {
    return this.morph.blend(request, out);
  }

  /** Morph weights of a layer stack (semantics: morph.ts) into `out`. */
  morphStackWeights(stack: CpuLayerStack, out = new Float64Array(this.morphShape.groups * 4)): Float64Array {
    return this.morph.stack(stack, out);
  }

  /** The rig's morph weight layout (padded groups of 4, see src/bake/bake-morph.ts). */
  get morphShape(): MorphLayout {
    return (this.layout ??= morphLayout(this.rig));
  }

  private layout: MorphLayout | undefined;
  private morphEvaluator: MorphEvaluator | undefined;

  private get morph(): MorphEvaluator {
    return (this.morphEvaluator ??= new MorphEvaluator(this.morphShape, this.morphSampler ?? exactMorphSampler(this.rig)));
  }
}
