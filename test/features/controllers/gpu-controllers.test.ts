import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultControllerConfig, parseControllerConfig, type ControllerConfig } from '../../../src/anim/control/config';
import type { AnimationController } from '../../../src/anim/control/controller';
import { loadCharacter, type Character } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { CrowdControllers } from '../../../src/features/controllers/crowd-controllers';
import { wrapTime } from '../../../src/math/time';
import { testCharacter } from '../../helpers/character';
import { commandsAt, robotControllerConfig } from '../../helpers/control';
import { openTestDevice, readBuffer } from '../../helpers/gpu';
import { modelPath } from '../../helpers/models';
import { maxVertexGap } from '../../helpers/skinned-gap';
import { readInstanceStack, type ReadLayer } from '../../../tools/control-readback';
import { withFeatures } from '../../helpers/features';

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

/** A command at a frame, applied to the reference and the GPU-driven controller alike. */
type Command = (c: AnimationController) => unknown;

/** The reference's output as layers (base first, weight 1). */
function cpuLayers(c: AnimationController, durations: ArrayLike<number>): ReadLayer[] {
  const o = c.output;
  const layers = [{ clip: o.baseClip, time: wrapTime(o.baseTime, durations[o.baseClip]), weight: 1, mask: -1 }];
  for (let i = 0; i < o.layerCount; i++) layers.push({ clip: o.layerClip[i], time: wrapTime(o.layerTime[i], durations[o.layerClip[i]]), weight: o.layerWeight[i], mask: o.layerMask[i] });
  return layers;
}

/** Distance between two clip times on a loop of duration d (0.3 and d - 0.3 are close). */
function timeGap(a: number, b: number, d: number): number {
  const gap = Math.abs(a - b);
  return d > 0 ? Math.min(gap, d - gap) : gap;
}

/**
 * Runs `script` (commands by frame) on a CPU reference controller and on GPU-driven controllers
 * of a crowd, frame by frame, and compares what the GPU wrote with the reference: the same clips
 * in the same order, weights and times within 1e-4, placement within 1e-4.
 */
async function expectParity(character: Character, config: ControllerConfig, script: Map<number, Command[]>, frames: number, dt: (f: number) => number, maskIds?: number[], vertexTolerance = 1e-5): Promise<number> {
  const { min, max } = character.bounds;
  const diagonal = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  const crowd = withFeatures(new Crowd(device!, character, FORMATS));
  const controllers = new CrowdControllers(crowd, config);
  const id = crowd.add();
  const gpu = controllers.add(id, 1.5, -2, 0.4);
  // The reference: a CPU-driven controller of the same crowd, stepped every frame, whose output
  // is the CPU path's (and whose pose the same pose pass computes, for the joint matrices).
  const referenceId = crowd.add();
  const reference = controllers.add(referenceId, 1.5, -2, 0.4, { driver: 'cpu' });
  const durations = character.clipDurations;
  let worst = 0;
  for (let f = 0; f < frames; f++) {
    for (const command of script.get(f) ?? []) {
      expect(command(gpu)).toEqual(command(reference));
    }
    const step = dt(f);
    controllers.update(step);
    crowd.update(step);
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    device!.queue.submit([encoder.finish()]);
    const got = await readInstanceStack(device!, crowd, id);
    const want = cpuLayers(reference, durations);
    const where = `frame ${f} (t = ${crowd.clock.toFixed(4)} s, ${reference.state})`;
    expect(got.layers.map((l) => l.clip), where).toEqual(want.map((l) => l.clip));
    expect(got.layers.map((l) => l.mask), where).toEqual(want.map((l) => (l.mask < 0 ? -1 : maskIds?.[l.mask] ?? l.mask)));
    for (let i = 0; i < want.length; i++) {
      const gap = Math.max(Math.abs(got.layers[i].weight - want[i].weight), timeGap(got.layers[i].time, want[i].time, durations[want[i].clip]));
      worst = Math.max(worst, gap);
      expect(gap, `${where}, layer ${i}: ${JSON.stringify(got.layers[i])} vs ${JSON.stringify(want[i])}`).toBeLessThan(1e-4);
    }
    const loco = reference.locomotion;
    if (loco) {
      // Positions are f32 on the GPU, summed frame by frame: 1e-4 plus 1e-5 of the distance from the origin (f32 rounding of the sum).
      expect(Math.abs(got.x - loco.positionX), `${where}: x`).toBeLessThan(1e-4 + 1e-5 * Math.abs(loco.positionX));
      expect(Math.abs(got.z - loco.positionZ), `${where}: z`).toBeLessThan(1e-4 + 1e-5 * Math.abs(loco.positionZ));
      expect(timeGap(got.yaw, loco.heading, 2 * Math.PI), `${where}: heading`).toBeLessThan(1e-4);
    }
    if (f % 25 === 24) {
      // The skinned mesh: both instances posed by the same pose pass, every vertex compared.
      const rows = new Float32Array(await readBuffer(device!, crowd.jointMatrices));
      const gap = maxVertexGap(character, rows, crowd.jointMatrixIndex(id), rows, crowd.jointMatrixIndex(referenceId));
      expect(gap / diagonal, `${where}: skinned vertices`).toBeLessThan(vertexTolerance);
    }
  }
  crowd.destroy();
  return worst;
}


