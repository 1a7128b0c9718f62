import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { bake } from '../../src/bake/bake';
import type { InstanceAnimation } from '../../src/runtime/instance-records';
import { PosePass } from '../../src/runtime/pose-pass';
import { packRigData } from '../../src/bake/rig-data';
import { gpuJointMatrices } from '../../tools/gpu-poser';
import { openTestDevice } from '../helpers/gpu';
import { LARGE_BUFFERS, WORKGROUP_32K } from '../helpers/gpu-suite';
import { compareMatrices } from '../helpers/matrices';
import { loadModel } from '../helpers/models';
import { seededRandom } from '../helpers/prng';

const device = await openTestDevice({ ...WORKGROUP_32K, ...LARGE_BUFFERS });

/** Records covering every clip, times past the duration and negative, blends 0, 1 and between. */
function randomRecords(count: number, durations: Float32Array, seed: number): InstanceAnimation[] {
  const next = seededRandom(seed);
  const clips = durations.length;
  return Array.from({ length: count }, (_, i) => {
    const clipA = i % clips;
    const clipB = Math.floor(next() * clips);
    const blend = i % 5 === 0 ? 0 : i % 5 === 1 ? 1 : next();
    const span = 3 * Math.max(durations[clipA], durations[clipB], 0.1);
    return { clipA, clipB, blend, timeA: (next() * 2 - 1) * span, timeB: (next() * 2 - 1) * span, speedA: 0, speedB: 0 };
  });
}

/** Tolerance: 1e-5 of each matrix's scale, 10x the float32 estimate in helpers/matrices.ts. */
const compare = compareMatrices;

const MODELS = ['Fox', 'CesiumMan', 'RobotExpressive'];

describe.skipIf(!device)('PosePass: GPU joint matrices equal the TypeScript lut reference', () => {
  for (const name of MODELS) {
    // 333 instances: not a multiple of any workgroup size.
    it(`${name}: 333 random records, every element written`, async () => {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      const records = randomRecords(333, baked.clipDurations, name.length);
      const gpu = await gpuJointMatrices(device!, rig, baked, records);
      const slots = rig.skins.reduce((n, s) => n + s.joints.length, 0);
      expect(gpu.length).toBe(records.length * slots * 16);

      const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
      const reference = new Float64Array(gpu.length);
      records.forEach((r, i) => {
        poser.evaluate(r);
        let slot = i * slots;
        rig.skins.forEach((_, k) => {
          const m = poser.jointMatrices(k);
          reference.set(m, slot * 16);
          slot += m.length / 16;
        });
      });
      const extent = Math.max(...rig.nodes.restTranslation.map(Math.abs), 1);
      const result = compare(gpu, reference, extent);
      console.log(`${name}: worst 3x3 error ${result.worstLinear.toExponential(2)}, worst translation error ${result.worstTranslation.toExponential(2)} of extent ${extent.toFixed(2)}`);
      expect(result.unwritten).toBe(0);
      expect(result.worstLinear).toBeLessThan(1e-5);
      expect(result.worstTranslation).toBeLessThan(1e-5);
    });
  }

  it('writes model-space matrices: the world transform is left to the skin shader (so a held pose follows its instance)', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig);
    const records = randomRecords(3, baked.clipDurations, 7);
    const world = (i: number) => [2, 0, 0, 0, 0, 0, 2, 0, 0, -2, 0, 0, 10 * i, 5, -3, 1]; // scale 2, rotate 90 deg about x, move
    const placed = await gpuJointMatrices(device!, rig, baked, records, { world });
    const plain = await gpuJointMatrices(device!, rig, baked, records);
    expect(Array.from(placed)).toEqual(Array.from(plain));
  });

  it('advances time on the GPU: time = phase + speed * clock', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig);
    const walk = baked.clipNames.indexOf('Walk');
    const run = baked.clipNames.indexOf('Run');
    // Posed at clock 0 with speeds, then evaluated at clock 0.25 s: equals the still record at the later times.
    const moving = { clipA: walk, clipB: run, timeA: 0.1, timeB: 0.3, speedA: 2, speedB: -1, blend: 0.4 };
    const still = { ...moving, timeA: 0.1 + 2 * 0.25, timeB: 0.3 - 0.25, speedA: 0, speedB: 0 };
    const later = await gpuJointMatrices(device!, rig, baked, [moving], { clock: 0.25 });
    const expected = await gpuJointMatrices(device!, rig, baked, [still]);
    for (let i = 0; i < later.length; i++) expect(later[i]).toBeCloseTo(expected[i], 4);
  });

  it('fills a 2D dispatch: 65,600 instances (more than 65,535 workgroups in one row)', async () => {
    // The dispatch's shape is the point, not the rig: RiggedSimple's 2 joints instead of the Fox's 24
    // cut the GPU work and the 65,600-instance readback twelvefold (the Fox's records are checked above).
    // Four threads per instance, not 32: the instance is the workgroup's place in the grid
    // (group.x + group.y * dispatchWidth) whatever its size, and SwiftShader runs every thread of
    // 65,600 workgroups (32 threads: 9 s of the file's 14 s idle, 30 s loaded; 4: a sixth of it).
    const { rig } = await loadModel('RiggedSimple');
    const baked = bake(rig);
    const records = randomRecords(65_600, baked.clipDurations, 3);
    const gpu = await gpuJointMatrices(device!, rig, baked, records, { workgroupSize: 4 });
    expect(gpu.some(Number.isNaN)).toBe(false);
    const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
    const slots = rig.skins[0].joints.length;
    for (const i of [0, 65_534, 65_535, 65_599]) {
      poser.evaluate(records[i]);
      const m = poser.jointMatrices(0);
      const extent = Math.max(...rig.nodes.restTranslation.map(Math.abs), 1);
      expect(compare(gpu.subarray(i * slots * 16, (i + 1) * slots * 16), m, extent).worstTranslation).toBeLessThan(1e-5);
    }
  });

  it('rejects a rig larger than the device\'s workgroup memory with a sentence naming the limit', async () => {
    const { rig } = await loadModel('RecursiveSkeletons'); // 840 nodes x 64 bytes > 32 KiB
    const data = packRigData(rig, bake(rig, { maxEntriesPerTrack: 2 }));
    expect(() => new PosePass(device!, data)).toThrow(/840 nodes.*maxComputeWorkgroupStorageSize/);
  });
});
