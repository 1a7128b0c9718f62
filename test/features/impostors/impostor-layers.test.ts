import { describe, expect, it } from 'vitest';
import type { Character } from '../../../src/character/character';
import { CrowdImpostors } from '../../../src/features/impostors/crowd-impostors';
import { Crowd } from '../../../src/runtime/crowd';
import type { LayerStackInit } from '../../../src/anim/layer-stack';
import { gpuSuite } from '../../helpers/gpu-suite';
import { cameraAtSwitch, IMPOSTOR_TARGETS, SMALL_ATLAS, SWITCH_VIEW } from '../../helpers/impostor-camera';
import { differingPixels, drawnPixels, overMesh, renderCrowd } from '../../helpers/render';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { seededRandom } from '../../helpers/prng';
import { markedShown, readShown, shownTwin } from '../../helpers/shown-twin';
import { INSTANCE, LAYERS_INDEX } from '../../../src/runtime/layout';

const SIZE = SWITCH_VIEW.size;

describe('impostors of layered instances (GPU): a stack that is a blend of baked clips is the impostor of its two heaviest; a masked or additive layer that weighs anything keeps a mesh', () => {
  let device: GPUDevice | undefined;
  let fox: Character;
  gpuSuite({ characters: ['Fox'] }, (gpu) => { device = gpu.device; fox = gpu.characters.Fox; });

  /** A crowd of one Fox at the origin with impostors of `clips` (all three by default), and its frame drawn from azimuth 90 (a view cell) `factor` x the switch distance away. */
  function scene(clips?: string[]) {
    const crowd = new Crowd(device!, fox, IMPOSTOR_TARGETS);
    const impostors = new CrowdImpostors(crowd, clips ? { ...SMALL_ATLAS, clips } : SMALL_ATLAS);
    const id = crowd.add();
    const camera = (factor: number) => cameraAtSwitch(impostors, Math.PI / 2, 0, SIZE, SWITCH_VIEW.fovY, factor);
    const draw = async (asImpostors: boolean, factor = 1.02) => {
      const { viewProjection, eye } = camera(factor);
      impostors.enabled = asImpostors;
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      return { pixels: await renderCrowd(device!, crowd, viewProjection, SIZE), stats: await crowd.readCullStats() };
    };
    return { crowd, impostors, id, draw, camera };
  }

  it('shows the two heaviest clips of the blend by their shares of the two: the pixels of a plain blend of those two', async (context) => {
    if (!device) return context.skip();
    const { crowd, id, draw } = scene();
    const [survey, walk, run] = fox.clipDurations;
    const at = { Survey: survey / 4, Walk: walk / 4, Run: run / 4 };
    // Walk, Run over it at 0.3, Survey over both at 0.6: shares Survey 0.6, Walk 0.7 x 0.4 = 0.28,
    // Run 0.3 x 0.4 = 0.12. The impostor shows Survey and Walk, Walk by 0.28 / 0.88 of the two.
    crowd.setAnimation(id, { clipA: 'Walk', timeA: at.Walk, speedA: 0 });
    crowd.setLayers(id, { layers: [{ clip: 'Run', time: at.Run, speed: 0, weight: 0.3 }, { clip: 'Survey', time: at.Survey, speed: 0, weight: 0.6 }] });
    const layered = await draw(true);
    expect(layered.stats.visible).toBe(1);
    expect(layered.stats.perLevel.at(-1), 'a blend of three baked clips drawn as a mesh (not marked LAYERS_SHOWN, or not routed)').toBe(1);
    const mesh = await draw(false);
    expect(mesh.stats.perLevel.at(-1)).toBe(0);
    crowd.setLayers(id, null);
    const plain = async (clipA: keyof typeof at, clipB: keyof typeof at, blend: number) => {
      crowd.setAnimation(id, { clipA, timeA: at[clipA], speedA: 0, clipB, timeB: at[clipB], speedB: 0, blend });
      const { pixels, stats } = await draw(true);
      expect(stats.perLevel.at(-1)).toBe(1);
      return pixels;
    };
    const asPlain = overMesh(layered.pixels, await plain('Survey', 'Walk', 0.28 / 0.88));
    const againstMesh = overMesh(layered.pixels, mesh.pixels);
    console.log(`layers: Walk, Run 0.3, Survey 0.6 shown as Survey and Walk: against the plain blend of the two ${asPlain.mean.toFixed(2)}/255 over ${asPlain.pixels} pixels; against its own mesh (the three poses blended) ${againstMesh.mean.toFixed(2)}/255`);
    expect(asPlain.pixels).toBeGreaterThan(80);
    expect(asPlain.mean).toBeLessThanOrEqual(0.5);
    // Made-up violations: the record's own clip (the stack left out), the stack's first two in
    // its order (Walk and Run, as if the record's blend), the heaviest alone, the two by 0.5.
    for (const [what, a, b, blend] of [['the record alone', 'Walk', 'Walk', 0], ['the first two', 'Walk', 'Run', 0.3], ['the heaviest alone', 'Survey', 'Survey', 0], ['the two by halves', 'Survey', 'Walk', 0.5]] as const) {
      expect(overMesh(layered.pixels, await plain(a, b, blend)).mean, what).toBeGreaterThan(1);
    }
    crowd.destroy();
  }, 60_000);

  it('the shown pass against its TypeScript twin: 400 random stacks (weights, masks, additive layers, clips baked or not) over random blends, partial layers kept as meshes or left out', async (context) => {
    if (!device) return context.skip();
    const { crowd, impostors } = scene(['Walk', 'Run']); // Survey (0) not baked
    const random = seededRandom(40);
    const clips = ['Survey', 'Walk', 'Run'] as const;
    const pick = () => clips[Math.floor(random() * 3)];
    const weight = () => (random() < 0.15 ? 0 : random() < 0.1 ? 1 : random());
    const upper = crowd.createMask({ root: 'b_Spine02_03' });
    for (let i = 0; i < 400; i++) {
      const id = crowd.add({ clipA: pick(), timeA: random(), speedA: 1, clipB: pick(), timeB: random(), speedB: 1, blend: random() < 0.3 ? 0 : random() });
      if (random() < 0.1) continue; // plain
      const layers = Array.from({ length: Math.floor(random() * 5) }, () => ({ clip: pick(), time: random(), weight: weight(), ...(random() < 0.15 ? { mask: upper } : {}) }));
      const additive = Array.from({ length: random() < 0.25 ? 1 + Math.floor(random() * 2) : 0 }, () => ({ clip: pick(), weight: random() < 0.5 ? 0 : random(), reference: 'rest' as const }));
      crowd.setLayers(id, { layers, additive });
    }
    const store = crowd.install({ featureName: 'probe' }).store;
    const shownBuffer = () => (impostors as unknown as { shown: { records: GPUBuffer } }).shown.records;
    const baked = (clip: number) => clip === 1 || clip === 2;
    /** One frame's shown pass against the twin under the policy set; the layered instances and those marked. */
    const check = async (leaveOut: boolean) => {
      crowd.update(0);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      const [records, stacks, shown] = await Promise.all([store.instanceBuffer, store.layerStackBuffer, shownBuffer()].map(async (b) => new DataView(await readBuffer(device!, b))));
      let layered = 0, marked = 0, twinShows = 0;
      for (let slot = store.plainCount; slot < store.count; slot++) {
        const o = slot * INSTANCE.size;
        const twin = shownTwin(records, o, stacks, baked, leaveOut);
        if (!twin) continue;
        layered++;
        const gpu = markedShown(records, o);
        marked += Number(gpu);
        twinShows += Number(twin.shows);
        expect(gpu, `slot ${slot}: marked LAYERS_SHOWN`).toBe(twin.shows);
        if (!twin.shows) continue;
        const got = readShown(shown, records.getUint32(o + INSTANCE.layers, true) & LAYERS_INDEX);
        const { blend, ...words } = twin.shown!;
        expect({ ...got, blend: 0 }, `slot ${slot}: the shown record`).toEqual({ ...words, blend: 0 });
        expect(Math.abs(got.blend - blend), `slot ${slot}: clip B's share`).toBeLessThanOrEqual(1e-6);
      }
      console.log(`shown pass against its twin (partialLayers ${impostors.partialLayers}): ${layered} layered instances, ${marked} marked (twin ${twinShows})`);
      return { layered, marked };
    };
    const kept = await check(false);
    // Both outcomes well represented, so neither side can pass by always answering one way.
    expect(kept.layered).toBeGreaterThan(300);
    expect(kept.marked).toBeGreaterThan(50);
    expect(kept.layered - kept.marked).toBeGreaterThan(50);
    // Partial layers left out (ImpostorOptions.partialLayers, set at run time): the stacks they
    // kept meshes are shown too, as the twin says, and only unbaked clips keep one.
    expect(() => { impostors.partialLayers = 'drop' as never; }).toThrow(/impostors\.partialLayers must be 'mesh' or 'leave-out', got "drop"/);
    impostors.partialLayers = 'leave-out';
    const left = await check(true);
    expect(left.marked - kept.marked).toBeGreaterThan(30);
    expect(left.layered - left.marked).toBeGreaterThan(30);
    crowd.destroy();
  }, 60_000);

  it('restored onto a new device, the atlas and the shown pass are made again there: the layered instance is the same impostor', async (context) => {
    if (!device) return context.skip();
    const crowd = new Crowd(device, fox, IMPOSTOR_TARGETS);
    const impostors = new CrowdImpostors(crowd, SMALL_ATLAS);
    const id = crowd.add({ clipA: 'Walk', timeA: fox.clipDurations[1] / 4, speedA: 0 });
    crowd.setLayers(id, { layers: [{ clip: 'Run', time: 0.2, speed: 0, weight: 0.3 }, { clip: 'Survey', time: 0.4, speed: 0, weight: 0.6 }] });
    const { viewProjection, eye } = cameraAtSwitch(impostors, Math.PI / 2, 0);
    const draw = async (on: GPUDevice) => {
      crowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
      crowd.update(0);
      return { pixels: await renderCrowd(on, crowd, viewProjection, SIZE), stats: await crowd.readCullStats() };
    };
    const before = await draw(device);
    expect(before.stats.perLevel.at(-1)).toBe(1);
    const other = (await openTestDevice())!;
    crowd.restore(other);
    expect(impostors.baked, 'the old device\'s atlas is not kept').toBe(false);
    const after = await draw(other);
    expect(after.stats.perLevel.at(-1), 'not routed on the new device (no shown pass there)').toBe(1);
    expect(impostors.baked).toBe(true);
    expect(drawnPixels(after.pixels)).toBeGreaterThan(80);
    expect(differingPixels(before.pixels, after.pixels)).toBe(0);
    crowd.destroy();
    other.destroy();
  }, 60_000);

  it('keeps a mesh where a masked or additive layer weighs anything or a shown clip is not baked (partial layers left out: only the unbaked); the bit leaves the mesh\'s pose as it was', async (context) => {
    if (!device) return context.skip();
    const { crowd, impostors, id, draw, camera } = scene(['Walk', 'Run']);
    const upper = crowd.createMask({ root: 'b_Spine02_03' });
    const routed = async (stack: LayerStackInit) => {
      crowd.setAnimation(id, { clipA: 'Walk', timeA: 0.2, speedA: 1 });
      crowd.setLayers(id, stack);
      const { stats } = await draw(true);
      expect(stats.visible).toBe(1);
      return stats.perLevel.at(-1);
    };
    const cases: [string, LayerStackInit, number][] = [
      ['an unmasked layer over the record', { layers: [{ clip: 'Run', weight: 0.5 }, { clip: 'Walk', time: 0.5, weight: 0.2 }] }, 1],
      ['a masked layer weighing 0.5', { layers: [{ clip: 'Run', weight: 0.5, mask: upper }, { clip: 'Walk', time: 0.5, weight: 0.2 }] }, 0],
      ['a masked layer weighing nothing', { layers: [{ clip: 'Run', weight: 0.5 }, { clip: 'Run', weight: 0, mask: upper }] }, 1],
      ['an additive layer weighing 0.5', { layers: [{ clip: 'Run', weight: 0.5 }], additive: [{ clip: 'Run', weight: 0.5, reference: 'rest' }] }, 0],
      ['an additive layer weighing nothing', { layers: [{ clip: 'Run', weight: 0.5 }], additive: [{ clip: 'Run', weight: 0, reference: 'rest' }] }, 1],
      ['Survey (not baked) the heaviest', { layers: [{ clip: 'Run', weight: 0.2 }, { clip: 'Survey', weight: 0.7 }] }, 0],
      ['Survey (not baked) the second', { layers: [{ clip: 'Survey', weight: 0.4 }, { clip: 'Run', weight: 0.2 }] }, 0],
      ['Survey (not baked) the lightest, left out', { layers: [{ clip: 'Survey', weight: 0.1 }, { clip: 'Run', weight: 0.5 }] }, 1],
    ];
    const got: (number | undefined)[] = [];
    for (const [, stack] of cases) got.push(await routed(stack));
    expect(Object.fromEntries(cases.map(([what], i) => [what, got[i]]))).toEqual(Object.fromEntries(cases.map(([what, , n]) => [what, n])));
    // Partial layers left out (ImpostorOptions.partialLayers 'leave-out'): the masked and additive
    // layers that kept a mesh no longer do; an unbaked clip still does. The impostor is the one of
    // the stack without them, to the pixel, where the mesh near the camera shows the masked layer.
    impostors.partialLayers = 'leave-out';
    const leftOut: (number | undefined)[] = [];
    for (const [, stack] of cases) leftOut.push(await routed(stack));
    expect(leftOut, 'left out: every case but the unbaked clips an impostor').toEqual([1, 1, 1, 1, 1, 0, 0, 1]);
    crowd.setLayers(id, cases[1][1]); // a masked Run at 0.5 over Walk at 0.2 over the record's Walk
    const withMasked = await draw(true);
    crowd.setLayers(id, { layers: [{ clip: 'Walk', time: 0.5, weight: 0.2 }] });
    const without = await draw(true);
    expect([withMasked.stats.perLevel.at(-1), without.stats.perLevel.at(-1)]).toEqual([1, 1]);
    expect(drawnPixels(without.pixels)).toBeGreaterThan(100);
    expect(differingPixels(withMasked.pixels, without.pixels), 'the impostor of the stack without its masked layer').toBe(0);
    const nearWithout = await draw(true, 0.5);
    crowd.setLayers(id, cases[1][1]);
    const nearWith = await draw(true, 0.5);
    expect(nearWith.stats.perLevel.at(-1), 'near the camera a mesh').toBe(0);
    expect(differingPixels(nearWith.pixels, nearWithout.pixels), 'the mesh shows the masked layer').toBeGreaterThan(20);
    impostors.partialLayers = 'mesh';
    // More layered instances than the stacks held: the store's stack buffer grows (re-made), and
    // with it the shown records and the passes' bind groups; every one is routed still.
    const more = Array.from({ length: 300 }, () => crowd.add({ clipA: 'Run', timeA: 0.1, speedA: 1 }));
    for (const m of more) crowd.setLayers(m, { layers: [{ clip: 'Walk', weight: 0.5 }, { clip: 'Run', time: 0.4, weight: 0.2 }] });
    crowd.setLayers(id, cases[0][1]);
    const grown = await draw(true);
    expect([grown.stats.visible, grown.stats.perLevel.at(-1)]).toEqual([301, 301]);
    for (const m of more) crowd.remove(m);

    // Marked by the shown pass (LAYERS_SHOWN above the stack index), the instance near the camera
    // is a mesh posed from its stack as in a crowd without impostors: the pose and morph passes
    // take the index from the word's low bits (without, this mesh lost its pose: below).
    const stack: LayerStackInit = { layers: [{ clip: 'Run', time: 0.3, speed: 0, weight: 0.5 }, { clip: 'Walk', time: 0.7, speed: 0, weight: 0.3 }] };
    crowd.setAnimation(id, { clipA: 'Walk', timeA: 0.2, speedA: 0 });
    crowd.setLayers(id, stack);
    expect((await draw(true)).stats.perLevel.at(-1)).toBe(1);
    const near = await draw(true, 0.5);
    expect(near.stats.perLevel.at(-1)).toBe(0);
    const plainCrowd = new Crowd(device, fox, IMPOSTOR_TARGETS);
    const other = plainCrowd.add({ clipA: 'Walk', timeA: 0.2, speedA: 0 });
    plainCrowd.setLayers(other, stack);
    const { viewProjection, eye } = camera(0.5);
    plainCrowd.setCamera(viewProjection, eye, { viewportHeight: SIZE });
    plainCrowd.update(0);
    const reference = await renderCrowd(device, plainCrowd, viewProjection, SIZE);
    expect(drawnPixels(near.pixels)).toBeGreaterThan(300);
    expect(differingPixels(near.pixels, reference)).toBe(0);
    plainCrowd.destroy();
    crowd.destroy();
  }, 60_000);
});
