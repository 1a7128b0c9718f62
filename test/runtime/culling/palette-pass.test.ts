import { describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/runtime/crowd';
import { PALETTE_FREE, PALETTE_NONE, PALETTE_SHARED } from '../../../src/runtime/layout';
import { testCharacter } from '../../helpers/character';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { LARGE_BUFFERS } from '../../helpers/gpu-suite';
import { seededRandom } from '../../helpers/prng';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../../helpers/render';

/**
 * The joint-matrix palette (src/runtime/culling/palette-pass.ts, src/runtime/joint-palette.ts) end
 * to end on the GPU: pictures with a small palette against the same crowd with a joint set per
 * instance, with the camera moving so that instances enter and leave; an over-budget view has no
 * hole; joint sets go back when instances leave; a million instances with ~1% in view.
 */
const device = await openTestDevice(LARGE_BUFFERS);
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const SPACING = 220;

/** 100 Foxes on a 10 x 10 grid, each with its own clips, times, blend and yaw; every 6th with a layer stack. */
async function foxCrowd(options: Partial<ConstructorParameters<typeof Crowd>[2]> = {}): Promise<Crowd> {
  const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 16, ...options });
  const next = seededRandom(5);
  for (let i = 0; i < 100; i++) {
    const id = crowd.add({ clipA: i % 3, clipB: (i + 1) % 3, blend: next(), timeA: next() * 3, timeB: next() * 3, speedA: 1, speedB: 0.5 });
    crowd.setPlacement(id, ((i % 10) - 4.5) * SPACING, 0, (Math.floor(i / 10) - 4.5) * SPACING, next() * 6.3);
    if (i % 6 === 0) crowd.setLayers(id, { layers: [{ clip: 'Survey', weight: 0.6 }], additive: [{ clip: 'Run', weight: 0.5, reference: 'rest' }] });
  }
  return crowd;
}

/** Fills the crowd's joint buffer with NaN: a joint set drawn without being posed draws nothing (a hole shows). */
function poison(crowd: Crowd): void {
  device!.queue.writeBuffer(crowd.jointMatrices, 0, new Float32Array(crowd.jointMatrices.size / 4).fill(NaN));
}

/** The palette's free count and per-slot entries, read back. */
async function paletteState(crowd: Crowd): Promise<{ free: number; entries: Uint32Array }> {
  const palette = (crowd as unknown as { store: { palette: { freeBuffer: GPUBuffer; entryBuffer: GPUBuffer } } }).store.palette;
  const free = new Int32Array(await readBuffer(device!, palette.freeBuffer, 16))[PALETTE_FREE.count];
  return { free, entries: new Uint32Array(await readBuffer(device!, palette.entryBuffer)) };
}

/**
 * Drawn pixels around each grid instance of foxCrowd in a `size` x `size` image taken with
 * `viewProjection`: a square of `radius` pixels about the projection of its ground point.
 */
function coverage(pixels: Uint8Array, size: number, viewProjection: Float32Array, radius: number): number[] {
  const m = viewProjection;
  return Array.from({ length: 100 }, (_, i) => {
    const x = ((i % 10) - 4.5) * SPACING, z = (Math.floor(i / 10) - 4.5) * SPACING;
    const w = m[3] * x + m[11] * z + m[15];
    const px = Math.round(((m[0] * x + m[8] * z + m[12]) / w * 0.5 + 0.5) * size);
    const py = Math.round((0.5 - (m[1] * x + m[9] * z + m[13]) / w * 0.5) * size);
    let n = 0;
    for (let y = Math.max(0, py - radius); y < Math.min(size, py + radius); y++) {
      for (let u = Math.max(0, px - radius); u < Math.min(size, px + radius); u++) {
        const k = (y * size + u) * 4;
        if (pixels[k] + pixels[k + 1] + pixels[k + 2] > 0) n++;
      }
    }
    return n;
  });
}

