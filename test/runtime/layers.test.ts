import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import type { CpuLayerStack } from '../../src/anim/layers';
import { sampleLut } from '../../src/anim/lut';
import { buildMask } from '../../src/anim/masks';
import { bake } from '../../src/bake/bake';
import type { Rig } from '../../src/bake/rig';
import type { ResolvedLayers } from '../../src/runtime/layer-records';
import { MASK_NONE } from '../../src/runtime/layout';
import { gpuJointMatrices, type GpuPoseRequest } from '../../tools/gpu-poser';
import { loadCharacter } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import { openTestDevice, readBuffer } from '../helpers/gpu';
import { WORKGROUP_32K } from '../helpers/gpu-suite';
import { compareMatrices } from '../helpers/matrices';
import { loadModel, modelPath } from '../helpers/models';
import { seededRandom } from '../helpers/prng';

const device = await openTestDevice(WORKGROUP_32K);

/** Masks shared by the random stacks: two subtree masks and one soft random mask. */
function makeMasks(rig: Rig, next: () => number): Float32Array[] {
  const names = rig.nodes.names;
  const soft = new Float32Array(rig.nodes.count).map(() => (next() < 0.3 ? 0 : next()));
  return [buildMask(rig.nodes, { root: names[Math.floor(names.length / 3)] }), buildMask(rig.nodes, { root: names[names.length - 1] }), soft];
}

/**
 * A random stack (0-4 override, 0-2 additive layers, random weights, masks and references) as
 * both the CPU and the GPU take it. With `clock`, every clip (base, layers, references) plays at
 * a random speed in [-1.5, 1.5] and the GPU record is written at clock 0 so that it reaches the
 * CPU stack's times at `clock`.
 */
function randomStack(durations: Float32Array, masks: Float32Array[], next: () => number, clock?: number): { cpu: CpuLayerStack; gpu: GpuPoseRequest } {
  const moving = clock !== undefined;
  // A speed, and the time to write at clock 0 for time t at `clock`.
  const speed = () => (moving ? next() * 3 - 1.5 : 0);
  const at = (t: number, v: number) => t - v * (clock ?? 0);
  const clips = durations.length;
  const clip = () => Math.floor(next() * clips);
  const time = (c: number) => (next() * 4 - 1.5) * Math.max(durations[c], 0.1);
  const weight = () => (next() < 0.15 ? 0 : next() < 0.2 ? 1 : next());
  const mask = () => (next() < 0.4 ? MASK_NONE : Math.floor(next() * masks.length));
  const base = clip();
  const baseTime = time(base);
  const gpuStack: ResolvedLayers = { layers: [], additive: [] };
  const cpu: CpuLayerStack = { base: { clip: base, time: baseTime }, layers: [], additive: [] };
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    const l = { clip: clip(), time: 0, weight: weight(), mask: mask() };
    l.time = time(l.clip);
    const v = speed();
    gpuStack.layers.push({ ...l, time: at(l.time, v), speed: v });
    cpu.layers.push({ clip: l.clip, time: l.time, weight: l.weight, mask: l.mask === MASK_NONE ? undefined : masks[l.mask] });
  }
  for (let k = Math.floor(next() * 3); k > 0; k--) {
    const l = { clip: clip(), time: 0, weight: weight(), mask: mask() };
    l.time = time(l.clip);
    const refClip = clip();
    const reference = next() < 0.3 ? 'rest' as const : { clip: refClip, time: time(refClip) };
    const [v, refV] = [speed(), speed()];
    gpuStack.additive.push({ ...l, time: at(l.time, v), speed: v, reference: reference === 'rest' ? 'rest' : { ...reference, time: at(reference.time, refV), speed: refV } });
    cpu.additive.push({ clip: l.clip, time: l.time, weight: l.weight, reference, mask: l.mask === MASK_NONE ? undefined : masks[l.mask] });
  }
  const v = speed();
  return { cpu, gpu: { clipA: base, clipB: base, timeA: at(baseTime, v), timeB: at(baseTime, v), speedA: v, speedB: v, blend: 0, stack: gpuStack } };
}

const worstError = compareMatrices;

