import type { AppearanceSource } from '../../runtime/appearance-groups';
import { PROP_SET_OTHERS, type HeldProps } from '../../runtime/held-props';

/**
 * One look: what an instance's CrowdAppearance makes of its image apart from the tint, and the
 * props of chosen instances it holds (CrowdProps). `variant` is 0 where none of the parts shown
 * is varied (it changes nothing there), so two instances that look the same share a look.
 */
export interface ImpostorLook {
  /** 0: the materials' own base colour; k >= 1: variant image k - 1 on the varied parts. */
  readonly variant: number;
  /** Bit p set: part (mesh primitive) p is drawn; every bit set for a character of 32 or more parts without appearance. */
  readonly parts: number;
  /** Bit i set: the i-th prop of chosen instances (CrowdProps `attach` with `instances`, in attach order) is held; 0: none. */
  readonly props: number;
}

/** Each slot's prop set, while the crowd has props of chosen instances: CrowdProps as the impostors see it (HeldProps), its version and its sets. */
export type LookHolders = Pick<HeldProps, 'holdersVersion' | 'propSets'>;

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
  /**
   * Live instances kept meshes at the last count: their look has no layer and holds other props
   * of chosen instances than the stand-in's (drawn as it, they would lose or gain a prop), or
   * their prop set cannot be a look (a prop past the 31st, or past MAX_PROP_SETS sets).
   */
  readonly meshes: number;
  /** The layer drawn for a look without one: the most used look's. */
  readonly standIn: ImpostorLook | undefined;
}

const WORD = 2 ** 32;
/** A look's key: the index of its prop set in the count's table x SET_UNIT + variant x 2^32 + parts (variants under 2^12: a texture array's most layers). */
const SET_UNIT = 2 ** 44;
/** Distinct prop sets one count tells apart (the key's 9 bits); the instances of any further set are meshes. */
export const MAX_PROP_SETS = 2 ** 9;
/** A prop set no look can show (PROP_SET_OTHERS). */
const OTHERS = 2 ** PROP_SET_OTHERS;

/**
 * Hysteresis of the layers past the budget: a look in use without a layer takes the layer of the
 * least used baked look only when more than this many times as many instances use it (or that
 * look is unused), so that looks whose order by use keeps changing by a little bake nothing.
 */
export const LOOK_KEEP_MARGIN = 1.25;

/**
 * Which looks the atlas bakes (CPU only): counts the live instances' looks whenever the
 * appearance's version, the holders' version (props of chosen instances) or the crowd's count
 * changed. The baked looks keep their layers; a look in use without one (most used first, ties:
 * the smaller key) takes a free layer, else the layer of the least used look the atlas would hold
 * when more than LOOK_KEEP_MARGIN times as many instances use it (an unused look gives its layer
 * to any). When that changes the looks, update returns them sorted by (props, variant, parts):
 * layer i is target[i]. Without a CrowdAppearance every instance has one look (variant 0, every
 * part) but for its props. Owns its count map and prop-set table (reused: no allocation once
 * their keys exist).
 */
export class ImpostorLooks {
  /** The looks baked, by layer (sorted by props, variant, then parts); empty before the first bake. */
  baked: ImpostorLook[] = [];
  /** The layer drawn for a look without one (the most used baked look's). */
  standIn = 0;
  /** Whether the last update counted again (the holders' meshes follow then: markHolders). */
  recounted = false;
  private readonly counts = new Map<number, number>();
  private readonly ranked: number[] = [];
  private readonly held: number[] = [];
  /** The count's prop sets by index (0: none) and their indices. */
  private readonly sets: number[] = [0];
  private readonly setIndex = new Map<number, number>([[0, 0]]);
  private seen: AppearanceSource | undefined | null = null;
  private seenVersion = -1;
  private seenHolders: LookHolders | undefined | null = null;
  private seenHoldersVersion = -1;
  private seenCount = -1;
  private inUse = 0;
  private standIns = 0;
  private meshes = 0;
  /** Live instances whose prop set cannot be a look (countHeld), at the last count: part of `meshes`. */
  private unshowable = 0;

  /** `capacity`: most layers (AtlasGrid.capacity); `allParts`: the mask of every part of the character. */
  constructor(readonly capacity: number, readonly allParts: number) {}

