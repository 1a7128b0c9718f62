import { MAX_OVERRIDE_LAYERS as MAX_LAYERS, type LayerStackArrays } from '../layer-stack';

/**
 * Clips in the flattened weighted average: base + 3 layers, leaving one layer for an action
 * (base + 2 while one action hands over to another and both are shown).
 */
export const MAX_BLEND = 4;
/** Entries lighter than this are not added to a blend (WeightedClips.add; the control pass's addEntry gets it through its generated block). */
export const MIN_BLEND_WEIGHT = 1e-6;

/**
 * Where a controller writes its stack each frame: a LayerStackArrays in fixed-size typed arrays,
 * rewritten in place (no allocation); AnimationController.output shows it read-only. The base
 * and the first override layers are a weighted average of up to MAX_BLEND clips (crossfades of
 * clips and of the locomotion blend, flattened); an action may add one masked override layer on
 * top.
 */
export class LayerStackBuffer implements LayerStackArrays {
  /** Clip index of the base. */
  baseClip = 0;
  /** Seconds. */
  baseTime = 0;
  /** Playback rate the GPU may advance the base at until the next write. */
  baseSpeed = 0;
  /** Override layers in use, 0 to MAX_OVERRIDE_LAYERS. */
  layerCount = 0;
  /** Clip index of each layer. */
  readonly layerClip = new Int32Array(MAX_LAYERS);
  /** Seconds into each layer's clip. */
  readonly layerTime = new Float64Array(MAX_LAYERS);
  /** Playback rate of each layer. */
  readonly layerSpeed = new Float64Array(MAX_LAYERS);
  /** Weight of each layer over what is below it, in [0, 1]. */
  readonly layerWeight = new Float64Array(MAX_LAYERS);
  /** Index into the controller config's masks, or -1 for none. */
  readonly layerMask = new Int32Array(MAX_LAYERS);

  /** Appends an override layer: clip index, seconds, rate, weight in [0, 1], mask index or -1. */
  pushLayer(clip: number, time: number, speed: number, weight: number, mask: number): void {
    const i = this.layerCount++;
    this.layerClip[i] = clip;
    this.layerTime[i] = time;
    this.layerSpeed[i] = speed;
    this.layerWeight[i] = weight;
    this.layerMask[i] = mask;
  }
}

/**
 * A weighted list of clip samples, the flattened form of every blend (scratch, reused). Adding
 * beyond MAX_BLEND drops the lightest entry, so the heaviest clips always survive.
 */
export class WeightedClips {
  count = 0;
  readonly clip = new Int32Array(MAX_BLEND + 1);
  readonly time = new Float64Array(MAX_BLEND + 1);
  readonly speed = new Float64Array(MAX_BLEND + 1);
  readonly weight = new Float64Array(MAX_BLEND + 1);

  clear(): void {
    this.count = 0;
  }

  add(clip: number, time: number, speed: number, weight: number): void {
    if (!(weight > MIN_BLEND_WEIGHT)) return;
    let i = this.count;
    if (i === MAX_BLEND) {
      // Full: replace the lightest entry if this one is heavier.
      let lightest = 0;
      for (let k = 1; k < MAX_BLEND; k++) if (this.weight[k] < this.weight[lightest]) lightest = k;
      if (this.weight[lightest] >= weight) return;
      for (let k = lightest; k < MAX_BLEND - 1; k++) this.copyEntry(k + 1, k);
      i = MAX_BLEND - 1;
    } else {
      this.count++;
    }
    this.clip[i] = clip;
    this.time[i] = time;
    this.speed[i] = speed;
    this.weight[i] = weight;
  }

  /**
   * Writes the normalised weighted average as base + override layers with progressive weights
   * w_i / (w_1 + ... + w_i) (src/anim/layers.ts, weightedAverageStack). `fallbackClip` is shown
   * when the list is empty.
   */
  writeTo(out: LayerStackBuffer, fallbackClip: number, limit = MAX_BLEND): void {
    // Over the limit (room is needed for action layers): drop the lightest entries.
    while (this.count > limit) {
      let lightest = 0;
      for (let k = 1; k < this.count; k++) if (this.weight[k] < this.weight[lightest]) lightest = k;
      for (let k = lightest; k < this.count - 1; k++) this.copyEntry(k + 1, k);
      this.count--;
    }
    out.layerCount = 0;
    if (this.count === 0) {
      out.baseClip = fallbackClip;
      out.baseTime = 0;
      out.baseSpeed = 0;
      return;
    }
    out.baseClip = this.clip[0];
    out.baseTime = this.time[0];
    out.baseSpeed = this.speed[0];
    let total = this.weight[0];
    for (let i = 1; i < this.count; i++) {
      total += this.weight[i];
      out.pushLayer(this.clip[i], this.time[i], this.speed[i], this.weight[i] / total, -1);
    }
  }

  private copyEntry(from: number, to: number): void {
    this.clip[to] = this.clip[from];
    this.time[to] = this.time[from];
    this.speed[to] = this.speed[from];
    this.weight[to] = this.weight[from];
  }
}