describe.skipIf(!device)('the joint-matrix palette: joint sets for the instances being drawn', () => {
  it('a crowd within its budget has a joint set per instance, exactly as without a palette', async () => {
    const crowd = await foxCrowd({ paletteSize: 128 });
    expect(crowd.palette.active).toBe(false);
    expect(crowd.palette.size).toBe(128);
    expect(crowd.jointMatrices.size).toBe(128 * crowd.jointsPerInstance * crowd.bytesPerJoint);
    expect(crowd.jointMatrixIndex(5) % crowd.jointsPerInstance).toBe(0);
    crowd.destroy();
  });

  it('pictures with a palette of 48 equal those without it, near and far, while the camera moves and instances enter and leave', async () => {
    const reference = await foxCrowd({ animationLod: false });
    const crowd = await foxCrowd({ animationLod: false, paletteSize: 48 });
    expect(crowd.palette.active).toBe(true);
    expect(crowd.palette.size).toBe(48);
    expect(() => crowd.jointMatrixIndex(0)).toThrow(/no fixed joint set.*paletteSize \(48\)/);
    // 48 sets of their own and 3 clips x 16 shared poses, not 128 sets.
    expect(crowd.jointMatrices.size).toBe((48 + 3 * 16) * crowd.jointsPerInstance * crowd.bytesPerJoint);
    poison(crowd);
    let drawnFrames = 0;
    // A narrow camera sweeping along the grid's front row, then a near view, then a far one.
    const views = [
      ...Array.from({ length: 10 }, (_, k) => lookAt([-1400 + k * 300, 120, -1500], [-1400 + k * 300 + 200, 0, -600], { fovY: 0.35, far: 4000 })),
      lookAt([-990, 60, -1150], [-990, 40, -990], { fovY: 0.9 }),
      lookAt([0, 1500, -4000], [-600, 0, -400], { fovY: 0.12, far: 20000 }),
    ];
    for (const [k, view] of views.entries()) {
      for (const c of [crowd, reference]) {
        c.setCamera(view.viewProjection, view.eye);
        c.update(0.07);
      }
      const got = await renderCrowd(device!, crowd, view.viewProjection, 128);
      const want = await renderCrowd(device!, reference, view.viewProjection, 128);
      const stats = await crowd.readCullStats();
      expect(stats.visible, `view ${k} fits the palette`).toBeLessThanOrEqual(48);
      expect(differingPixels(got, want), `view ${k}: ${stats.visible} drawn`).toBe(0);
      if (drawnPixels(want) > 100) drawnFrames++;
      const { free, entries } = await paletteState(crowd);
      const held = Array.from(entries.subarray(0, 100)).filter((e) => e !== PALETTE_NONE);
      expect(held.every((e) => (e & PALETTE_SHARED) === 0 && e < 48), `view ${k}: every drawn instance has a set of its own`).toBe(true);
      expect(held.length, `view ${k}: only the drawn instances hold sets`).toBe(stats.visible);
      expect(free + held.length, `view ${k}: no set is lost`).toBe(48);
      expect(new Set(held).size, `view ${k}: no set is held twice`).toBe(held.length);
    }
    expect(drawnFrames).toBeGreaterThanOrEqual(10);
    crowd.destroy();
    reference.destroy();
  }, 120_000);

  it('with animation LOD, a kept joint set keeps its held pose: the picture still equals the crowd without a palette', async () => {
    const reference = await foxCrowd();
    const crowd = await foxCrowd({ paletteSize: 64 });
    const view = lookAt([0, 300, -2600], [0, 0, -700], { fovY: 0.3, far: 20000 });
    for (let frame = 0; frame < 6; frame++) {
      for (const c of [crowd, reference]) {
        c.setCamera(view.viewProjection, view.eye, { viewportHeight: 128 });
        c.update(1 / 30);
      }
      const got = await renderCrowd(device!, crowd, view.viewProjection, 128);
      const want = await renderCrowd(device!, reference, view.viewProjection, 128);
      expect((await crowd.readCullStats()).visible).toBeLessThanOrEqual(64);
      expect(differingPixels(got, want), `frame ${frame}`).toBe(0);
    }
    crowd.destroy();
    reference.destroy();
  }, 60_000);

  it('an instance that takes a set shows exactly its pose now, even where animation LOD would hold it (camera flicking between two views)', async () => {
    const reference = await foxCrowd({ animationLod: false });
    const crowd = await foxCrowd({ paletteSize: 64, animationLod: { every2ndBelow: 1000, every4thBelow: 1000 } }); // everything posed every 4th frame
    poison(crowd);
    const views = [lookAt([-600, 1200, -2600], [-600, 0, -200], { fovY: 0.3, far: 20000 }), lookAt([600, 1200, -2600], [600, 0, -200], { fovY: 0.3, far: 20000 })];
    const setFloats = crowd.jointsPerInstance * 12;
    let before: Uint32Array = new Uint32Array(128).fill(PALETTE_NONE);
    let checked = 0;
    for (let frame = 0; frame < 8; frame++) {
      const view = views[frame % 2];
      for (const c of [crowd, reference]) {
        c.setCamera(view.viewProjection, view.eye, { viewportHeight: 64 });
        c.update(1 / 30);
        await renderCrowd(device!, c, view.viewProjection, 64);
      }
      const { entries } = await paletteState(crowd);
      const got = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
      const want = new Float32Array(await readBuffer(device!, reference.jointMatrices));
      for (let slot = 0; slot < 100; slot++) {
        const e = entries[slot];
        if (e === PALETTE_NONE || before[slot] !== PALETTE_NONE) continue;
        expect(e & PALETTE_SHARED, `frame ${frame}: slot ${slot} has a set of its own`).toBe(0);
        expect(Array.from(got.subarray(e * setFloats, (e + 1) * setFloats)), `frame ${frame}: slot ${slot}, new to set ${e}`)
          .toEqual(Array.from(want.subarray(slot * setFloats, (slot + 1) * setFloats)));
        checked++;
      }
      before = entries;
    }
    expect(checked).toBeGreaterThan(40);
    crowd.destroy();
    reference.destroy();
  }, 60_000);

  it('restored (every GPU object made again) and with its skinning changed, the palette crowd still draws the picture without one', async () => {
    const reference = await foxCrowd({ animationLod: false });
    const crowd = await foxCrowd({ animationLod: false, paletteSize: 48 });
    const view = lookAt([-1400, 120, -1500], [-1200, 0, -600], { fovY: 0.35, far: 4000 });
    const picture = async (c: Crowd) => {
      c.setCamera(view.viewProjection, view.eye);
      c.update(0.1);
      return renderCrowd(device!, c, view.viewProjection, 128);
    };
    await picture(crowd);
    await picture(reference);
    crowd.restore(device!);
    poison(crowd);
    expect(crowd.palette.active).toBe(true);
    expect(differingPixels(await picture(crowd), await picture(reference))).toBe(0);
    crowd.skinning = 'dual-quaternion';
    reference.skinning = 'dual-quaternion';
    poison(crowd);
    const want = await picture(reference);
    expect(drawnPixels(want)).toBeGreaterThan(100);
    expect(differingPixels(await picture(crowd), want)).toBe(0);
    crowd.destroy();
    reference.destroy();
  }, 60_000);

  it('over budget, every drawn instance shows (a shared pose of its clip), never a hole', async () => {
    const reference = await foxCrowd();
    const crowd = await foxCrowd({ paletteSize: 4 });
    poison(crowd);
    const view = lookAt([0, 4000, -1], [0, 0, 0], { fovY: 0.7, far: 20000 }); // the whole grid from above, one cell per instance
    for (const c of [crowd, reference]) {
      c.setCamera(view.viewProjection, view.eye);
      c.update(0.4);
    }
    const size = 256;
    const got = coverage(await renderCrowd(device!, crowd, view.viewProjection, size), size, view.viewProjection, 6);
    const want = coverage(await renderCrowd(device!, reference, view.viewProjection, size), size, view.viewProjection, 6);
    expect((await crowd.readCullStats()).visible).toBe(100);
    const { entries } = await paletteState(crowd);
    expect(Array.from(entries.subarray(0, 100)).filter((e) => (e & PALETTE_SHARED) === 0).length).toBe(4);
    expect(want.every((w) => w > 0), 'the picture without a palette shows every instance').toBe(true);
    for (const [i, g] of got.entries()) expect(g, `instance ${i} shows with the palette over budget`).toBeGreaterThan(0);
    const total = (c: number[]) => c.reduce((a, b) => a + b, 0);
    expect(total(got) / total(want)).toBeGreaterThan(0.8);
    expect(total(got) / total(want)).toBeLessThan(1.25);
    crowd.destroy();
    reference.destroy();
  }, 60_000);

  it('without a camera, settled frames (no cull or palette pass: issue 42) draw the picture without a palette while the clock runs', async () => {
    const reference = await foxCrowd();
    const crowd = await foxCrowd({ capacity: 128, paletteSize: 100 }); // active, a set for every instance
    expect(crowd.palette.active).toBe(true);
    poison(crowd);
    const view = lookAt([0, 4000, -1], [0, 0, 0], { fovY: 0.7, far: 20000 });
    for (let frame = 0; frame < 4; frame++) {
      for (const c of [crowd, reference]) c.update(0.125);
      const got = await renderCrowd(device!, crowd, view.viewProjection, 128);
      const want = await renderCrowd(device!, reference, view.viewProjection, 128);
      expect(drawnPixels(want)).toBeGreaterThan(500);
      expect(differingPixels(got, want), `frame ${frame}`).toBe(0);
    }
    crowd.destroy();
    reference.destroy();
  }, 60_000);

  it('without a camera, settled frames move each shared pose to its clip\'s time bucket as the palette pass does', async () => {
    const crowd = await foxCrowd({ paletteSize: 4 });
    const view = lookAt([0, 4000, -1], [0, 0, 0], { fovY: 0.7, far: 20000 });
    crowd.update(0.125);
    await renderCrowd(device!, crowd, view.viewProjection, 64); // the palette pass hands the sets out
    const first = (await paletteState(crowd)).entries.slice(0, 100);
    for (let frame = 0; frame < 11; frame++) {
      crowd.update(0.125);
      await renderCrowd(device!, crowd, view.viewProjection, 64); // settled: the pose pass alone
    }
    const settled = (await paletteState(crowd)).entries.slice(0, 100);
    // The same crowd made at the same clock (1.5 s, exact in binary): its first frame runs the palette pass.
    const fresh = await foxCrowd({ paletteSize: 4 });
    fresh.update(1.5);
    await renderCrowd(device!, fresh, view.viewProjection, 64);
    const want = (await paletteState(fresh)).entries.slice(0, 100);
    const shared = (e: number) => e !== PALETTE_NONE && (e & PALETTE_SHARED) !== 0;
    let compared = 0, moved = 0;
    for (let slot = 0; slot < 100; slot++) {
      if (!shared(settled[slot]) || !shared(want[slot])) continue;
      compared++;
      if (settled[slot] !== first[slot]) moved++;
      expect(settled[slot], `slot ${slot}`).toBe(want[slot]);
    }
    expect(compared).toBeGreaterThan(80);
    expect(moved, 'buckets changed in 1.375 s').toBeGreaterThan(compared / 2);
    crowd.destroy();
    fresh.destroy();
  }, 60_000);

  it('sets go back when their instances leave the view, and after removals; gpuBytes counts the palette, not a set per instance', async () => {
    const crowd = await foxCrowd({ paletteSize: 16 });
    const everything = lookAt([0, 4000, -1], [0, 0, 0], { fovY: 0.7, far: 20000 });
    const nothing = lookAt([0, 100, 5000], [0, 100, 9000]);
    crowd.setCamera(everything.viewProjection, everything.eye);
    crowd.update(0.1);
    await renderCrowd(device!, crowd, everything.viewProjection, 64);
    expect((await paletteState(crowd)).free).toBe(0);
    for (let id = 0; id < 100; id += 2) crowd.remove(id);
    crowd.update(0.1);
    await renderCrowd(device!, crowd, everything.viewProjection, 64);
    let state = await paletteState(crowd);
    expect(state.free).toBe(0); // 50 drawn, 16 sets: every set held
    expect(Array.from(state.entries.subarray(50, 128)).every((e) => e === PALETTE_NONE), 'slots past the live ones hold nothing').toBe(true);
    crowd.setCamera(nothing.viewProjection, nothing.eye);
    crowd.update(0.1);
    await renderCrowd(device!, crowd, nothing.viewProjection, 64);
    state = await paletteState(crowd);
    expect(state.free).toBe(16);
    const setBytes = crowd.jointsPerInstance * crowd.bytesPerJoint;
    expect(crowd.gpuBytes).toBeGreaterThan((16 + 48) * setBytes);
    expect(crowd.gpuBytes).toBeLessThan(128 * setBytes);
    crowd.destroy();
  }, 60_000);

  it('a million Foxes with about 1% in view pose, cull and draw with no GPU error, in a quarter of the bytes of a joint set each', async () => {
    const n = 1_000_000, side = 1000;
    const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 1024, paletteSize: 16384 });
    const positions = new Float32Array(3 * n);
    const clipsA = new Uint32Array(n);
    const timesA = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      positions[3 * i] = (i % side) * SPACING;
      positions[3 * i + 2] = Math.floor(i / side) * SPACING;
      clipsA[i] = i % 3;
      timesA[i] = (i % 97) * 0.031;
    }
    const start = performance.now();
    crowd.addMany({ count: n, positions, clipsA, timesA });
    console.log(`addMany: 1,000,000 Foxes in ${(performance.now() - start).toFixed(0)} ms`);
    expect(crowd.count).toBe(n);
    // Straight down over a 100 x 100 block of the grid: 10,000 of the million.
    const view = lookAt([11000, 22770, 11001], [11000, 0, 11000], { fovY: 0.9, near: 100, far: 40000 });
    crowd.setCamera(view.viewProjection, view.eye);
    device!.pushErrorScope('validation');
    device!.pushErrorScope('out-of-memory');
    let pixels: Uint8Array = new Uint8Array(0);
    for (let frame = 0; frame < 2; frame++) {
      crowd.update(0.1);
      pixels = await renderCrowd(device!, crowd, view.viewProjection, 128);
    }
    expect(await device!.popErrorScope()).toBeNull();
    expect(await device!.popErrorScope()).toBeNull();
    const stats = await crowd.readCullStats();
    console.log(`a million Foxes: ${stats.visible} drawn, ${stats.posed} posed, gpuBytes ${crowd.gpuBytes}`);
    expect(stats.visible).toBeGreaterThan(0.005 * n);
    expect(stats.visible).toBeLessThan(0.015 * n);
    expect(drawnPixels(pixels)).toBeGreaterThan(1000);
    const { free } = await paletteState(crowd);
    expect(free).toBe(16384 - stats.visible);
    expect(crowd.gpuBytes).toBeLessThanOrEqual((n * crowd.jointsPerInstance * crowd.bytesPerJoint) / 4);
    crowd.destroy();
  }, 600_000);
});