describe.skipIf(!device)('GPU-driven controllers equal the CPU reference frame by frame', () => {
  it('locomotion: speed changes under bounded acceleration, direction input with turning, running, stopping', async () => {
    const robot = await testCharacter('RobotExpressive');
    const worst = await expectParity(robot, robotControllerConfig(robot), commandsAt<Command>([
      [0, (c) => c.setSpeed(1)],
      [40, (c) => c.setSpeed(2)],
      [90, (c) => c.move(1, 0.3)],
      [150, (c) => c.move(-0.5, -1, true)],
      [220, (c) => c.stop()],
      [260, (c) => c.move(0.2, 1)],
      [280, (c) => c.face(-1)], // keeps facing -1 rad while moving +z: a strafe
      [300, (c) => c.face(null)],
    ]), 340, () => 1 / 30);
    console.log(`locomotion parity: worst weight/time gap ${worst.toExponential(2)}`);
  });

  it('actions: fade in, play once, fade out; a handover mid-fade; requests refused while one plays', async () => {
    const robot = await testCharacter('RobotExpressive');
    const config = robotControllerConfig(robot);
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const maskIds = [...new CrowdControllers(crowd, config).runtime.config.masks.keys()];
    crowd.destroy();
    const actions = config.actions.map((a) => a.name);
    await expectParity(robot, config, commandsAt<Command>([
      [0, (c) => c.setSpeed(1)],
      [20, (c) => c.requestAction(actions[0])],
      [24, (c) => c.requestAction(actions[actions.length - 1])],
      [120, (c) => c.requestAction(actions[1 % actions.length])],
      [200, (c) => c.setSpeed(0)],
      [230, (c) => c.requestAction(actions[0])],
    ]), 320, () => 1 / 30, maskIds);
  });

  it('crossfades: every kind and curve, retargeting, reversing, a full list, uneven frame times', async () => {
    const robot = await testCharacter('RobotExpressive');
    const config = robotControllerConfig(robot);
    const names = robot.clipNames;
    const ease = (u: number) => Math.sin((u * Math.PI) / 2) ** 2;
    await expectParity(robot, config, commandsAt<Command>([
      [0, (c) => c.play(names[2])],
      [5, (c) => c.fadeTo(names[3], { seconds: 0.5, kind: 'smooth', curve: 'linear' })],
      [8, (c) => c.fadeTo(names[4], { seconds: 0.5, kind: 'frozen', curve: 'cubic' })],
      [30, (c) => c.fadeTo(names[5], { seconds: 0.8, kind: 'first-frame', curve: ease })],
      [40, (c) => c.fadeTo(names[4], { seconds: 0.8 })],
      [60, (c) => c.fadeTo(names[6], { seconds: 0.3, kind: 'immediate' })],
      [70, (c) => c.fadeTo(names[7], { seconds: 1 })],
      [75, (c) => c.fadeTo(names[8], { seconds: 1 })],
      [80, (c) => c.fadeTo(names[9], { seconds: 1 })],
      [82, (c) => c.fadeTo(names[10], { seconds: 1 })],
      [140, (c) => c.setSpeed(1.5)],
      [200, (c) => c.play(names[1])],
    ]), 300, (f) => [1 / 60, 1 / 24, 1 / 144, 0.05][f % 4]);
  });

  it('every bundled model under its default config: Fox (locomotion from its clip names) and CesiumMan (one clip, no locomotion)', async () => {
    const fox = await testCharacter('Fox');
    const foxConfig = defaultControllerConfig(fox.clipNames);
    await expectParity(fox, foxConfig, commandsAt<Command>([
      [0, (c) => (foxConfig.locomotion ? c.setSpeed(1.2) : c.play('Walk'))],
      [60, (c) => c.fadeTo('Survey', { seconds: 0.6, kind: 'frozen' })],
      [90, (c) => c.fadeTo('Run', { seconds: 0.4, kind: 'first-frame', curve: 'cubic' })],
      [150, (c) => (foxConfig.locomotion ? c.move(-1, 0.5, true) : c.play('Run'))],
    ]), 310, () => 1 / 30);
    const cesium = await testCharacter('CesiumMan');
    await expectParity(cesium, defaultControllerConfig(cesium.clipNames), commandsAt<Command>([[10, (c) => c.play(0)]]), 60, () => 1 / 20);
  });

  it('the 2D directional blend space (Walker): strafing, backpedalling and diagonals with a facing, walking and running', async () => {
    const walker = await testCharacter('Walker');
    const text = readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8');
    const config = parseControllerConfig(JSON.parse(text), walker.clipNames);
    expect(config.locomotion?.blendSpace).toBe('2d');
    await expectParity(walker, config, commandsAt<Command>([
      [0, (c) => c.face(0.4)],
      [1, (c) => c.move(1, 0)], // right of the facing: a strafe
      [50, (c) => c.move(-0.7, -0.7, true)], // back-left, running
      [100, (c) => c.move(0.3, 0.95)],
      [150, (c) => c.face(null)],
      [180, (c) => c.stop()],
      [220, (c) => c.move(0, -1, true)],
    ]), 320, () => 1 / 30);
  });

  it('rate matching from root speed (Walker loaded with rootMotion "apply"): the locomotion rate on the GPU equals the CPU\'s, and root motion leaves controlled instances to their controllers', async () => {
    const bytes = readFileSync(modelPath('Walker'));
    const walker = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'apply' } });
    const text = readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8');
    const config = parseControllerConfig(JSON.parse(text), walker.clipNames);
    await expectParity(walker, config, commandsAt<Command>([
      // Walker.controller.json's slowestWalkRate 0.15: idle/walk up to 0.18 m/s, then the walk alone, slowed.
      [0, (c) => c.setSpeed(0.4)], // idle/walk, then the slowed walk: the walk's cadence
      [40, (c) => c.setSpeed(1.5)], // walk/run
      [90, (c) => c.face(0.3)],
      [91, (c) => c.move(-0.6, 0.5, true)], // strafing forward-right, three clips
      [160, (c) => c.move(0.2, -1)], // backpedalling
      [220, (c) => c.stop()],
    ]), 260, () => 1 / 30);
  });

  it('keeps times precise across control-clock periods: 150 s in large steps, with refreshes', async () => {
    // Weights and times stay within 1e-4. The skinned vertices get a looser bound (1e-4 of the
    // diagonal): past 10 s the pose pass's own f32 crowd clock (rebased every 600 s) rounds clip
    // times to ulp(speed x clock), 4e-6 s at 50 s, for the CPU-driven reference as much as for the
    // GPU-driven instance, and positions summed in f32 over 180 m drift from the f64 sum by 4e-4.
    const robot = await testCharacter('RobotExpressive');
    const names = robot.clipNames;
    await expectParity(robot, robotControllerConfig(robot), commandsAt<Command>([
      [0, (c) => c.setSpeed(1)],
      [100, (c) => c.fadeTo(names[4], { seconds: 2 })],
      [200, (c) => c.move(0.3, -1)],
    ]), 300, () => 0.5, undefined, 1e-4);
  });
});

