import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseControllerConfig, type ControllerConfig } from '../src/anim/control/config';
import { AnimationController, ControllerRuntime } from '../src/anim/control/controller';
import type { Character } from '../src/character';
import { Crowd } from '../src/crowd';
import { CrowdControllers } from '../src/crowd-controllers';
import { wrapTime } from '../src/math/time';
import { testCharacter } from './helpers/character';
import { openTestDevice } from './helpers/gpu';
import { modelPath } from './helpers/models';
import { readInstanceStack, type ReadLayer } from '../tools/control-readback';

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
async function expectParity(character: Character, config: ControllerConfig, script: Map<number, Command[]>, frames: number, dt: (f: number) => number, maskIds?: number[]): Promise<number> {
  const crowd = new Crowd(device!, character, FORMATS);
  const controllers = new CrowdControllers(crowd, config);
  const id = crowd.add();
  const gpu = controllers.add(id, 1.5, -2, 0.4);
  const reference = new AnimationController(new ControllerRuntime(config, character.clipDurations));
  if (reference.locomotion) {
    reference.locomotion.positionX = 1.5;
    reference.locomotion.positionZ = -2;
    reference.locomotion.heading = 0.4;
  }
  const durations = character.clipDurations;
  let worst = 0;
  for (let f = 0; f < frames; f++) {
    for (const command of script.get(f) ?? []) {
      expect(command(gpu)).toEqual(command(reference));
    }
    const step = dt(f);
    reference.update(step);
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
      expect(Math.abs(got.x - loco.positionX), `${where}: x`).toBeLessThan(1e-4);
      expect(Math.abs(got.z - loco.positionZ), `${where}: z`).toBeLessThan(1e-4);
      expect(timeGap(got.yaw, loco.heading, 2 * Math.PI), `${where}: heading`).toBeLessThan(1e-4);
    }
  }
  crowd.destroy();
  return worst;
}

function robotConfig(character: Character): ControllerConfig {
  const text = readFileSync(modelPath('RobotExpressive').replace(/\.glb$/, '.controller.json'), 'utf8');
  return parseControllerConfig(JSON.parse(text), character.clipNames);
}

const at = (entries: [number, Command][]) => {
  const map = new Map<number, Command[]>();
  for (const [frame, command] of entries) map.set(frame, [...(map.get(frame) ?? []), command]);
  return map;
};

describe.skipIf(!device)('GPU-driven controllers equal the CPU reference frame by frame', () => {
  it('locomotion: speed changes under bounded acceleration, direction input with turning, running, stopping', async () => {
    const robot = await testCharacter('RobotExpressive');
    const worst = await expectParity(robot, robotConfig(robot), at([
      [0, (c) => c.setSpeed(1)],
      [40, (c) => c.setSpeed(2)],
      [90, (c) => c.move(1, 0.3)],
      [150, (c) => c.move(-0.5, -1, true)],
      [220, (c) => c.stop()],
      [260, (c) => c.move(0.2, 1)],
    ]), 330, () => 1 / 30);
    console.log(`locomotion parity: worst weight/time gap ${worst.toExponential(2)}`);
  });

  it('actions: fade in, play once, fade out; a handover mid-fade; requests refused while one plays', async () => {
    const robot = await testCharacter('RobotExpressive');
    const config = robotConfig(robot);
    const crowd = new Crowd(device!, robot, FORMATS);
    const maskIds = [...new CrowdControllers(crowd, config).runtime.config.masks.keys()];
    crowd.destroy();
    const actions = config.actions.map((a) => a.name);
    await expectParity(robot, config, at([
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
    const config = robotConfig(robot);
    const names = robot.clipNames;
    const ease = (u: number) => Math.sin((u * Math.PI) / 2) ** 2;
    await expectParity(robot, config, at([
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
});
