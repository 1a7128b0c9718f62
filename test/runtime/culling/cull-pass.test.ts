import { describe, expect, it } from 'vitest';
import { animationStep, frustumPlanes, insideAll, instanceBounds, lodLevel, NEVER, poseDue } from '../../../src/runtime/culling/cull-math';
import { CullPass } from '../../../src/runtime/culling/cull-pass';
import { CullSettings } from '../../../src/runtime/culling/cull-settings';
import { InstanceStore } from '../../../src/runtime/instance-store';
import { CULL_ARGS, CULL_COUNTERS, CULL_SHADOWS, INSTANCE, MASK_NONE } from '../../../src/runtime/layout';
import { testCharacter } from '../../helpers/character';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { LARGE_BUFFERS } from '../../helpers/gpu-suite';
import { seededRandom } from '../../helpers/prng';
import { lookAt } from '../../helpers/render';

const device = await openTestDevice(LARGE_BUFFERS);
const LEVELS = 3;

/** What the cull pass wrote, read back: counters, lists, arguments, pose state. */
async function readCull(store: InstanceStore, pass: CullPass) {
  const counters = new Uint32Array(await readBuffer(device!, pass.counters));
  const lists = new Uint32Array(await readBuffer(device!, store.drawListBuffer));
  const poseList = new Uint32Array(await readBuffer(device!, store.poseListBuffer));
  const args = new Uint32Array(await readBuffer(device!, pass.args));
  const stride = store.listStride;
  const list = (block: number, n: number) => [...lists.subarray(block * stride, block * stride + n)].sort((a, b) => a - b);
  return {
    counters, args,
    camera: Array.from({ length: LEVELS }, (_, l) => list(l, counters[CULL_COUNTERS.camera + l])),
    shadow: Array.from({ length: LEVELS }, (_, l) => list(LEVELS + l, counters[CULL_COUNTERS.shadow + l])),
    posed: [...poseList.subarray(0, counters[0]), ...poseList.subarray(stride, stride + counters[1])].sort((a, b) => a - b),
    poseLengths: [poseList[2 * stride], poseList[2 * stride + 1]],
  };
}

