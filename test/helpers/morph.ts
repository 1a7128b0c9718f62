import { kernelOf } from './kernel';
import { loadCharacter, type Character } from '../../src/character/character';
import type { Crowd } from '../../src/runtime/crowd';
import type { CrowdMorph } from '../../src/features/morph/crowd-morph';
import { arrayBufferOf, assetToGlb, morphModel } from './gltf-builder';
import { readBuffer } from './gpu';

/** The hand-built morph model (gltf-builder.ts morphModel) as a Character, with 'wave' also baked as a difference clip 'wave-additive'. */
export function morphCharacter(): Promise<Character> {
  return loadCharacter(arrayBufferOf(assetToGlb(morphModel().builder.build())), {
    lod: false, additiveClips: [{ clip: 'wave', reference: 'rest' }],
  });
}

/** Runs the crowd's compute passes and reads back every slot's morph weights (BakedMorph.weightCount f32 each). */
export async function gpuMorphWeights(crowd: Crowd): Promise<Float32Array> {
  const encoder = crowd.device.createCommandEncoder();
  crowd.encode(encoder);
  crowd.device.queue.submit([encoder.finish()]);
  return new Float32Array(await readBuffer(crowd.device, kernelOf(crowd).feature<CrowdMorph>('morph')!.store.weightBuffer));
}
