import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { bake, type BakedModel } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import { attachClips, makeClipLibrary, readClipFile } from '../../src/bake/clip-library';
import { parseGltf } from '../../src/bake/parse';
import type { Rig } from '../../src/bake/rig';
import { sampleClip } from '../../src/bake/sampler';
import { gpuJointMatrices, type GpuPoseRequest } from '../../tools/gpu-poser';
import { arrayBufferOf } from '../helpers/gltf-builder';
import { openTestDevice } from '../helpers/gpu';
import { WORKGROUP_32K } from '../helpers/gpu-suite';
import { loadModel } from '../helpers/models';
import { splitModel } from '../helpers/split-model';

/**
 * Clips from other files (src/bake/clip-library.ts): every bundled model split into a body file
 * and a clips-only file gives the joint matrices of the original at every clip and a sampling of
 * times, through the exact sampler, the lookup tables and the GPU pose pass.
 */

const device = await openTestDevice(WORKGROUP_32K);
const BUNDLED = ['CesiumMan', 'Fox', 'RobotExpressive', 'Walker'];
/** Times sampled per clip: fractions of its duration, the ends and past them (wrapped). */
const FRACTIONS = [0, 0.013, 0.25, 0.37, 0.5, 0.71, 0.999, 1, 1.3, -0.2];

/** The body rig of a split model with its clips file attached (as loadCharacter({ clips }) does). */
async function splitRig(name: string): Promise<{ original: Rig; split: Rig; warnings: string[] }> {
  const { asset, rig } = await loadModel(name);
  const { body, clips } = splitModel(asset);
  const split = buildRig(await parseGltf(arrayBufferOf(body)));
  const warnings: string[] = [];
  const file = readClipFile(await parseGltf(arrayBufferOf(clips)), `${name}Clips.glb`, warnings);
  attachClips(split, [makeClipLibrary([file], warnings)]);
  return { original: rig, split, warnings: [...warnings, ...split.warnings] };
}

/** Joint matrices of every skin, every clip at every sampled time, one after another. */
function allMatrices(rig: Rig, sample: (clip: number, t: number, out: import('../../src/math/pose').Pose) => import('../../src/math/pose').Pose): Float64Array {
  const poser = new CpuPoser(rig, sample);
  const out: number[] = [];
  rig.clips.forEach((clip, c) => {
    for (const f of FRACTIONS) {
      poser.evaluate({ clipA: c, timeA: f * clip.duration });
      for (let k = 0; k < rig.gltfSkinCount; k++) out.push(...poser.jointMatrices(k));
    }
  });
  return Float64Array.from(out);
}

function gpuRequests(rig: Rig): GpuPoseRequest[] {
  return rig.clips.flatMap((clip, c) => FRACTIONS.map((f) => ({ clipA: c, clipB: c, timeA: f * clip.duration, timeB: f * clip.duration, speedA: 0, speedB: 0, blend: 0 })));
}

const worst = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).toBe(b.length);
  let w = 0;
  for (let i = 0; i < a.length; i++) w = Math.max(w, Math.abs(a[i] - b[i]));
  return w;
};

const sameTables = (a: BakedModel, b: BakedModel) => worst(a.tracks, b.tracks) === 0 && worst(a.trackRefs, b.trackRefs) === 0 && worst(a.clipEntries, b.clipEntries) === 0;

describe('a body file plus a clips-only file give the original joint matrices', () => {
  for (const name of BUNDLED) {
    it(`${name}: every clip, ${FRACTIONS.length} times each, exact and lut (bit for bit), gpu`, async () => {
      const { original, split } = await splitRig(name);
      expect(split.clips.map((c) => [c.name, c.duration])).toEqual(original.clips.map((c) => [c.name, c.duration]));
      expect(split.nodes.names).toEqual(original.nodes.names);
      const exact = worst(allMatrices(split, (c, t, out) => sampleClip(split, c, t, out)), allMatrices(original, (c, t, out) => sampleClip(original, c, t, out)));
      expect(exact).toBe(0);
      const bakedOriginal = bake(original);
      const bakedSplit = bake(split);
      // The clips file carries no morph targets, so its weights channels (RobotExpressive has none) are not baked; TRS tables are the same bytes.
      expect(sameTables(bakedSplit, bakedOriginal)).toBe(true);
      const lut = worst(allMatrices(split, (c, t, out) => sampleLut(bakedSplit, c, t, out)), allMatrices(original, (c, t, out) => sampleLut(bakedOriginal, c, t, out)));
      expect(lut).toBe(0);
      if (!device) return;
      const [a, b] = [await gpuJointMatrices(device, split, bakedSplit, gpuRequests(split)), await gpuJointMatrices(device, original, bakedOriginal, gpuRequests(original))];
      expect(a.length).toBeGreaterThan(0);
      expect(worst(a, b)).toBe(0);
    });
  }
});

