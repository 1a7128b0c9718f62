import type { LayerStackInit } from '../anim/layer-stack';
import type { SkinningMethod } from './layout';
import type { SkinPassOptions } from './skin-pass';

/**
 * The public vocabulary of a Crowd: what its methods take and return. Clips are names or
 * indices (resolved by the Character), times in seconds, weights in [0, 1].
 */

/**
 * Names an instance of a Crowd (from Crowd.add): a plain non-negative integer, valid until the
 * instance is removed (Crowd.remove, clear) and refused by every method from then on, by name
 * (`instance 1 does not exist: it was removed (its handle now holds instance 16777217)`), never
 * handed to another instance. It is handle + generation x 2^24 (src/runtime/instance-ids.ts):
 * a crowd's first ids are 0, 1, 2, ...; an add after a remove may reuse a handle, under an id
 * 2^24 larger than the last one on it. Ids stay below 2^53 (exact in a number); do not do
 * arithmetic on them or use them as dense array indices.
 */
export type InstanceId = number;

/** Animation of an instance as the API takes it: clips by name or index, times in seconds. */
export interface AnimationState {
  /** The base clip: a name of Character.clipNames or an index into it. */
  clipA: string | number;
  /** The clip blended over clip A by `blend`: a name or an index. */
  clipB: string | number;
  /** Current time in clip A, seconds (wrapped into the clip). */
  timeA: number;
  /** Current time in clip B, seconds (wrapped into the clip). */
  timeB: number;
  /** Playback rate of clip A: 1 = real time, 0 = frozen, negative = backwards. */
  speedA: number;
  /** Playback rate of clip B: 1 = real time, 0 = frozen, negative = backwards. */
  speedB: number;
  /** Weight of clip B in [0, 1]: 0 shows A only, 1 shows B only. */
  blend: number;
}

/** A new instance: any subset of its animation (clip 0, time 0, speed 1, blend 0 otherwise) and its transform. */
export interface InstanceInit extends Partial<AnimationState> {
  /** Model-to-world transform, 16 numbers column-major (default identity). */
  transform?: ArrayLike<number>;
}

// The layer-stack vocabulary lives below the runtime (the controllers write it too).
export type { AdditiveLayerInit, ClipTimeInit, LayerInit, LayerStackArrays, LayerStackInit, MaskId } from '../anim/layer-stack';

/** @deprecated use LayerStackInit (the same shape, the one name for a layer stack people write). */
export type LayersInit = LayerStackInit;

/** The colour and depth formats and the sample count a crowd's draws are made for (from its CrowdOptions). */
export type CrowdTargetFormats = Required<Pick<CrowdOptions, 'colorFormat' | 'depthFormat' | 'sampleCount'>>;

/** How a Crowd draws (the formats of the render pass it draws into) and how many instances it starts with room for. */
export interface CrowdOptions extends SkinPassOptions {
  /** Instances to allocate for up front (default 1024); the crowd grows by doubling past it. */
  capacity?: number;
  /**
   * Joint sets for the instances being drawn (docs/palette.md): while the crowd's capacity is at
   * most this, every instance has its own (exactly as without a palette); past it, the joint
   * buffer holds this many, handed each frame to the drawn instances nearest first, and drawn
   * instances beyond it show a shared pose of their clip (16 time buckets per clip). Default
   * 65,536 (DEFAULT_PALETTE_SIZE): a fixed budget, so that a crowd's memory follows what is seen,
   * not how many there are (a million Foxes hold 75 MB of joint sets, not 1.15 GB). Infinity: as
   * many as the device's storage limits allow (the old default). Cut to that when larger.
   */
  paletteSize?: number;
  /**
   * Frustum culling once a camera is set (Crowd.setCamera; default true): instances whose bounds
   * are outside the camera's frustum, or farther than `maxDistance`, are neither posed nor drawn.
   * Changeable later through Crowd.culling.
   */
  culling?: boolean;
  /** Instances whose bounds start farther than this from the camera (world units) are culled (default Infinity). */
  maxDistance?: number;
  /**
   * Which bounds culling tests: 'reach' (default) holds every pose blends and layers can make,
   * so culling never changes a pixel; 'authored' is the tighter box over the clips as authored
   * (every clip at every baked time), which a blend or an additive layer may leave.
   */
  cullBounds?: 'reach' | 'authored';
  /**
   * Mesh LOD by screen-space error (needs a camera and levels from loadCharacter's `lod`
   * option, `{ simplifier: MeshoptSimplifier }`; a character loaded without it has none): each instance draws the coarsest level whose simplification error projects to at
   * most `pixelError` pixels (default 1). false turns it off; Crowd.lod changes it later.
   */
  lod?: boolean | {
    /** Largest simplification error on screen, pixels (default 1). */
    pixelError?: number;
  };
  /**
   * Animation LOD (needs a camera): instances smaller on screen than `every2ndBelow` pixels
   * (the height of their bounds; default 24) are posed every 2nd frame, smaller than
   * `every4thBelow` (default 12) every 4th, staggered across instances, and keep their last
   * pose in between (still moving with their transforms). false turns it off; Crowd.animationLod
   * changes it later.
   */
  animationLod?: boolean | {
    /** Screen height in pixels below which an instance is posed every 2nd frame (default 24). */
    every2ndBelow?: number;
    /** Screen height in pixels below which an instance is posed every 4th frame (default 12). */
    every4thBelow?: number;
  };
  /**
   * A directional shadow map drawn from the posed instances (culled against the light's frustum,
   * one LOD level coarser than the camera's) and sampled with 3 x 3 PCF when shading (needs a
   * camera: the map follows the view). Off by default; Crowd.shadows turns it off and on again.
   */
  shadows?: boolean | ShadowOptions;
  /**
   * How vertices are skinned (default 'linear'; Crowd.skinning changes it later):
   * - 'linear': linear blend skinning, sum of w_i * jointMatrix_i (glTF's definition). Joints
   *   twisted far apart pinch the skin between them (the "candy wrapper").
   * - 'dual-quaternion': each joint matrix is split into a rotation (its polar rotation), a
   *   translation and the rest (scale, shear); a vertex is moved by the linear blend of the rests,
   *   then by the blend of the rigid parts as dual quaternions, flipped into the hemisphere of
   *   its first influence (two-phase skinning, Kavan et al. 2008). Twisted joints keep their
   *   volume; a vertex on one joint moves exactly as with 'linear'. The joint buffer holds 64
   *   bytes per joint instead of 48 (see Crowd.jointMatrices), and the pose pass does the split.
   */
  skinning?: SkinningMethod;
}

