import { phaseTurns } from './clip-clock';
import { LAYER, LAYER_STACK, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS, REFERENCE_IDENTITY, REFERENCE_REST, STACK_LAYERS } from './layout';
import { checkFinite, checkUnit, RecordBuffer } from './record-buffer';
import { show } from '../math/show';
import type { RecordBufferLike, RecordQueue } from './record-device';
import type { LayerStackArrays } from '../anim/layer-stack';

/**
 * A LayerStackInit resolved (src/runtime/layer-input.ts): clip indices, mask ids, every default
 * filled in, a difference clip's reference made 'identity'. Internal: what LayerStackRecords.set
 * writes; people write a LayerStackInit, controllers a LayerStackArrays.
 */
export interface ResolvedLayers {
  layers: ResolvedLayer[];
  additive: ResolvedAdditiveLayer[];
}

/** One layer of ResolvedLayers: clip index, time now, playback rate, weight, mask index. */
export interface ResolvedLayer {
  clip: number;
  /** Seconds now (wrapped into the clip). */
  time: number;
  speed: number;
  /** In [0, 1]. */
  weight: number;
  /** Mask index in the crowd's mask table, or MASK_NONE. */
  mask: number;
}

export interface ResolvedAdditiveLayer extends ResolvedLayer {
  /** Reference pose: a clip at a time playing at a speed, the rest pose, or the identity (for difference clips). */
  reference: { clip: number; time: number; speed: number } | 'rest' | 'identity';
}

/**
 * CPU mirror of the layer-stack buffer: LAYER_STACK records (src/runtime/layout.ts), one per
 * layered instance (InstanceStore hands out the record indices; methods take a record index).
 * `maskCount` says how many masks exist, for validation. As InstanceRecords does, it keeps every
 * layer's phase and speed (and its reference's) in float64 beside the record: rebases, clip
 * events and the GPU words (src/runtime/clip-clock.ts) are worked out from those, never from float32.
 */
export class LayerStackRecords extends RecordBuffer {
  constructor(capacity: number, clipDurations: ArrayLike<number>, private readonly maskCount: () => number) {
    super(LAYER_STACK.size, capacity, clipDurations, STACK_LAYERS * EXACT_PER_LAYER);
  }

  /** Validates a stack without writing it (so a caller can check before moving records). */
  validate(stack: ResolvedLayers): void {
    const { layers, additive } = stack;
    if (layers.length > MAX_OVERRIDE_LAYERS) throw new RangeError(`at most ${MAX_OVERRIDE_LAYERS} override layers per instance, got ${layers.length}`);
    if (additive.length > MAX_ADDITIVE_LAYERS) throw new RangeError(`at most ${MAX_ADDITIVE_LAYERS} additive layers per instance, got ${additive.length}`);
    layers.forEach((layer, i) => this.check(layer, `layers[${i}]`));
    additive.forEach((layer, i) => {
      this.check(layer, `additive[${i}]`);
      if (layer.reference !== 'rest' && layer.reference !== 'identity') {
        this.checkClip(layer.reference.clip, `additive[${i}].reference.clip`);
        checkFinite(layer.reference.time, `additive[${i}].reference.time`);
        checkFinite(layer.reference.speed, `additive[${i}].reference.speed`);
      }
    });
  }

  /** Writes stack `slot` so that each layer's clip is at its time at crowd clock `clock`. */
  set(slot: number, stack: ResolvedLayers, clock: number): void {
    this.validate(stack);
    const { layers, additive } = stack;
    const o = slot * this.stride;
    this.u32[o + LAYER_STACK.overrideCount / 4] = layers.length;
    this.u32[o + LAYER_STACK.additiveCount / 4] = additive.length;
    layers.forEach((layer, i) => this.writeLayer(slot, i, layer, clock));
    additive.forEach((layer, k) => {
      const i = MAX_OVERRIDE_LAYERS + k;
      this.writeLayer(slot, i, layer, clock);
      const ref = layer.reference;
      if (ref !== 'rest' && ref !== 'identity') {
        this.u32[this.layerWord(slot, i) + LAYER.refClip / 4] = ref.clip;
        this.writeClip(slot, i, true, ref.clip, this.phase(ref.clip, ref.time, ref.speed, clock), ref.speed);
      } else {
        this.u32[this.layerWord(slot, i) + LAYER.refClip / 4] = ref === 'rest' ? REFERENCE_REST : REFERENCE_IDENTITY;
      }
    });
    this.touch(slot);
  }