describe.skipIf(!device)('GPU-driven controllers: validity and bookkeeping', () => {
  it('refuses a custom curve the GPU cannot evaluate, naming it, and leaves the controller as it was', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, robotControllerConfig(robot));
    const c = controllers.add(crowd.add());
    const state = c.state;
    const fades = c.crossfader.fadeCount;
    const broken = (u: number) => (u > 0.5 ? NaN : u);
    expect(() => c.fadeTo(robot.clipNames[3], { curve: broken })).toThrow(/fadeTo options\.curve: custom blend curve returned NaN at u = 0\.5/);
    expect([c.state, c.crossfader.fadeCount]).toEqual([state, fades]);
    expect(() => new CrowdControllers(crowd, robotControllerConfig(robot), { driver: 'gpus' as never })).toThrow(/driver must be 'gpu' or 'cpu', got "gpus"/);
    expect(() => controllers.add(crowd.add(), NaN)).toThrow(/x must be a finite number, got NaN/);
    expect(() => controllers.add(12345)).toThrow(/instance 12345 does not exist/);
    crowd.destroy();
  });

  it('a GPU-driven controller reads its state from the driver, refuses to be stepped by hand, and keeps its state when taken off the GPU', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, robotControllerConfig(robot));
    const id = crowd.add();
    const g = controllers.add(id, 0, 0, 0);
    const c = controllers.add(crowd.add(), 0, 0, 0, { driver: 'cpu' });
    expect(() => g.update(0.1)).toThrow(/update: this controller is driven/);
    for (const x of [g, c]) { x.setSpeed(1.5); expect(x.requestAction('Wave')).toBe(true); }
    for (let f = 0; f < 20; f++) { controllers.update(1 / 30); crowd.update(1 / 30); }
    // Values and objects read from the driver's row equal the CPU twin's.
    expect([g.state, g.action, g.actionPhase, g.actionTime]).toEqual([c.state, c.action, c.actionPhase, c.actionTime]);
    expect(g.actionPlayback.time).toBeCloseTo(c.actionPlayback.time, 12);
    expect(g.locomotion!.inputMode).toBe('speed');
    // Taken off the GPU, it is a controller of its own, as it was, and steps like its twin.
    controllers.remove(id);
    expect(g.driver).toBeNull();
    g.update(0.25);
    c.update(0.25);
    expect([g.state, g.actionTime, g.crossfader.fadeCount]).toEqual([c.state, c.actionTime, c.crossfader.fadeCount]);
    crowd.destroy();
  });

  it('updates without an encode between them (a paused view) lose no command and no movement: the next encode hands the GPU all of them', async () => {
    const fox = await testCharacter('Fox');
    const crowd = withFeatures(new Crowd(device!, fox, FORMATS));
    const controllers = new CrowdControllers(crowd, defaultControllerConfig(fox.clipNames));
    const id = crowd.add();
    const g = controllers.add(id, 0, 0, 0);
    const c = controllers.add(crowd.add(), 0, 0, 0, { driver: 'cpu' });
    // A pair walking off (locomotion), for the movement.
    const walkerId = crowd.add();
    const walkers = [controllers.add(walkerId, 0, 0, 0), controllers.add(crowd.add(), 0, 0, 0, { driver: 'cpu' })];
    const step = (dt: number) => { controllers.update(dt); crowd.update(dt); };
    const encode = () => {
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
    };
    for (const w of walkers) w.setSpeed(1);
    step(0);
    encode();
    // Commands between updates that no encode follows, and one after the last update (before the
    // encode): each must reach the GPU. (Cleared at every update, the play and the first fade were
    // lost: the GPU showed the first clip at time 0.)
    for (const x of [g, c]) x.play('Walk');
    step(0.2);
    for (const x of [g, c]) x.fadeTo('Run', { seconds: 0.5, kind: 'frozen' });
    step(0.1);
    step(0.1);
    for (const x of [g, c]) x.setSpeed(1);
    encode();
    step(1 / 30);
    encode();
    const got = await readInstanceStack(device!, crowd, id);
    const want = cpuLayers(c, fox.clipDurations);
    expect(got.layers.map((l) => l.clip)).toEqual(want.map((l) => l.clip));
    for (let i = 0; i < want.length; i++) {
      expect(Math.abs(got.layers[i].weight - want[i].weight), `layer ${i}`).toBeLessThan(1e-4);
      expect(timeGap(got.layers[i].time, want[i].time, fox.clipDurations[want[i].clip]), `layer ${i}`).toBeLessThan(1e-4);
    }
    // The movement of the frames no encode followed: the GPU integrated them as one step of 0.4 s
    // (the CPU as three), which overshoots the acceleration bound's ramp by about a tenth (0.433
    // against 0.393 units). With their dt lost it walked 0.058.
    const walked = (await readInstanceStack(device!, crowd, walkerId)).z, cpuWalked = walkers[1].locomotion!.positionZ;
    console.log(`walked ${walked.toFixed(4)} on the GPU, ${cpuWalked.toFixed(4)} on the CPU`);
    expect(Math.abs(walked - cpuWalked)).toBeLessThan(0.15 * Math.abs(cpuWalked));
    crowd.destroy();
  });

  it('two encodes for one update (two views drawn a frame) integrate its dt once: the locomotion walks as far as the CPU reference, its phase as far', async () => {
    const fox = await testCharacter('Fox');
    const crowd = withFeatures(new Crowd(device!, fox, FORMATS));
    const controllers = new CrowdControllers(crowd, defaultControllerConfig(fox.clipNames));
    const walkerId = crowd.add();
    const walkers = [controllers.add(walkerId, 0, 0, 0), controllers.add(crowd.add(), 0, 0, 0, { driver: 'cpu' })];
    const step = (dt: number) => { controllers.update(dt); crowd.update(dt); };
    const submit = (encoder: GPUCommandEncoder) => device!.queue.submit([encoder.finish()]);
    for (const w of walkers) w.setSpeed(1);
    for (let f = 0; f < 24; f++) {
      if (f === 12) for (const w of walkers) w.setSpeed(0.5);
      step(1 / 30);
      // Two views: one submit each (a split screen drawn view by view), or both in one command
      // buffer (a shadow map and the main view); the second must not integrate the frame again.
      if (f % 2 === 0) {
        for (let view = 0; view < 2; view++) {
          const encoder = device!.createCommandEncoder();
          crowd.encode(encoder);
          submit(encoder);
        }
      } else {
        const encoder = device!.createCommandEncoder();
        crowd.encode(encoder);
        crowd.encode(encoder);
        submit(encoder);
      }
    }
    const got = await readInstanceStack(device!, crowd, walkerId);
    const loco = walkers[1].locomotion!;
    // Integrated twice a frame it walked 1.10 units against the reference's 0.50.
    console.log(`walked ${got.z.toFixed(4)} on the GPU, ${loco.positionZ.toFixed(4)} on the CPU`);
    expect(Math.abs(got.x - loco.positionX)).toBeLessThan(1e-4);
    expect(Math.abs(got.z - loco.positionZ)).toBeLessThan(1e-4);
    const want = cpuLayers(walkers[1], fox.clipDurations);
    expect(got.layers.map((l) => l.clip)).toEqual(want.map((l) => l.clip));
    for (let i = 0; i < want.length; i++) {
      expect(Math.abs(got.layers[i].weight - want[i].weight), `layer ${i}`).toBeLessThan(1e-4);
      expect(timeGap(got.layers[i].time, want[i].time, fox.clipDurations[want[i].clip]), `layer ${i}`).toBeLessThan(1e-4);
    }
    crowd.destroy();
  });

  it('many controllers with churn (remove, re-add on a reused handle, CPU and GPU side by side) stay equal to their references', async () => {
    const robot = await testCharacter('RobotExpressive');
    const config = robotControllerConfig(robot);
    const crowd = withFeatures(new Crowd(device!, robot, { ...FORMATS, capacity: 4 }));
    const controllers = new CrowdControllers(crowd, config);
    const pairs: { gpu: number; cpu: number; g: AnimationController; c: AnimationController }[] = [];
    const addPair = (i: number) => {
      const gpu = crowd.add();
      const cpu = crowd.add();
      pairs[i] = { gpu, cpu, g: controllers.add(gpu, i, -i, i * 0.3), c: controllers.add(cpu, i, -i, i * 0.3, { driver: 'cpu' }) };
    };
    for (let i = 0; i < 12; i++) addPair(i);
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const actions = config.actions.map((a) => a.name);
    for (let f = 0; f < 150; f++) {
      for (let k = 0; k < 3; k++) {
        const p = pairs[Math.floor(random() * pairs.length)];
        const r = random();
        const command: Command = r < 0.4 ? (c) => c.setSpeed(random() < 0.5 ? 2 : 0.7) : r < 0.7 ? (c) => c.requestAction(actions[Math.floor(random() * actions.length)]) : (c) => c.move(1, 0.5);
        const rr = seed;
        expect(command(p.g)).toEqual((seed = rr, command(p.c)));
      }
      if (f === 60) {
        // Remove three pairs (controllers and instances) and put new ones in their places.
        for (const i of [2, 5, 9]) {
          for (const id of [pairs[i].gpu, pairs[i].cpu]) { controllers.remove(id); crowd.remove(id); }
          addPair(i);
        }
      }
      controllers.update(1 / 30);
      crowd.update(1 / 30);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      if (f % 30 === 29) {
        for (const p of pairs) {
          const got = await readInstanceStack(device!, crowd, p.gpu);
          const want = cpuLayers(p.c, robot.clipDurations);
          expect(got.layers.map((l) => l.clip), `frame ${f}, pair ${pairs.indexOf(p)}`).toEqual(want.map((l) => l.clip));
          for (let i = 0; i < want.length; i++) expect(Math.abs(got.layers[i].weight - want[i].weight)).toBeLessThan(1e-4);
          expect(Math.abs(got.x - p.c.locomotion!.positionX)).toBeLessThan(1e-4);
        }
      }
    }
    expect(controllers.count).toBe(24);
    crowd.destroy();
  });
});

