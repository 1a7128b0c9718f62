import { describe, expect, it } from 'vitest';
import { animationStep, insideAll, instanceBounds, lodLevel, poseDue } from '../../src/runtime/culling/cull-math';
import { CullSettings } from '../../src/runtime/culling/cull-settings';
import type { CullFrame } from '../../src/runtime/culling/cull-pass';
import { CULL_SHADOWS, INSTANCE, LOD_NOT_FORCED } from '../../src/runtime/layout';
import { GLCull } from '../../src/webgl2/gl-cull';
import { lookAt } from '../helpers/render';
import { seededRandom } from '../helpers/prng';

const BOX = [-0.4, 0, -0.6, 0.4, 1.8, 0.6];
const LAYERED_BOX = [-0.6, 0, -0.8, 0.6, 2, 0.8];

/** A store of `count` instances on a grid with random yaw and scale (plainCount of them plain), stamps 1.. */
function makeStore(count: number, plainCount: number, seed = 7) {
  const random = seededRandom(seed);
  const records = new ArrayBuffer(count * INSTANCE.size);
  const f = new Float32Array(records);
  for (let s = 0; s < count; s++) {
    const yaw = random() * 6.283, scale = 0.5 + random() * 1.5, w = (s * INSTANCE.size + INSTANCE.world) / 4;
    const c = Math.cos(yaw) * scale, n = Math.sin(yaw) * scale;
    f.set([c, 0, -n, 0, 0, scale, 0, 0, n, 0, c, 0, (random() - 0.5) * 200, 0, (random() - 0.5) * 200, 1], w);
  }
  const stamps = new Uint32Array(count).map((_, i) => i + 1);
  return { count, plainCount, records: { bytes: records }, stamps: { bytes: stamps.buffer }, f, stampWords: stamps };
}

/** The cull pass's decisions from cull-math.ts: drawn slots per level, and the slots posed, with the per-slot pose state carried in `state`. */
function reference(store: ReturnType<typeof makeStore>, frame: CullFrame, levels: number, state: { stamp: Uint32Array; frame: Uint32Array }) {
  const lists: number[][] = Array.from({ length: levels }, () => []), casters: number[][] = Array.from({ length: levels }, () => []), posed: number[] = [];
  for (let slot = 0; slot < store.count; slot++) {
    const b = slot >= store.plainCount ? LAYERED_BOX : BOX;
    // The pass's box: centre and half extent rounded up as CullPass.writeBox does.
    const box = [0, 1, 2].map((c) => (b[c] + b[c + 3]) / 2);
    const half = [0, 1, 2].map((c) => Math.fround((b[c + 3] - b[c]) / 2) * (1 + 2 ** -22));
    const world = Array.from(store.f.subarray((slot * INSTANCE.size) / 4, (slot * INSTANCE.size) / 4 + 16));
    const bounds = instanceBounds(world, [...box.map((m, c) => m - half[c]), ...box.map((m, c) => m + half[c])], frame.cameraPosition);
    const visible = bounds.distance <= frame.maxDistance && insideAll(frame.planes, bounds);
    const caster = (frame.flags & CULL_SHADOWS) !== 0 && insideAll(frame.lightPlanes, bounds);
    if (!visible && !caster) continue;
    const scaled = bounds.distance / Math.max(bounds.scale, 1e-30);
    const level = frame.forcedLevel !== LOD_NOT_FORCED ? Math.min(frame.forcedLevel, levels - 1) : lodLevel(scaled, frame.lodDistances, levels);
    if (visible) lists[level].push(slot);
    if (caster) casters[Math.min(level + frame.shadowLodBias, levels - 1)].push(slot);
    const step = animationStep(scaled, frame.animationDistances);
    if (poseDue(frame.frame, slot, step, state.frame[slot], state.stamp[slot] !== store.stampWords[slot])) {
      state.stamp[slot] = store.stampWords[slot];
      state.frame[slot] = frame.frame;
      posed.push(slot);
    }
  }
  return { lists, casters, posed };
}

function listsOf(cull: { slots: Uint32Array; offsets: Uint32Array; counts: Uint32Array; levels: number }): number[][] {
  return Array.from({ length: cull.levels }, (_, l) => Array.from(cull.slots.subarray(cull.offsets[l], cull.offsets[l] + cull.counts[l])));
}