  /**
   * Writes stack record `stack` from a packed stack (LayerStackArrays: the controllers' per-frame
   * path, no allocation): `stack.layerCount` override layers, no additive layers. Mask values
   * index `maskIds` (crowd mask ids) when given, else are mask ids; -1 means none. Everything is
   * checked before anything is written.
   */
  setArrays(stack: number, arrays: LayerStackArrays, maskIds: ArrayLike<number> | undefined, clock: number): void {
    this.checkArrays(arrays, maskIds);
    const count = arrays.layerCount;
    const o = stack * this.stride;
    this.u32[o + LAYER_STACK.overrideCount / 4] = count;
    this.u32[o + LAYER_STACK.additiveCount / 4] = 0;
    for (let i = 0; i < count; i++) {
      const l = this.layerWord(stack, i);
      const clip = arrays.layerClip[i];
      const speed = arrays.layerSpeed[i];
      this.u32[l + LAYER.clip / 4] = clip;
      this.writeClip(stack, i, false, clip, this.phase(clip, arrays.layerTime[i], speed, clock), speed);
      this.f32[l + LAYER.weight / 4] = arrays.layerWeight[i];
      this.u32[l + LAYER.mask / 4] = this.mapMask(arrays.layerMask[i], maskIds);
    }
    this.touch(stack);
  }

  /** Validates the override layers of `arrays` (not the base) without writing anything. */
  checkArrays(arrays: LayerStackArrays, maskIds: ArrayLike<number> | undefined): void {
    const count = arrays.layerCount;
    if (!Number.isInteger(count) || count < 0 || count > MAX_OVERRIDE_LAYERS) throw new RangeError(`layerCount must be an integer in [0, ${MAX_OVERRIDE_LAYERS}], got ${show(count)}`);
    if (maskIds !== undefined && (typeof maskIds !== 'object' || maskIds === null || typeof maskIds.length !== 'number')) {
      throw new TypeError(`maskIds must be an array of mask ids, got ${show(maskIds)}`);
    }
    for (let i = 0; i < count; i++) {
      this.checkClip(arrays.layerClip[i], `layers[${i}].clip`);
      checkFinite(arrays.layerTime[i], `layers[${i}].time`);
      checkFinite(arrays.layerSpeed[i], `layers[${i}].speed`);
      checkUnit(arrays.layerWeight[i], `layers[${i}].weight`);
      // -1 is the only "no mask": any other value must name a mask.
      const mask = arrays.layerMask[i];
      if (mask === -1) continue;
      if (maskIds && !(Number.isInteger(mask) && mask >= 0 && mask < maskIds.length)) {
        throw new RangeError(`layers[${i}].mask ${show(mask)} is not -1 or an index of the ${maskIds.length} mask ids given`);
      }
      this.checkMask(maskIds ? maskIds[mask] : mask, `layers[${i}].mask`);
    }
  }

  /** A stack's mask value (-1 for none, else an id or an index into maskIds) as a GPU mask index. */
  private mapMask(mask: number, maskIds: ArrayLike<number> | undefined): number {
    if (mask < 0) return MASK_NONE;
    return maskIds ? maskIds[mask] : mask;
  }

  /** Throws a RangeError unless stack `slot` has layer `index` of that kind and `weight` is in [0, 1]. */
  checkWeight(slot: number, additive: boolean, index: number, weight: number): void {
    const o = slot * this.stride;
    const count = this.u32[o + (additive ? LAYER_STACK.additiveCount : LAYER_STACK.overrideCount) / 4];
    if (!Number.isInteger(index) || index < 0 || index >= count) {
      throw new RangeError(`${additive ? 'additive' : 'override'} layer ${show(index)} does not exist (the instance has ${count})`);
    }
    checkUnit(weight, 'layer weight');
  }

