import { withFeatures } from '../helpers/features';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dualQuaternionJoints, skinPositionsDualQuaternion } from '../../src/anim/dual-quaternion';
import { CpuPoser } from '../../src/anim/evaluate';
import { sampleLut } from '../../src/anim/lut';
import { skinPositions } from '../../src/anim/skinning';
import { bake } from '../../src/bake/bake';
import { loadCharacter, type Character } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import type { InstanceAnimation } from '../../src/runtime/instance-records';
import { INSTANCE, JOINT_DQ } from '../../src/runtime/layout';
import { gpuJointMatrices } from '../../tools/gpu-poser';
import { testCharacter } from '../helpers/character';
import { arrayBufferOf, assetToGlb } from '../helpers/gltf-builder';
import { expectNoGpuError, openTestDevice, readBuffer } from '../helpers/gpu';
import { LARGE_BUFFERS, WORKGROUP_32K } from '../helpers/gpu-suite';
import { BUNDLED_MODELS, loadModel } from '../helpers/models';
import { seededRandom } from '../helpers/prng';
import { differingPixels, drawnPixels, lookAt, renderCrowd } from '../helpers/render';
import { probeSkinnedVertices } from '../helpers/skin-probe';
import { MIDDLE_RING, ringArea, ringTilt, TWIST_DEGREES, twistRigModel } from '../helpers/twist-rig';
import { kernelOf } from '../helpers/kernel';

const device = await openTestDevice({ ...WORKGROUP_32K, ...LARGE_BUFFERS });
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
/** The bundled models (public/models). */
const MODELS = ['Fox', 'CesiumMan', 'RobotExpressive', 'Walker'];

/** Records over every clip, random times (also past the end and negative), blends 0, 1 and between. */
function randomRecords(count: number, durations: Float32Array, seed: number): InstanceAnimation[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const clipA = i % durations.length;
    const clipB = Math.floor(next() * durations.length);
    const blend = i % 3 === 0 ? 0 : i % 3 === 1 ? 1 : next();
    const span = 3 * Math.max(durations[clipA], durations[clipB], 0.1);
    return { clipA, clipB, blend, timeA: (next() * 2 - 1) * span, timeB: (next() * 2 - 1) * span, speedA: 0, speedB: 0 };
  });
}

/** A Character of the twist rig (test/helpers/twist-rig.ts). */
let twist: Promise<Character> | undefined;
const twistCharacter = () => (twist ??= loadCharacter(arrayBufferOf(assetToGlb(twistRigModel().builder.build()))));

/** Submits one frame of `crowd`'s compute work (its pose pass). */
function pose(crowd: Crowd): void {
  crowd.update(0);
  const encoder = crowd.device.createCommandEncoder();
  crowd.encode(encoder);
  crowd.device.queue.submit([encoder.finish()]);
}

/** Model-space positions of instance `id` of `crowd`, primitive by primitive, from its joint buffer through the skin shader's vertex code. */
async function gpuVertices(crowd: Crowd, id: number): Promise<{ positions: Float32Array; normals: Float32Array; tangents: Float32Array; origins: Float32Array }[]> {
  const { gpu, rig } = crowd.character;
  const instance = crowd.jointMatrixIndex(id) / gpu.slotCount;
  return Promise.all(rig.primitives.map((prim) => probeSkinnedVertices(crowd.device, crowd.jointMatrices, crowd.skinning, prim, {
    instance, slotCount: gpu.slotCount, slotOffset: gpu.skinSlotOffset[prim.skin],
  })));
}

