import { withFeatures } from '../helpers/features';
import { describe, expect, it } from 'vitest';
import { CpuPoser, type TwoClipRequest } from '../../src/anim/evaluate';
import { applyMorphOverrides, morphPrimitive } from '../../src/anim/morph';
import { skinNormals, skinPositions } from '../../src/anim/skinning';
import { sampleClip } from '../../src/bake/sampler';
import type { Character } from '../../src/character/character';
import { Crowd } from '../../src/runtime/crowd';
import { primitiveVertices } from '../../src/runtime/mesh-data';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { LARGE_BUFFERS } from '../helpers/gpu-suite';
import { captureVertices } from '../helpers/vertex-capture';
import { morphCharacter } from '../helpers/morph';

const device = await openTestDevice(LARGE_BUFFERS);
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus', lod: false } as const;

/** World position and normal of every vertex of every primitive for one record, on the CPU: exact pose, exact morph weights, then `overrides`. */
function cpuVertices(character: Character, request: TwoClipRequest, overrides: number[], world: Float32Array, morphed = true) {
  const rig = character.rig;
  const poser = new CpuPoser(rig, (clip, t, out) => sampleClip(rig, clip, t, out));
  poser.evaluate(request);
  const weights = applyMorphOverrides(poser.morphWeights(request), overrides);
  if (!morphed) weights.fill(0);
  const setBase = character.baked.morph!.setBase;
  return rig.primitives.map((prim) => {
    const joints = poser.jointMatrices(prim.skin);
    const baseNormals = Float64Array.from(primitiveVertices(prim, 0).normals);
    const positions = morphPrimitive(prim, weights, setBase, new Float64Array(prim.vertexCount * 3), baseNormals);
    const p = skinPositions(prim, joints, new Float64Array(prim.vertexCount * 3), 0, positions);
    const n = skinNormals(prim, joints, baseNormals, new Float64Array(prim.vertexCount * 3));
    for (let v = 0; v < prim.vertexCount; v++) {
      const [x, y, z] = [p[v * 3], p[v * 3 + 1], p[v * 3 + 2]];
      const [nx, ny, nz] = [n[v * 3], n[v * 3 + 1], n[v * 3 + 2]];
      for (let c = 0; c < 3; c++) {
        p[v * 3 + c] = world[c] * x + world[4 + c] * y + world[8 + c] * z + world[12 + c];
        n[v * 3 + c] = world[c] * nx + world[4 + c] * ny + world[8 + c] * nz;
      }
    }
    return { positions: p, normals: n };
  });
}

/** Largest distance between two lists of vec3 lists. */
function gap(a: ArrayLike<number>[], b: ArrayLike<number>[]): number {
  let worst = 0;
  a.forEach((list, i) => {
    for (let v = 0; v < list.length; v += 3) worst = Math.max(worst, Math.hypot(list[v] - b[i][v], list[v + 1] - b[i][v + 1], list[v + 2] - b[i][v + 2]));
  });
  return worst;
}

/** Length of the longest vec3 of the lists. */
function longest(lists: ArrayLike<number>[]): number {
  let worst = 0;
  for (const list of lists) for (let v = 0; v < list.length; v += 3) worst = Math.max(worst, Math.hypot(list[v], list[v + 1], list[v + 2]));
  return worst;
}