  /** Sets one layer's weight (the per-frame path: no allocation). `additive` picks the kind. */
  setWeight(slot: number, additive: boolean, index: number, weight: number): void {
    this.checkWeight(slot, additive, index, weight);
    const o = slot * this.stride;
    const base = LAYER_STACK.layers + ((additive ? MAX_OVERRIDE_LAYERS : 0) + index) * LAYER.size;
    this.f32[o + (base + LAYER.weight) / 4] = weight;
    this.touch(slot);
  }

  /**
   * Re-expresses stacks [0, count) for a clock restarted at 0 from `clock`; times are unchanged
   * (from the float64 phases and speeds, as InstanceRecords.rebase: float32 speeds used to drift).
   */
  rebase(count: number, clock: number): void {
    for (let slot = 0; slot < count; slot++) {
      // Only the layers in use: a layer past the counts is written whole before it is used again.
      const o = slot * this.stride;
      const overrides = Math.min(this.u32[o + LAYER_STACK.overrideCount / 4], MAX_OVERRIDE_LAYERS);
      const additives = Math.min(this.u32[o + LAYER_STACK.additiveCount / 4], MAX_ADDITIVE_LAYERS);
      for (let i = 0; i < MAX_OVERRIDE_LAYERS + additives; i++) {
        if (i >= overrides && i < MAX_OVERRIDE_LAYERS) continue;
        const l = this.layerWord(slot, i);
        this.rebaseClip(slot, i, false, this.u32[l + LAYER.clip / 4], clock);
        const ref = this.u32[l + LAYER.refClip / 4];
        if (i >= MAX_OVERRIDE_LAYERS && ref !== REFERENCE_REST && ref !== REFERENCE_IDENTITY) this.rebaseClip(slot, i, true, ref, clock);
      }
    }
    this.markAllDirty(count);
  }

  /** Layer `i`'s phase (seconds at clock 0) of stack record `stack`, float64; `reference` picks its additive reference clip's. */
  exactPhase(stack: number, i: number, reference = false): number {
    return this.exact[this.exactIndex(stack, i, reference)];
  }

  /** Layer `i`'s speed of stack record `stack`, float64; `reference` picks its additive reference clip's. */
  exactSpeed(stack: number, i: number, reference = false): number {
    return this.exact[this.exactIndex(stack, i, reference) + 1];
  }

  /** Index in `exact` of (phase, speed) of layer `i` of `stack`, or of its reference clip. */
  private exactIndex(stack: number, i: number, reference: boolean): number {
    return stack * this.exactStride + i * EXACT_PER_LAYER + (reference ? 2 : 0);
  }

  /** u32 index of layer `i` of stack record `stack`. */
  private layerWord(stack: number, i: number): number {
    return stack * this.stride + (LAYER_STACK.layers + i * LAYER.size) / 4;
  }

  /** Writes the layer's (or with `reference`, its reference clip's) playback: float64 phase and speed, then the GPU words. */
  private writeClip(stack: number, i: number, reference: boolean, clip: number, phase: number, speed: number): void {
    const e = this.exactIndex(stack, i, reference);
    this.exact[e] = phase;
    this.exact[e + 1] = speed;
    const l = this.layerWord(stack, i);
    if (reference) this.writePlayback(clip, phase, speed, l + LAYER.refPhase / 4, l + LAYER.refSpeed / 4, l + LAYER.refRateLo / 4);
    else this.writePlayback(clip, phase, speed, l + LAYER.phase / 4, l + LAYER.speed / 4, l + LAYER.rateLo / 4);
  }

