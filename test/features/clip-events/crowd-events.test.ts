import { describe, expect, it } from 'vitest';
import { loadCharacter, type Character } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { HANDLE_SPAN } from '../../../src/runtime/instance-ids';
import { startAllocationWatch } from '../../helpers/allocations';
import { openTestDevice } from '../../helpers/gpu';
import { arrayBufferOf, assetToGlb, skinnedModel } from '../../helpers/gltf-builder';
import { withFeatures } from '../../helpers/features';

/**
 * Clip events of crowds without controllers (src/features/clip-events/crowd-events.ts): the crossing rules, the
 * weight threshold, ordering, and rescheduling on every change. A synthetic character with clips
 * of exact binary lengths (wave 1 s, walk 2 s, hop 0.5 s) and dyadic steps, so every crossing
 * time is exact and "exactly at the event time" means exactly.
 */
const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

async function threeClips(): Promise<Character> {
  const model = skinnedModel();
  const b = model.builder;
  for (const [name, seconds] of [['walk', 2], ['hop', 0.5]] as const) {
    const times = b.addAccessor('SCALAR', Float32Array.of(0, seconds));
    b.json.animations!.push({ name, channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }], samplers: [{ input: times, output: model.acc.rotations, interpolation: 'LINEAR' }] });
  }
  return loadCharacter(arrayBufferOf(assetToGlb(b.build())));
}
const character = device ? await threeClips() : undefined;

/** A fired event with the frame it fired in. */
interface Fired { frame: number; id: number; name: string; clip: string; time: number }

/** A crowd with a recorder: `fired` collects every event; step(dt, n) runs n updates. */
function setup() {
  const crowd = withFeatures(new Crowd(device!, character!, FORMATS));
  const fired: Fired[] = [];
  let frame = 0;
  crowd.onEvent((id, name, clip, time) => fired.push({ frame, id, name, clip, time }));
  const step = (dt: number, n = 1) => { for (let i = 0; i < n; i++) { frame++; crowd.update(dt); } };
  return { crowd, fired, step, names: () => fired.map((f) => `${f.frame}:${f.id}:${f.name}`) };
}