function diagonal(character: Character): number {
  const { min, max } = character.bounds;
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

const placement = (x: number, yaw: number, scale: number) => {
  const c = Math.cos(yaw) * scale, s = Math.sin(yaw) * scale;
  return new Float32Array([c, 0, -s, 0, 0, scale, 0, 0, s, 0, c, 0, x, 0.5, -1, 1]);
};

describe.skipIf(!device)('SkinPass morph entry points: GPU morphed and skinned vertices equal the CPU reference', () => {
  it('the hand-built rig: animated weights (LINEAR, CUBICSPLINE, STEP), a blend, an override; positions and normals', async () => {
    const character = await morphCharacter();
    const crowd = withFeatures(new Crowd(device!, character, FORMATS));
    const size = diagonal(character);
    const cases: { request: TwoClipRequest; overrides: number[] }[] = [
      { request: { clipA: 0, timeA: 0.3 }, overrides: [NaN, NaN, NaN, NaN] },
      { request: { clipA: 0, timeA: 0.8, clipB: 1, timeB: 0.9, blend: 0.35 }, overrides: [NaN, NaN, NaN, NaN] },
      { request: { clipA: 2, timeA: 0.4 }, overrides: [NaN, 0.75, NaN, NaN] },
    ];
    for (const [i, { request, overrides }] of cases.entries()) {
      const world = placement(i, 0.3 * i, 1 + 0.5 * i);
      const id = crowd.add({ ...request, clipB: request.clipB ?? request.clipA, speedA: 0, speedB: 0, transform: world });
      if (!Number.isNaN(overrides[1])) crowd.setMorphWeights(id, { blink: overrides[1] });
      crowd.update(0);
      const gpu = await captureVertices(crowd, id);
      const cpu = cpuVertices(character, request, overrides, world);
      const unmorphed = cpuVertices(character, request, overrides, world, false);
      const where = `case ${i}`;
      expect(gap(gpu.positions, cpu.map((c) => c.positions)) / size, `${where}: positions`).toBeLessThan(1e-5);
      expect(gap(gpu.normals, cpu.map((c) => c.normals)) / longest(cpu.map((c) => c.normals)), `${where}: normals`).toBeLessThan(1e-5);
      // The morph moved the vertices far more than the tolerance (the test would see a morph left out).
      expect(gap(cpu.map((c) => c.positions), unmorphed.map((c) => c.positions)) / size, `${where}: the morph's size`).toBeGreaterThan(1e-2);
    }
    crowd.destroy();
  });

  it('RobotExpressive: the face (Head/Angry 1, Head/Sad 0.5 over a Walking -> Wave blend) and an unexpressive one; all 19 primitives', async () => {
    const character = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, character, FORMATS));
    const size = diagonal(character);
    const walking = character.clipIndex('Walking'), wave = character.clipIndex('Wave');
    const request = { clipA: walking, timeA: 0.41, clipB: wave, timeB: 1.2, blend: 0.6 };
    const world = placement(2, 0.7, 1);
    const angry = crowd.add({ ...request, speedA: 0, speedB: 0, transform: world });
    crowd.setMorphWeights(angry, { Angry: 1, 'Head/Sad': 0.5 });
    const plain = crowd.add({ ...request, speedA: 0, speedB: 0, transform: world });
    crowd.update(0);
    const overrides = [NaN, NaN, NaN, NaN];
    const cpuPlain = cpuVertices(character, request, overrides, world);
    overrides[0] = 1; overrides[2] = 0.5;
    const cpuAngry = cpuVertices(character, request, overrides, world);
    const gpuAngry = await captureVertices(crowd, angry);
    const gpuPlain = await captureVertices(crowd, plain);
    expect(gap(gpuAngry.positions, cpuAngry.map((c) => c.positions)) / size).toBeLessThan(1e-5);
    expect(gap(gpuPlain.positions, cpuPlain.map((c) => c.positions)) / size).toBeLessThan(1e-5);
    // Normals are not renormalised: RobotExpressive's scale 100 makes them 100 long.
    expect(gap(gpuAngry.normals, cpuAngry.map((c) => c.normals)) / longest(cpuAngry.map((c) => c.normals))).toBeLessThan(1e-5);
    // Angry 1 and Sad 0.5 move the face by 3.6e-2 of the diagonal, thousands of times the tolerance.
    const expression = gap(cpuAngry.map((c) => c.positions), cpuPlain.map((c) => c.positions)) / size;
    expect(expression).toBeGreaterThan(1e-3);
    crowd.destroy();
  });
});
