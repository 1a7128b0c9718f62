import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseControllerConfig } from '../../src/anim/control/config';
import type { AnimationController } from '../../src/anim/control/controller';
import type { TransitionKind } from '../../src/anim/control/crossfader';
import { CpuPoser } from '../../src/anim/evaluate';
import type { AdditiveLayer, CpuLayerStack, OverrideLayer } from '../../src/anim/layers';
import { sampleLut } from '../../src/anim/lut';
import { buildMask, type MaskSpec } from '../../src/anim/masks';
import { Crowd, type InstanceId } from '../../src/runtime/crowd';
import { CrowdControllers } from '../../src/features/controllers/crowd-controllers';
import { wrapTime } from '../../src/math/time';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice, readBuffer } from '../helpers/gpu';
import { modelPath } from '../helpers/models';
import { seededRandom } from '../helpers/prng';
import { kernelOf } from '../helpers/kernel';

/**
 * A seeded random run of the whole API on one crowd: adds and removes (growing from capacity 4),
 * setAnimation, setBlend, setLayers (override and additive, masked), setLayerWeight, setStack,
 * controllers of both drivers added, commanded and removed, interleaved with frames. The test
 * keeps its own account of what every instance should show (each clock as time + speed x elapsed
 * since it was set, wrapped as the crowd wraps it), and at checkpoints reads the GPU's joint
 * matrices back and compares every live instance with the CPU reference poser (CpuPoser over the
 * same baked tables): a GPU-driven controller with its CPU-driven twin's output (the two are
 * given the same commands), a CPU-driven one with its own output.
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;
const KINDS: TransitionKind[] = ['smooth', 'frozen', 'first-frame', 'immediate'];

/** A clip clock: at total time `anchor` (seconds since the run began) the clip was at `time`, playing at `speed`. */
interface Track {
  clip: number;
  time: number;
  speed: number;
  anchor: number;
}

/** What the test set on an instance directly: the record's two clips, then layers. Masks are crowd mask ids, -1 for none. */
interface Owned {
  a: Track;
  b: Track;
  blend: number;
  layers: (Track & { weight: number; mask: number })[];
  additive: (Track & { weight: number; mask: number; reference: 'rest' | Track })[];
}

/** Every live instance: set directly, or driven by a controller ('gpu' ones have a CPU-driven twin given the same commands). */
type Entry =
  | { kind: 'owned'; state: Owned }
  | { kind: 'cpu'; controller: AnimationController; twinOf?: InstanceId }
  | { kind: 'gpu'; controller: AnimationController; twin: InstanceId };

