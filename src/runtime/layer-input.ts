import { isLayerStackArrays, MAX_OVERRIDE_LAYERS, type AdditiveLayerInit, type LayerInit, type LayerStackArrays, type LayerStackInit, type MaskId } from '../anim/layer-stack';
import { show } from '../math/show';
import { checkFields, checkObject, list } from './input';
import type { InstanceStore } from './instance-store';
import type { RecordBufferLike } from './record-device';
import type { LayerStackRecords, ResolvedAdditiveLayer, ResolvedLayer, ResolvedLayers } from './layer-records';
import { MASK_NONE } from './layout';
import { checkFinite } from './record-buffer';

/**
 * Crowd.setLayers' input: the two forms of a layer stack (src/anim/layer-stack.ts) checked and
 * turned into what the store writes. Every function here throws an error naming the field
 * before anything is written, so a refused call leaves the instance as it was.
 */

/** Resolves a clip name or index; throws a RangeError naming `field` when there is no such clip. */
export type ClipResolver = (clip: string | number, field: string) => number;

/**
 * Validates a LayerStackInit and resolves it: clip names to indices, defaults filled in
 * (time 0, speed 1, a reference's speed 0, no mask), a difference clip's reference made
 * 'identity' (`clipIsDifference` is BakedModel.clipIsDifference), then checked against the
 * record limits (`stacks`: layer counts, weights, masks).
 */
export function resolveLayers(init: LayerStackInit, clip: ClipResolver, clipIsDifference: ArrayLike<number>, stacks: LayerStackRecords): ResolvedLayers {
  if (typeof init !== 'object' || init === null || Array.isArray(init)) throw new TypeError(`setLayers: init must be { layers, additive } or null, got ${show(init)}`);
  checkFields(init, STACK_FIELDS, 'setLayers');
  const layer = (l: LayerInit, where: string, fields: readonly string[]): ResolvedLayer => {
    checkObject(l, where, `{ ${LAYER_FIELDS.join(', ')} }`);
    checkFields(l, fields, where);
    return { clip: clip(l.clip, `${where}.clip`), time: l.time ?? 0, speed: l.speed ?? 1, weight: l.weight, mask: l.mask ?? MASK_NONE };
  };
  const additive = (l: AdditiveLayerInit, i: number): ResolvedAdditiveLayer => {
    const where = `additive[${i}]`;
    const resolved = layer(l, where, ADDITIVE_FIELDS);
    const ref = l.reference;
    if (clipIsDifference[resolved.clip]) {
      if (ref !== undefined) throw new TypeError(`${where}: clip ${JSON.stringify(l.clip)} is a difference clip (it already subtracts its reference): give it no reference`);
      return { ...resolved, reference: 'identity' };
    }
    if (ref !== 'rest' && (typeof ref !== 'object' || ref === null)) throw new TypeError(`${where}.reference must be 'rest' or { clip, time }, got ${show(ref)}`);
    if (ref === 'rest') return { ...resolved, reference: 'rest' };
    checkFields(ref, REFERENCE_FIELDS, `${where}.reference`);
    return { ...resolved, reference: { clip: clip(ref.clip, `${where}.reference.clip`), time: ref.time ?? 0, speed: ref.speed ?? 0 } };
  };
  const resolved = {
    layers: list(init.layers, 'layers').map((l, i) => layer(l, `layers[${i}]`, LAYER_FIELDS)),
    additive: list(init.additive, 'additive').map(additive),
  };
  stacks.validate(resolved);
  return resolved;
}

/**
 * Validates a LayerStackArrays (its base and its layers; `maskIds` maps its mask values to
 * MaskIds when given) and `ahead`, without writing or allocating.
 */
export function checkLayerStackArrays<B extends RecordBufferLike>(store: InstanceStore<B>, stack: LayerStackArrays, maskIds: ArrayLike<MaskId> | undefined, ahead: number): void {
  checkFinite(stack.baseTime, 'baseTime');
  checkFinite(stack.baseSpeed, 'baseSpeed');
  checkFinite(ahead, 'ahead');
  store.stacks.checkArrays(stack, maskIds);
  store.records.checkClipIndex(stack.baseClip, 'baseClip');
}

/**
 * Writes a checked LayerStackArrays as the clips and layers of the instance of `handle`, its times holding at
 * crowd clock `clock`: the base becomes its clip A. A stack of no layers, or of one unmasked
 * layer, leaves the layered range: the layer becomes clip B, weighted by the blend (the pose pass
 * blends clip B as it blends an unmasked override layer of that weight, shaders/pose.wgsl
 * blendTrs), so a controller's crossfade or two-clip locomotion blend is a plain instance, which
 * the impostors can show (docs/impostors.md, Clips). Allocation-free.
 */
export function writeLayerStackArrays<B extends RecordBufferLike>(store: InstanceStore<B>, handle: number, stack: LayerStackArrays, maskIds: ArrayLike<MaskId> | undefined, clock: number): void {
  const twoClips = stack.layerCount === 1 && stack.layerMask[0] < 0;
  if (stack.layerCount === 0 || twoClips) store.makePlain(handle);
  else store.stacks.setArrays(store.makeLayered(handle), stack, maskIds, clock);
  const slot = store.slot(handle);
  store.records.setSingleClip(slot, stack.baseClip, stack.baseTime, stack.baseSpeed, clock);
  // A weight of 0 draws clip A alone (setSingleClip's record).
  if (twoClips && stack.layerWeight[0] > 0) store.records.setClipB(slot, stack.layerClip[0], stack.layerTime[0], stack.layerSpeed[0], stack.layerWeight[0], clock);
}

/** `stack` if it is a LayerStackArrays (the deprecated Crowd.setStack takes no other form); a TypeError otherwise. */
export function requireLayerStackArrays(stack: LayerStackArrays): LayerStackArrays {
  if (typeof stack !== 'object' || stack === null) throw new TypeError(`stack must be an object (LayerStackArrays), got ${show(stack)}`);
  if (!isLayerStackArrays(stack)) throw new RangeError(`layerCount must be an integer in [0, ${MAX_OVERRIDE_LAYERS}], got undefined`);
  return stack;
}

const STACK_FIELDS = ['layers', 'additive'] as const;
const LAYER_FIELDS = ['clip', 'time', 'speed', 'weight', 'mask'] as const;
const ADDITIVE_FIELDS = [...LAYER_FIELDS, 'reference'] as const;
const REFERENCE_FIELDS = ['clip', 'time', 'speed'] as const;
