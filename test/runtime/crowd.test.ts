import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadCharacter } from '../../src/character/character';
import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { buildMask } from '../../src/anim/masks';
import { Crowd } from '../../src/runtime/crowd';
import { INSTANCE } from '../../src/runtime/layout';
import { modelPath } from '../helpers/models';
import { openTestDevice, readBuffer } from '../helpers/gpu';
import { testCharacter } from '../helpers/character';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

describe.skipIf(!device)('Crowd', () => {
  describe('validity: bad input is rejected with a message that names it', () => {
    it('rejects unknown clips, bad blends, bad times and transforms, and dead ids', async () => {
      const crowd = new Crowd(device!, await testCharacter('Fox'), FORMATS);
      expect(() => crowd.add({ clipA: 'Jog' })).toThrow(/no clip "Jog" in .*"Survey", "Walk", "Run"/);
      expect(() => crowd.add({ clipB: 7 })).toThrow(/no clip 7/);
      expect(() => crowd.add({ blend: 1.5 })).toThrow(/blend must be in \[0, 1\], got 1.5/);
      expect(() => crowd.add({ timeA: NaN })).toThrow(/timeA must be a finite number/);
      expect(() => crowd.add({ transform: [1, 2, 3] })).toThrow(/16 numbers/);
      expect(crowd.count).toBe(0); // failed adds leave nothing behind
      const id = crowd.add();
      crowd.remove(id);
      expect(() => crowd.remove(id)).toThrow(/instance \d+ does not exist/);
      expect(() => crowd.setAnimation(12345, { blend: 0 })).toThrow(/instance 12345 does not exist/);
      expect(() => crowd.update(Infinity)).toThrow(/dt must be a finite number/);
      expect(() => new Crowd(device!, crowd.character, { ...FORMATS, capacity: 0 })).toThrow(/capacity must be a positive integer/);
      crowd.destroy();
    });

    it('refuses a bad stack in arrays (setStack) or a stack that is no array, and leaves the instance as it was', async () => {
      const crowd = new Crowd(device!, await testCharacter('Fox'), FORMATS);
      const id = crowd.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 });
      const before = crowd.getAnimation(id);
      const stack = {
        baseClip: 2, baseTime: 0.1, baseSpeed: 1, layerCount: 1,
        layerClip: [1], layerTime: [0], layerSpeed: [1], layerWeight: [0.5], layerMask: [-1],
      };
      expect(() => crowd.setStack(id, { ...stack, layerWeight: [1.5] })).toThrow(/layers\[0\]\.weight must be in \[0, 1\], got 1.5/);
      expect(() => crowd.setStack(id, { ...stack, layerClip: [9] })).toThrow(/layers\[0\]\.clip 9 does not exist/);
      expect(() => crowd.setStack(id, { ...stack, layerCount: 5 })).toThrow(/layerCount must be an integer in \[0, 4\], got 5/);
      expect(() => crowd.setStack(id, { ...stack, layerMask: [3] }, [])).toThrow(/layers\[0\]\.mask 3 is not -1 or an index of the 0 mask ids given/);
      expect(() => crowd.setStack(id, { ...stack, baseClip: 7 })).toThrow(/baseClip 7 does not exist/);
      expect(() => crowd.setStack(id, { ...stack, baseTime: NaN })).toThrow(/baseTime must be a finite number/);
      expect(() => crowd.setLayers(id, { layers: 'Survey' as never })).toThrow(/layers must be an array, got "Survey"/);
      expect(() => crowd.setPlacement(id, 0, 0, 0, NaN)).toThrow(/yaw must be a finite number, got NaN/);
      expect(() => crowd.setPlacement(id, Infinity, 0, 0, 0)).toThrow(/x must be a finite number, got Infinity/);
      expect(() => crowd.setLayerWeight(id, 0, 0.5)).toThrow(/has no layers/); // still plain
      expect(crowd.getAnimation(id)).toEqual(before);
      // One unmasked layer is written as a plain two-clip blend (layer-input.ts writeLayerStackArrays);
      // a masked one, or two, make the instance layered.
      crowd.setStack(id, stack);
      expect(crowd.getAnimation(id)).toMatchObject({ clipA: 2, clipB: 1, blend: 0.5 });
      expect(() => crowd.setLayerWeight(id, 0, 0.5)).toThrow(/has no layers/);
      crowd.setStack(id, { ...stack, layerCount: 2, layerClip: [1, 0], layerTime: [0, 0], layerSpeed: [1, 1], layerWeight: [0.5, 0.5], layerMask: [-1, -1] });
      expect(crowd.getAnimation(id)).toMatchObject({ clipA: 2, clipB: 2, blend: 0 });
      crowd.setLayerWeight(id, 0, 0.25); // now layered
      crowd.destroy();
    });
  });

  it('keeps ids stable across removals and growth past capacity', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 2 });
    const ids = Array.from({ length: 5 }, (_, i) => crowd.add({ clipA: 'Walk', timeA: i * 0.1, speedA: 0 }));
    crowd.remove(ids[1]);
    expect(crowd.count).toBe(4);
    for (const i of [0, 2, 3, 4]) expect(crowd.getAnimation(ids[i]).timeA).toBeCloseTo(i * 0.1, 5);
    crowd.destroy();
  });

  it('setAnimation changes only what it is given; times advance with update(dt) at their speeds', async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, FORMATS);
    const id = crowd.add({ clipA: 'Walk', clipB: 'Run', timeA: 0.1, timeB: 0.2, speedA: 1, speedB: 0.5, blend: 0.3 });
    crowd.update(0.25);
    crowd.setAnimation(id, { blend: 0.6 });
    const state = crowd.getAnimation(id);
    expect(state).toMatchObject({ clipA: 1, clipB: 2, speedA: 1, speedB: 0.5 });
    expect(state.blend).toBeCloseTo(0.6, 6);
    expect(state.timeA).toBeCloseTo(0.35, 5);
    expect(state.timeB).toBeCloseTo(0.325, 5);
    crowd.destroy();
  });

  it('rebases its clock without changing any time (float32 stays precise for hours)', async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, FORMATS);
    const id = crowd.add({ clipA: 'Survey', timeA: 1, speedA: 1 });
    for (let i = 0; i < 700; i++) crowd.update(1); // crosses the 600 s rebase once
    expect(crowd.clock).toBeLessThan(600);
    const expected = (1 + 700) % character.clipDurations[0];
    expect(crowd.getAnimation(id).timeA).toBeCloseTo(expected, 3);
    crowd.destroy();
  });

  it('uploads nothing for a steady crowd and only changed records otherwise; GPU output follows', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), FORMATS);
    for (let i = 0; i < 100; i++) crowd.add({ clipA: 'Walk', timeA: i * 0.01 });
    const writes: number[] = [];
    const queue = device!.queue;
    const original = queue.writeBuffer.bind(queue);
    queue.writeBuffer = ((buffer: GPUBuffer, offset: number, data: ArrayBuffer, dataOffset?: number, size?: number) => {
      if (buffer.label === 'Crowd.instances') writes.push(size ?? data.byteLength);
      return original(buffer, offset, data, dataOffset, size);
    }) as typeof queue.writeBuffer;
    try {
      crowd.update(1 / 60); // first upload: all 100 records
      crowd.update(1 / 60); // steady: nothing
      crowd.setAnimation(42, { blend: 0.5, clipB: 'Run' });
      crowd.update(1 / 60); // one record
    } finally {
      queue.writeBuffer = original;
    }
    expect(writes).toEqual([100 * INSTANCE.size, INSTANCE.size]);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const matrices = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    expect(matrices.subarray(0, 100 * crowd.jointsPerInstance * 12).some(Number.isNaN)).toBe(false);
    crowd.destroy();
  });
});

