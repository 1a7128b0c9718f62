import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mat4d } from 'wgpu-matrix';
import { loadCharacter, type Character, type LoadOptions } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { INSTANCE, ROOT_ANCHOR } from '../../../src/runtime/layout';
import { createPose, localToModel } from '../../../src/math/pose';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { modelPath } from '../../helpers/models';
import { armatureRig, sampleUnwrapped } from '../../helpers/root-motion';
import { arrayBufferOf, assetToGlb } from '../../helpers/gltf-builder';
import { CrowdControllers } from '../../../src/features/controllers/crowd-controllers';
import { parseControllerConfig } from '../../../src/anim/control/config';
import { kernelOf } from '../../helpers/kernel';
import { withFeatures } from '../../helpers/features';

/**
 * Root motion applied by the crowd (src/features/root-motion/crowd-root-motion.ts, shaders/root-motion/root-motion.wgsl): the
 * GPU's world transform of every instance, times the in-place root joint the pose pass wrote,
 * against the un-extracted clips' root joint, frame by frame (the Walker loaded twice: with
 * rootMotion 'apply' and without any).
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

function load(options: LoadOptions = {}): Promise<Character> {
  const bytes = readFileSync(modelPath('Walker'));
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, options);
}

/** Column-major: turned `yaw` about +y, scaled `scale`, at (x, y, z). */
function placement(x: number, y: number, z: number, yaw: number, scale: number): number[] {
  const c = Math.cos(yaw) * scale;
  const s = Math.sin(yaw) * scale;
  return [c, 0, -s, 0, 0, scale, 0, 0, s, 0, c, 0, x, y, z, 1];
}