describe('GLCull: the CPU twin of the cull pass for the WebGL 2 crowd', () => {
  it('draws, levels, lists shadow casters and poses exactly the instances cull-math.ts chooses, frame after frame (3 LOD levels, animation LOD, slots changing hands)', () => {
    const store = makeStore(3000, 2000);
    const settings = new CullSettings([0, 0.02, 0.08], 1.8);
    const { viewProjection, eye } = lookAt([0, 30, -120], [0, 0, 0], { fovY: 0.8 });
    settings.setCamera(viewProjection, eye, 720);
    // A light camera over part of the crowd: casters inside it, some of them outside the view.
    settings.setCasterCamera(lookAt([60, 80, 20], [40, 0, 0], { fovY: 0.7 }).viewProjection);
    const cull = new GLCull(3, BOX, LAYERED_BOX);
    const state = { stamp: new Uint32Array(store.count), frame: new Uint32Array(store.count) };
    let drawn = 0, levelled = 0, skipped = 0, casters = 0;
    for (let f = 0; f < 6; f++) {
      if (f === 3) for (let s = 0; s < store.count; s += 7) store.stampWords[s] += 10_000; // instances moved into these slots
      const frame = settings.fill();
      cull.run(store, frame);
      const expected = reference(store, frame, 3, state);
      expect(listsOf(cull)).toEqual(expected.lists);
      expect(listsOf(cull.casters)).toEqual(expected.casters);
      casters += cull.casters.offsets[2] + cull.casters.counts[2];
      expect(Array.from(cull.poseList.subarray(0, cull.poseCount))).toEqual(expected.posed);
      drawn += cull.visible;
      levelled += cull.counts[1] + cull.counts[2];
      skipped += cull.visible - cull.poseCount;
    }
    // The case is not vacuous: some are culled, some are drawn at lower levels, some skip a pose.
    expect(drawn).toBeGreaterThan(1000);
    expect(drawn).toBeLessThan(6 * 3000);
    expect(levelled).toBeGreaterThan(100);
    expect(skipped).toBeGreaterThan(100);
    expect(casters).toBeGreaterThan(50);
  });

  it('with culling, LOD and animation LOD off it draws every instance at level 0 and poses each every frame; a forced level is used as given', () => {
    const store = makeStore(500, 500);
    const settings = new CullSettings([0, 0.02], 1.8);
    settings.culling = settings.lod = settings.animationLod = false;
    const { viewProjection, eye } = lookAt([0, 30, -120], [0, 0, 0]);
    settings.setCamera(viewProjection, eye, 720);
    const cull = new GLCull(2, BOX, LAYERED_BOX);
    cull.run(store, settings.fill());
    expect(cull.counts[0]).toBe(500);
    cull.run(store, settings.fill());
    expect(cull.poseCount).toBe(500);
    settings.setForcedLevel(1);
    cull.run(store, settings.fill());
    expect([cull.counts[0], cull.counts[1], cull.offsets[1]]).toEqual([0, 500, 0]);
  });

  it('without a camera every instance is drawn at level 0 and posed', () => {
    const store = makeStore(100, 60);
    const cull = new GLCull(3, BOX, LAYERED_BOX);
    cull.run(store, undefined);
    expect(listsOf(cull)).toEqual([Array.from({ length: 100 }, (_, i) => i), [], []]);
    expect(cull.poseCount).toBe(100);
  });

  it('follows the store as it grows (new record memory) without losing the pose state of the slots it had', () => {
    const small = makeStore(10, 10);
    const settings = new CullSettings([0], 1.8);
    const { viewProjection, eye } = lookAt([0, 300, -1], [0, 0, 0], { fovY: 2.5 });
    settings.setCamera(viewProjection, eye, 720);
    const cull = new GLCull(1, BOX, LAYERED_BOX);
    cull.run(small, settings.fill());
    const big = makeStore(40, 40);
    cull.run(big, settings.fill());
    expect(cull.counts[0]).toBe(reference(big, settings.frame, 1, { stamp: new Uint32Array(40), frame: new Uint32Array(40) }).lists[0].length);
  });
});