describe.skipIf(!device)('GPU-driven controllers across control-clock periods', () => {
  it('the refresh sweep rewrites every record within a period, also when remove() moves a controller behind its cursor', async () => {
    // Controllers playing a looping clip are rewritten only by the sweep (no transition is due),
    // and their clip times are evaluated in closed form from the record's clock. Removing the
    // controller at the front of the list mid-sweep moves the last one (not yet refreshed) into
    // its place, behind the cursor: it must be refreshed there, or at the next period its record
    // is two periods old and evaluated against the wrong clock (its times off by 120 s).
    const robot = await testCharacter('RobotExpressive');
    const durations = robot.clipDurations;
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, robotControllerConfig(robot));
    const pairs: { gpu: number; c: AnimationController }[] = [];
    for (let i = 0; i < 10; i++) {
      const gpu = crowd.add();
      const clip = i % 2 ? 'Walking' : 'Running';
      controllers.add(gpu, i, 0, 0).play(clip);
      const c = controllers.add(crowd.add(), i, 0, 0, { driver: 'cpu' });
      c.play(clip);
      pairs.push({ gpu, c });
    }
    const dt = 1; // 60 frames a period, the sweep over its first 30
    for (let f = 1; f <= 200; f++) {
      // Mid-sweep in periods 1, 2 and 3: remove the controller at the front of the list.
      if (f === 65 || f === 125 || f === 186) crowd.remove(pairs.shift()!.gpu);
      controllers.update(dt);
      crowd.update(dt);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      if (f % 20 !== 0) continue;
      for (const p of pairs) {
        const got = await readInstanceStack(device!, crowd, p.gpu);
        const want = cpuLayers(p.c, durations);
        const where = `t = ${f * dt} s, instance ${p.gpu}`;
        expect(got.layers.map((l) => l.clip), where).toEqual(want.map((l) => l.clip));
        expect(timeGap(got.layers[0].time, want[0].time, durations[want[0].clip]), where).toBeLessThan(1e-3);
      }
    }
    crowd.destroy();
  });
});