  /**
   * Counts the looks again when `source` (the crowd's appearance, or none), `holders` (each
   * slot's prop set, while the crowd has props of chosen instances), their versions or `count`
   * (live instances) changed. Returns the looks the atlas should hold when they changed (bake the
   * new ones, then call baked = them), else undefined.
   */
  update(source: AppearanceSource | undefined, count: number, holders?: LookHolders): ImpostorLook[] | undefined {
    const version = source?.looks?.version ?? 0;
    const holdersVersion = holders?.holdersVersion ?? 0;
    this.recounted = false;
    if (source === this.seen && version === this.seenVersion && holders === this.seenHolders && holdersVersion === this.seenHoldersVersion &&
      count === this.seenCount && this.baked.length > 0) return undefined;
    this.recounted = true;
    this.seen = source;
    this.seenVersion = version;
    this.seenHolders = holders;
    this.seenHoldersVersion = holdersVersion;
    this.seenCount = count;
    const counts = this.counts;
    counts.clear();
    this.sets.length = 1;
    this.setIndex.clear();
    this.setIndex.set(0, 0);
    // The baked looks' sets first: each has an index whatever the count meets.
    for (const look of this.baked) this.setOf(look.props);
    this.unshowable = 0;
    if (holders) this.countHeld(source, count, holders);
    else if (source?.looks) source.looks.count(count, counts);
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
    for (const look of this.baked) held.push(this.keyOf(look));
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
      const target = held.map((key) => this.lookOf(key)).sort((a, b) => a.props - b.props || a.variant - b.variant || a.parts - b.parts);
      this.tally(target);
      return target;
    }
    this.tally(this.baked);
    return undefined;
  }

  /**
   * Calls `mark(slot, meshOnly)` for each slot of [0, `count`) after a recount (update's
   * `recounted`) once the atlas holds `baked`: a holder is kept a mesh where its look has no layer
   * and its prop set is not the stand-in's, or where its set cannot be a look. O(count).
   */
  markHolders(source: AppearanceSource | undefined, count: number, holders: LookHolders | undefined, mark: (slot: number, meshOnly: boolean) => void): void {
    const standInProps = this.baked[this.standIn]?.props ?? 0;
    const keyAt = source?.looks?.keyOf;
    // The baked looks' keys, looked up once a slot (an event's work, not a frame's).
    const baked = new Set(this.baked.map((look) => this.keyOf(look)));
    for (let slot = 0; slot < count; slot++) {
      const set = holders ? holders.propSets.setOf(slot) : 0;
      // Its own look's layer, or the stand-in's with the same props.
      if (set === standInProps) {
        mark(slot, false);
        continue;
      }
      const index = this.setIndex.get(set);
      mark(slot, index === undefined || !baked.has(index * SET_UNIT + (keyAt ? keyAt(slot) : this.allParts)));
    }
  }

  /** Counts each slot's look with its prop set (the sets met in turn get indices; a set past MAX_PROP_SETS, or holding a prop past the 31st, is a mesh). */
  private countHeld(source: AppearanceSource | undefined, count: number, holders: LookHolders): void {
    const counts = this.counts;
    const keyAt = source?.looks?.keyOf;
    // Runs of one key are counted at once (a Map lookup a slot is slow over a million).
    let last = -1, run = 0;
    for (let slot = 0; slot < count; slot++) {
      const index = this.setOf(holders.propSets.setOf(slot));
      if (index < 0) {
        this.unshowable++;
        continue;
      }
      const key = index * SET_UNIT + (keyAt ? keyAt(slot) : this.allParts);
      if (key === last) {
        run++;
        continue;
      }
      if (run > 0) counts.set(last, (counts.get(last) ?? 0) + run);
      last = key;
      run = 1;
    }
    if (run > 0) counts.set(last, (counts.get(last) ?? 0) + run);
  }

  /** The index of prop set `set` in this count's table (made for a new one), or -1 where it cannot be a look. */
  private setOf(set: number): number {
    let index = this.setIndex.get(set);
    if (index !== undefined) return index;
    // With one layer the atlas holds no props of chosen instances (heldInAtlas): their holders are meshes.
    if (set >= OTHERS || this.sets.length >= MAX_PROP_SETS || this.capacity <= 1) return -1;
    index = this.sets.length;
    this.sets.push(set);
    this.setIndex.set(set, index);
    return index;
  }

  private keyOf(look: ImpostorLook): number {
    return this.setIndex.get(look.props)! * SET_UNIT + look.variant * WORD + look.parts;
  }

  private lookOf(key: number): ImpostorLook {
    const index = Math.floor(key / SET_UNIT), rest = key - index * SET_UNIT;
    return { variant: Math.floor(rest / WORD), parts: rest % WORD, props: this.sets[index] };
  }

  /** The count of the last update() against `looks` (the layers the atlas holds, or is about to): the stand-in (the most used of them) and the instances drawn with it or kept meshes. */
  private tally(looks: readonly ImpostorLook[]): void {
    let standIn = -1;
    for (let i = 0; i < this.ranked.length && standIn < 0; i++) standIn = this.indexOf(looks, this.ranked[i]);
    this.standIn = Math.max(0, standIn);
    const standInProps = looks[this.standIn]?.props ?? 0;
    let standIns = 0, meshes = this.unshowable;
    for (const [key, n] of this.counts) {
      if (this.indexOf(looks, key) >= 0) continue;
      if (this.sets[Math.floor(key / SET_UNIT)] === standInProps) standIns += n;
      else meshes += n;
    }
    this.standIns = standIns;
    this.meshes = meshes;
  }

  /** The layer of look `look` among the baked ones, or -1. */
  layerOf(look: ImpostorLook): number {
    return this.baked.findIndex((b) => b.variant === look.variant && b.parts === look.parts && b.props === look.props);
  }

  private indexOf(looks: readonly ImpostorLook[], key: number): number {
    for (let i = 0; i < looks.length; i++) if (this.keyOf(looks[i]) === key) return i;
    return -1;
  }

  /** The numbers CrowdImpostors.looks reports. */
  stats(): ImpostorLookStats {
    return { baked: this.baked.length, capacity: this.capacity, inUse: this.inUse, standIns: this.standIns, meshes: this.meshes, standIn: this.baked[this.standIn] };
  }

  /** What the impostors draw unlike the meshes ([] when nothing): instances whose look has no layer. */
  stale(): string[] {
    if (this.standIns === 0) return [];
    const s = this.baked[this.standIn];
    return [`appearance: ${this.standIns} instances in ${this.inUse - this.baked.length} looks past the atlas's ${this.capacity} layers (ImpostorOptions.looks, budgetBytes) are drawn as the most used look (variant ${s.variant}, parts 0b${s.parts.toString(2)}), tinted`];
  }
}