describe.skipIf(!device)('a random churn of the whole API keeps every instance posed as the CPU reference says', () => {
  it('Fox: 400 operations with frames between, 8 checkpoints, growth from capacity 4, controllers of both drivers', async () => {
    const character = await testCharacter('Fox');
    const { rig, baked, clipDurations: durations } = character;
    const clips = durations.length;
    const { min, max } = character.bounds;
    const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 4 });
    const maskSpecs: MaskSpec[] = [{ root: 'b_Spine01_02' }, { weights: { b_Neck_04: 0.5, b_Head_05: 1 }, default: 0.2 }];
    expect(maskSpecs.map((spec) => crowd.createMask(spec))).toEqual([0, 1]);
    const maskWeights = maskSpecs.map((spec) => buildMask(rig.nodes, spec));
    const config = parseControllerConfig(JSON.parse(readFileSync(modelPath('Fox').replace(/\.glb$/, '.controller.json'), 'utf8')), character.clipNames);
    const configMasks = config.masks.map((spec) => buildMask(rig.nodes, spec));
    const controllers = new CrowdControllers(crowd, config);
    const poser = new CpuPoser(rig, (clip, t, out) => sampleLut(baked, clip, t, out));

    const next = seededRandom(20240514);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    const clip = () => Math.floor(next() * clips);
    const speed = () => (next() < 0.2 ? 0 : next() < 0.2 ? -(0.5 + next()) : 0.5 + next());
    const weight = () => (next() < 0.1 ? 0 : next() < 0.15 ? 1 : next());
    const mask = () => (next() < 0.4 ? -1 : Math.floor(next() * maskSpecs.length));

    const entries = new Map<InstanceId, Entry>();
    let elapsed = 0; // seconds, float64: the test's own clock
    const timeAt = (t: Track) => wrapTime(t.time + t.speed * (elapsed - t.anchor), durations[t.clip]);
    /** Re-expresses a track at the present, wrapped into its clip: what the crowd keeps when a change leaves the clock alone. */
    const reanchor = (t: Track) => {
      t.time = timeAt(t);
      t.anchor = elapsed;
    };
    const track = (c = clip()): Track => ({ clip: c, time: (next() * 3 - 1) * Math.max(durations[c], 0.1), speed: speed(), anchor: elapsed });
    const stateOf = (id: InstanceId) => (entries.get(id) as Extract<Entry, { kind: 'owned' }>).state;
    const counts: Record<string, number> = {};
    const count = (op: string) => { counts[op] = (counts[op] ?? 0) + 1; };

    const frame = (dt: number) => {
      controllers.update(dt);
      crowd.update(dt);
      elapsed += dt;
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    };

    /** The stack an instance should show now, for the CPU poser. */
    const expectedStack = (entry: Entry): CpuLayerStack => {
      if (entry.kind !== 'owned') {
        const o = entry.kind === 'gpu' ? (entries.get(entry.twin) as { controller: AnimationController }).controller.output : entry.controller.output;
        const layers: OverrideLayer[] = [];
        for (let i = 0; i < o.layerCount; i++) {
          layers.push({ clip: o.layerClip[i], time: wrapTime(o.layerTime[i], durations[o.layerClip[i]]), weight: o.layerWeight[i], mask: o.layerMask[i] >= 0 ? configMasks[o.layerMask[i]] : undefined });
        }
        return { base: { clip: o.baseClip, time: wrapTime(o.baseTime, durations[o.baseClip]) }, layers, additive: [] };
      }
      const s = entry.state;
      // The record's clip B blend is applied before the layers: the same as an unmasked override layer first.
      const layers: OverrideLayer[] = s.blend > 0 ? [{ clip: s.b.clip, time: timeAt(s.b), weight: s.blend }] : [];
      for (const l of s.layers) layers.push({ clip: l.clip, time: timeAt(l), weight: l.weight, mask: l.mask >= 0 ? maskWeights[l.mask] : undefined });
      const additive: AdditiveLayer[] = s.additive.map((l) => ({
        clip: l.clip, time: timeAt(l), weight: l.weight, mask: l.mask >= 0 ? maskWeights[l.mask] : undefined,
        reference: l.reference === 'rest' ? 'rest' : { clip: l.reference.clip, time: timeAt(l.reference) },
      }));
      return { base: { clip: s.a.clip, time: timeAt(s.a) }, layers, additive };
    };

    const worst: Record<Entry['kind'], number> = { owned: 0, cpu: 0, gpu: 0 };
    let compared = 0;
    const checkpoint = async (label: string) => {
      frame(1 / 60);
      const rows = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
      for (const [id, entry] of entries) {
        poser.evaluateStack(expectedStack(entry));
        const first = crowd.jointMatrixIndex(id);
        let error = 0;
        rig.skins.forEach((_, k) => {
          const m = poser.jointMatrices(k);
          const base = first + character.gpu.skinSlotOffset[k];
          for (let j = 0; j < m.length / 16; j++) {
            // A vertex p moves by (delta 3x3) p + (delta translation): measured as a fraction of the model's diagonal.
            let linear = 0;
            let translation = 0;
            for (let r = 0; r < 3; r++) {
              for (let c = 0; c < 4; c++) {
                const gap = Math.abs(rows[(base + j) * 12 + r * 4 + c] - m[j * 16 + c * 4 + r]);
                if (c < 3) linear = Math.max(linear, gap);
                else translation = Math.max(translation, gap);
              }
            }
            error = Math.max(error, linear + translation / diagonal);
          }
        });
        expect(error, `${label}: instance ${id} (${entry.kind}) ${JSON.stringify(expectedStack(entry), (_, v) => (v instanceof Float32Array ? 'mask' : v))}`).toBeLessThan(1e-5);
        worst[entry.kind] = Math.max(worst[entry.kind], error);
        compared++;
      }
    };

    /** Takes a controller (and a GPU one's twin) away; the instance is then set directly again, or removed. */
    const dropController = (id: InstanceId) => {
      const entry = entries.get(id)!;
      if (entry.kind === 'owned') return;
      if (entry.kind === 'cpu' && entry.twinOf !== undefined) return dropController(entry.twinOf);
      const ids = entry.kind === 'gpu' ? [id, entry.twin] : [id];
      for (const i of ids) {
        controllers.remove(i);
        if (next() < 0.5) {
          crowd.remove(i);
          entries.delete(i);
        } else {
          const state: Owned = { a: track(), b: track(), blend: weight(), layers: [], additive: [] };
          crowd.setLayers(i, null);
          crowd.setAnimation(i, { clipA: state.a.clip, clipB: state.b.clip, timeA: state.a.time, timeB: state.b.time, speedA: state.a.speed, speedB: state.b.speed, blend: state.blend });
          entries.set(i, { kind: 'owned', state });
        }
      }
    };

    const command = (c: AnimationController, choice: number, args: number[]): void => {
      if (choice < 0.25) c.setSpeed(args[0] * 2);
      else if (choice < 0.45) c.move(args[0] * 2 - 1, args[1] * 2 - 1, args[2] < 0.3);
      else if (choice < 0.55) c.face(args[0] < 0.5 ? null : args[1] * 6 - 3);
      else if (choice < 0.65) c.stop();
      else if (choice < 0.75) c.requestAction('Look');
      else if (choice < 0.9) c.fadeTo(Math.floor(args[0] * clips), { seconds: args[1] * 0.5, kind: KINDS[Math.floor(args[2] * KINDS.length)] });
      else c.play(Math.floor(args[0] * clips));
    };

    for (let op = 0; op < 400; op++) {
      const live = [...entries.keys()];
      const mine = live.filter((id) => entries.get(id)!.kind === 'owned');
      const driven = [...entries].filter(([, e]) => e.kind === 'gpu' || (e.kind === 'cpu' && e.twinOf === undefined)).map(([id]) => id);
      const r = next();
      if (r < 0.2 || live.length < 4) {
        const state: Owned = { a: track(), b: track(), blend: weight(), layers: [], additive: [] };
        const id = crowd.add({ clipA: state.a.clip, clipB: state.b.clip, timeA: state.a.time, timeB: state.b.time, speedA: state.a.speed, speedB: state.b.speed, blend: state.blend });
        expect(entries.has(id)).toBe(false);
        entries.set(id, { kind: 'owned', state });
        count('add');
      } else if (r < 0.3) {
        const id = pick(live);
        const entry = entries.get(id)!;
        if (entry.kind !== 'owned') {
          dropController(id);
          count('controller remove');
        } else {
          crowd.remove(id);
          entries.delete(id);
          count('remove');
        }
      } else if (r < 0.42 && mine.length > 0) {
        const id = pick(mine);
        const state = stateOf(id);
        if (next() < 0.2) {
          crowd.setLayers(id, null);
          state.layers = [];
          state.additive = [];
          count('setLayers null');
        } else {
          state.layers = Array.from({ length: Math.floor(next() * 5) }, () => ({ ...track(), weight: weight(), mask: mask() }));
          state.additive = Array.from({ length: Math.floor(next() * 3) }, () => ({
            ...track(), weight: weight(), mask: mask(), reference: next() < 0.3 ? 'rest' as const : { ...track(), speed: next() < 0.5 ? 0 : speed() },
          }));
          const layer = (l: Track & { weight: number; mask: number }) => ({ clip: l.clip, time: l.time, speed: l.speed, weight: l.weight, mask: l.mask < 0 ? undefined : l.mask });
          crowd.setLayers(id, {
            layers: state.layers.map(layer),
            additive: state.additive.map((l) => ({ ...layer(l), reference: l.reference === 'rest' ? 'rest' : { clip: l.reference.clip, time: l.reference.time, speed: l.reference.speed } })),
          });
          count('setLayers');
        }
      } else if (r < 0.5 && mine.length > 0) {
        const id = pick(mine);
        const s = stateOf(id);
        reanchor(s.a);
        reanchor(s.b);
        const change: Record<string, number> = {};
        if (next() < 0.4) change.clipA = s.a.clip = clip();
        if (next() < 0.4) change.clipB = s.b.clip = clip();
        if (next() < 0.4) change.timeA = s.a.time = next() * 2;
        if (next() < 0.3) change.speedB = s.b.speed = speed();
        if (next() < 0.5) change.blend = s.blend = weight();
        crowd.setAnimation(id, change);
        count('setAnimation');
      } else if (r < 0.55 && mine.length > 0) {
        const id = pick(mine);
        crowd.setBlend(id, (stateOf(id).blend = weight()));
        count('setBlend');
      } else if (r < 0.6 && mine.length > 0) {
        const id = pick(mine);
        const s = stateOf(id);
        const kinds = [...(s.layers.length > 0 ? ['override'] : []), ...(s.additive.length > 0 ? ['additive'] : [])] as ('override' | 'additive')[];
        if (kinds.length > 0) {
          const kind = pick(kinds);
          const list = kind === 'override' ? s.layers : s.additive;
          const index = Math.floor(next() * list.length);
          crowd.setLayerWeight(id, index, (list[index].weight = weight()), kind);
          count('setLayerWeight');
        }
      } else if (r < 0.68 && mine.length > 0) {
        const id = pick(mine);
        const s = stateOf(id);
        const ahead = next() < 0.5 ? 0 : 0.02;
        const base = track();
        const layers = Array.from({ length: Math.floor(next() * 5) }, () => ({ ...track(), weight: weight(), mask: mask() }));
        const viaIds = next() < 0.5; // mask values as indices into maskIds [1, 0] (reversed), or as crowd mask ids
        crowd.setStack(id, {
          baseClip: base.clip, baseTime: base.time, baseSpeed: base.speed, layerCount: layers.length,
          layerClip: layers.map((l) => l.clip), layerTime: layers.map((l) => l.time), layerSpeed: layers.map((l) => l.speed),
          layerWeight: layers.map((l) => l.weight), layerMask: layers.map((l) => (l.mask < 0 ? -1 : viaIds ? 1 - l.mask : l.mask)),
        }, viaIds ? [1, 0] : undefined, ahead);
        // Times given for `ahead` seconds after the clock.
        s.a = { ...base, anchor: elapsed + ahead };
        s.b = { clip: base.clip, time: 0, speed: 0, anchor: elapsed };
        s.blend = 0;
        s.layers = layers.map((l) => ({ ...l, anchor: elapsed + ahead }));
        s.additive = [];
        count('setStack');
      } else if (r < 0.74 && mine.length > 0) {
        const id = pick(mine);
        const x = next() * 10 - 5, z = next() * 10 - 5, heading = next() * 6 - 3;
        if (next() < 0.5) {
          entries.set(id, { kind: 'cpu', controller: controllers.add(id, x, z, heading, { driver: 'cpu' }) });
          count('controller add (cpu)');
        } else {
          // A GPU-driven controller and its CPU-driven twin, on a new instance, from the same place.
          const twin = crowd.add();
          const controller = controllers.add(id, x, z, heading);
          entries.set(twin, { kind: 'cpu', controller: controllers.add(twin, x, z, heading, { driver: 'cpu' }), twinOf: id });
          entries.set(id, { kind: 'gpu', controller, twin });
          count('controller add (gpu + twin)');
        }
      } else if (r < 0.85 && driven.length > 0) {
        const entry = entries.get(pick(driven)) as Extract<Entry, { controller: AnimationController }>;
        const choice = next();
        const args = [next(), next(), next()];
        const results = [entry.controller, ...(entry.kind === 'gpu' ? [(entries.get(entry.twin) as { controller: AnimationController }).controller] : [])]
          .map((c) => command(c, choice, args));
        expect(results[0]).toEqual(results[results.length - 1]);
        count('controller command');
      } else {
        frame(next() < 0.1 ? 0 : next() * 0.05);
        count('frame');
      }
      if (op % 50 === 49) await checkpoint(`op ${op}`);
    }
    await expectNoGpuError(device!, () => frame(1 / 60));

    console.log(`churn: ${JSON.stringify(counts)}; ${compared} instance poses compared, ${entries.size} live at the end, capacity ${kernelOf(crowd).store.capacity}; ` +
      `worst error / diagonal: set directly ${worst.owned.toExponential(2)}, CPU-driven ${worst.cpu.toExponential(2)}, GPU-driven ${worst.gpu.toExponential(2)}`);
    // Every kind of operation ran often enough to matter, and the crowd grew well past its first buffers.
    for (const op of ['add', 'remove', 'setLayers', 'setLayers null', 'setAnimation', 'setBlend', 'setLayerWeight', 'setStack', 'controller add (cpu)', 'controller add (gpu + twin)', 'controller remove', 'controller command', 'frame']) {
      expect(counts[op] ?? 0, op).toBeGreaterThanOrEqual(4);
    }
    expect(kernelOf(crowd).store.capacity).toBeGreaterThanOrEqual(16);
    expect(worst.gpu).toBeGreaterThan(0); // GPU-driven instances were live at checkpoints
    crowd.destroy();
  });
});
