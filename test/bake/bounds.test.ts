import { describe, expect, it } from 'vitest';
import { CpuPoser } from '../../src/anim/evaluate';
import type { CpuLayerStack } from '../../src/anim/layers';
import { sampleLut } from '../../src/anim/lut';
import { bake } from '../../src/bake/bake';
import { CharacterBounds, jointSpheres, morphWeightLimit } from '../../src/bake/bounds';
import { buildRig } from '../../src/bake/build-rig';
import { morphModel } from '../helpers/gltf-builder';
import { sampleClip } from '../../src/bake/sampler';
import { loadModel } from '../helpers/models';
import { seededRandom } from '../helpers/prng';

const MODELS = ['Fox', 'CesiumMan', 'RobotExpressive'];

/** How far the points at `positions` (3 each) stick out of `box`, relative to the box's size (0 when inside). */
function outside(box: ArrayLike<number>, positions: Float64Array): number {
  const size = Math.max(box[3] - box[0], box[4] - box[1], box[5] - box[2]);
  let worst = 0;
  for (let i = 0; i < positions.length; i += 3) {
    for (let c = 0; c < 3; c++) worst = Math.max(worst, box[c] - positions[i + c], positions[i + c] - box[c + 3]);
  }
  return worst / size;
}

describe('jointSpheres', () => {
  it('one sphere per joint slot; exactly the joints no vertex uses get radius -1', async () => {
    for (const name of [...MODELS, 'RiggedFigure']) {
      const { rig } = await loadModel(name);
      const spheres = jointSpheres(rig);
      const offsets = rig.skins.map((_, k) => rig.skins.slice(0, k).reduce((n, s) => n + s.joints.length, 0));
      expect(spheres.length).toBe(rig.skins.reduce((n, s) => n + s.joints.length, 0) * 4);
      const used = new Set<number>();
      for (const prim of rig.primitives) {
        prim.joints.forEach((j, i) => { if (prim.weights[i] > 0) used.add(offsets[prim.skin] + j); });
      }
      for (let s = 0; s < spheres.length / 4; s++) expect(spheres[s * 4 + 3] >= 0, `${name} slot ${s}`).toBe(used.has(s));
    }
  });

  for (const name of MODELS) {
    it(`${name}: every influenced vertex, in joint space, lies in its joint's sphere`, async () => {
      const { rig } = await loadModel(name);
      const spheres = jointSpheres(rig);
      const offsets = rig.skins.map((_, k) => rig.skins.slice(0, k).reduce((n, s) => n + s.joints.length, 0));
      let checked = 0;
      for (const prim of rig.primitives) {
        const ib = rig.skins[prim.skin].inverseBind;
        for (let v = 0; v < prim.vertexCount; v++) {
          for (let k = 0; k < prim.influences; k++) {
            if (!(prim.weights[v * prim.influences + k] > 0)) continue;
            const j = prim.joints[v * prim.influences + k];
            const s = (offsets[prim.skin] + j) * 4;
            const p = [0, 1, 2].map((c) => ib[j * 16 + c] * prim.positions[v * 3] + ib[j * 16 + 4 + c] * prim.positions[v * 3 + 1] + ib[j * 16 + 8 + c] * prim.positions[v * 3 + 2] + ib[j * 16 + 12 + c]);
            expect(Math.hypot(p[0] - spheres[s], p[1] - spheres[s + 1], p[2] - spheres[s + 2])).toBeLessThanOrEqual(spheres[s + 3]);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    });
  }
});

describe('jointSpheres with morph targets', () => {
  it('every vertex displaced by every combination of weights at +-the limit stays in its joint sphere (hand-built rig, RobotExpressive)', async () => {
    for (const [name, rig] of [['morphModel', buildRig(morphModel().builder.build())], ['RobotExpressive', (await loadModel('RobotExpressive')).rig]] as const) {
      const baked = bake(rig);
      const limit = morphWeightLimit(baked, 2);
      expect(limit, name).toBe(5); // weights within [0, 1], two additive layers: 1 + 2 x 2
      const spheres = jointSpheres(rig, limit);
      const bare = jointSpheres(rig);
      const offsets = rig.skins.map((_, k) => rig.skins.slice(0, k).reduce((n, s) => n + s.joints.length, 0));
      let checked = 0;
      for (const prim of rig.primitives.filter((p) => p.morph)) {
        const ib = rig.skins[prim.skin].inverseBind;
        const targets = prim.morph!.positions;
        for (let signs = 0; signs < 1 << targets.length; signs++) {
          for (let v = 0; v < prim.vertexCount; v++) {
            const q = [0, 1, 2].map((c) => prim.positions[v * 3 + c] + targets.reduce((sum, d, t) => sum + ((signs >> t) & 1 ? limit : -limit) * d[v * 3 + c], 0));
            for (let k = 0; k < prim.influences; k++) {
              if (!(prim.weights[v * prim.influences + k] > 0)) continue;
              const j = prim.joints[v * prim.influences + k];
              const s = (offsets[prim.skin] + j) * 4;
              const p = [0, 1, 2].map((c) => ib[j * 16 + c] * q[0] + ib[j * 16 + 4 + c] * q[1] + ib[j * 16 + 8 + c] * q[2] + ib[j * 16 + 12 + c]);
              expect(Math.hypot(p[0] - spheres[s], p[1] - spheres[s + 1], p[2] - spheres[s + 2]), `${name} vertex ${v}`).toBeLessThanOrEqual(spheres[s + 3]);
              checked++;
            }
          }
        }
        // The spheres grew for the morphed primitives' joints (without the growth the test above would fail on the hand-built rig).
        expect(spheres[(offsets[prim.skin] + prim.joints[0]) * 4 + 3]).toBeGreaterThan(bare[(offsets[prim.skin] + prim.joints[0]) * 4 + 3]);
      }
      expect(checked, name).toBeGreaterThan(10);
    }
  });
});

describe('CharacterBounds: boxes against CPU-skinned positions', () => {
  for (const name of MODELS) {
    it(`${name}: every clip, skinned at its baked entries and between them, lies in its clip box and the character box`, async () => {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      const bounds = new CharacterBounds(rig, baked, 2);
      const lut = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
      const exact = new CpuPoser(rig, (clip, t, out) => sampleClip(rig, clip, t, out));
      for (let c = 0; c < rig.clips.length; c++) {
        const clipBox = bounds.clipBoxes.subarray(c * 6, c * 6 + 6);
        const d = baked.clipDurations[c];
        const last = baked.clipEntries[c] - 1;
        // Entries exactly (what the box is made of), then times between entries with the exact sampler.
        for (let k = 0; k <= 24; k++) {
          const entry = Math.round((k / 24) * last);
          lut.evaluate({ clipA: c, timeA: (entry / last) * d });
          const atEntry = lut.positions(rig.primitives);
          expect(outside(clipBox, atEntry), `${rig.clips[c].name} entry ${entry}`).toBeLessThan(1e-6);
          exact.evaluate({ clipA: c, timeA: ((k + 0.37) / 24) * d });
          const between = exact.positions(rig.primitives);
          // Between entries the motion is within one entry's travel of them: far below 1e-3 of the size.
          expect(outside(clipBox, between), `${rig.clips[c].name} at ${((k + 0.37) / 24) * d}`).toBeLessThan(1e-3);
          expect(outside(bounds.box, between)).toBeLessThan(1e-3);
        }
      }
      // The character box is the union of the clip boxes (and the rest pose).
      for (let i = 0; i < 3; i++) {
        expect(bounds.box[i]).toBe(Math.min(bounds.box[i], ...Array.from({ length: rig.clips.length }, (_, c) => bounds.clipBoxes[c * 6 + i])));
      }
    });

    it(`${name}: the reach boxes hold random blends and layer stacks (the poses culling must keep)`, async () => {
      const { rig } = await loadModel(name);
      const baked = bake(rig);
      const bounds = new CharacterBounds(rig, baked, 2);
      const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));
      const next = seededRandom(name.length);
      const clips = rig.clips.length;
      const pick = () => Math.floor(next() * clips);
      const time = () => next() * 10;
      let worstPlain = 0, worstLayered = 0, slackClipBox = 0;
      for (let i = 0; i < 40; i++) {
        poser.evaluate({ clipA: pick(), timeA: time(), clipB: pick(), timeB: time(), blend: next() });
        const blended = poser.positions(rig.primitives);
        worstPlain = Math.max(worstPlain, outside(bounds.reach, blended));
        slackClipBox = Math.max(slackClipBox, outside(bounds.box, blended));
        const stack: CpuLayerStack = {
          base: { clip: pick(), time: time() },
          layers: [{ clip: pick(), time: time(), weight: next() }, { clip: pick(), time: time(), weight: next() }],
          additive: [
            { clip: pick(), time: time(), weight: next(), reference: { clip: pick(), time: time() } },
            { clip: pick(), time: time(), weight: 1, reference: 'rest' },
          ],
        };
        poser.evaluateStack(stack);
        worstLayered = Math.max(worstLayered, outside(bounds.reachLayered, poser.positions(rig.primitives)));
      }
      console.log(`${name}: reach box ${boxSize(bounds.reach)} vs character box ${boxSize(bounds.box)}; blends stick out of the character box by ${slackClipBox.toExponential(1)} of its size`);
      expect(worstPlain).toBe(0);
      expect(worstLayered).toBe(0);
      // The reach box contains the authored box.
      for (let c = 0; c < 3; c++) {
        expect(bounds.reach[c]).toBeLessThanOrEqual(bounds.box[c]);
        expect(bounds.reach[c + 3]).toBeGreaterThanOrEqual(bounds.box[c + 3]);
        expect(bounds.reachLayered[c]).toBeLessThanOrEqual(bounds.reach[c]);
      }
      // ...and stays useful for culling: two additive layers at most add two poses' differences.
      // (A node's constant scale once counted as an additive scale change, and RobotExpressive's
      // armature scale of 100 made its layered box 100^2 times too large: about 353,000 units wide.)
      console.log(`${name}: layered reach box ${boxSize(bounds.reachLayered)}`);
      for (let c = 0; c < 3; c++) {
        expect(bounds.reachLayered[c + 3] - bounds.reachLayered[c]).toBeLessThan(4 * (bounds.reach[c + 3] - bounds.reach[c]));
      }
    });
  }
});

function boxSize(b: ArrayLike<number>): string {
  return [0, 1, 2].map((c) => (b[c + 3] - b[c]).toPrecision(3)).join(' x ');
}