describe.skipIf(!device)('Crowd layers', () => {
  it('validity: too many layers, unknown masks, clips and joints, weights out of range', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), FORMATS);
    const id = crowd.add({ clipA: 'Walk' });
    const layer = { clip: 'Survey', weight: 0.5 };
    expect(() => crowd.setLayers(id, { layers: [layer, layer, layer, layer, layer] })).toThrow(/at most 4 override layers per instance, got 5/);
    expect(() => crowd.setLayers(id, { additive: [1, 2, 3].map(() => ({ ...layer, reference: 'rest' as const })) })).toThrow(/at most 2 additive layers/);
    expect(() => crowd.setLayers(id, { layers: [{ ...layer, mask: 3 }] })).toThrow(/layers\[0\]\.mask 3 does not exist \(the crowd has 0 masks\)/);
    expect(() => crowd.setLayers(id, { layers: [{ ...layer, clip: 'Jog' }] })).toThrow(/no clip "Jog"/);
    expect(() => crowd.setLayers(id, { layers: [{ ...layer, weight: 2 }] })).toThrow(/layers\[0\]\.weight must be in \[0, 1\], got 2/);
    expect(() => crowd.createMask({ root: 'Tail' })).toThrow(/no joint named 'Tail'/);
    expect(() => crowd.setLayerWeight(id, 0, 0.5)).toThrow(/has no layers/);
    crowd.setLayers(id, { layers: [layer] });
    expect(() => crowd.setLayerWeight(id, 1, 0.5)).toThrow(/override layer 1 does not exist \(the instance has 1\)/);
    expect(() => crowd.setLayerWeight(id, 0, 0.5, 'additive')).toThrow(/additive layer 0 does not exist/);
    crowd.destroy();
  });

  it('moves a layered instance\'s stack with it when another instance is removed', async () => {
    const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 2 });
    const mask = crowd.createMask({ root: 'b_Spine01_02' });
    const first = crowd.add({ clipA: 'Walk', speedA: 0 });
    const layered = crowd.add({ clipA: 'Walk', speedA: 0 });
    crowd.setLayers(layered, { layers: [{ clip: 'Survey', time: 1, speed: 0, weight: 1, mask }] });
    const reference = crowd.add({ clipA: 'Walk', speedA: 0 }); // grows past capacity 2
    crowd.setLayers(reference, { layers: [{ clip: 'Survey', time: 1, speed: 0, weight: 1, mask }] });
    crowd.remove(first); // the last instance (reference) moves into slot 0
    crowd.update(0);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const m = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    const per = crowd.jointsPerInstance * 12;
    // Both remaining instances carry the same layered pose; a lost stack would show plain Walk.
    for (let i = 0; i < per; i++) expect(m[i]).toBeCloseTo(m[per + i], 5);
    crowd.setLayers(layered, null);
    crowd.update(0);
    const again = device!.createCommandEncoder();
    crowd.encode(again);
    device!.queue.submit([again.finish()]);
    const n = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    expect(Array.from(n.subarray(0, per)).some((v, i) => Math.abs(v - n[per + i]) > 1e-3)).toBe(true);
    crowd.destroy();
  });
});

