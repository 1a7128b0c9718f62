import { describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/runtime/crowd';
import { instanceBounds, lodLevel } from '../../../src/runtime/culling/cull-math';
import { CullSettings } from '../../../src/runtime/culling/cull-settings';
import { testCharacter } from '../../helpers/character';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { LARGE_BUFFERS } from '../../helpers/gpu-suite';
import { seededRandom } from '../../helpers/prng';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../../helpers/render';

/**
 * The Crowd with a camera (src/runtime/crowd.ts: setCamera, culling, LOD, animation LOD), end to end
 * on the GPU: what is posed, what is drawn, and the images against culling and LOD off.
 */
const device = await openTestDevice(LARGE_BUFFERS);
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** A Fox crowd on a 10 x 10 grid, 220 units apart, each with its own clips, times, blend and yaw; every 6th with a layer stack. */
async function foxCrowd(options: Partial<ConstructorParameters<typeof Crowd>[2]> = {}): Promise<Crowd> {
  const crowd = new Crowd(device!, await testCharacter('Fox'), { ...FORMATS, capacity: 16, ...options });
  const next = seededRandom(5);
  for (let i = 0; i < 100; i++) {
    const id = crowd.add({ clipA: i % 3, clipB: (i + 1) % 3, blend: next(), timeA: next() * 3, timeB: next() * 3, speedA: 1, speedB: 0.5 });
    crowd.setPlacement(id, ((i % 10) - 4.5) * 220, 0, (Math.floor(i / 10) - 4.5) * 220, next() * 6.3);
    if (i % 6 === 0) crowd.setLayers(id, { layers: [{ clip: 'Survey', weight: 0.6 }], additive: [{ clip: 'Run', weight: 0.5, reference: 'rest' }] });
  }
  return crowd;
}

describe.skipIf(!device)('Crowd with a camera: culled instances are not posed, and nothing of their animation is lost', () => {
  it('poses only what the camera sees; the rest keep their matrices, and pose exactly when seen again', async () => {
    const crowd = await foxCrowd({ lod: false, animationLod: false });
    const reference = await foxCrowd();
    const bytes = crowd.jointMatrices.size;
    device!.queue.writeBuffer(crowd.jointMatrices, 0, new Float32Array(bytes / 4).fill(NaN));
    // Looking at one corner of the grid from outside it.
    const corner = lookAt([-990, 100, -1500], [-990, 0, -600], { fovY: 0.3 });
    crowd.setCamera(corner.viewProjection, corner.eye);
    crowd.update(0.5);
    await renderCrowd(device!, crowd, corner.viewProjection, 64);
    const stats = await crowd.readCullStats();
    const matrices = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    const slots = crowd.jointsPerInstance * 12;
    const posed = Array.from({ length: 100 }, (_, id) => !Number.isNaN(matrices[crowd.jointMatrixIndex(id) * 12]));
    const posedCount = posed.filter(Boolean).length;
    expect(stats.visible).toBe(posedCount);
    expect(stats.posed).toBe(posedCount);
    expect(posedCount).toBeGreaterThan(0);
    expect(posedCount).toBeLessThan(30);
    for (let id = 0; id < 100; id++) {
      const m = matrices.subarray(crowd.jointMatrixIndex(id) * 12, crowd.jointMatrixIndex(id) * 12 + slots);
      expect(m.every(Number.isNaN) || !m.some(Number.isNaN), `instance ${id} fully posed or untouched`).toBe(true);
    }
    // Later, the camera turns to the whole crowd: every instance shows its pose at the new clock, exactly
    // as a crowd that never culled (clip times are closed-form: phase + speed * clock).
    const all = lookAt([0, 3000, -3000], [0, 0, 0], { far: 20000 });
    crowd.setCamera(all.viewProjection, all.eye);
    crowd.update(1.25);
    await renderCrowd(device!, crowd, all.viewProjection, 64);
    reference.update(1.75);
    await renderCrowd(device!, reference, all.viewProjection, 64);
    expect((await crowd.readCullStats()).posed).toBe(100);
    const after = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    const expected = new Float32Array(await readBuffer(device!, reference.jointMatrices));
    for (let id = 0; id < 100; id++) {
      const a = crowd.jointMatrixIndex(id) * 12, b = reference.jointMatrixIndex(id) * 12;
      expect(Array.from(after.subarray(a, a + slots)), `instance ${id}`).toEqual(Array.from(expected.subarray(b, b + slots)));
    }
    crowd.destroy();
    reference.destroy();
  });

  it('draws one indirect draw per primitive per LOD level; the old call order without a camera still draws directly', async () => {
    const crowd = new Crowd(device!, await testCharacter('RobotExpressive'), { ...FORMATS, capacity: 4 });
    crowd.add();
    const counts = { drawIndexed: 0, drawIndexedIndirect: 0 };
    const pass = {
      setPipeline() {}, setBindGroup() {}, setVertexBuffer() {}, setIndexBuffer() {},
      drawIndexed() { counts.drawIndexed++; }, drawIndexedIndirect() { counts.drawIndexedIndirect++; },
    } as unknown as GPURenderPassEncoder;
    const { viewProjection, eye } = lookAt([0, 2, -10], [0, 1, 0]);
    crowd.update(0);
    crowd.encode(device!.createCommandEncoder());
    crowd.draw(pass, viewProjection);
    expect(counts).toEqual({ drawIndexed: 19, drawIndexedIndirect: 0 });
    crowd.setCamera(viewProjection, eye);
    crowd.encode(device!.createCommandEncoder());
    crowd.draw(pass, viewProjection);
    expect(counts.drawIndexedIndirect).toBe(19 * crowd.lodLevels);
    expect(crowd.drawCallCount).toBe(19 * crowd.lodLevels);
    crowd.destroy();
  });
});

describe.skipIf(!device)('culling changes no pixel', () => {
  // Inside the crowd at a fox's eye height, at its edge looking along it, and at the edge looking away.
  const VIEWS = {
    inside: lookAt([30, 60, -40], [400, 20, 300]),
    edge: lookAt([-1200, 80, -990], [1000, 0, -990]),
    away: lookAt([0, 80, -1100], [0, 40, -3000]),
  };

  for (const [name, view] of Object.entries(VIEWS)) {
    it(`${name}: the image with culling equals the image without, pixel for pixel`, async () => {
      const crowd = await foxCrowd({ lod: false, animationLod: false });
      crowd.update(0.7);
      const off = await renderCrowd(device!, crowd, view.viewProjection, 128);
      crowd.setCamera(view.viewProjection, view.eye);
      const on = await renderCrowd(device!, crowd, view.viewProjection, 128);
      const stats = await crowd.readCullStats();
      console.log(`${name}: ${stats.visible} of 100 instances drawn, ${drawnPixels(on)} pixels covered`);
      expect(differingPixels(on, off)).toBe(0);
      if (name === 'away') {
        expect(stats.visible).toBeLessThan(5); // boxes reaching into the view; nothing of them shows
        expect(drawnPixels(on)).toBe(0);
      } else {
        expect(stats.visible).toBeLessThan(90);
        expect(drawnPixels(on)).toBeGreaterThan(500);
      }
      crowd.destroy();
    });
  }
});

describe.skipIf(!device)('mesh LOD', () => {
  it('LOD forced to level 0 draws exactly the LOD-off image; by distance it draws fewer vertices, coarser farther away', async () => {
    const crowd = await foxCrowd({ animationLod: false });
    expect(crowd.lodLevels).toBe(4);
    const view = lookAt([-2500, 400, -2500], [0, 0, 0], { far: 20000 });
    crowd.update(0.3);
    crowd.setCamera(view.viewProjection, view.eye, { viewportHeight: 1080 });
    crowd.lod = false;
    const off = await renderCrowd(device!, crowd, view.viewProjection, 128);
    const full = await crowd.readCullStats();
    crowd.lod = true;
    crowd.forceLodLevel(0);
    const forced = await renderCrowd(device!, crowd, view.viewProjection, 128);
    expect(differingPixels(forced, off)).toBe(0);
    expect(drawnPixels(off)).toBeGreaterThan(200);
    crowd.forceLodLevel(undefined);
    await renderCrowd(device!, crowd, view.viewProjection, 128);
    const chosen = await crowd.readCullStats();
    console.log(`LOD by distance as on a 1080-pixel view: instances per level ${chosen.perLevel.join(' / ')}, indices ${chosen.vertices} of ${full.vertices}`);
    expect(chosen.visible).toBe(full.visible);
    expect(chosen.vertices).toBeLessThan(full.vertices);
    expect(chosen.perLevel.filter((n) => n > 0).length).toBeGreaterThan(1);
    crowd.destroy();
  });

  it('the levels chosen on the GPU follow distance as documented (the TypeScript twin, per instance)', async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 64, animationLod: false, culling: false });
    // One instance every 400 units along +z, the camera behind the first looking down the line.
    for (let i = 0; i < 40; i++) crowd.setPlacement(crowd.add(), 0, 0, i * 400, 0);
    const view = lookAt([0, 100, -500], [0, 0, 1000], { far: 100000 });
    crowd.setCamera(view.viewProjection, view.eye, { viewportHeight: 720 });
    crowd.update(0);
    await renderCrowd(device!, crowd, view.viewProjection, 64);
    const stats = await crowd.readCullStats();
    const settings = new CullSettings(character.lods!.errors, 1);
    settings.setCamera(view.viewProjection, view.eye, 720);
    const thresholds = settings.fill().lodDistances;
    const expected = [0, 0, 0, 0];
    for (let i = 0; i < 40; i++) {
      const b = instanceBounds(crowd.getTransform(i), character.animationBounds.reach, view.eye);
      expected[lodLevel(Math.fround(b.distance / b.scale), thresholds, 4)]++;
    }
    expect(stats.perLevel).toEqual(expected);
    expect(expected.every((n) => n > 0)).toBe(true);
    crowd.destroy();
  });
});