describe('retargeting (attachClips on other rests)', () => {
  const q = (axis: [number, number, number], angle: number) => [...axis.map((a) => a * Math.sin(angle / 2)), Math.cos(angle / 2)];
  const mul = (a: number[], b: number[]) => [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
  const conj = (a: number[]) => [-a[0], -a[1], -a[2], a[3]];
  const bodyRest = { hips: q([1, 0, 0], 0.3), leg: q([0, 0, 1], 0.5) };
  const fileRest = { hips: [0, 0, 0, 1], leg: q([0, 1, 0], -0.4) };
  /** A two-node body (Hips at height 2, Leg below) and a file of the same names at height 1 with other rest rotations. */
  function setup() {
    const rig = {
      nodes: {
        count: 2, names: ['Hips', 'Leg'], gltfIndex: Int32Array.of(0, 1), parent: Int32Array.of(-1, 0), isJoint: Uint8Array.of(1, 1),
        restTranslation: Float64Array.of(0, 2, 0, 0, -1, 0), restRotation: Float64Array.from([...bodyRest.hips, ...bodyRest.leg]), restScale: Float64Array.of(1, 1, 1, 1, 1, 1),
      },
      skins: [], gltfSkinCount: 0, primitives: [], clips: [], morphs: [], warnings: [],
    } as unknown as Rig;
    const times = Float32Array.of(0, 1);
    const legKeys = [q([1, 0, 0], 0.2), q([1, 0, 0], 0.9)];
    const file = {
      name: 'moves.glb', names: ['Hips', 'Leg'], parent: Int32Array.of(-1, 0), named: false,
      restTranslation: Float64Array.of(0, 1, 0, 0, -0.5, 0), restRotation: Float64Array.from([...fileRest.hips, ...fileRest.leg]), restScale: Float64Array.of(1, 1, 1, 1, 1, 1),
      clips: [{
        name: 'Step', duration: 1, channels: [
          { node: 0, path: 'translation' as const, interpolation: 'LINEAR' as const, times, values: Float32Array.of(0, 1, 0, 0.5, 0.9, 0.25) },
          { node: 1, path: 'rotation' as const, interpolation: 'LINEAR' as const, times, values: Float32Array.from(legKeys.flat()) },
          { node: 1, path: 'translation' as const, interpolation: 'LINEAR' as const, times, values: Float32Array.of(0, -0.5, 0, 0, -0.6, 0) },
        ],
      }, {
        name: 'Glide', duration: 1, channels: [
          // CUBICSPLINE: in-tangent, value, out-tangent per key.
          { node: 0, path: 'translation' as const, interpolation: 'CUBICSPLINE' as const, times, values: Float32Array.of(0.1, 0, 0, 0, 1, 0, 0.2, 0, 0, 0.3, 0, 0, 1, 1, 0, 0.4, 0, 0) },
        ],
      }],
    };
    return { rig, library: makeClipLibrary([file], []), legKeys };
  }

  it('rotations from each rest, the root translation scaled by hip heights (tangents scaled, not offset), other translations dropped', () => {
    const { rig, library, legKeys } = setup();
    const [binding] = attachClips(rig, [library]);
    expect(binding.retargeted).toBe(true);
    expect(binding.rootScale).toBeCloseTo(2, 12);
    const [step, glide] = rig.clips;
    expect(step.channels.map((c) => [c.node, c.path])).toEqual([[0, 'translation'], [1, 'rotation']]);
    Array.from(step.channels[0].values).forEach((v, i) => expect(v).toBeCloseTo([0, 2, 0, 1, 1.8, 0.5][i], 6));
    const expected = legKeys.flatMap((k) => mul(mul(bodyRest.leg, conj(fileRest.leg)), k));
    Array.from(step.channels[1].values).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 6));
    Array.from(glide.channels[0].values).forEach((v, i) => expect(v).toBeCloseTo([0.2, 0, 0, 0, 2, 0, 0.4, 0, 0, 0.6, 0, 0, 2, 2, 0, 0.8, 0, 0][i], 6));
  });

  it('retarget: false copies the values as they are; a body of the same rests shares the channels untouched', () => {
    const { rig, library } = setup();
    const [binding] = attachClips(rig, [library], { retarget: false });
    expect(binding.retargeted).toBe(false);
    expect(rig.clips[0].channels[0].values).toBe(library.files[0].clips[0].channels[0].values);
    expect(rig.clips[0].channels).toHaveLength(3);
  });
});
