import { resolveClip } from '../bake/clip-names';
import type { RigNodes } from '../bake/rig';
import type { AdditiveLayer, ClipTime, CpuLayerStack, OverrideLayer } from './layers';
import type { ClipTimeInit, LayerStackInit } from './layer-stack';
import { buildMask, type MaskSpec } from './masks';

/**
 * A layer stack that stands alone in JSON (the pose dump's --layers, the simulation's frames):
 * the written form, LayerStackInit (layer-stack.ts), with masks inline as MaskSpecs, plus the
 * base clip the layers lie on:
 *
 *   {"base": {"clip": "Walk", "time": 0.4},
 *    "layers": [{"clip": "Survey", "time": 1.2, "weight": 0.8, "mask": {"root": "b_Spine01_02"}}],
 *    "additive": [{"clip": "Run", "time": 0.1, "weight": 0.5,
 *                  "reference": {"clip": "Run", "time": 0}, "mask": {"weights": {"b_Head_05": 1}, "default": 0}}]}
 *
 * Clips are names or indices; `reference` may be "rest" and is required (the pose dump knows no
 * difference clips); `layers`, `additive`, `time` and `mask` are optional; a speed is ignored (a
 * pose is one instant). Every problem is a RangeError/TypeError naming the field.
 */
export type StandaloneLayerStack = LayerStackInit<MaskSpec> & { base: ClipTimeInit };

export interface StackContext {
  nodes: RigNodes;
  clipNames: readonly string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clipIndex(context: StackContext, value: unknown, where: string): number {
  return resolveClip(context.clipNames, value, { where, noun: 'named or numbered' });
}

function clipTime(context: StackContext, value: unknown, where: string): ClipTime {
  if (!isObject(value)) throw new TypeError(`${where} must be an object {"clip": ..., "time": seconds}`);
  const time = value.time ?? 0;
  if (typeof time !== 'number' || !Number.isFinite(time)) throw new RangeError(`${where}.time must be a finite number of seconds, got ${JSON.stringify(value.time)}`);
  return { clip: clipIndex(context, value.clip, `${where}.clip`), time };
}

function weight(value: unknown, where: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new RangeError(`${where}.weight must be a number in [0, 1], got ${typeof value === 'number' ? value : JSON.stringify(value)}`);
  return value;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`${where} must be an array`);
  return value;
}

/** Parses and validates a StandaloneLayerStack into a CpuLayerStack of clip indices and mask weights. */
export function parseLayerStack(json: unknown, context: StackContext): CpuLayerStack {
  if (!isObject(json)) throw new TypeError('layer stack must be an object {"base": ..., "layers": [...], "additive": [...]}');
  for (const key of Object.keys(json)) {
    if (!['base', 'layers', 'additive'].includes(key)) throw new RangeError(`layer stack: unknown field "${key}" (fields: base, layers, additive)`);
  }
  if (json.base === undefined) throw new RangeError('layer stack: "base" is required');
  const mask = (spec: unknown, where: string) => (spec === undefined ? undefined : buildMask(context.nodes, spec as MaskSpec, where));
  const layers: OverrideLayer[] = list(json.layers, 'layers').map((entry, i) => {
    const where = `layers[${i}]`;
    return { ...clipTime(context, entry, where), weight: weight((entry as Record<string, unknown>).weight, where), mask: mask((entry as Record<string, unknown>).mask, `${where}.mask`) };
  });
  const additive: AdditiveLayer[] = list(json.additive, 'additive').map((entry, i) => {
    const where = `additive[${i}]`;
    const e = entry as Record<string, unknown>;
    if (e.reference === undefined) throw new RangeError(`${where}.reference is required: {"clip": ..., "time": ...} or "rest"`);
    const reference = e.reference === 'rest' ? 'rest' as const : clipTime(context, e.reference, `${where}.reference`);
    return { ...clipTime(context, entry, where), weight: weight(e.weight, where), reference, mask: mask(e.mask, `${where}.mask`) };
  });
  return { base: clipTime(context, json.base, 'base'), layers, additive };
}