describe.skipIf(!device)('dual-quaternion skinning on the GPU', () => {
  for (const name of MODELS) {
    it(`${name}: the pose pass writes the joint records of the float64 reference (60 random records)`, async () => {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      const records = randomRecords(60, baked.clipDurations, name.length);
      const gpu = await gpuJointMatrices(device!, rig, baked, records, { skinning: 'dual-quaternion' });
      const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
      const extent = Math.max(...rig.nodes.restTranslation.map(Math.abs), 1);
      let worstQ = 0, worstS = 0, worstT = 0, unwritten = 0;
      const slots = rig.skins.reduce((n, s) => n + s.joints.length, 0);
      records.forEach((r, i) => {
        poser.evaluate(r);
        let slot = i * slots;
        rig.skins.forEach((_, k) => {
          const cpu = dualQuaternionJoints(poser.jointMatrices(k));
          for (let j = 0; j < cpu.length / 16; j++, slot++) {
            const g = gpu.subarray(slot * 16, slot * 16 + 16);
            const c = cpu.subarray(j * 16, j * 16 + 16);
            if (g.some(Number.isNaN)) { unwritten++; continue; }
            // q and -q are the same rotation: compare after aligning the sign.
            const sign = g[0] * c[0] + g[1] * c[1] + g[2] * c[2] + g[3] * c[3] < 0 ? -1 : 1;
            for (let e = 0; e < 4; e++) worstQ = Math.max(worstQ, Math.abs(sign * g[e] - c[e]));
            let scale = 1;
            for (let row = 0; row < 3; row++) for (let col = 0; col < 3; col++) scale = Math.max(scale, Math.abs(c[4 + row * 4 + col]));
            for (let row = 0; row < 3; row++) {
              for (let col = 0; col < 3; col++) worstS = Math.max(worstS, Math.abs(g[4 + row * 4 + col] - c[4 + row * 4 + col]) / scale);
              worstT = Math.max(worstT, Math.abs(g[7 + row * 4] - c[7 + row * 4]) / (scale * extent));
            }
          }
        });
      });
      console.log(`${name}: joint records GPU vs float64: worst quaternion ${worstQ.toExponential(2)}, S ${worstS.toExponential(2)}, translation ${worstT.toExponential(2)} of extent`);
      expect(unwritten).toBe(0);
      expect(worstQ).toBeLessThan(1e-5);
      expect(worstS).toBeLessThan(1e-5);
      expect(worstT).toBeLessThan(1e-5);
    });
  }

  for (const name of MODELS) {
    it(`${name}: the skin shader's vertices equal the float64 reference; vertices on one joint equal linear skinning (within 1e-5 of the diagonal)`, async () => {
      const character = await testCharacter(name);
      const { rig, baked } = character;
      const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4, skinning: 'dual-quaternion' });
      const next = seededRandom(name.length + 7);
      const requests = Array.from({ length: 3 }, (_, i) => ({ clipA: i % baked.clipDurations.length, timeA: next() * baked.clipDurations[i % baked.clipDurations.length] }));
      const ids = requests.map((r) => crowd.add({ ...r, speedA: 0, clipB: r.clipA }));
      await expectNoGpuError(device!, () => pose(crowd));
      const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
      let worstDq = 0, worstRigid = 0, worstGpuRigid = 0, worstNormal = 0, worstTangent = 0, largestChange = 0, rigidCount = 0;
      for (let i = 0; i < ids.length; i++) {
        const gpu = await gpuVertices(crowd, ids[i]);
        poser.evaluate(requests[i]);
        const lbs = rig.primitives.map((prim) => skinPositions(prim, poser.jointMatrices(prim.skin), new Float64Array(prim.vertexCount * 3)));
        const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
        for (const p of lbs) for (let v = 0; v < p.length; v++) { min[v % 3] = Math.min(min[v % 3], p[v]); max[v % 3] = Math.max(max[v % 3], p[v]); }
        const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
        rig.primitives.forEach((prim, p) => {
          const records = dualQuaternionJoints(poser.jointMatrices(prim.skin));
          const normals = new Float64Array(prim.vertexCount * 3);
          const dq = skinPositionsDualQuaternion(prim, records, new Float64Array(prim.vertexCount * 3), 0, normals);
          for (let v = 0; v < prim.vertexCount; v++) {
            const d = (a: ArrayLike<number>, b: ArrayLike<number>) => Math.hypot(a[v * 3] - b[v * 3], a[v * 3 + 1] - b[v * 3 + 1], a[v * 3 + 2] - b[v * 3 + 2]) / diagonal;
            worstDq = Math.max(worstDq, d(gpu[p].positions, dq));
            // TANGENT moves as a direction: the rest position moved as a tangent is position - origin.
            const g = gpu[p], k = v * 3;
            worstTangent = Math.max(worstTangent, Math.hypot(...[0, 1, 2].map((c) => g.tangents[k + c] - (g.positions[k + c] - g.origins[k + c]))) / diagonal);
            let influences = 0;
            for (let k = 0; k < prim.influences; k++) if (prim.weights[v * prim.influences + k] > 0) influences++;
            if (influences === 1) {
              rigidCount++;
              worstRigid = Math.max(worstRigid, d(dq, lbs[p]));
              worstGpuRigid = Math.max(worstGpuRigid, d(gpu[p].positions, lbs[p]));
            } else {
              largestChange = Math.max(largestChange, d(dq, lbs[p]));
            }
            if (prim.normals) {
              const a = gpu[p].normals.subarray(v * 3, v * 3 + 3), b = normals.subarray(v * 3, v * 3 + 3);
              const la = Math.hypot(...a), lb = Math.hypot(...b);
              if (lb > 1e-12) worstNormal = Math.max(worstNormal, Math.hypot(a[0] / la - b[0] / lb, a[1] / la - b[1] / lb, a[2] / la - b[2] / lb));
            }
          }
        });
      }
      console.log(`${name}: of the diagonal, GPU vs float64 DQ ${worstDq.toExponential(2)}; ${rigidCount} single-influence vertices: DQ vs linear ${worstRigid.toExponential(2)} (CPU), ${worstGpuRigid.toExponential(2)} (GPU); ` +
        `normals ${worstNormal.toExponential(2)}; tangents ${worstTangent.toExponential(2)}; largest DQ - linear elsewhere ${largestChange.toExponential(2)}`);
      expect(worstDq).toBeLessThan(1e-5);
      expect(worstRigid).toBeLessThan(1e-5);
      expect(worstGpuRigid).toBeLessThan(1e-5);
      expect(worstNormal).toBeLessThan(1e-4);
      expect(worstTangent).toBeLessThan(1e-5);
      crowd.destroy();
    });
  }

  it(`the twist rig (a joint twisted ${TWIST_DEGREES} degrees): linear skinning collapses the middle cross-section, dual quaternions keep its area`, async () => {
    const character = await twistCharacter();
    const rest = ringArea(character.rig.primitives[0].positions);
    const ratios: Record<string, number> = {};
    for (const skinning of ['linear', 'dual-quaternion'] as const) {
      const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 2, skinning });
      crowd.add({ timeA: 0.2, speedA: 0 });
      const id = crowd.add({ timeA: 1.5, speedA: 0 }); // the full twist
      pose(crowd);
      const [{ positions }] = await gpuVertices(crowd, id);
      ratios[skinning] = ringArea(positions) / rest;
      if (skinning === 'dual-quaternion') expect(ringTilt(positions)).toBeLessThan(1e-5);
      crowd.destroy();
    }
    console.log(`twist rig on the GPU, middle ring (${MIDDLE_RING}) cross-section area / rest: linear ${ratios.linear.toFixed(4)}, dual-quaternion ${ratios['dual-quaternion'].toFixed(4)}`);
    expect(ratios.linear).toBeCloseTo(Math.cos((TWIST_DEGREES / 2) * Math.PI / 180) ** 2, 3);
    expect(ratios['dual-quaternion']).toBeCloseTo(1, 4);
  });

  it('renders the same picture with either method at rest, and a thicker waist with dual quaternions when twisted', async () => {
    const character = await twistCharacter();
    // From the side, the cylinder (x, z in [-0.25, 0.25], y in [0, 2]) fills the middle of the view.
    const { viewProjection } = lookAt([0, 1, 4], [0, 1, 0], { fovY: 0.6, near: 0.5, far: 20 });
    const pictures: Record<string, Uint8Array[]> = {};
    for (const skinning of ['linear', 'dual-quaternion'] as const) {
      const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 1, skinning });
      const id = crowd.add({ timeA: 0, speedA: 0 });
      crowd.update(0);
      const atRest = await renderCrowd(device!, crowd, viewProjection, 128);
      crowd.setAnimation(id, { timeA: 1.5 });
      crowd.update(0);
      const twisted = await renderCrowd(device!, crowd, viewProjection, 128);
      pictures[skinning] = [atRest, twisted];
      crowd.destroy();
    }
    const [linearRest, linearTwisted] = pictures.linear;
    const [dqRest, dqTwisted] = pictures['dual-quaternion'];
    expect(drawnPixels(linearRest)).toBeGreaterThan(500);
    expect(differingPixels(linearRest, dqRest)).toBe(0);
    // The middle rows (the waist, y near 1): the linear one pinches to about cos 75 = 0.26 of its width.
    const band = (pixels: Uint8Array) => drawnPixels(pixels.subarray(60 * 128 * 4, 68 * 128 * 4));
    console.log(`twist rig rendered, waist band pixels: rest ${band(linearRest)}, linear twisted ${band(linearTwisted)}, dual-quaternion twisted ${band(dqTwisted)}`);
    expect(band(dqTwisted)).toBeGreaterThan(0.9 * band(dqRest));
    expect(band(linearTwisted)).toBeLessThan(0.5 * band(linearRest));
  });

  it('draws through culling, LOD and the shadow map with dual quaternions: culling changes no pixel, the shadow pass draws', async () => {
    const character = await testCharacter('Fox');
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4, skinning: 'dual-quaternion', shadows: { mapSize: 512 } });
    for (let i = 0; i < 3; i++) crowd.add({ timeA: 0.3 * i, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 120 * (i - 1), 0, 0, 1] });
    const { min, max } = character.bounds;
    const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const camera = lookAt([0, size, 2.5 * size], [0, size / 3, 0], { near: size / 20, far: size * 20 });
    const picture = async (setup: () => void) => {
      setup();
      crowd.setCamera(camera.viewProjection, camera.eye);
      crowd.update(0);
      return expectNoGpuError(device!, () => renderCrowd(device!, crowd, camera.viewProjection, 128));
    };
    const shadowed = await picture(() => { crowd.culling = true; crowd.shadows = true; });
    const unculled = await picture(() => { crowd.culling = false; });
    const unshadowed = await picture(() => { crowd.culling = true; crowd.shadows = false; });
    expect(drawnPixels(shadowed)).toBeGreaterThan(500);
    expect(differingPixels(shadowed, unculled)).toBe(0);
    expect(differingPixels(shadowed, unshadowed)).toBeGreaterThan(0);
    crowd.destroy();
  });

  it('props on joints (Crowd.attach) are placed from dual-quaternion records where linear records place them, also after a switch', async () => {
    const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
    const sword = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    for (const [name, joint] of [['Fox', 'b_RightHand_08'], ['RobotExpressive', 'Palm2.R']] as const) {
      const character = await testCharacter(name);
      const worlds = async (crowd: Crowd, attachment: number) => {
        pose(crowd);
        return new Float32Array(await readBuffer(device!, crowd.attachmentRecords(attachment)));
      };
      const crowds = (['linear', 'dual-quaternion', 'linear'] as const).map((skinning) => withFeatures(new Crowd(device!, character, { ...FORMATS, capacity: 4, skinning })));
      const attachments = crowds.map((crowd) => {
        for (let i = 0; i < 3; i++) crowd.add({ clipA: i % character.clipNames.length, timeA: 0.37 * i, speedA: 0, transform: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 3 * i, 0, 0, 1] });
        return crowd.attach(sword, { joint });
      });
      crowds[2].skinning = 'dual-quaternion'; // switched with the prop attached
      const [linear, dq, switched] = await Promise.all(crowds.map((crowd, i) => worlds(crowd, attachments[i])));
      const { min, max } = character.bounds;
      const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
      let worstLinear = 0, worstTranslation = 0;
      for (let id = 0; id < 3; id++) {
        const at = (kernelOf(crowds[0]).store.slot(id) * INSTANCE.size + INSTANCE.world) / 4;
        let scale = 0;
        for (let k = 0; k < 12; k++) if (k % 4 !== 3) scale = Math.max(scale, Math.abs(linear[at + k]));
        for (let k = 0; k < 16; k++) {
          const error = Math.abs(dq[at + k] - linear[at + k]);
          if (k >= 12) worstTranslation = Math.max(worstTranslation, error / diagonal);
          else worstLinear = Math.max(worstLinear, error / scale);
          expect(switched[at + k]).toBe(dq[at + k]);
        }
      }
      console.log(`${name}: prop world matrices from dual-quaternion records vs matrix rows: 3x3 ${worstLinear.toExponential(2)} of its largest entry, translation ${worstTranslation.toExponential(2)} of the diagonal`);
      expect(worstLinear).toBeLessThan(1e-5);
      expect(worstTranslation).toBeLessThan(1e-5);
      for (const crowd of crowds) crowd.destroy();
    }
  });

  it('Crowd.skinning switches a live crowd (new joint buffer, instances kept), refuses a bad value, and survives restore(device)', async () => {
    const character = await testCharacter('CesiumMan');
    const reference = new Crowd(device!, character, { ...FORMATS, capacity: 2, skinning: 'dual-quaternion' });
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 2 });
    for (const c of [reference, crowd]) {
      c.add({ timeA: 0.4, speedA: 0 });
      c.update(0);
    }
    const { min, max } = character.bounds;
    const centre = [0, 1, 2].map((i) => (min[i] + max[i]) / 2) as [number, number, number];
    const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const { viewProjection } = lookAt([centre[0] + size, centre[1] + size, centre[2] + size], centre, { fovY: 0.8, near: size / 10, far: size * 10 });
    const linearPicture = await renderCrowd(device!, crowd, viewProjection, 64);
    expect(crowd.skinning).toBe('linear');
    expect(crowd.bytesPerJoint).toBe(48);
    const linearBuffer = crowd.jointMatrices;
    expect(() => { crowd.skinning = 'quaternion' as never; }).toThrow(/skinning must be 'linear' or 'dual-quaternion', got "quaternion"/);
    expect(crowd.skinning).toBe('linear');
    expect(crowd.jointMatrices).toBe(linearBuffer);

    crowd.skinning = 'dual-quaternion';
    expect(crowd.bytesPerJoint).toBe(JOINT_DQ.size);
    expect(crowd.jointMatrices.size).toBe(2 * character.gpu.slotCount * JOINT_DQ.size);
    expect(crowd.count).toBe(1);
    const switched = await renderCrowd(device!, crowd, viewProjection, 64);
    const created = await renderCrowd(device!, reference, viewProjection, 64);
    expect(differingPixels(switched, created)).toBe(0);
    expect(drawnPixels(switched)).toBeGreaterThan(50);
    const records = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
    const expected = new Float32Array(await readBuffer(device!, reference.jointMatrices));
    expect(Array.from(records.subarray(0, character.gpu.slotCount * 16))).toEqual(Array.from(expected.subarray(0, character.gpu.slotCount * 16)));

    crowd.restore(device!);
    crowd.update(0);
    expect(crowd.skinning).toBe('dual-quaternion');
    expect(differingPixels(await renderCrowd(device!, crowd, viewProjection, 64), created)).toBe(0);
    crowd.skinning = 'linear';
    expect(differingPixels(await renderCrowd(device!, crowd, viewProjection, 64), linearPicture)).toBe(0);
    expect(() => new Crowd(device!, character, { ...FORMATS, skinning: 'dq' as never })).toThrow(/skinning must be 'linear' or 'dual-quaternion', got "dq"/);
    crowd.destroy();
    reference.destroy();
  });
});