describe.skipIf(!device)('animation LOD', () => {
  it('an instance posed every 4th frame shows exactly the pose of its last posing frame, and keeps moving in between', async () => {
    const character = await testCharacter('Fox');
    // Every instance counts as tiny on screen: posed every 4th frame, staggered by slot.
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 8, lod: false, animationLod: { every2ndBelow: 1e6, every4thBelow: 1e6 } });
    const reference = new Crowd(device!, character, { ...FORMATS, capacity: 8 });
    for (const c of [crowd, reference]) for (let i = 0; i < 6; i++) c.add({ clipA: i % 3, clipB: 2, blend: 0.3, timeA: i * 0.2, speedA: 1 + i * 0.1 });
    const view = lookAt([60, 100, -300], [60, 40, 0]);
    crowd.setCamera(view.viewProjection, view.eye);
    const slots = crowd.jointsPerInstance * 12;
    const dt = 1 / 30;
    let previous = new Float32Array(0);
    const lastPosed = new Array<number>(6).fill(-1); // the clock each instance was last posed at
    let skipped = 0;
    for (let frame = 1; frame <= 8; frame++) {
      const clock = frame * dt;
      // Instance 0 walks along x every frame; its pose is held on skipped frames, its place is not.
      crowd.setPlacement(0, frame * 20, 0, 0, 0);
      crowd.update(dt);
      const image = await renderCrowd(device!, crowd, view.viewProjection, 64);
      const posedNow = (await crowd.readCullStats()).posed;
      const got = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
      reference.update(clock - reference.clock);
      await renderCrowd(device!, reference, view.viewProjection, 64);
      const now = new Float32Array(await readBuffer(device!, reference.jointMatrices));
      let posed = 0;
      for (let id = 0; id < 6; id++) {
        const a = crowd.jointMatrixIndex(id) * 12;
        const mine = Array.from(got.subarray(a, a + slots));
        const due = frame === 1 || (frame + crowd.jointMatrixIndex(id) / crowd.jointsPerInstance) % 4 === 0;
        if (due) {
          posed++;
          lastPosed[id] = clock;
          const b = reference.jointMatrixIndex(id) * 12;
          expect(mine, `frame ${frame}: instance ${id} posed at this frame's clock`).toEqual(Array.from(now.subarray(b, b + slots)));
        } else {
          skipped++;
          expect(mine, `frame ${frame}: instance ${id} holds its pose`).toEqual(Array.from(previous.subarray(a, a + slots)));
        }
      }
      expect(posedNow).toBe(posed);
      // The picture: every instance as the reference crowd poses it at its last posing clock, at today's place.
      const held = new Crowd(device!, character, { ...FORMATS, capacity: 8, lod: false });
      for (let i = 0; i < 6; i++) {
        held.add({ clipA: i % 3, clipB: 2, blend: 0.3, timeA: i * 0.2 + (1 + i * 0.1) * lastPosed[i], timeB: lastPosed[i], speedA: 0, speedB: 0 });
      }
      held.setPlacement(0, frame * 20, 0, 0, 0);
      held.update(0);
      const expected = await renderCrowd(device!, held, view.viewProjection, 64);
      expect(differingPixels(image, expected), `frame ${frame}`).toBe(0);
      expect(drawnPixels(image)).toBeGreaterThan(100);
      held.destroy();
      previous = got;
    }
    expect(skipped).toBeGreaterThan(20);
    crowd.destroy();
    reference.destroy();
  });
});
