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
 * Which looks the atlas bakes (CPU only): counts the live instances' looks whenever the
 * appearance's version or the crowd's count changed, and says when one of the most used (at most
 * `capacity`) has no layer: then the atlas is to hold those, plus the baked looks no longer in
 * use while layers are left (kept, so that a look coming back needs no bake), sorted by
 * (variant, parts): layer i is target[i]. Without a CrowdAppearance every instance has one look: variant 0, every part. Owns
 * its count map (reused: no allocation once its keys exist).
 */
export class ImpostorLooks {
  /** The looks baked, by layer (sorted by variant, then parts); empty before the first bake. */
  baked: ImpostorLook[] = [];
  /** The layer drawn for a look without one (the most used baked look's). */
  standIn = 0;
  private readonly counts = new Map<number, number>();
  private readonly ranked: number[] = [];
  private seen: AppearanceSource | undefined | null = null;
  private seenVersion = -1;
  private seenCount = -1;
  private inUse = 0;
  private standIns = 0;

  /** `capacity`: most layers (AtlasGrid.capacity); `allParts`: the mask of every part of the character. */
  constructor(readonly capacity: number, readonly allParts: number) {}

  /**
   * Counts the looks again when `source` (the crowd's appearance, or none), its version or
   * `count` (live instances) changed. Returns the looks the atlas should hold when a look among
   * the `capacity` most used has no layer (bake them, then call baked = them), else undefined.
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
    // The most used first (ties: the smaller key), at most `capacity` of them.
    const ranked = this.ranked;
    ranked.length = 0;
    for (const key of counts.keys()) ranked.push(key);
    ranked.sort((a, b) => counts.get(b)! - counts.get(a)! || a - b);
    this.inUse = ranked.length;
    const kept = Math.min(ranked.length, this.capacity);
    let missing = false;
    for (let i = 0; i < kept && !missing; i++) missing = this.layerOf(ranked[i]) < 0;
    if (missing) {
      // The looks in use that fit, then (while layers are left) the baked looks that are not, so that a look coming back needs no bake.
      const keys = ranked.slice(0, kept);
      for (const look of this.baked) {
        const key = look.variant * WORD + look.parts;
        if (keys.length < this.capacity && !keys.includes(key)) keys.push(key);
      }
      const target = keys.sort((a, b) => a - b).map(lookOf);
      this.tally(target, ranked[0]);
      return target;
    }
    this.tally(this.baked, ranked[0]);
    return undefined;
  }

  /** The count of the last update() against `looks` (the layers the atlas holds, or is about to): the stand-in and the instances drawn with it. */
  private tally(looks: readonly ImpostorLook[], top: number): void {
    let standIns = 0;
    for (const [key, n] of this.counts) if (indexOf(looks, key) < 0) standIns += n;
    this.standIns = standIns;
    this.standIn = Math.max(0, indexOf(looks, top));
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