describe.skipIf(!device)('layer stacks on the GPU equal the TypeScript reference', () => {
  // Still stacks at clock 0, then the same kind moving and posed late in a clock period (where
  // float32 time = phase + speed x clock was off by up to 3e-5 s) and at a negative clock.
  const cases = [
    ...['Fox', 'CesiumMan', 'RobotExpressive'].map((name) => ({ name, clock: undefined as number | undefined })),
    { name: 'Fox', clock: 599.99 }, { name: 'RobotExpressive', clock: -599.99 },
  ];
  for (const { name, clock } of cases) {
    it(`${name}: 150 random stacks${clock === undefined ? '' : `, every clip moving, at clock ${clock} s`}, NaN-poisoned output all written`, async () => {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      const next = seededRandom(name.length * 7 + (clock === undefined ? 0 : 1));
      const masks = makeMasks(rig, next);
      const stacks = Array.from({ length: 150 }, () => randomStack(baked.clipDurations, masks, next, clock));
      const gpu = await gpuJointMatrices(device!, rig, baked, stacks.map((s) => s.gpu), { masks, clock });
      const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
      const slots = rig.skins.reduce((n, s) => n + s.joints.length, 0);
      const reference = new Float64Array(gpu.length);
      stacks.forEach((s, i) => {
        poser.evaluateStack(s.cpu);
        let slot = i * slots;
        rig.skins.forEach((_, k) => {
          const m = poser.jointMatrices(k);
          reference.set(m, slot * 16);
          slot += m.length / 16;
        });
      });
      const extent = Math.max(...rig.nodes.restTranslation.map(Math.abs), 1);
      const { worst, unwritten } = worstError(gpu, reference, extent);
      console.log(`${name}${clock === undefined ? '' : ` at clock ${clock} s`}: worst relative error over 150 random stacks ${worst.toExponential(2)}`);
      expect(unwritten).toBe(0);
      // float32 through up to 6 layers per node: ~1e-6 of each matrix's scale; 2e-5 bound.
      expect(worst).toBeLessThan(2e-5);
    });
  }

  it('the two-clip record equals the same blend written as one unmasked override layer', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig);
    const twoClip = { clipA: 1, clipB: 2, timeA: 0.3, timeB: 0.9, speedA: 0, speedB: 0, blend: 0.35 };
    const asStack = { ...twoClip, blend: 0, stack: { layers: [{ clip: 2, time: 0.9, speed: 0, weight: 0.35, mask: MASK_NONE }], additive: [] } };
    const [a, b] = await Promise.all([gpuJointMatrices(device!, rig, baked, [twoClip]), gpuJointMatrices(device!, rig, baked, [asStack])]);
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i], 5);
  });

  it('stacks with layers and plain records side by side in one dispatch', async () => {
    const { rig } = await loadModel('Fox');
    const baked = bake(rig);
    const plain = { clipA: 0, clipB: 1, timeA: 0.5, timeB: 0.1, speedA: 0, speedB: 0, blend: 0.5 };
    const layered = { ...plain, stack: { layers: [{ clip: 2, time: 0.2, speed: 0, weight: 1, mask: MASK_NONE }], additive: [] } };
    const both = await gpuJointMatrices(device!, rig, baked, [plain, layered, plain]);
    const alone = await gpuJointMatrices(device!, rig, baked, [plain]);
    const n = alone.length;
    for (let i = 0; i < n; i++) {
      expect(both[i]).toBe(alone[i]);
      expect(both[2 * n + i]).toBe(alone[i]);
    }
    // Layer weight 1 unmasked replaces the pose: instance 1 shows clip 2 at 0.2 s.
    const run = await gpuJointMatrices(device!, rig, baked, [{ ...plain, clipA: 2, timeA: 0.2, blend: 0 }]);
    for (let i = 0; i < n; i++) expect(both[n + i]).toBeCloseTo(run[i], 4);
  });
});