/** Directional shadows (CrowdOptions.shadows). */
export interface ShadowOptions {
  /** Shadow map size in texels (default 2048). */
  mapSize?: number;
  /** The map covers the view up to this distance from the camera (world units; default 20 character heights). */
  distance?: number;
  /** How far towards the light casters outside the covered view may stand (world units; default 2 character heights). */
  reach?: number;
  /** Darkness of a full shadow in [0, 1] (default 1: only the ambient term remains). */
  strength?: number;
}

/** The camera culling and LOD use: Crowd.setCamera. */
export interface CameraOptions {
  /** Height of the view in pixels, for screen-space LOD (default 1080). */
  viewportHeight?: number;
}

/** What the cull pass did in a recent frame (read back asynchronously: a frame or two late). */
export interface CullStats {
  /** Instances drawn for the camera. */
  visible: number;
  /** Instances posed (the pose pass ran for them). */
  posed: number;
  /** Instances drawn per LOD level. */
  perLevel: number[];
  /** Indices drawn for the camera (vertex shader invocations, at most). */
  vertices: number;
  /**
   * While impostors are routed (CrowdImpostors): instances in the band between the meshes and the
   * impostors, each drawn twice (a mesh and an impostor, screen-door faded): counted in both
   * those `perLevel` entries and both draws' `vertices`, once in `visible`.
   */
  band?: number;
  /**
   * While impostors are routed: impostors so far that they are drawn as dots (a point each,
   * ImpostorOptions.dotPixels), counted in the impostor level of `perLevel`, in `visible`, and as
   * one vertex each in `vertices`.
   */
  dots?: number;
}

// The vocabulary of the features' methods (src/features), kept here with the rest so that the
// deprecated Crowd methods that forward to them (legacy.ts) need no feature.

/** A prop attached to a joint of every instance of a crowd (CrowdProps.attach); never reused after detach. */
export type AttachmentId = number;

/** Where CrowdProps.attach puts a prop, and on which instances. */
export interface AttachOptions {
  /** The joint the prop follows: a name of the crowd character's `jointNames` (the first joint of that name). */
  joint: string;
  /**
   * The prop's placement relative to the joint: 16 finite numbers (each within +-1e12, the
   * world bound of src/math/float32.ts), a column-major affine 4x4
   * (bottom row 0, 0, 0, 1) from the prop's model space to the joint's space, in the crowd
   * character's model units (scale the prop here). Default: the identity (the prop's origin on
   * the joint, its axes along the joint's).
   */
  offset?: ArrayLike<number>;
  /**
   * The instances that get the prop; default every instance, including ones added later. A
   * removed instance leaves the list (its id, when reused, does not inherit the prop).
   */
  instances?: readonly InstanceId[];
}

/**
 * Per-instance morph weights as a Crowd's API takes them: by target name, as "mesh/target", or
 * as one number per target in Character.morphTargets order. A weight in [0, 1] replaces the
 * animated one; null, undefined (or NaN in the array form) gives the target back to the animation.
 */
export type MorphWeights = Readonly<Record<string, number | null | undefined>> | ArrayLike<number>;

/** Called for every clip event an instance's playback crosses: instance, event name, clip name, the event's time in the clip (seconds). */
export type ClipEventListener = (id: number, name: string, clip: string, time: number) => void;

/** What Crowd.palette reports of the joint-matrix palette (docs/palette.md). */
export interface PaletteState {
  /** Joint sets of their own: one per slot while the palette is not active, else the budget. */
  readonly size: number;
  /** Whether the crowd holds more instances than the budget, so joint sets go to the drawn instances each frame. */
  readonly active: boolean;
  /** Joint sets of their own once active: CrowdOptions.paletteSize cut to what the device's storage limit allows (>= 1). */
  readonly budget: number;
}