describe.skipIf(!device)('CullPass: the GPU decisions equal the TypeScript twin (src/runtime/culling/cull-math.ts)', () => {
  it('visibility, distance limit, LOD level, shadow casters and animation-LOD posing, over two frames', async () => {
    const character = await testCharacter('Fox');
    const { gpu, animationBounds: bounds } = character;
    const store = new InstanceStore(device!, { nodeCount: gpu.nodeCount, slotCount: gpu.slotCount, clipDurations: character.clipDurations, capacity: 8, lodLevels: LEVELS });
    const next = seededRandom(11);
    const count = 300; // grows the store twice
    const layers = { layers: [{ clip: 1, time: 0, speed: 1, weight: 0.5, mask: MASK_NONE }], additive: [] };
    for (let i = 0; i < count; i++) {
      const handle = store.add();
      store.records.setPlacement(store.slot(handle), (next() - 0.5) * 6000, (next() - 0.5) * 200, (next() - 0.5) * 6000, next() * 6.3, i % 7 === 0 ? 3 : 1);
      if (i % 5 === 0) store.stacks.set(store.makeLayered(handle), layers, 0);
    }
    const ranges = new Uint32Array(LEVELS * 2);
    const pass = new CullPass(device!, { primitives: 1, levels: LEVELS, lodRanges: ranges.map((_, i) => (i % 2 === 0 ? 300 - 100 * (i / 2) : 0)), box: bounds.reach, layeredBox: bounds.reachLayered });
    const settings = new CullSettings([0, 1, 2.5], 80);
    const eye: [number, number, number] = [0, 100, -2500];
    const { viewProjection } = lookAt(eye, [300, 0, 0], { far: 4000 });
    settings.setCamera(viewProjection, eye, 600);
    settings.setMaxDistance(3500);
    settings.setAnimationThresholds(48, 24);
    const light = lookAt([1000, 3000, 0], [0, 0, 0], { far: 6000, fovY: 0.5 }).viewProjection;

    for (let frame = 1; frame <= 2; frame++) {
      const f = settings.fill();
      f.flags |= CULL_SHADOWS;
      // The light frustum: any second frustum exercises the caster list.
      frustumPlanes(light, f.lightPlanes);
      store.upload(device!.queue);
      pass.update(store, f);
      const encoder = device!.createCommandEncoder();
      pass.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      const got = await readCull(store, pass);

      const records = new Float32Array(store.records.bytes);
      const expected = { camera: [[], [], []] as number[][], shadow: [[], [], []] as number[][], posed: [] as number[] };
      const poseState = new Uint32Array(await readBuffer(device!, store.poseStateBuffer));
      for (let slot = 0; slot < store.count; slot++) {
        const world = records.subarray(slot * INSTANCE.size / 4, slot * INSTANCE.size / 4 + 16);
        const b = instanceBounds(world, slot < store.plainCount ? bounds.reach : bounds.reachLayered, eye);
        const visible = b.distance <= 3500 && insideAll(f.planes, b);
        const caster = insideAll(f.lightPlanes, b);
        const scaled = Math.fround(b.distance / b.scale);
        const level = lodLevel(scaled, f.lodDistances, LEVELS);
        if (visible) expected.camera[level].push(slot);
        if (caster) expected.shadow[Math.min(level + 1, LEVELS - 1)].push(slot);
        // Frame 1: every listed instance is new to its slot; frame 2: only those due by their step (posedFrame was 1).
        const step = animationStep(scaled, f.animationDistances);
        if ((visible || caster) && (frame === 1 || poseDue(f.frame, slot, step, 1, false))) expected.posed.push(slot);
        if (frame === 2 && (visible || caster)) expect(poseState[slot * 2 + 1], `slot ${slot} posed frame`).toBe(expected.posed.includes(slot) ? 2 : 1);
      }
      expect(got.camera).toEqual(expected.camera);
      expect(got.shadow).toEqual(expected.shadow);
      expect(got.posed).toEqual(expected.posed);
      // Every kind of decision happened: culled, each level, skipped poses on frame 2.
      const visible = expected.camera.flat().length;
      expect(visible).toBeGreaterThan(20);
      expect(visible).toBeLessThan(count - 20);
      for (const level of expected.camera) expect(level.length).toBeGreaterThan(0);
      if (frame === 2) expect(expected.posed.length).toBeLessThan(new Set([...expected.camera.flat(), ...expected.shadow.flat()]).size);
      // finalize: the pose lists' lengths and dispatch triples, and one draw's arguments per (list, level).
      expect(got.poseLengths).toEqual([got.counters[0], got.counters[1]]);
      expect([...got.args.subarray(CULL_ARGS.posePlain, CULL_ARGS.posePlain + 3)]).toEqual([got.counters[0], got.counters[0] > 0 ? 1 : 0, 1]);
      for (let list = 0; list < 2; list++) {
        for (let level = 0; level < LEVELS; level++) {
          const o = pass.argsOffset(list, level, 0) / 4;
          const n = (list === 0 ? expected.camera : expected.shadow)[level].length;
          expect([...got.args.subarray(o, o + 5)]).toEqual([300 - 100 * level, n, 0, 0, 0]);
        }
      }
    }
    store.destroy();
    pass.destroy();
  });

  it('routes nothing far without a camera (a palette frame culls with none: every instance stays a mesh)', () => {
    const settings = new CullSettings([0], 1);
    const routed: number[] = [];
    settings.route = { fill: (f) => { routed.push(f.frame); f.impostorDistance = f.impostorBand = 0; }, count: (_w, stats) => stats };
    const without = settings.fill();
    expect(routed, 'the route filled a frame with no camera to draw its impostors').toEqual([]);
    expect([without.impostorDistance, without.impostorBand]).toEqual([NEVER, NEVER]);
    settings.setCamera(new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), [0, 0, 0], 600);
    expect(settings.fill().impostorDistance).toBe(0);
    expect(routed).toHaveLength(1);
  });

  it('rejects mismatched LOD tables and stores, naming them', () => {
    expect(() => new CullPass(device!, { primitives: 2, levels: 2, lodRanges: new Uint32Array(3), box: [0, 0, 0, 1, 1, 1], layeredBox: [0, 0, 0, 1, 1, 1] }))
      .toThrow(/lodRanges has 3 numbers, needs levels x primitives x 2 = 8/);
    expect(() => new CullPass(device!, { primitives: 1, levels: 5, lodRanges: new Uint32Array(10), box: [0, 0, 0, 1, 1, 1], layeredBox: [0, 0, 0, 1, 1, 1] }))
      .toThrow(/levels must be an integer in \[1, 4\], got 5/);
    const settings = new CullSettings([0], 1);
    expect(() => settings.setCamera([1, 2], [0, 0, 0], undefined)).toThrow(/viewProjection must have 16 numbers, got 2/);
    expect(() => settings.setCamera(new Float32Array(16), [0, NaN, 0], undefined)).toThrow(/camera position element 1 must be a finite number/);
    expect(() => settings.setCamera(new Float32Array(16), [0, 0, 0], -5)).toThrow(/viewportHeight must be a positive number of pixels, got -5/);
    expect(() => settings.setForcedLevel(1)).toThrow(/LOD level must be an integer in \[0, 0\]/);
    expect(() => settings.setAnimationThresholds(10, 20)).toThrow(/every4thBelow \(20\) must not exceed every2ndBelow \(10\)/);
  });
});