  /** Moves one playback's phase to a clock restarted at 0 from `clock` (float64, then the phase word). */
  private rebaseClip(stack: number, i: number, reference: boolean, clip: number, clock: number): void {
    const e = this.exactIndex(stack, i, reference);
    this.exact[e] = this.timeAt(clip, this.exact[e], this.exact[e + 1], clock);
    const l = this.layerWord(stack, i);
    this.u32[l + (reference ? LAYER.refPhase : LAYER.phase) / 4] = phaseTurns(this.exact[e], this.clipDurations[clip]);
  }

  private check(layer: ResolvedLayer, what: string): void {
    this.checkClip(layer.clip, `${what}.clip`);
    checkFinite(layer.time, `${what}.time`);
    checkFinite(layer.speed, `${what}.speed`);
    checkUnit(layer.weight, `${what}.weight`);
    this.checkMask(layer.mask, `${what}.mask`);
  }

  private checkMask(mask: number, what: string): void {
    if (mask !== MASK_NONE && !(Number.isInteger(mask) && mask >= 0 && mask < this.maskCount())) {
      throw new RangeError(`${what} ${show(mask)} does not exist (the crowd has ${this.maskCount()} masks)`);
    }
  }

  /** Writes layer `i` of stack record `stack` from `layer` at `clock`, with the rest pose as its reference (no reference clip). */
  private writeLayer(stack: number, i: number, layer: ResolvedLayer, clock: number): void {
    const l = this.layerWord(stack, i);
    this.u32[l + LAYER.clip / 4] = layer.clip;
    this.writeClip(stack, i, false, layer.clip, this.phase(layer.clip, layer.time, layer.speed, clock), layer.speed);
    this.f32[l + LAYER.weight / 4] = layer.weight;
    this.u32[l + LAYER.mask / 4] = layer.mask;
    this.u32[l + LAYER.refClip / 4] = REFERENCE_REST;
    this.writeClip(stack, i, true, layer.clip, 0, 0);
  }
}

/** Float64 values per layer in the exact copy: phase and speed, then the reference clip's. */
const EXACT_PER_LAYER = 4;

/**
 * The blend masks of a crowd: nodeCount float weights per mask, shared by every instance that
 * names the mask. Masks are only added (rarely, at set-up); the table uploads whole when changed.
 * `growth(needed, current)` gives the masks to make room for when the table is full (the store
 * cuts doubling to what the device's limits allow, and throws naming the limit when `needed`
 * itself does not fit: then the mask is not added).
 */
export class MaskTable {
  private weights: Float32Array<ArrayBuffer>;
  private used = 0;
  private changed = true;
  private readonly width: number;

  constructor(private readonly nodeCount: number, private readonly growth = (needed: number, current: number) => Math.max(needed, current * 2)) {
    this.width = Math.max(1, nodeCount);
    this.weights = new Float32Array(this.width * 4);
  }

  get count(): number {
    return this.used;
  }

  /** Masks the table holds before it grows. */
  get capacity(): number {
    return this.weights.length / this.width;
  }

  /** Bytes the GPU buffer needs now. */
  get byteLength(): number {
    return this.weights.byteLength;
  }

  /** Adds a mask (one weight in [0, 1] per rig node) and returns its index. */
  add(mask: Float32Array): number {
    if (mask.length !== this.nodeCount) throw new RangeError(`mask has ${mask.length} weights, the rig has ${this.nodeCount} nodes`);
    for (let i = 0; i < mask.length; i++) checkUnit(mask[i], `mask weight ${i}`);
    if (this.used === this.capacity) {
      const grown = new Float32Array(this.growth(this.used + 1, this.capacity) * this.width);
      grown.set(this.weights);
      this.weights = grown;
    }
    this.weights.set(mask, this.used * this.nodeCount);
    this.changed = true;
    return this.used++;
  }

  /** Uploads the table if it changed since the last call; returns the bytes sent. */
  upload<B extends RecordBufferLike>(queue: RecordQueue<B>, buffer: B): number {
    if (!this.changed) return 0;
    queue.writeBuffer(buffer, 0, this.weights);
    this.changed = false;
    return this.weights.byteLength;
  }

  /** Forces the next upload (after the GPU buffer was replaced). */
  markDirty(): void {
    this.changed = true;
  }
}
