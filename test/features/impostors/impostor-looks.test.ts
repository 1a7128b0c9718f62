import { describe, expect, it } from 'vitest';
import { ImpostorLooks } from '../../../src/features/impostors/impostor-looks';
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
    },
  };
  return self as unknown as AppearanceSource & typeof self;
}

/** Which looks CrowdImpostors bakes (CPU only; the images: impostor-draw.test.ts). */
describe('ImpostorLooks', () => {
  it('without appearance, one look (variant 0, every part); counts again only after a change', () => {
    const looks = new ImpostorLooks(2, 0b1111);
    expect(looks.update(undefined, 3)).toEqual([{ variant: 0, parts: 0b1111 }]);
    looks.baked = [{ variant: 0, parts: 0b1111 }];
    expect(looks.update(undefined, 3)).toBeUndefined();
    expect(looks.stats()).toEqual({ baked: 1, capacity: 2, inUse: 1, standIns: 0, standIn: { variant: 0, parts: 0b1111 } });
    expect(looks.stale()).toEqual([]);
  });

  it('bakes the most used looks that fit, keeps layers while there is room, and names the stand-ins past them', () => {
    const looks = new ImpostorLooks(2, 0b11);
    const s = source([[1, 0b11], [1, 0b11], [2, 0b01], [0, 0b01]]);
    // The most used, then the smaller of the tie; sorted by (variant, parts): layer 0 is (0, 0b01).
    const first = looks.update(s, 4)!;
    expect(first).toEqual([{ variant: 0, parts: 0b01 }, { variant: 1, parts: 0b11 }]);
    s.set([[1, 0b11], [1, 0b11], [0, 0b01]]);
    looks.baked = first;
    expect(looks.standIn).toBe(1); // the most used look's layer
    // The same looks: nothing to bake. A change that keeps the count is seen by the version.
    expect(looks.update(s, 3)).toBeUndefined();
    s.set([[1, 0b11], [1, 0b11], [2, 0b01]]);
    const second = looks.update(s, 3)!;
    // (2, 0b01) is new; (0, 0b01), no longer used, gives its layer up only because two are in use and two fit.
    expect(second).toEqual([{ variant: 1, parts: 0b11 }, { variant: 2, parts: 0b01 }]);
    looks.baked = second;
    // One look in use: nothing to bake, the other layer kept.
    s.set([[1, 0b11]]);
    expect(looks.update(s, 1)).toBeUndefined();
    // Three in use, two layers: (0, 0b10), as used as the baked (2, 0b01), takes no layer (a tie is no margin); it is a stand-in.
    s.set([[1, 0b11], [1, 0b11], [2, 0b01], [0, 0b10]]);
    expect(looks.update(s, 4)).toBeUndefined();
    expect(looks.stats()).toMatchObject({ baked: 2, inUse: 3, standIns: 1, standIn: { variant: 1, parts: 0b11 } });
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
    expect(looks.baked).toEqual([{ variant: 0, parts: 0b01 }, { variant: 1, parts: 0b11 }]);
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
    looks.baked = [{ variant: 1, parts: 0b11 }, { variant: 3, parts: 0b11 }];
    s.set(crowd(10, 1, 0));
    expect(looks.update(s, 11)!.map((l) => l.variant)).toEqual([1, 2]);
  });
});
