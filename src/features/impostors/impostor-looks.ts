import type { AppearanceSource } from '../../runtime/appearance-groups';

/**
 * One look: what an instance's CrowdAppearance makes of its image apart from the tint. `variant`
 * is 0 where none of the parts shown is varied (it changes nothing there), so two instances that
 * look the same share a look.
 */
export interface ImpostorLook {
  /** 0: the materials' own base colour; k >= 1: variant image k - 1 on the varied parts. */
  readonly variant: number;
  /** Bit p set: part (mesh primitive) p is drawn; every bit set for a character of 32 or more parts without appearance. */
  readonly parts: number;
}

/** How the live instances' looks stand against the atlas's layers (CrowdImpostors.looks). */
export interface ImpostorLookStats {
  /** Layers the atlas holds now (one look each). */
  readonly baked: number;
  /** Most layers the budget holds (AtlasGrid.capacity). */
  readonly capacity: number;
  /** Distinct looks among the live instances at the last count. */
  readonly inUse: number;
  /** Live instances whose look has no layer (drawn as the stand-in look) at the last count. */
  readonly standIns: number;
  /** The layer drawn for a look without one: the most used look's. */
  readonly standIn: ImpostorLook | undefined;
}

const WORD = 2 ** 32;

/**
 * Hysteresis of the layers past the budget: a look in use without a layer takes the layer of the
 * least used baked look only when more than this many times as many instances use it (or that
 * look is unused), so that looks whose order by use keeps changing by a little bake nothing.
 */
export const LOOK_KEEP_MARGIN = 1.25;

/**
 * Which looks the atlas bakes (CPU only): counts the live instances' looks whenever the
 * appearance's version or the crowd's count changed. The baked looks keep their layers; a look in
 * use without one (most used first, ties: the smaller (variant, parts)) takes a free layer, else
 * the layer of the least used look the atlas would hold when more than LOOK_KEEP_MARGIN times as
 * many instances use it (an unused look gives its layer to any). When that changes the looks,
 * update returns them sorted by (variant, parts): layer i is target[i]. Without a
 * CrowdAppearance every instance has one look: variant 0, every part. Owns its count map (reused:
 * no allocation once its keys exist).
 */
export class ImpostorLooks {
  /** The looks baked, by layer (sorted by variant, then parts); empty before the first bake. */
  baked: ImpostorLook[] = [];
  /** The layer drawn for a look without one (the most used baked look's). */
  standIn = 0;
  private readonly counts = new Map<number, number>();
  private readonly ranked: number[] = [];
  private readonly held: number[] = [];
  private seen: AppearanceSource | undefined | null = null;
  private seenVersion = -1;
  private seenCount = -1;
  private inUse = 0;
  private standIns = 0;

  /** `capacity`: most layers (AtlasGrid.capacity); `allParts`: the mask of every part of the character. */
  constructor(readonly capacity: number, readonly allParts: number) {}

  /**
   * Counts the looks again when `source` (the crowd's appearance, or none), its version or
   * `count` (live instances) changed. Returns the looks the atlas should hold when they changed
   * (bake the new ones, then call baked = them), else undefined.
   */
  update(source: AppearanceSource | undefined, count: number): ImpostorLook[] | undefined {
    const version = source?.looks?.version ?? 0;
    if (source === this.seen && version === this.seenVersion && count === this.seenCount && this.baked.length > 0) return undefined;
    this.seen = source;
    this.seenVersion = version;
    this.seenCount = count;
    const counts = this.counts;
    counts.clear();
    if (source?.looks) source.looks.count(count, counts);
    else counts.set(this.allParts, count);
    if (counts.size === 0) counts.set(this.allParts, 0);
    // The most used first (ties: the smaller key).
    const ranked = this.ranked;
    ranked.length = 0;
    for (const key of counts.keys()) ranked.push(key);
    ranked.sort((a, b) => counts.get(b)! - counts.get(a)! || a - b);
    this.inUse = ranked.length;
    // The layers held: the baked looks, then each look without a layer in turn takes a free one or
    // the least used one's, past the margin (the contenders come most used first: once one does
    // not take a layer, none after it does).
    const held = this.held;
    held.length = 0;
    for (const look of this.baked) held.push(look.variant * WORD + look.parts);
    let changed = false;
    for (const key of ranked) {
      if (held.includes(key)) continue;
      if (held.length < this.capacity) {
        held.push(key);
        changed = true;
        continue;
      }
      let least = 0;
      for (let i = 1; i < held.length; i++) {
        const a = counts.get(held[i]) ?? 0, b = counts.get(held[least]) ?? 0;
        if (a < b || (a === b && held[i] > held[least])) least = i;
      }
      const leastCount = counts.get(held[least]) ?? 0;
      if (!(counts.get(key)! > LOOK_KEEP_MARGIN * leastCount)) break;
      held[least] = key;
      changed = true;
    }
    if (changed) {
      const target = held.slice().sort((a, b) => a - b).map(lookOf);
      this.tally(target);
      return target;
    }
    this.tally(this.baked);
    return undefined;
  }

  /** The count of the last update() against `looks` (the layers the atlas holds, or is about to): the stand-in (the most used of them) and the instances drawn with it. */
  private tally(looks: readonly ImpostorLook[]): void {
    let standIns = 0;
    for (const [key, n] of this.counts) if (indexOf(looks, key) < 0) standIns += n;
    this.standIns = standIns;
    let standIn = -1;
    for (let i = 0; i < this.ranked.length && standIn < 0; i++) standIn = indexOf(looks, this.ranked[i]);
    this.standIn = Math.max(0, standIn);
  }

  /** The layer of look `key` (variant x 2^32 + parts) among the baked ones, or -1. */
  layerOf(key: number): number {
    return indexOf(this.baked, key);
  }

  /** The numbers CrowdImpostors.looks reports. */
  stats(): ImpostorLookStats {
    return { baked: this.baked.length, capacity: this.capacity, inUse: this.inUse, standIns: this.standIns, standIn: this.baked[this.standIn] };
  }

  /** What the impostors draw unlike the meshes ([] when nothing): instances whose look has no layer. */
  stale(): string[] {
    if (this.standIns === 0) return [];
    const s = this.baked[this.standIn];
    return [`appearance: ${this.standIns} instances in ${this.inUse - this.baked.length} looks past the atlas's ${this.capacity} layers (ImpostorOptions.looks, budgetBytes) are drawn as the most used look (variant ${s.variant}, parts 0b${s.parts.toString(2)}), tinted`];
  }
}

function lookOf(key: number): ImpostorLook {
  return { variant: Math.floor(key / WORD), parts: key % WORD };
}

function indexOf(looks: readonly ImpostorLook[], key: number): number {
  for (let i = 0; i < looks.length; i++) if (looks[i].variant * WORD + looks[i].parts === key) return i;
  return -1;
}
