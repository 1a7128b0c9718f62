import { describe, expect, it } from 'vitest';
import { CrowdMorph } from '../../../src/features/morph/crowd-morph';
import { Crowd } from '../../../src/runtime/crowd';
import type { MeshBuffers } from '../../../src/runtime/mesh-buffers';
import { vertexEntryPoint } from '../../../src/runtime/skin-pass';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';
import { gpuMorphWeights } from '../../helpers/morph';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../../helpers/render';
import { kernelOf } from '../../helpers/kernel';
import { withFeatures } from '../../helpers/features';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** Overrides as getMorphWeights returns them, NaN written as null (toEqual treats NaN = NaN, but this reads better in failures). */
const overrides = (crowd: Crowd, id: number) => Array.from(crowd.getMorphWeights(id), (w) => (Number.isNaN(w) ? null : w));

describe.skipIf(!device)('Crowd.setMorphWeights: validity (a refused call changes nothing)', () => {
  it('refuses weights outside [0, 1], unknown targets, arrays of the wrong length, non-numbers: named, nothing set, nothing uploaded', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const id = crowd.add();
    crowd.setMorphWeights(id, { Sad: 0.5 });
    crowd.update(0);
    const refusals: [() => void, RegExp][] = [
      [() => crowd.setMorphWeights(id, { Angry: 1.5 }), /^morph weight "Angry" must be in \[0, 1\] \(or null to follow the animation\), got 1\.5$/],
      [() => crowd.setMorphWeights(id, { Surprised: 0.2, Angry: -0.1 }), /morph weight "Angry" must be in \[0, 1\].*got -0\.1/],
      [() => crowd.setMorphWeights(id, { Angry: NaN }), /morph weight "Angry" must be in \[0, 1\].*got NaN/],
      [() => crowd.setMorphWeights(id, { Angry: '1' as unknown as number }), /morph weight "Angry" must be in \[0, 1\].*got "1"/],
      [() => crowd.setMorphWeights(id, { Happy: 1 }), /^no morph target "Happy" in model \(morph targets: Head\/Angry, Head\/Surprised, Head\/Sad\)$/],
      [() => crowd.setMorphWeights(id, [1, 0]), /^morph weights must have 3 numbers \(one per Character\.morphTargets: Head\/Angry, Head\/Surprised, Head\/Sad\), got 2$/],
      [() => crowd.setMorphWeights(id, [0, 1, Infinity]), /morph weight "Head\/Sad" must be in \[0, 1\].*got Infinity/],
      [() => crowd.setMorphWeights(id, 0.5 as never), /morph weights must be an object of target names, an array of 3 numbers, or null, got number/],
      [() => crowd.setMorphWeight(id, 'Angry', 2), /morph weight "Head\/Angry" must be in \[0, 1\]/],
      [() => crowd.setMorphWeight(id, 3, 0.5), /^morph target 3 does not exist \(the character has 3: Head\/Angry, Head\/Surprised, Head\/Sad\)$/],
      [() => crowd.setMorphWeights(99, { Angry: 1 }), /instance 99 does not exist/],
    ];
    for (const [call, message] of refusals) {
      expect(call).toThrow(message);
      expect(overrides(crowd, id), String(message)).toEqual([null, null, 0.5]);
    }
    crowd.update(0);
    expect(crowd.uploadedBytes).toBe(0);
    crowd.destroy();
  });

  it('a character without morph targets refuses the calls and pays nothing: no morph pass, store or buffers, the plain entry points', async () => {
    const fox = await testCharacter('Fox');
    const crowd = withFeatures(new Crowd(device!, fox, FORMATS));
    const id = crowd.add();
    expect(() => crowd.setMorphWeights(id, { Angry: 1 })).toThrow(/^model has no morph targets$/);
    expect(() => crowd.getMorphWeights(id)).toThrow(/has no morph targets/);
    expect(fox.morphTargets).toEqual([]);
    expect(fox.baked.morph).toBeUndefined();
    expect(crowd.hasFeature('morph')).toBe(false);
    expect(() => new CrowdMorph(crowd)).toThrow(/^model has no morph targets$/);
    const mesh = crowd['passes'].mesh as MeshBuffers;
    expect(mesh.morph).toBe(false);
    expect(mesh.primitives.map((p) => [vertexEntryPoint(p), p.morphTargets])).toEqual(mesh.primitives.map((p) => [`vertex${p.influences}`, undefined]));
    crowd.destroy();
  });
});

