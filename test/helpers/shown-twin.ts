import { IMPOSTOR_SHOWN } from '../../src/features/impostors/impostor-layout';
import { INSTANCE, LAYER, LAYER_STACK, LAYERS_IDLE, LAYERS_INDEX, LAYERS_SHOWN, MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS } from '../../src/runtime/layout';

/** A shown record's fields (IMPOSTOR_SHOWN): the two clips an impostor shows, their clock words, clip B's share of the two. */
export interface ShownRecord {
  clipA: number; clipB: number; phaseA: number; phaseB: number; rateLoA: number; rateHiA: number; rateLoB: number; rateHiB: number; blend: number;
}

/** Whether the record at byte `recordOffset` of `records` carries the shown pass's mark (a stack that applies, LAYERS_SHOWN set). */
export function markedShown(records: DataView, recordOffset: number): boolean {
  return (records.getUint32(recordOffset + INSTANCE.layers, true) & (LAYERS_IDLE | LAYERS_SHOWN)) === LAYERS_SHOWN;
}

/** Reads shown record `index` of `view` (the shown pass's buffer read back). */
export function readShown(view: DataView, index: number): ShownRecord {
  const o = index * IMPOSTOR_SHOWN.size;
  const u = (k: number) => view.getUint32(o + k, true);
  return {
    clipA: u(IMPOSTOR_SHOWN.clipA), clipB: u(IMPOSTOR_SHOWN.clipB), phaseA: u(IMPOSTOR_SHOWN.phaseA), phaseB: u(IMPOSTOR_SHOWN.phaseB),
    rateLoA: u(IMPOSTOR_SHOWN.rateLoA), rateHiA: u(IMPOSTOR_SHOWN.rateHiA), rateLoB: u(IMPOSTOR_SHOWN.rateLoB), rateHiB: u(IMPOSTOR_SHOWN.rateHiB),
    blend: view.getFloat32(o + IMPOSTOR_SHOWN.blend, true),
  };
}

/**
 * The TypeScript twin of the shown pass (shaders/impostors/shown.wgsl) for the record at byte
 * `recordOffset` of `records` and the stacks in `stacks` (both as the GPU holds them): undefined
 * where no stack applies (LAYERS_IDLE), else whether an impostor may show it and, where it may,
 * the shown record. Shares in float32 as the shader takes them (Math.fround after each step).
 * `leaveOut`: partial layers (masked override layers, additive layers) left out
 * (ImpostorOptions.partialLayers 'leave-out'), else they keep a mesh where they weigh anything.
 */
export function shownTwin(records: DataView, recordOffset: number, stacks: DataView, baked: (clip: number) => boolean, leaveOut = false): { shows: boolean; shown?: ShownRecord } | undefined {
  const r = (k: number) => records.getUint32(recordOffset + k, true);
  const layers = r(INSTANCE.layers);
  if ((layers & LAYERS_IDLE) !== 0) return undefined;
  const s = (layers & LAYERS_INDEX) * LAYER_STACK.size;
  const stackWord = (k: number) => stacks.getUint32(s + k, true);
  const layer = (i: number, k: number) => s + LAYER_STACK.layers + i * LAYER.size + k;
  let blendOfClips = true;
  for (let k = 0; k < Math.min(stackWord(LAYER_STACK.additiveCount), MAX_ADDITIVE_LAYERS); k++) {
    if (!leaveOut && stacks.getFloat32(layer(MAX_OVERRIDE_LAYERS + k, LAYER.weight), true) > 0) blendOfClips = false;
  }
  type Playback = { clip: number; phase: number; rateLo: number; rateHi: number };
  const heaviest: Playback[] = [];
  const shares = [-1, -1];
  const weigh = (p: Playback, share: number) => {
    if (share > shares[0]) {
      heaviest[1] = heaviest[0];
      shares[1] = shares[0];
      heaviest[0] = p;
      shares[0] = share;
    } else if (share > shares[1]) {
      heaviest[1] = p;
      shares[1] = share;
    }
  };
  const a: Playback = { clip: r(INSTANCE.clipA), phase: r(INSTANCE.phaseA), rateLo: r(INSTANCE.rateLoA), rateHi: r(INSTANCE.rateHiA) };
  heaviest[0] = heaviest[1] = a;
  let rest = 1;
  for (let j = Math.min(stackWord(LAYER_STACK.overrideCount), MAX_OVERRIDE_LAYERS); j > 0; j--) {
    const w = Math.min(stacks.getFloat32(layer(j - 1, LAYER.weight), true), 1);
    const masked = stacks.getUint32(layer(j - 1, LAYER.mask), true) !== MASK_NONE;
    if (w > 0 && !(leaveOut && masked)) {
      if (masked) blendOfClips = false;
      const u = (k: number) => stacks.getUint32(layer(j - 1, k), true);
      weigh({ clip: u(LAYER.clip), phase: u(LAYER.phase), rateLo: u(LAYER.rateLo), rateHi: u(LAYER.rateHi) }, Math.fround(w * rest));
      rest = Math.fround(rest * Math.fround(1 - w));
    }
  }
  const blendWord = records.getFloat32(recordOffset + INSTANCE.blend, true);
  const b = blendWord > 0 ? Math.min(blendWord, 1) : 0;
  weigh(a, Math.fround(Math.fround(1 - b) * rest));
  weigh({ clip: r(INSTANCE.clipB), phase: r(INSTANCE.phaseB), rateLo: r(INSTANCE.rateLoB), rateHi: r(INSTANCE.rateHiB) }, Math.fround(b * rest));
  const second = Math.max(shares[1], 0);
  const pair = Math.fround(shares[0] + second);
  const blend = pair > 0 ? Math.fround(second / pair) : 0;
  const shows = blendOfClips && baked(heaviest[0].clip) && (blend <= 0 || baked(heaviest[1].clip));
  if (!shows) return { shows };
  const [p, q] = heaviest;
  return { shows, shown: { clipA: p.clip, clipB: q.clip, phaseA: p.phase, phaseB: q.phase, rateLoA: p.rateLo, rateHiA: p.rateHi, rateLoB: q.rateLo, rateHiB: q.rateHi, blend } };
}
