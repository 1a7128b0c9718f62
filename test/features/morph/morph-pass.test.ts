import { describe, expect, it } from 'vitest';
import { sampleMorphLut } from '../../../src/anim/lut';
import { buildMask } from '../../../src/anim/masks';
import { applyMorphOverrides, exactMorphSampler, MorphEvaluator, type MorphSampler } from '../../../src/anim/morph';
import type { CpuLayerStack } from '../../../src/anim/layers';
import type { Character } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { openTestDevice } from '../../helpers/gpu';
import { gpuMorphWeights, morphCharacter } from '../../helpers/morph';
import { kernelOf } from '../../helpers/kernel';
import { withFeatures } from '../../helpers/features';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** The CPU reference's sampler: exact on the file's clips, the lookup tables on difference clips (which exist only baked). */
function referenceSampler(character: Character): MorphSampler {
  const exact = exactMorphSampler(character.rig);
  return (clip, t, out) => (clip < character.rig.clips.length ? exact(clip, t, out) : sampleMorphLut(character.baked, clip, t, out));
}

describe.skipIf(!device)('MorphPass: GPU morph weights equal the CPU reference', () => {
  it('blends, layer stacks (masked override, difference and clip-referenced additive layers) and overrides, after the clock moved', async () => {
    const character = await morphCharacter();
    const crowd = withFeatures(new Crowd(device!, character, { ...FORMATS, capacity: 2 })); // grows while adding: the pass rebinds
    const rig = character.rig;
    const maskSpec = { weights: { root: 0.5 }, default: 0 };
    const mask = crowd.createMask(maskSpec);
    const plain = [
      crowd.add({ clipA: 'wave', timeA: 0.3, clipB: 'blink', timeB: 1.1, blend: 0.4 }),
      crowd.add({ clipA: 'snap', timeA: 0.05, speedA: 1 }),
      crowd.add({ clipA: 'blink', timeA: 1.9, speedA: -0.5, clipB: 'snap', timeB: 0.4, blend: 1 }),
    ];
    const layered = crowd.add({ clipA: 'wave', timeA: 0.6 });
    crowd.setLayers(layered, {
      layers: [{ clip: 'blink', time: 0.7, weight: 0.8, mask }],
      additive: [{ clip: 'wave-additive', time: 0.2, weight: 0.7 }, { clip: 'blink', time: 1.3, weight: 0.3, reference: { clip: 'snap', time: 0.1 } }],
    });
    const overridden = crowd.add({ clipA: 'wave', timeA: 0.3 });
    crowd.setMorphWeights(overridden, { smile: 1 });
    const dt = 0.25;
    crowd.update(dt);
    const weights = await gpuMorphWeights(crowd);

    const evaluator = new MorphEvaluator(character.baked.morph!, referenceSampler(character));
    const expected = new Float64Array(4);
    const check = (id: number, what: string) => {
      const slot = kernelOf(crowd).store.slot(id);
      const got = Array.from(weights.subarray(slot * 4, slot * 4 + 4));
      got.forEach((w, i) => expect(Math.abs(w - expected[i]), `${what}: weight ${i} is ${w}, expected ${expected[i]}`).toBeLessThan(2e-5));
    };
    const at = (t: number, speed = 1) => t + speed * dt;
    evaluator.blend({ clipA: 0, timeA: at(0.3), clipB: 1, timeB: at(1.1), blend: 0.4 }, expected);
    check(plain[0], 'wave -> blink 0.4');
    evaluator.blend({ clipA: 2, timeA: at(0.05) }, expected);
    check(plain[1], 'snap (STEP)');
    evaluator.blend({ clipA: 1, timeA: at(1.9, -0.5), clipB: 2, timeB: at(0.4), blend: 1 }, expected);
    check(plain[2], 'blink backwards -> snap 1');
    const stack: CpuLayerStack = {
      base: { clip: 0, time: at(0.6) },
      layers: [{ clip: 1, time: at(0.7), weight: 0.8, mask: buildMask(rig.nodes, maskSpec) }],
      additive: [
        { clip: 3, time: at(0.2), weight: 0.7, reference: 'identity' },
        { clip: 1, time: at(1.3), weight: 0.3, reference: { clip: 2, time: 0.1 } },
      ],
    };
    evaluator.stack(stack, expected);
    check(layered, 'layer stack');
    evaluator.blend({ clipA: 0, timeA: at(0.3) }, expected);
    applyMorphOverrides(expected, [1, NaN, NaN, NaN]);
    check(overridden, 'smile overridden');
    expect(expected[0]).toBe(1);
    // Padding weights stay 0 everywhere.
    for (let s = 0; s < crowd.count; s++) expect(Array.from(weights.subarray(s * 4 + 2, s * 4 + 4))).toEqual([0, 0]);
    crowd.destroy();
  });
});