describe.skipIf(!device)('Crowd.setMorphWeights: behaviour', () => {
  it('objects set the named targets and keep the rest; arrays set all; null and NaN give targets back to the animation', async () => {
    const robot = await testCharacter('RobotExpressive');
    expect(robot.morphTargets).toEqual([{ mesh: 'Head', name: 'Angry' }, { mesh: 'Head', name: 'Surprised' }, { mesh: 'Head', name: 'Sad' }]);
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const id = crowd.add();
    expect(overrides(crowd, id)).toEqual([null, null, null]);
    crowd.setMorphWeights(id, { Angry: 1, 'Head/Sad': 0.25 });
    expect(overrides(crowd, id)).toEqual([1, null, 0.25]);
    crowd.setMorphWeights(id, { Angry: null, Surprised: 0.5 });
    expect(overrides(crowd, id)).toEqual([null, 0.5, 0.25]);
    crowd.setMorphWeights(id, [0, NaN, 1]);
    expect(overrides(crowd, id)).toEqual([0, null, 1]);
    crowd.setMorphWeight(id, 1, 0.75);
    crowd.setMorphWeight(id, 'Sad', null);
    expect(overrides(crowd, id)).toEqual([0, 0.75, null]);
    crowd.setMorphWeights(id, null);
    expect(overrides(crowd, id)).toEqual([null, null, null]);
    // A new instance in a reused slot starts animated.
    crowd.setMorphWeights(id, { Angry: 1 });
    crowd.remove(id);
    const next = crowd.add();
    expect(overrides(crowd, next)).toEqual([null, null, null]);
    crowd.destroy();
  });

  it('overrides follow their instance through slot moves (layers, removal, growth) and a device restore; the GPU weights agree', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, { ...FORMATS, capacity: 2 }));
    const faces: [number, number[]][] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0], [0, 0.25, 0.75]].map((w) => {
      const id = crowd.add({ clipA: 'Idle', timeA: w[0] });
      crowd.setMorphWeights(id, w);
      return [id, w];
    });
    crowd.setLayers(faces[0][0], { layers: [{ clip: 'Wave', weight: 0.5 }] }); // moves it into the layered range
    crowd.remove(faces[1][0]); // the last plain instance fills its slot
    faces.splice(1, 1);
    const unset = crowd.add({ clipA: 'Walking' }); // grows past capacity again
    const expectWeights = async (where: string) => {
      crowd.update(0);
      const weights = await gpuMorphWeights(crowd);
      for (const [id, w] of [...faces, [unset, [0, 0, 0]] as [number, number[]]]) {
        const slot = kernelOf(crowd).store.slotOfId(id);
        expect(Array.from(weights.subarray(slot * 4, slot * 4 + 4)), `${where}: instance ${id}`).toEqual([...w.map(Math.fround), 0]);
      }
    };
    await expectWeights('after the moves');
    const second = (await openTestDevice())!;
    crowd.restore(second);
    await expectWeights('after restore');
    expect(kernelOf(crowd).feature<CrowdMorph>('morph')!.store.weightBuffer.label).toBe('Crowd.morphWeights');
    crowd.destroy();
    second.destroy();
  });

  it('draws the expression: a close-up of the face differs with Angry and Surprised, with culling, LOD and shadows on; the same frame twice does not', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, { ...FORMATS, shadows: true }));
    const id = crowd.add({ clipA: 'Idle', speedA: 0 });
    const { min, max } = robot.bounds;
    const headY = min[1] + 0.88 * (max[1] - min[1]);
    const { viewProjection, eye } = lookAt([0, headY, max[2] + 0.35 * (max[1] - min[1])], [0, headY, 0], { near: 0.05 });
    crowd.setCamera(viewProjection, eye);
    crowd.update(0);
    const plain = await renderCrowd(device!, crowd, viewProjection, 256);
    expect(differingPixels(plain, await renderCrowd(device!, crowd, viewProjection, 256))).toBe(0);
    crowd.setMorphWeights(id, { Angry: 1, Surprised: 1 });
    crowd.update(0);
    const expressive = await renderCrowd(device!, crowd, viewProjection, 256);
    expect(drawnPixels(plain)).toBeGreaterThan(256 * 256 * 0.2);
    // The eyebrows rise (Surprised) and tilt (Angry): about 13,000 of 44,000 drawn pixels change.
    expect(differingPixels(plain, expressive)).toBeGreaterThan(drawnPixels(plain) * 0.1);
    crowd.destroy();
  });
});