function apply(m: ArrayLike<number>, p: ArrayLike<number>): number[] {
  return [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
}

/** The un-extracted Walker's joint positions (model space) at unwrapped clip times, and its clips chained loop after loop. */
class Original {
  private readonly pose;
  private readonly model;
  constructor(readonly character: Character) {
    this.pose = createPose(character.rig.nodes.count);
    this.model = new Float64Array(character.rig.nodes.count * 16);
  }

  /** Node `node`'s model position in clip `clip` at t in [0, d] (the exact sampler). */
  at(clip: number, t: number, node: number): number[] {
    localToModel(this.character.rig.nodes.parent, sampleUnwrapped(this.character.rig, clip, t, this.pose), this.model);
    return [0, 1, 2].map((i) => this.model[node * 16 + 12 + i]);
  }

  /**
   * Node `node` at any clip time t, each loop starting where the last one ended (horizontally):
   * the clip's root at r = t - k d plus k times its horizontal displacement over one cycle.
   */
  chained(clip: number, t: number, node: number): number[] {
    const d = this.character.clipDurations[clip];
    const k = Math.floor(t / d);
    const p = this.at(clip, t - k * d, node);
    const start = this.at(clip, 0, node);
    const end = this.at(clip, d, node);
    return [p[0] + k * (end[0] - start[0]), p[1], p[2] + k * (end[2] - start[2])];
  }

  /** The travel of one cycle at the cycle's mean velocity, t / d of it, plus the start (rootMotion.translation 'mean-velocity'). */
  linear(clip: number, t: number, node: number): number[] {
    const d = this.character.clipDurations[clip];
    const start = this.at(clip, 0, node);
    const end = this.at(clip, d, node);
    return [start[0] + (t / d) * (end[0] - start[0]), start[1], start[2] + (t / d) * (end[2] - start[2])];
  }
}

interface Animation { clipA: number; clipB: number; timeA: number; timeB: number; speedA: number; speedB: number; blend: number }

/**
 * The reference of one instance: where the un-extracted clips put the root joint. Between
 * changes, the root moves horizontally as the blend of the clips' chained roots does (their
 * weighted displacement since the change) and stands at their blended height; the horizontal
 * in-place part is the clips' root at time 0 (what extraction keeps). All in the model space of
 * the instance's transform W (no yaw is extracted, so W's linear part carries every step). With
 * `mean` (translation 'mean-velocity') the root moves by the clips' mean velocities, and the
 * in-place part is the clips' root now less their mean travel since clip time 0.
 */
class Reference {
  /** Horizontal displacement accumulated before the current segment (model units). */
  private dx = 0;
  private dz = 0;
  private startA: number;
  private startB: number;

  constructor(private readonly original: Original, private readonly root: number, public world: number[], public anim: Animation, private readonly mean = false) {
    this.startA = anim.timeA;
    this.startB = anim.timeB;
  }

  advance(dt: number): void {
    this.anim.timeA += this.anim.speedA * dt;
    this.anim.timeB += this.anim.speedB * dt;
  }

  /** Ends the segment: the displacement so far is kept, the next one starts now. */
  change(next: Partial<Animation>): void {
    const [x, z] = this.displacement();
    this.dx = x;
    this.dz = z;
    Object.assign(this.anim, next);
    this.startA = this.anim.timeA;
    this.startB = this.anim.timeB;
  }

  /** A new transform: the walk goes on from there. */
  place(world: number[]): void {
    this.world = world;
    this.dx = this.dz = 0;
    this.startA = this.anim.timeA;
    this.startB = this.anim.timeB;
  }

  private displacement(): number[] {
    const { clipA, clipB, timeA, timeB, blend } = this.anim;
    const o = this.original;
    const path = (clip: number, t: number) => (this.mean ? o.linear(clip, t, this.root) : o.chained(clip, t, this.root));
    const a1 = path(clipA, timeA);
    const a0 = path(clipA, this.startA);
    const b1 = path(clipB, timeB);
    const b0 = path(clipB, this.startB);
    return [0, 2].map((i, k) => (k === 0 ? this.dx : this.dz) + (1 - blend) * (a1[i] - a0[i]) + blend * (b1[i] - b0[i]));
  }

  /** The root joint's world position now. */
  rootWorld(): number[] {
    const { clipA, clipB, timeA, timeB, blend } = this.anim;
    const o = this.original;
    const [dx, dz] = this.displacement();
    const wrap = (clip: number, t: number) => t - Math.floor(t / o.character.clipDurations[clip]) * o.character.clipDurations[clip];
    const a = o.at(clipA, wrap(clipA, timeA), this.root);
    const b = o.at(clipB, wrap(clipB, timeB), this.root);
    // The in-place root: where it was at time 0 ('all'), or where it is less the mean travel ('mean-velocity').
    const inPlace = (clip: number, t: number, p: number[]) => {
      const start = o.at(clip, 0, this.root);
      if (!this.mean) return start;
      const m = o.linear(clip, wrap(clip, t), this.root);
      return [p[0] - m[0] + start[0], p[1], p[2] - m[2] + start[2]];
    };
    const a0 = inPlace(clipA, timeA, a);
    const b0 = inPlace(clipB, timeB, b);
    const mix = (u: number, v: number) => u + (v - u) * blend;
    return apply(this.world, [mix(a0[0], b0[0]) + dx, mix(a[1], b[1]), mix(a0[2], b0[2]) + dz]);
  }
}

/** What the GPU holds after a frame: each instance's world (f32) and its joint matrices. */
async function readFrame(crowd: Crowd): Promise<{ worlds: Float32Array; rows: Float32Array }> {
  const worlds = new Float32Array(await readBuffer(crowd.device, kernelOf(crowd).store.instanceBuffer));
  const rows = new Float32Array(await readBuffer(crowd.device, crowd.jointMatrices));
  return { worlds, rows };
}

/** World position of skin joint `joint` (index in Character.jointNames) of instance `id`: world * jointMatrix * bind position. */
function jointWorld(crowd: Crowd, frame: { worlds: Float32Array; rows: Float32Array }, id: number, joint: number, bind: number[]): number[] {
  const slot = kernelOf(crowd).store.slot(id);
  const world = frame.worlds.subarray((slot * INSTANCE.size) / 4, (slot * INSTANCE.size) / 4 + 16);
  const g = (crowd.jointMatrixIndex(id) + joint) * 12;
  const model = [0, 1, 2].map((r) => frame.rows[g + r * 4] * bind[0] + frame.rows[g + r * 4 + 1] * bind[1] + frame.rows[g + r * 4 + 2] * bind[2] + frame.rows[g + r * 4 + 3]);
  return apply(world, model);
}

/** The bind-pose position of skin joint `joint` (skin 0): the translation of its inverse bind matrix's inverse. */
function bindPosition(character: Character, joint: number): number[] {
  const inverse = mat4d.inverse(character.rig.skins[0].inverseBind.subarray(joint * 16, joint * 16 + 16), new Float64Array(16));
  return [inverse[12], inverse[13], inverse[14]];
}

function frame(crowd: Crowd, dt: number): void {
  crowd.update(dt);
  const encoder = crowd.device.createCommandEncoder();
  crowd.encode(encoder);
  crowd.device.queue.submit([encoder.finish()]);
}

describe.skipIf(!device)('root motion applied by the crowd (mode "apply")', () => {
  // 'mean-velocity' (a linear track, the hips' sway left in the clips) composes the same way.
  it.each(['all', 'mean-velocity'] as const)('translation %s: the GPU world position of the root equals the un-extracted clips\' root, frame by frame: loops, backwards, blends, re-anchors', async (translation) => {
    const [walker, plain] = await Promise.all([load({ rootMotion: { mode: 'apply', translation } }), load()]);
    const original = new Original(plain);
    const hips = plain.rig.nodes.names.indexOf('Hips');
    const joint = walker.jointNames.indexOf('Hips');
    const bind = bindPosition(walker, joint);
    const { min, max } = walker.bounds;
    const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
    const clip = (name: string) => walker.clipIndex(name);
    const d = (name: string) => walker.clipDurations[clip(name)];
    const crowd = withFeatures(new Crowd(device!, walker, FORMATS));
    // Walk and run blended in phase (each clip at d_i / D); a diagonal walk backwards; a strafe
    // blended with a forward walk; a run at 1.3x under a turned, scaled, raised transform.
    const D = 0.5 * d('WalkForward') + 0.5 * d('RunForward');
    const cases: [Animation, number[]][] = [
      [{ clipA: clip('WalkForward'), clipB: clip('RunForward'), timeA: 0, timeB: 0, speedA: d('WalkForward') / D, speedB: d('RunForward') / D, blend: 0.5 }, placement(0, 0, 0, 0, 1)],
      [{ clipA: clip('WalkForwardLeft'), clipB: clip('WalkForwardLeft'), timeA: 0.31, timeB: 0, speedA: -1, speedB: 0, blend: 0 }, placement(3, 0, -2, 2.1, 1)],
      [{ clipA: clip('WalkLeft'), clipB: clip('WalkForward'), timeA: 0.2, timeB: 0.2 * d('WalkForward') / d('WalkLeft'), speedA: 1, speedB: d('WalkForward') / d('WalkLeft'), blend: 0.3 }, placement(-4, 0, 1, -0.6, 1)],
      [{ clipA: clip('RunBackRight'), clipB: clip('RunBackRight'), timeA: 0.05, timeB: 0, speedA: 1.3, speedB: 0, blend: 0 }, placement(1, 0.5, 5, 0.9, 1.7)],
    ];
    const ids = cases.map(([anim, world]) => crowd.add({ ...anim, transform: world }));
    const references = cases.map(([anim, world]) => new Reference(original, hips, world, { ...anim }, translation === 'mean-velocity'));
    expect(ids.map((id) => crowd.movesByRootMotion(id))).toEqual([true, true, true, true]);
    const dt = 1 / 30;
    let worst = 0;
    let worstCpu = 0;
    let farthest = 0;
    const cpu = new Float64Array(16);
    for (let f = 0; f < 200; f++) {
      // Re-anchors mid-run: a blend change, a speed change (the walk turns backwards), a new transform, a new clip.
      if (f === 60) { crowd.setBlend(ids[0], 0.8); references[0].change({ blend: 0.8 }); }
      if (f === 90) { crowd.setAnimation(ids[2], { speedA: -0.7, speedB: -0.7 * d('WalkForward') / d('WalkLeft') }); references[2].change({ speedA: -0.7, speedB: -0.7 * d('WalkForward') / d('WalkLeft') }); }
      if (f === 120) { const w = placement(2, 0, 2, 0.4, 1); crowd.setTransform(ids[1], w); references[1].place(w); }
      if (f === 150) { crowd.setAnimation(ids[3], { clipA: 'WalkRight', clipB: 'WalkRight', timeA: 0.1 }); references[3].change({ clipA: clip('WalkRight'), clipB: clip('WalkRight'), timeA: 0.1, timeB: 0.1 }); }
      frame(crowd, dt);
      for (const r of references) r.advance(dt);
      const got = await readFrame(crowd);
      ids.forEach((id, i) => {
        const want = references[i].rootWorld();
        const have = jointWorld(crowd, got, id, joint, bind);
        const gap = Math.hypot(have[0] - want[0], have[1] - want[1], have[2] - want[2]);
        farthest = Math.max(farthest, Math.hypot(want[0], want[2]));
        worst = Math.max(worst, gap);
        expect(gap / diagonal, `frame ${f}, instance ${i}: GPU ${have.map((v) => v.toFixed(5))} vs ${want.map((v) => v.toFixed(5))}`).toBeLessThan(1e-5);
        // The CPU's closed form (float64) is the GPU's world within float32 rounding.
        crowd.worldTransform(id, cpu);
        const slot = kernelOf(crowd).store.slot(id);
        for (let k = 0; k < 16; k++) worstCpu = Math.max(worstCpu, Math.abs(cpu[k] - got.worlds[(slot * INSTANCE.size) / 4 + k]));
      });
    }
    console.log(`root motion apply (${translation}): worst root gap ${(worst * 1e3).toFixed(4)} mm (${(worst / diagonal).toExponential(2)} of the diagonal ${diagonal.toFixed(2)} m), `
      + `up to ${farthest.toFixed(1)} m from the origin; CPU worldTransform vs GPU world: ${worstCpu.toExponential(2)}`);
    expect(worstCpu).toBeLessThan(1e-5);
    crowd.destroy();
  });

  it('keeps the walk across clock rebases (every 600 s): anchors fold into the new period, the root still follows the reference', async () => {
    const [walker, plain] = await Promise.all([load({ rootMotion: { mode: 'apply' } }), load()]);
    const original = new Original(plain);
    const hips = plain.rig.nodes.names.indexOf('Hips');
    const joint = walker.jointNames.indexOf('Hips');
    const bind = bindPosition(walker, joint);
    const diagonal = Math.hypot(...[0, 1, 2].map((i) => walker.bounds.max[i] - walker.bounds.min[i]));
    const crowd = withFeatures(new Crowd(device!, walker, FORMATS));
    const anim: Animation = { clipA: walker.clipIndex('WalkForward'), clipB: walker.clipIndex('WalkForward'), timeA: 0.4, timeB: 0, speedA: 1, speedB: 0, blend: 0 };
    const id = crowd.add({ ...anim, transform: placement(0, 0, 0, 0.3, 1) });
    const reference = new Reference(original, hips, placement(0, 0, 0, 0.3, 1), { ...anim });
    // Large steps, two rebases (the clock passes 600 s twice); then ordinary frames.
    const steps = [1 / 30, 1 / 30, 250, 250, 250.3, 1 / 30, 1 / 30, 299.7, 310.2, 1 / 30];
    let worst = 0;
    let rebases = 0;
    for (const dt of steps) {
      const before = crowd.clock;
      frame(crowd, dt);
      if (crowd.clock < before) rebases++;
      reference.advance(dt);
      const have = jointWorld(crowd, await readFrame(crowd), id, joint, bind);
      const want = reference.rootWorld();
      worst = Math.max(worst, Math.hypot(have[0] - want[0], have[1] - want[1], have[2] - want[2]));
    }
    const distance = Math.hypot(crowd.worldTransform(id)[12], crowd.worldTransform(id)[14]);
    // float32 on the GPU: clip times within ulp(600 s) = 6e-5 s (1.2 m/s: 7e-5 m) and positions
    // within a few ulp of the distance walked (1.3 km: 1.2e-4 m each).
    console.log(`root motion across ${rebases} clock rebases: worst root gap ${(worst * 1e3).toFixed(3)} mm after ${distance.toFixed(0)} m`);
    expect(rebases).toBe(2);
    expect(worst).toBeLessThan(1e-5 * diagonal + 4 * 2 ** -23 * distance + 1.2 * 6e-5);
    crowd.destroy();
  });

  it('turning clips (rootMotion.yaw): the GPU composes whole turns in closed form, as the CPU does; two half circles come back to the start', async () => {
    // The test rig's Turn: a half circle of radius 0.5 m in 2 s, turning 180 degrees with it.
    const times = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2];
    const angle = (t: number) => (Math.PI / 2) * t;
    const asset = armatureRig([{
      name: 'Turn', interpolation: 'LINEAR', times,
      translation: times.flatMap((t) => [50 * (1 - Math.cos(angle(t))), -50 * Math.sin(angle(t)), 90]),
      rotation: times.flatMap((t) => [0, 0, Math.sin(angle(t) / 2), Math.cos(angle(t) / 2)]),
    }]);
    const turner = await loadCharacter(arrayBufferOf(assetToGlb(asset)), { rootMotion: { mode: 'apply', yaw: true } });
    const crowd = withFeatures(new Crowd(device!, turner, FORMATS));
    const start = placement(1, 0, 2, 0.5, 1);
    const ids = [
      crowd.add({ clipA: 'Turn', transform: start }),
      crowd.add({ clipA: 'Turn', timeA: 1.3, speedA: -1.7, transform: start }),
      crowd.add({ clipA: 'Turn', clipB: 'Turn', timeB: 0.5, blend: 0.4, transform: start }),
    ];
    const cpu = new Float64Array(16);
    let worst = 0;
    for (let f = 0; f < 40; f++) {
      frame(crowd, 0.1);
      const { worlds } = await readFrame(crowd);
      for (const id of ids) {
        crowd.worldTransform(id, cpu);
        const o = (kernelOf(crowd).store.slot(id) * INSTANCE.size) / 4;
        for (let k = 0; k < 16; k++) worst = Math.max(worst, Math.abs(cpu[k] - worlds[o + k]));
      }
      if (f === 19 || f === 39) {
        // 2 s: one half circle (1 m across, facing back); 4 s: the full circle, back at the start.
        const world = crowd.worldTransform(ids[0], cpu);
        const turned = f === 19 ? placement(1, 0, 2, 0.5 + Math.PI, 1) : start;
        const across = f === 19 ? apply(start, [1, 0, 0]) : [1, 0, 2];
        turned.forEach((v, k) => expect(world[k], `${(f + 1) / 10} s, element ${k}`).toBeCloseTo(k >= 12 ? across[k - 12] ?? 1 : v, 5));
      }
    }
    console.log(`turning root motion: GPU world vs CPU closed form ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-5);
    crowd.destroy();
  });

  it('who moves: controllers move their instances (root motion off), layered instances move by their base clips; setRootMotion stops and restarts', async () => {
    const walker = await load({ rootMotion: { mode: 'apply' } });
    const crowd = withFeatures(new Crowd(device!, walker, FORMATS));
    const text = readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8');
    const controllers = new CrowdControllers(crowd, parseControllerConfig(JSON.parse(text), walker.clipNames));
    const cpuDriven = crowd.add();
    const gpuDriven = crowd.add();
    controllers.add(cpuDriven, 2, -1, 0, { driver: 'cpu' }).setSpeed(1);
    controllers.add(gpuDriven, 2, -1, 0).setSpeed(1);
    const layered = crowd.add({ clipA: 'WalkForward' });
    crowd.setLayers(layered, { layers: [{ clip: 'Wave', weight: 1, mask: crowd.createMask({ root: 'Chest' }) }] });
    const toggled = crowd.add({ clipA: 'RunForward', transform: placement(0, 0, 5, 0, 1) });
    expect([cpuDriven, gpuDriven, layered, toggled].map((id) => crowd.movesByRootMotion(id))).toEqual([false, false, true, true]);
    const world = (worlds: Float32Array, id: number) => Array.from(worlds.subarray((kernelOf(crowd).store.slot(id) * INSTANCE.size) / 4, (kernelOf(crowd).store.slot(id) * INSTANCE.size) / 4 + 16));
    let stopped: number[] = [];
    for (let f = 0; f < 90; f++) {
      if (f === 30) { crowd.setRootMotion(toggled, false); expect(crowd.movesByRootMotion(toggled)).toBe(false); }
      if (f === 60) crowd.setRootMotion(toggled, true);
      controllers.update(1 / 30);
      frame(crowd, 1 / 30);
      const { worlds } = await readFrame(crowd);
      const loco = controllers.get(cpuDriven).locomotion!;
      // Controlled instances stand where their locomotion put them (both drivers), not where root motion would.
      expect(world(worlds, cpuDriven)[12]).toBeCloseTo(loco.positionX, 4);
      expect(world(worlds, cpuDriven)[14]).toBeCloseTo(loco.positionZ, 4);
      expect(world(worlds, gpuDriven)[14]).toBeCloseTo(loco.positionZ, 3);
      // The layered instance walks forward at the walk's 1.2 m/s.
      expect(world(worlds, layered)[14]).toBeCloseTo(1.2 * crowd.clock, 2);
      if (f === 30) stopped = world(worlds, toggled);
      if (f > 30 && f < 60) expect(world(worlds, toggled)).toEqual(stopped);
      if (f === 89) expect(world(worlds, toggled)[14]).toBeCloseTo(5 + 2.4 * (crowd.clock - 1), 2);
      for (const id of [layered, toggled]) {
        const cpu = crowd.getTransform(id);
        world(worlds, id).forEach((v, k) => expect(Math.abs(v - cpu[k])).toBeLessThan(1e-5));
      }
    }
    crowd.destroy();
  });

  it('restore(device) rebuilds the pass; growth past the first 64 handles; validity', async () => {
    const walker = await load({ rootMotion: { mode: 'apply' } });
    const crowd = withFeatures(new Crowd(device!, walker, { ...FORMATS, capacity: 4 }));
    const ids = Array.from({ length: 100 }, (_, i) => crowd.add({ clipA: i % 2 ? 'WalkLeft' : 'RunBack', timeA: i * 0.01, transform: placement(i, 0, 0, i, 1) }));
    for (let f = 0; f < 5; f++) frame(crowd, 0.1);
    const check = async (where: string) => {
      const { worlds } = await readFrame(crowd);
      for (const id of ids) {
        const cpu = crowd.worldTransform(id);
        const o = (kernelOf(crowd).store.slot(id) * INSTANCE.size) / 4;
        for (let k = 0; k < 16; k++) expect(Math.abs(cpu[k] - worlds[o + k]), `${where}: instance ${id}, element ${k}`).toBeLessThan(2e-5);
      }
    };
    await check('after growth');
    // A steady crowd uploads nothing; a blend change, one record and one anchor.
    frame(crowd, 0.1);
    expect(crowd.uploadedBytes).toBe(0);
    crowd.setBlend(ids[7], 0.5);
    frame(crowd, 0.1);
    expect(crowd.uploadedBytes).toBe(INSTANCE.size + ROOT_ANCHOR.size);
    crowd.restore((await openTestDevice())!);
    frame(crowd, 0.1);
    await check('after restore');
    // WalkLeft (toward model +x at 1.2 m/s, swaying a few cm) turned 3 rad: 2 s ahead is about 2.4 m along (cos 3, 0, -sin 3).
    const now = crowd.worldTransform(ids[3]);
    const ahead = crowd.worldTransform(ids[3], new Float64Array(16), 2);
    expect(ahead[12] - now[12]).toBeCloseTo(2.4 * Math.cos(3), 1);
    expect(ahead[14] - now[14]).toBeCloseTo(-2.4 * Math.sin(3), 1);
    expect(() => crowd.worldTransform(ids[0], new Float64Array(16), NaN)).toThrow(/ahead must be a finite number, got NaN/);
    expect(() => crowd.setRootMotion(12345, true)).toThrow(/instance 12345 does not exist/);
    crowd.destroy();
    const plain = withFeatures(new Crowd(device!, await load(), FORMATS));
    const id = plain.add();
    expect(() => plain.setRootMotion(id, true)).toThrow(/instance 0 cannot move by root motion: the character was not loaded with rootMotion mode 'apply'/);
    plain.setRootMotion(id, false);
    expect(plain.movesByRootMotion(id)).toBe(false);
    plain.destroy();
  });

  it('no foot sliding: a planted foot stands still in the world, walking and in a walk/run blend (in phase)', async () => {
    const walker = await load({ rootMotion: { mode: 'apply' } });
    const crowd = withFeatures(new Crowd(device!, walker, FORMATS));
    const walk = walker.clipIndex('WalkForward');
    const run = walker.clipIndex('RunForward');
    const [dw, dr] = [walker.clipDurations[walk], walker.clipDurations[run]];
    const D = 0.5 * dw + 0.5 * dr;
    const ids = [
      crowd.add({ clipA: walk, transform: placement(0, 0, 0, 0.8, 1) }),
      crowd.add({ clipA: walk, clipB: run, blend: 0.5, speedA: dw / D, speedB: dr / D, transform: placement(3, 0, 0, 0.8, 1) }),
    ];
    const cycles = [dw, D];
    // Both clips plant the left foot at phase 0; the walk lifts it at 0.55 of its cycle, the run at 0.35.
    const stances = [0.55, 0.35];
    const speeds = [walker.rootMotion!.speed[walk], (0.5 * walker.rootMotion!.speed[walk] * dw + 0.5 * walker.rootMotion!.speed[run] * dr) / D];
    const joint = walker.jointNames.indexOf('Foot.L');
    const bind = bindPosition(walker, joint);
    const dt = 1 / 60;
    const feet: number[][][] = [[], []];
    for (let f = 0; f < 120; f++) {
      frame(crowd, dt);
      const got = await readFrame(crowd);
      ids.forEach((id, i) => feet[i].push(jointWorld(crowd, got, id, joint, bind)));
    }
    const ratios = ids.map((_, i) => {
      const { mean, max, steps } = stanceSpeed(feet[i], dt, (t) => (t / cycles[i]) % 1 < stances[i]);
      console.log(`apply, ${['walk', 'walk/run blend'][i]} at ${speeds[i].toFixed(3)} m/s: planted foot over ${steps} frames, mean speed ${(mean * 1e3).toFixed(1)} mm/s `
        + `(${(mean / speeds[i]).toFixed(4)} of the walking speed), at most ${(max / speeds[i]).toFixed(4)}`);
      expect(steps).toBeGreaterThan(30);
      const travel = Math.hypot(feet[i][119][0] - feet[i][0][0], feet[i][119][2] - feet[i][0][2]);
      expect(travel).toBeGreaterThan(speeds[i]); // it does walk
      return mean / speeds[i];
    });
    // The walk's foot drifts only as the keys' linear interpolation lets it; the blend's also as
    // blending joint rotations (not positions) bends the leg.
    expect(ratios[0]).toBeLessThan(0.01);
    expect(ratios[1]).toBeLessThan(0.03);
    crowd.destroy();
  });
});

/**
 * A foot's horizontal speed between consecutive frames (every `dt` seconds, the first at dt)
 * that both fall in its stance (`planted(t)`): mean, max and how many such steps.
 */
function stanceSpeed(feet: number[][], dt: number, planted: (t: number) => boolean): { mean: number; max: number; steps: number } {
  let sum = 0;
  let max = 0;
  let steps = 0;
  for (let i = 1; i < feet.length; i++) {
    if (!planted(i * dt) || !planted((i + 1) * dt)) continue;
    const v = Math.hypot(feet[i][0] - feet[i - 1][0], feet[i][2] - feet[i - 1][2]) / dt;
    sum += v;
    max = Math.max(max, v);
    steps++;
  }
  return { mean: sum / steps, max, steps };
}
