/**
 * The layer-stack vocabulary, in two forms (semantics: layers.ts):
 *
 * - LayerStackInit: the form people write, in code or in JSON. Clips are names or indices,
 *   optional fields have defaults, and it allocates as much as any object literal does.
 * - LayerStackArrays: the packed form, parallel arrays of clip indices, times, speeds, weights
 *   and masks, which an animation controller fills every frame without allocating (its
 *   `output`) and the crowd copies into its GPU records as they are.
 *
 * Crowd.setLayers takes either. Both resolve, inside the library, into the records the pose pass
 * reads (src/runtime/layer-records.ts) or the CPU reference's stack (layers.ts, CpuLayerStack).
 * This file is below src/runtime: the GPU code imports the vocabulary from here, never the other way.
 */

/** Override layers an instance holds at most (the GPU record's room; src/runtime/layout.ts). */
export const MAX_OVERRIDE_LAYERS = 4;
/** Additive layers an instance holds at most, applied after the override layers. */
export const MAX_ADDITIVE_LAYERS = 2;

/** Index of a blend mask made by Crowd.createMask. */
export type MaskId = number;

/** A clip at a time, playing at a speed: a stack's base, or an additive layer's reference. */
export interface ClipTimeInit {
  /** The clip: a name of Character.clipNames or an index into it. */
  clip: string | number;
  /** Current time in the clip, seconds (default 0). */
  time?: number;
  /** Playback rate (default 1; an additive layer's reference defaults to 0, a fixed pose). */
  speed?: number;
}

/**
 * An override layer: blends a clip over the pose below it with `weight` (times a mask). `Mask`
 * is a MaskId in code (Crowd.createMask) and a MaskSpec where a stack is JSON with no crowd
 * (the pose dump's --layers, the simulation's frames).
 */
export interface LayerInit<Mask = MaskId> extends ClipTimeInit {
  /** In [0, 1]. */
  weight: number;
  /** Per-joint weights; none means every joint. */
  mask?: Mask;
}

/** An additive layer: adds (clip at time) minus `reference`, scaled by weight (times a mask). */
export interface AdditiveLayerInit<Mask = MaskId> extends LayerInit<Mask> {
  /**
   * The pose the difference is taken from: a clip at a time (its speed defaults to 0), or
   * 'rest'. Omitted for a difference clip (LoadOptions.additiveClips), which already holds the
   * difference.
   */
  reference?: 'rest' | ClipTimeInit;
}

/**
 * A layer stack as people write it: layers on top of a base pose. On a crowd
 * (Crowd.setLayers) the base is the instance's clip A / clip B blend; a stack that stands alone
 * in JSON (the pose dump's --layers, the simulation's frames) adds a `base` clip, and its masks
 * are MaskSpecs.
 *
 *   crowd.setLayers(id, { layers: [{ clip: 'Wave', weight: 0.8, mask: upperBody }],
 *                         additive: [{ clip: 'Breathe', weight: 0.5, reference: 'rest' }] });
 */
export interface LayerStackInit<Mask = MaskId> {
  /** Up to MAX_OVERRIDE_LAYERS (4) override layers, applied in order. */
  layers?: LayerInit<Mask>[];
  /** Up to MAX_ADDITIVE_LAYERS (2) additive layers, applied after the override layers. */
  additive?: AdditiveLayerInit<Mask>[];
}

/**
 * A layer stack packed into parallel arrays: the form an animation controller produces every
 * frame (AnimationController.output) and Crowd.setLayers copies in without allocating. The base
 * clip is at `baseTime` seconds now and plays at `baseSpeed`; then `layerCount` (at most
 * MAX_OVERRIDE_LAYERS) override layers, each a clip at a time (seconds) and speed with a weight
 * in [0, 1] and a mask (-1 for none). Plain objects with number arrays will do.
 */
export interface LayerStackArrays {
  /** Clip index of the base. */
  readonly baseClip: number;
  /** Seconds into the base clip now. */
  readonly baseTime: number;
  /** Playback rate of the base (negative plays backwards). */
  readonly baseSpeed: number;
  /** Override layers in use, 0 to MAX_OVERRIDE_LAYERS; entries past it are ignored. */
  readonly layerCount: number;
  /** Clip index of each layer. */
  readonly layerClip: ArrayLike<number>;
  /** Seconds into each layer's clip now. */
  readonly layerTime: ArrayLike<number>;
  /** Playback rate of each layer. */
  readonly layerSpeed: ArrayLike<number>;
  /** Weight of each layer over what is below it, in [0, 1]. */
  readonly layerWeight: ArrayLike<number>;
  /** Mask of each layer, or -1 for the whole body: an index into setLayers' `maskIds` when given, else a MaskId (Crowd.createMask). */
  readonly layerMask: ArrayLike<number>;
}

/**
 * Whether `stack` is the packed form (it has `layerCount`, which the written form has no field
 * for): one property test, no allocation, for Crowd.setLayers' per-frame path.
 */
export function isLayerStackArrays(stack: unknown): stack is LayerStackArrays {
  return typeof stack === 'object' && stack !== null && 'layerCount' in stack;
}