describe.skipIf(!device)('difference clips (additive layers baked at load time)', () => {
  it('a difference clip with the identity reference equals the runtime additive layer, on the CPU and the GPU', async () => {
    const { rig } = await loadModel('Fox');
    const [survey, walk, run] = [0, 1, 2];
    const baked = bake(rig, { differences: [{ clip: run, reference: { clip: run, time: 0 }, name: 'Run-additive' }, { clip: survey, reference: 'rest', name: 'Survey-additive' }] });
    const runDiff = rig.clips.length;
    const surveyDiff = runDiff + 1;
    const mask = buildMask(rig.nodes, { root: 'b_Spine01_02' });
    const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
    const requests: GpuPoseRequest[] = [];
    const runtimeStacks: CpuLayerStack[] = [];
    const differenceStacks: CpuLayerStack[] = [];
    for (let i = 0; i < 40; i++) {
      const t = 0.03 * i;
      const w = (i % 5) / 4;
      runtimeStacks.push({ base: { clip: walk, time: t }, layers: [], additive: [
        { clip: run, time: 0.5 * t, weight: w, reference: { clip: run, time: 0 }, mask },
        { clip: survey, time: t, weight: 1 - w, reference: 'rest' },
      ] });
      differenceStacks.push({ base: { clip: walk, time: t }, layers: [], additive: [
        { clip: runDiff, time: 0.5 * t, weight: w, reference: 'identity', mask },
        { clip: surveyDiff, time: t, weight: 1 - w, reference: 'identity' },
      ] });
      requests.push({ clipA: walk, clipB: walk, timeA: t, timeB: t, speedA: 0, speedB: 0, blend: 0, stack: { layers: [], additive: [
        { clip: runDiff, time: 0.5 * t, speed: 0, weight: w, mask: 0, reference: 'identity' },
        { clip: surveyDiff, time: t, speed: 0, weight: 1 - w, mask: MASK_NONE, reference: 'identity' },
      ] } });
    }
    const gpu = await gpuJointMatrices(device!, rig, baked, requests, { masks: [mask] });
    const runtime = new Float64Array(gpu.length);
    const difference = new Float64Array(gpu.length);
    const joints = rig.skins[0].joints.length;
    for (let i = 0; i < requests.length; i++) {
      poser.evaluateStack(runtimeStacks[i]);
      runtime.set(poser.jointMatrices(0), i * joints * 16);
      poser.evaluateStack(differenceStacks[i]);
      difference.set(poser.jointMatrices(0), i * joints * 16);
    }
    const extent = Math.max(...rig.nodes.restTranslation.map(Math.abs), 1);
    // Left-multiplying by a fixed conj(R) commutes with the entry interpolation, so the two CPU
    // paths differ only by float32 storage of the differences.
    expect(worstError(Float32Array.from(difference), runtime, extent).worst).toBeLessThan(2e-6);
    const { worst, unwritten } = worstError(gpu, difference, extent);
    expect(unwritten).toBe(0);
    expect(worst).toBeLessThan(2e-5);
  });
});

describe.skipIf(!device)('the layered pipeline is built on first need', () => {
  it('a crowd without layer stacks never compiles it; the first stack does, and that frame poses the layered instance', async () => {
    const bytes = readFileSync(modelPath('Fox'));
    const character = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const crowd = new Crowd(device!, character, { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' });
    const frame = () => {
      crowd.update(0);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    };
    // Internal: the kernel's passes are not public API; the pose pass says what it has built.
    const pose = () => (crowd as unknown as { passes: { pose: { layersCompiled: boolean } } }).passes.pose;
    const plain = crowd.add({ clipA: 1, timeA: 0.3 });
    const layered = crowd.add({ clipA: 1, timeA: 0.3 });
    frame();
    expect(pose().layersCompiled).toBe(false);
    crowd.setLayers(layered, { layers: [{ clip: 2, time: 0.2, weight: 1 }] });
    const reference = crowd.add({ clipA: 2, timeA: 0.2 });
    frame();
    expect(pose().layersCompiled).toBe(true);
    // Layer weight 1 unmasked replaces the pose: the layered instance shows clip 2 at 0.2 s, as
    // the reference instance does, from the frame its stack was set.
    const joints = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    const floats = crowd.jointsPerInstance * 12;
    const at = (id: number) => Array.from(joints.subarray(crowd.jointMatrixIndex(id) * 12, crowd.jointMatrixIndex(id) * 12 + floats));
    const [p, l, r] = [at(plain), at(layered), at(reference)];
    expect(p.some((v, i) => Math.abs(v - r[i]) > 1e-2)).toBe(true);
    l.forEach((v, i) => expect(v).toBeCloseTo(r[i], 3));
    crowd.destroy();
  });
});
