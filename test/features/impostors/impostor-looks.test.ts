import { describe, expect, it } from 'vitest';
import { ImpostorLooks, MAX_PROP_SETS } from '../../../src/features/impostors/impostor-looks';
import type { AppearanceSource } from '../../../src/runtime/appearance-groups';

/** An appearance source whose live instances have `looks` ([variant, parts] each, already canonical). */
function source(looks: [number, number][]): AppearanceSource & { version: number; set(next: [number, number][]): void } {
  let current = looks;
  const self = {
    version: 0,
    set(next: [number, number][]) {
      current = next;
      self.version++;
    },
    looks: {
      get version() { return self.version; },
      count(count: number, out: Map<number, number>) {
        for (const [v, p] of current.slice(0, count)) out.set(v * 2 ** 32 + p, (out.get(v * 2 ** 32 + p) ?? 0) + 1);
      },
      keyOf(slot: number) {
        return current[slot][0] * 2 ** 32 + current[slot][1];
      },
    },
  };
  return self as unknown as AppearanceSource & typeof self;
}

/** Which looks CrowdImpostors bakes (CPU only; the images: impostor-draw.test.ts). */
describe('ImpostorLooks', () => {
  it('without appearance, one look (variant 0, every part); counts again only after a change', () => {
    const looks = new ImpostorLooks(2, 0b1111);
    expect(looks.update(undefined, 3)).toEqual([{ variant: 0, parts: 0b1111, props: 0 }]);
    looks.baked = [{ variant: 0, parts: 0b1111, props: 0 }];
    expect(looks.update(undefined, 3)).toBeUndefined();
    expect(looks.stats()).toEqual({ baked: 1, capacity: 2, inUse: 1, standIns: 0, meshes: 0, standIn: { variant: 0, parts: 0b1111, props: 0 } });
    expect(looks.stale()).toEqual([]);
  });

  it('bakes the most used looks that fit, keeps layers while there is room, and names the stand-ins past them', () => {
    const looks = new ImpostorLooks(2, 0b11);
    const s = source([[1, 0b11], [1, 0b11], [2, 0b01], [0, 0b01]]);
    // The most used, then the smaller of the tie; sorted by (variant, parts): layer 0 is (0, 0b01).
    const first = looks.update(s, 4)!;
    expect(first).toEqual([{ variant: 0, parts: 0b01, props: 0 }, { variant: 1, parts: 0b11, props: 0 }]);
    s.set([[1, 0b11], [1, 0b11], [0, 0b01]]);
    looks.baked = first;
    expect(looks.standIn).toBe(1); // the most used look's layer
    // The same looks: nothing to bake. A change that keeps the count is seen by the version.
    expect(looks.update(s, 3)).toBeUndefined();
    s.set([[1, 0b11], [1, 0b11], [2, 0b01]]);
    const second = looks.update(s, 3)!;
    // (2, 0b01) is new; (0, 0b01), no longer used, gives its layer up only because two are in use and two fit.
    expect(second).toEqual([{ variant: 1, parts: 0b11, props: 0 }, { variant: 2, parts: 0b01, props: 0 }]);
    looks.baked = second;
    // One look in use: nothing to bake, the other layer kept.
    s.set([[1, 0b11]]);
    expect(looks.update(s, 1)).toBeUndefined();
    // Three in use, two layers: (0, 0b10), as used as the baked (2, 0b01), takes no layer (a tie is no margin); it is a stand-in.
    s.set([[1, 0b11], [1, 0b11], [2, 0b01], [0, 0b10]]);
    expect(looks.update(s, 4)).toBeUndefined();
    expect(looks.stats()).toMatchObject({ baked: 2, inUse: 3, standIns: 1, standIn: { variant: 1, parts: 0b11, props: 0 } });
    expect(looks.stale()[0]).toMatch(/^appearance: 1 instances in 1 looks past the atlas's 2 layers .* drawn as the most used look \(variant 1, parts 0b11\), tinted$/);
    // Fewer live instances (the stand-in removed): counted again, nothing past the layers.
    expect(looks.update(s, 2)).toBeUndefined();
    expect(looks.stale()).toEqual([]);
  });

  it('keeps a layer no longer in use while the budget has room, so that the look coming back needs no bake', () => {
    const looks = new ImpostorLooks(3, 0b11);
    const s = source([[1, 0b11]]);
    looks.baked = looks.update(s, 1)!;
    s.set([[0, 0b01]]);
    looks.baked = looks.update(s, 1)!;
    expect(looks.baked).toEqual([{ variant: 0, parts: 0b01, props: 0 }, { variant: 1, parts: 0b11, props: 0 }]);
    s.set([[1, 0b11]]);
    expect(looks.update(s, 1)).toBeUndefined();
  });

  it('keeps a baked look\'s layer while its contender is used by at most LOOK_KEEP_MARGIN times as many: churn in the order by use bakes nothing', () => {
    const looks = new ImpostorLooks(2, 0b11);
    /** Instances of looks (1, 0b11), (2, 0b11), (3, 0b11): a, b, c of them. */
    const crowd = (a: number, b: number, c: number): [number, number][] => [...Array(a).fill([1, 0b11]), ...Array(b).fill([2, 0b11]), ...Array(c).fill([3, 0b11])];
    const s = source(crowd(10, 9, 8));
    looks.baked = looks.update(s, 27)!;
    expect(looks.baked.map((l) => l.variant)).toEqual([1, 2]);
    // The order of the second and third by use changes every time, by at most 1.25x: no bake.
    let bakes = 0;
    for (const [b, c] of [[8, 9], [9, 8], [8, 10], [10, 8], [9, 11]]) {
      s.set(crowd(10, b, c));
      const target = looks.update(s, 10 + b + c);
      if (target) {
        bakes++;
        looks.baked = target;
      }
    }
    expect(bakes).toBe(0);
    expect(looks.stats()).toMatchObject({ baked: 2, inUse: 3, standIns: 11, standIn: { variant: 1 } });
    // Clearly more (12 against 9: 1.33x): (3, 0b11) takes the least used's layer.
    s.set(crowd(10, 9, 12));
    expect(looks.update(s, 31)!.map((l) => l.variant)).toEqual([1, 3]);
    // An unused look gives its layer to any contender.
    looks.baked = [{ variant: 1, parts: 0b11, props: 0 }, { variant: 3, parts: 0b11, props: 0 }];
    s.set(crowd(10, 1, 0));
    expect(looks.update(s, 11)!.map((l) => l.variant)).toEqual([1, 2]);
  });

  it('with props of chosen instances, a look is (prop set, variant, parts): counted per slot, sorted by props; a holder whose set has no layer and is not the stand-in\'s is a mesh', () => {
    let sets = [0, 1, 1, 0, 2, 2 ** 31];
    const holders = { holdersVersion: 0, propSets: { setOf: (slot: number) => sets[slot], buffer: undefined } };
    const looks = new ImpostorLooks(2, 0b11);
    // Without appearance: every part. Sets 0 (2 instances), 1 (2), 2 (1); the OTHERS bit (a prop past the 31st) can be no look.
    const target = looks.update(undefined, 6, holders)!;
    expect(target, 'the two most used, ties by the smaller key; sorted by props').toEqual([{ variant: 0, parts: 0b11, props: 0 }, { variant: 0, parts: 0b11, props: 1 }]);
    looks.baked = target;
    expect(looks.stats()).toMatchObject({ baked: 2, inUse: 3, standIns: 0, meshes: 2, standIn: { props: 0 } });
    const marks: boolean[] = [];
    looks.markHolders(undefined, 6, holders, (slot, meshOnly) => { marks[slot] = meshOnly; });
    expect(marks, 'set 2 has no layer and differs from the stand-in\'s; the OTHERS bit never has one').toEqual([false, false, false, false, true, true]);
    // The holders change (the version): counted again; set 2 now the most used takes the least used layer past the margin.
    sets = [2, 2, 2, 0, 0, 1];
    holders.holdersVersion++;
    const next = looks.update(undefined, 6, holders)!;
    expect(next.map((l) => l.props)).toEqual([0, 2]);
    looks.baked = next;
    looks.markHolders(undefined, 6, holders, (slot, meshOnly) => { marks[slot] = meshOnly; });
    expect(marks).toEqual([false, false, false, false, false, true]);
    // Unchanged: not counted again.
    expect(looks.update(undefined, 6, holders)).toBeUndefined();
    expect(looks.recounted).toBe(false);
    // With appearance: the set and the look's (variant, parts) together.
    const s = source([[1, 0b11], [1, 0b11], [2, 0b01], [1, 0b11]]);
    sets = [1, 0, 1, 1];
    const both = new ImpostorLooks(3, 0b11);
    expect(both.update(s, 4, holders)).toEqual([{ variant: 1, parts: 0b11, props: 0 }, { variant: 1, parts: 0b11, props: 1 }, { variant: 2, parts: 0b01, props: 1 }]);
  });

  it(`tells apart at most MAX_PROP_SETS (${MAX_PROP_SETS}) prop sets a count: the instances of any further set are meshes`, () => {
    const count = MAX_PROP_SETS + 10;
    const holders = { holdersVersion: 0, propSets: { setOf: (slot: number) => slot, buffer: undefined } };
    const looks = new ImpostorLooks(2, 0b1);
    looks.baked = looks.update(undefined, count, holders)!;
    expect(looks.stats()).toMatchObject({ inUse: MAX_PROP_SETS, meshes: count - 2 });
    const marks: boolean[] = [];
    looks.markHolders(undefined, count, holders, (slot, meshOnly) => { marks[slot] = meshOnly; });
    expect(marks.filter((m) => !m).length, 'only the baked sets\' instances are not meshes').toBe(2);
  });

  it('with one layer no prop set but none is a look: every holder is a mesh (the atlas holds no props of chosen instances)', () => {
    const holders = { holdersVersion: 0, propSets: { setOf: (slot: number) => [1, 1, 1, 0][slot], buffer: undefined } };
    const looks = new ImpostorLooks(1, 0b1);
    looks.baked = looks.update(undefined, 4, holders)!;
    expect(looks.baked, 'the set-less look, though three of four hold the prop').toEqual([{ variant: 0, parts: 0b1, props: 0 }]);
    expect(looks.stats()).toMatchObject({ inUse: 1, meshes: 3, standIns: 0 });
    const marks: boolean[] = [];
    looks.markHolders(undefined, 4, holders, (slot, meshOnly) => { marks[slot] = meshOnly; });
    expect(marks).toEqual([true, true, true, false]);
  });
});