describe.skipIf(!device)('Crowd difference clips', () => {
  it('loads additive clips as difference clips and uses them without a reference', async () => {
    const bytes = readFileSync(modelPath('Fox'));
    const character = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, {
      additiveClips: [{ clip: 'Run', reference: { clip: 'Run', time: 0 } }, { clip: 'Survey', reference: 'rest', name: 'Look' }],
    });
    expect(character.clipNames).toEqual(['Survey', 'Walk', 'Run', 'Run-additive', 'Look']);
    await expect(loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, {
      additiveClips: [{ clip: 'Jog', reference: 'rest' }],
    })).rejects.toThrow(/additiveClips\[0\]\.clip: no clip "Jog"/);
    const crowd = new Crowd(device!, character, FORMATS);
    const id = crowd.add({ clipA: 'Walk' });
    crowd.setLayers(id, { additive: [{ clip: 'Look', weight: 0.5 }] });
    expect(() => crowd.setLayers(id, { additive: [{ clip: 'Look', weight: 0.5, reference: 'rest' }] })).toThrow(/difference clip .* give it no reference/);
    expect(() => crowd.setLayers(id, { additive: [{ clip: 'Run', weight: 0.5 }] })).toThrow(/reference must be 'rest' or \{ clip, time \}/);
    crowd.destroy();
  });
});

describe.skipIf(!device)('Crowd keeps layered instances after plain ones (two pipelines)', () => {
  it('survives random adds, removes, setLayers and setLayers(null): every instance poses as its own state says', async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4 });
    const { rig, baked } = character;
    const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
    const mask = crowd.createMask({ root: 'b_Spine01_02' });
    const maskWeights = buildMask(rig.nodes, { root: 'b_Spine01_02' });
    type State = { clip: number; time: number; layer?: { clip: number; time: number; weight: number } };
    const states = new Map<number, State>();
    let seed = 11;
    const next = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let step = 0; step < 120; step++) {
      const ids = [...states.keys()];
      const op = next();
      if (op < 0.35 || ids.length < 3) {
        const state: State = { clip: Math.floor(next() * 3), time: next() * 2 };
        states.set(crowd.add({ clipA: state.clip, timeA: state.time, speedA: 0 }), state);
      } else {
        const id = ids[Math.floor(next() * ids.length)];
        if (op < 0.55) {
          crowd.remove(id);
          states.delete(id);
        } else if (op < 0.85) {
          const layer = { clip: Math.floor(next() * 3), time: next() * 2, weight: 0.2 + 0.8 * next() };
          crowd.setLayers(id, { layers: [{ ...layer, speed: 0, mask }] });
          states.get(id)!.layer = layer;
        } else {
          crowd.setLayers(id, null);
          delete states.get(id)!.layer;
        }
      }
    }
    crowd.update(0);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const rows = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    const joints = crowd.jointsPerInstance;
    let layered = 0;
    for (const [id, state] of states) {
      if (state.layer) layered++;
      poser.evaluateStack({
        base: { clip: state.clip, time: state.time },
        layers: state.layer ? [{ ...state.layer, mask: maskWeights }] : [],
        additive: [],
      });
      const expected = poser.jointMatrices(0);
      const first = crowd.jointMatrixIndex(id);
      for (let j = 0; j < joints; j++) {
        for (let r = 0; r < 3; r++) {
          for (let c = 0; c < 4; c++) {
            expect(rows[(first + j) * 12 + r * 4 + c]).toBeCloseTo(expected[j * 16 + c * 4 + r], 2);
          }
        }
      }
    }
    expect(layered).toBeGreaterThan(2);
    expect(states.size).toBeGreaterThan(layered);
    crowd.destroy();
  });
});