describe.skipIf(!device)('clip events on a crowd', () => {
  describe('validity: bad tables are refused naming the entry, and nothing already set is lost', () => {
    it('rejects times outside the clip, non-finite times, bad names, unknown fields and clips, non-arrays', () => {
      const { crowd } = setup();
      expect(character!.clipDurations[0]).toBe(1);
      crowd.setClipEvents('wave', [{ time: 0.5, name: 'mid' }]);
      const bad: [unknown, RegExp][] = [
        [[{ time: 0.2, name: 'a' }, { time: 1.5, name: 'late' }], /events of clip "wave"\[1\]\.time 1\.5 is outside the clip \(0 to 1 s\)/],
        [[{ time: -0.1, name: 'early' }], /events of clip "wave"\[0\]\.time -0\.1 is outside the clip/],
        [[{ time: NaN, name: 'x' }], /events of clip "wave"\[0\]\.time must be a finite number of seconds, got null/],
        [[{ time: '0.2', name: 'x' }], /\[0\]\.time must be a finite number of seconds, got "0\.2"/],
        [[{ time: 0.2 }], /\[0\]\.name must be a non-empty string, got undefined/],
        [[{ time: 0.2, name: '' }], /\[0\]\.name must be a non-empty string, got ""/],
        [[{ time: 0.2, name: 'x', at: 3 }], /\[0\]: unknown field "at" \(fields: time, name\)/],
        [[0.2], /\[0\] must be an object \{ time, name \}/],
        [{ time: 0.2, name: 'x' }, /events of clip "wave" must be an array of \{ time, name \}, got object/],
      ];
      for (const [events, message] of bad) {
        expect(() => crowd.setClipEvents('wave', events as never)).toThrow(message);
        expect(crowd.clipEvents('wave')).toEqual([{ time: 0.5, name: 'mid' }]);
      }
      expect(() => crowd.setClipEvents('jog', [])).toThrow(/no clip "jog"/);
      for (const t of [0, 1.5, NaN, -0.5]) expect(() => { crowd.eventWeightThreshold = t; }).toThrow(/eventWeightThreshold must be in \(0, 1\], got/);
      expect(crowd.eventWeightThreshold).toBe(0.5);
      expect(() => crowd.onEvent('footstep' as never)).toThrow(/onEvent takes a function/);
      // Both ends of the clip are valid times; events come back in time order (stable).
      crowd.setClipEvents(0, [{ time: 1, name: 'end' }, { time: 0, name: 'start' }, { time: 1, name: 'end2' }]);
      expect(crowd.clipEvents('wave').map((e) => e.name)).toEqual(['start', 'end', 'end2']);
      crowd.destroy();
    });

    it('a refused table keeps the previous one firing', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'step' }]);
      crowd.add({ clipA: 'wave' });
      expect(() => crowd.setClipEvents('wave', [{ time: 2, name: 'late' }])).toThrow(/outside the clip/);
      step(0.125, 4);
      expect(fired.map((f) => f.name)).toEqual(['step']);
      crowd.destroy();
    });
  });

  describe('crossing rules', () => {
    it('an event exactly at a frame end fires in that frame, once; the listener gets id, name, clip name and the event time', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'footstep' }]);
      const id = crowd.add({ clipA: 'wave' });
      step(0.125, 1);
      expect(fired).toEqual([]);
      step(0.125, 1); // clip time 0.25 exactly
      expect(fired).toEqual([{ frame: 2, id, name: 'footstep', clip: 'wave', time: 0.25 }]);
      step(0.125, 7); // to 1.125: nothing until the next loop's 0.25 (frame 10)
      expect(fired).toHaveLength(1);
      step(0.125, 1);
      expect(fired.map((f) => f.frame)).toEqual([2, 10]);
      crowd.destroy();
    });

    it('a playback that starts on an event does not fire it; one at time 0 or at the duration fires at each wrap, the cycle left first', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0, name: 'zero' }, { time: 1, name: 'one' }, { time: 0.5, name: 'half' }]);
      crowd.add({ clipA: 'wave', timeA: 0.5 });
      step(0.25, 6); // 0.5 -> 2.0
      expect(fired.map((f) => `${f.frame}:${f.name}`)).toEqual(['2:one', '2:zero', '4:half', '6:one', '6:zero']);
      crowd.destroy();
    });

    it('a step spanning several loops fires each event once per loop crossed, in crossing order', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('hop', [{ time: 0.125, name: 'a' }, { time: 0.375, name: 'b' }]);
      crowd.add({ clipA: 'hop', timeA: 0.25 });
      step(1.75); // 0.25 -> 2.0, three and a half loops: b at 0.375, then a, b at 0.625, 0.875, ... 1.875
      expect(fired.map((f) => f.name).join('')).toBe('bababab');
      expect(fired.every((f) => f.frame === 1)).toBe(true);
      step(0.125); // 2.125: a, exactly at the end of the step
      expect(fired.map((f) => f.name).join('')).toBe('babababa');
      crowd.destroy();
    });

    it('negative speed plays backwards: crossings in reverse order, the end of the step included', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'a' }, { time: 0.75, name: 'b' }]);
      crowd.add({ clipA: 'wave', timeA: 0.5, speedA: -1 });
      step(0.25); // 0.5 -> 0.25: a at the end of the step
      step(0.25); // 0.25 -> 0 (wraps)
      step(0.25); // 1 -> 0.75: b
      step(0.5); // 0.75 -> 0.25: a (b at the start is not crossed again)
      expect(fired.map((f) => `${f.frame}:${f.name}`)).toEqual(['1:a', '3:b', '4:a']);
      crowd.destroy();
    });

    it('at speed 2 and over a 5 s step, each crossing once; speed 0 fires nothing', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('walk', [{ time: 1.5, name: 'x' }]);
      crowd.add({ clipA: 'walk', speedA: 2 });
      crowd.add({ clipA: 'walk', speedA: 0, timeA: 1.5 });
      step(5); // positions 0 -> 10: crossings at 1.5, 3.5, 5.5, 7.5, 9.5
      expect(fired).toHaveLength(5);
      expect(fired.every((f) => f.id === 0)).toBe(true);
      crowd.destroy();
    });
  });

  describe('weights, order and rescheduling', () => {
    it('fires from clips whose weight is >= the threshold (0.5): both halves of a 50/50 blend, and follows setBlend', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'w' }]);
      crowd.setClipEvents('walk', [{ time: 0.5, name: 'k' }]);
      const id = crowd.add({ clipA: 'wave', clipB: 'walk', blend: 0.5 });
      step(0.5);
      expect(fired.map((f) => f.name)).toEqual(['w', 'k']);
      crowd.setBlend(id, 0.75); // wave at 0.25: below the threshold
      step(1.5); // wave 0.5 -> 2 (would cross 1.25), walk 0.5 -> 2 (no crossing)
      expect(fired.map((f) => f.name)).toEqual(['w', 'k']);
      crowd.eventWeightThreshold = 0.25;
      step(0.25); // wave crosses 2.25 at weight 0.25
      expect(fired.map((f) => f.name)).toEqual(['w', 'k', 'w']);
      crowd.setAnimation(id, { blend: 0 }); // walk at weight 0 never fires, whatever the threshold
      step(2);
      expect(fired.map((f) => f.name)).toEqual(['w', 'k', 'w', 'w', 'w']);
      crowd.destroy();
    });

    it('clip A and clip B the same clip on the same track fire once (the default add)', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'w' }]);
      const id = crowd.add({ clipA: 'wave' }); // clipB = wave at time 0, blend 0
      crowd.setBlend(id, 0.5);
      step(0.5);
      expect(fired).toHaveLength(1);
      crowd.destroy();
    });

    it('layers: an override layer scales the clips below it unless masked; additive layers fire at their own weight', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'base' }]);
      crowd.setClipEvents('walk', [{ time: 0.25, name: 'layer' }]);
      crowd.setClipEvents('hop', [{ time: 0.25, name: 'add' }]);
      const id = crowd.add({ clipA: 'wave' });
      const mask = crowd.createMask({ root: 'arm' });
      crowd.setLayers(id, { layers: [{ clip: 'walk', weight: 0.6 }], additive: [{ clip: 'hop', weight: 0.5, reference: 'rest' }] });
      step(0.5); // base weight 0.4: silent
      expect(fired.map((f) => f.name)).toEqual(['layer', 'add']);
      crowd.setLayers(id, { layers: [{ clip: 'walk', time: 0.5, weight: 0.6, mask }] });
      step(1); // a masked layer leaves the base at weight 1: wave crosses 1.25; walk 0.5 -> 1.5 crosses nothing
      expect(fired.map((f) => f.name)).toEqual(['layer', 'add', 'base']);
      crowd.setLayerWeight(id, 0, 0.2); // still masked, below the threshold
      crowd.setLayers(id, { layers: [{ clip: 'walk', weight: 0.5 }, { clip: 'hop', weight: 0.2 }] }); // walk 0.5 x 0.8 = 0.4
      step(0.25);
      expect(fired.map((f) => f.name)).toEqual(['layer', 'add', 'base']);
      crowd.setLayers(id, null); // plain again: wave alone
      step(0.5);
      expect(fired.map((f) => f.name)).toEqual(['layer', 'add', 'base', 'base']);
      crowd.destroy();
    });

    it('fires in crossing-time order within a frame, ties by instance id', () => {
      const { crowd, names, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.5, name: 'w' }]);
      const a = crowd.add({ clipA: 'wave', timeA: 0.1 }); // crosses at 0.4
      const b = crowd.add({ clipA: 'wave', timeA: 0.3 }); // crosses at 0.2
      const c = crowd.add({ clipA: 'wave', timeA: 0.1 }); // crosses at 0.4, after a
      step(0.5);
      expect(names()).toEqual([`1:${b}:w`, `1:${a}:w`, `1:${c}:w`]);
      crowd.destroy();
    });

    it('setStack (the controllers\' form) schedules its base and layers', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('walk', [{ time: 1, name: 'k' }]);
      const id = crowd.add({ clipA: 'wave' });
      crowd.setStack(id, { baseClip: 2, baseTime: 0, baseSpeed: 1, layerCount: 1, layerClip: [1], layerTime: [0.5], layerSpeed: [1], layerWeight: [1], layerMask: [-1] });
      step(0.5);
      expect(fired.map((f) => `${f.clip}:${f.name}`)).toEqual(['walk:k']);
      crowd.destroy();
    });

    it('removal cancels an instance\'s events; a reused handle starts from its new playback, heard under its new id; clear cancels all', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.25, name: 'w' }]);
      const a = crowd.add({ clipA: 'wave' });
      const b = crowd.add({ clipA: 'wave', timeA: 0.125 });
      crowd.remove(a);
      step(0.25);
      expect(fired.map((f) => f.id)).toEqual([b]);
      const again = crowd.add({ clipA: 'wave', timeA: 0.5 });
      expect(again).toBe(a + HANDLE_SPAN);
      step(0.5); // again: 0.5 -> 1, no crossing; b: 0.375 -> 0.875, none
      step(0.5); // again crosses 1.25 at 0.25 into the step, b crosses 1.25 at 0.375
      expect(fired.map((f) => f.id)).toEqual([b, again, b]);
      crowd.clear();
      step(2);
      expect(fired).toHaveLength(3);
      crowd.destroy();
    });

    it('keeps the schedule across a clock rebase (every 600 s): every crossing once, at its frame', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('walk', [{ time: 1.25, name: 'k' }]);
      crowd.add({ clipA: 'walk' });
      step(598.5); // crosses 1.25 + 2k for k = 0..298 (597.25 the last)
      expect(fired).toHaveLength(299);
      const before = crowd.clock;
      step(0.25, 20); // frames 2..21 end at 598.5 + 0.25 (f - 1): the rebase happens at 600.25; crossings at 599.25, 601.25, 603.25
      expect(crowd.clock).toBeLessThan(before); // it did rebase
      expect(fired.slice(299).map((f) => f.frame)).toEqual([4, 12, 20]);
      crowd.destroy();
    });

    it('an empty table removes the events; a negative dt fires nothing and the playback goes on from where it is', () => {
      const { crowd, fired, step } = setup();
      crowd.setClipEvents('wave', [{ time: 0.5, name: 'w' }]);
      crowd.add({ clipA: 'wave' });
      step(0.25);
      step(-0.125); // back to 0.125
      expect(fired).toEqual([]);
      step(0.375);
      expect(fired).toHaveLength(1);
      crowd.setClipEvents('wave', []);
      step(1);
      expect(fired).toHaveLength(1);
      crowd.destroy();
    });
  });

  it('a frame with no event due allocates nothing, with 200 instances fading (setBlend) every frame; nor does a frame that fires', () => {
    const { crowd, fired, step } = setup();
    crowd.setClipEvents('walk', [{ time: 1.75, name: 'k' }]);
    const ids = Array.from({ length: 200 }, (_, i) => crowd.add({ clipA: 'walk', clipB: 'wave', timeA: (i % 7) / 8, blend: 0.1 }));
    step(1 / 64); // first upload
    const watch = startAllocationWatch();
    try {
      for (let f = 0; f < 8; f++) {
        for (const id of ids) crowd.setBlend(id, 0.1 + f * 0.01);
        step(1 / 64);
      }
    } finally {
      watch.stop();
    }
    expect(fired).toEqual([]);
    expect(watch.count).toBe(0);
    fired.length = 0;
    const firing = startAllocationWatch();
    try {
      step(1);
    } finally {
      firing.stop();
    }
    expect(fired.length).toBe(ids.filter((_, i) => i % 7 >= 5).length); // those whose walk reaches 1.75 s within the second
    expect(firing.count).toBe(0);
    crowd.destroy();
  });
});
