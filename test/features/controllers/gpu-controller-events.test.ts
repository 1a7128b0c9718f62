import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultControllerConfig, parseControllerConfig, type ControllerConfig } from '../../../src/anim/control/config';
import type { AnimationController } from '../../../src/anim/control/controller';
import type { Character } from '../../../src/character/character';
import { Crowd } from '../../../src/runtime/crowd';
import { CrowdControllers } from '../../../src/features/controllers/crowd-controllers';
import { startAllocationWatch } from '../../helpers/allocations';
import { testCharacter } from '../../helpers/character';
import { commandsAt, robotControllerConfig } from '../../helpers/control';
import { openTestDevice } from '../../helpers/gpu';
import { modelPath } from '../../helpers/models';
import { withFeatures } from '../../helpers/features';

/**
 * Clip events of GPU-driven controllers (src/features/controllers/gpu-controller-events.ts) against the CPU driver:
 * the same script on a GPU-driven and a CPU-driven controller of one crowd must fire the same
 * events (name, clip, time) in the same frames, through locomotion (acceleration, turning, the
 * 2D blend space), actions (masked and not, handovers), crossfades of every kind, uneven frame
 * times and 150 s of large steps. Every clip gets events at 0.137, 0.52 and 0.83 of its length
 * (inside the clip, so that no crossing lands on a frame boundary where rounding picks the frame).
 */
const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;

type Command = (c: AnimationController) => unknown;

function withEvents(character: Character, config: ControllerConfig, times?: number[]): ControllerConfig {
  const events = character.clipNames.map((name, clip) => {
    const d = character.clipDurations[clip];
    return (times ?? [0.137 * d, 0.52 * d, 0.83 * d]).filter((t) => t <= d).map((time, k) => ({ time, name: `${name}@${k}` }));
  });
  return { ...config, events };
}

/** Runs the script on both drivers; returns each driver's events as "frame:clip:name" and the number of frames the GPU side stepped any locomotion reference. */
async function expectSameEvents(character: Character, config: ControllerConfig, script: Map<number, Command[]>, frames: number, dt: (f: number) => number, times?: number[]) {
  const crowd = withFeatures(new Crowd(device!, character, FORMATS));
  const controllers = new CrowdControllers(crowd, withEvents(character, config, times));
  const gpuId = crowd.add();
  const gpu = controllers.add(gpuId, 1.5, -2, 0.4);
  const cpuId = crowd.add();
  const cpu = controllers.add(cpuId, 1.5, -2, 0.4, { driver: 'cpu' });
  const fired = new Map<number, string[]>([[gpuId, []], [cpuId, []]]);
  let frame = 0;
  crowd.onEvent((id, name, clip) => fired.get(id)!.push(`${frame}:${clip}:${name}`));
  let stepping = 0;
  for (frame = 0; frame < frames; frame++) {
    for (const command of script.get(frame) ?? []) expect(command(gpu)).toEqual(command(cpu));
    controllers.update(dt(frame));
    crowd.update(dt(frame));
    if (controllers.gpu.events.steppingHandles > 0) stepping++;
  }
  crowd.destroy();
  const [g, c] = [fired.get(gpuId)!, fired.get(cpuId)!];
  expect(g).toEqual(c);
  return { events: c, stepping };
}


describe.skipIf(!device)('GPU-driven controllers fire the CPU driver\'s clip events, frame by frame', () => {
  it('locomotion: speed changes, direction input with turning, running, stopping, a facing', async () => {
    const robot = await testCharacter('RobotExpressive');
    const { events, stepping } = await expectSameEvents(robot, robotControllerConfig(robot), commandsAt<Command>([
      [0, (c) => c.setSpeed(1)],
      [40, (c) => c.setSpeed(2)],
      [90, (c) => c.move(1, 0.3)],
      [150, (c) => c.move(-0.5, -1, true)],
      [220, (c) => c.stop()],
      [260, (c) => c.move(0.2, 1)],
      [280, (c) => c.face(-1)],
      [300, (c) => c.face(null)],
    ]), 400, () => 1 / 30);
    expect(events.filter((e) => /Walking|Running/.test(e)).length).toBeGreaterThan(25);
    // The reference is stepped only after commands, until steady: far fewer frames than the run.
    console.log(`locomotion: the GPU side stepped a reference in ${stepping} of 400 frames`);
    expect(stepping).toBeLessThan(200);
  });

  it('actions (masked and not, a handover) and crossfades of every kind, uneven frame times', async () => {
    const robot = await testCharacter('RobotExpressive');
    const names = robot.clipNames;
    const ease = (u: number) => Math.sin((u * Math.PI) / 2) ** 2;
    const { events } = await expectSameEvents(robot, robotControllerConfig(robot), commandsAt<Command>([
      [0, (c) => c.setSpeed(1)],
      [20, (c) => c.requestAction('Wave')],
      [24, (c) => c.requestAction('ThumbsUp')],
      [60, (c) => c.requestAction('Wave')], // refused (ThumbsUp plays): the GPU side caught up and must go on from there
      [120, (c) => c.requestAction('Punch')],
      [121, (c) => c.requestAction('Jump')], // Punch still fading in: handed over
      [200, (c) => c.setSpeed(0)],
      [230, (c) => c.requestAction('Dance')],
      [330, (c) => c.play(names[2])],
      [335, (c) => c.fadeTo(names[3], { seconds: 0.5, kind: 'smooth', curve: 'linear' })],
      [338, (c) => c.fadeTo(names[4], { seconds: 0.5, kind: 'frozen', curve: 'cubic' })],
      [360, (c) => c.fadeTo(names[5], { seconds: 0.8, kind: 'first-frame', curve: ease })],
      [370, (c) => c.fadeTo(names[4], { seconds: 0.8 })],
      [390, (c) => c.fadeTo(names[6], { seconds: 0.3, kind: 'immediate' })],
      [400, (c) => c.fadeTo(names[7], { seconds: 1 })],
      [405, (c) => c.fadeTo(names[8], { seconds: 1 })],
      [410, (c) => c.fadeTo(names[9], { seconds: 1 })],
      [412, (c) => c.fadeTo(names[10], { seconds: 1 })],
      [470, (c) => c.setSpeed(1.5)],
    ]), 560, (f) => [1 / 60, 1 / 24, 1 / 144, 0.05][f % 4]);
    // Wave and Punch are handed over before they weigh 0.5: silent by the threshold rule.
    for (const clip of ['ThumbsUp', 'Jump', 'Dance', 'Walking']) expect(events.some((e) => e.includes(`:${clip}:`)), clip).toBe(true);
  });

  it('the 2D blend space (Walker) and Fox\'s default config', async () => {
    const walker = await testCharacter('Walker');
    const text = readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8');
    const { events } = await expectSameEvents(walker, parseControllerConfig(JSON.parse(text), walker.clipNames), commandsAt<Command>([
      [0, (c) => c.face(0.4)],
      [1, (c) => c.move(1, 0)],
      [50, (c) => c.move(-0.7, -0.7, true)],
      [100, (c) => c.move(0.3, 0.95)],
      [150, (c) => c.face(null)],
      [180, (c) => c.stop()],
      [220, (c) => c.move(0, -1, true)],
    ]), 320, () => 1 / 30);
    expect(new Set(events.map((e) => e.split(':')[1])).size).toBeGreaterThan(3);
    const fox = await testCharacter('Fox');
    await expectSameEvents(fox, defaultControllerConfig(fox.clipNames), commandsAt<Command>([
      [0, (c) => c.setSpeed(1.2)],
      [60, (c) => c.fadeTo('Survey', { seconds: 0.6, kind: 'frozen' })],
      [150, (c) => c.move(-1, 0.5, true)],
    ]), 250, () => 1 / 30);
  });

  it('events exactly on frame boundaries (0.25 s and 0.5 s into clips started on a frame, at 60 fps) land in the same frame', async () => {
    const robot = await testCharacter('RobotExpressive');
    const names = robot.clipNames;
    const { events } = await expectSameEvents(robot, robotControllerConfig(robot), commandsAt<Command>([
      [0, (c) => c.play('Walking')],
      [45, (c) => c.fadeTo('Running', { seconds: 0.5, curve: 'linear' })],
      [100, (c) => c.requestAction('Wave')],
      [200, (c) => c.fadeTo(names[1], { seconds: 0.25, kind: 'first-frame' })],
      [260, (c) => c.play('Yes')],
    ]), 330, () => 1 / 60, [0.25, 0.5]);
    expect(events.length).toBeGreaterThan(10);
  });

  it('150 s in large steps across refreshes and a clock rebase', async () => {
    const robot = await testCharacter('RobotExpressive');
    const names = robot.clipNames;
    const { events } = await expectSameEvents(robot, robotControllerConfig(robot), commandsAt<Command>([
      [0, (c) => c.setSpeed(1)],
      [100, (c) => c.fadeTo(names[4], { seconds: 2 })],
      [200, (c) => c.move(0.3, -1)],
      [1190, (c) => c.setSpeed(2)],
    ]), 1300, (f) => (f < 1000 ? 0.5 : 0.125));
    expect(events.length).toBeGreaterThan(300);
  });

  it('keeps locomotion references only while a locomotion clip has events: none stepped without, all restarted when events arrive', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, robotControllerConfig(robot));
    crowd.setClipEvents('Jump', [{ time: 0.3, name: 'takeoff' }]); // not a locomotion clip
    for (let i = 0; i < 10; i++) controllers.add(crowd.add(), i, 0, 0).setSpeed(1);
    let fired = 0;
    crowd.onEvent(() => { fired++; });
    const frame = () => { controllers.update(1 / 30); crowd.update(1 / 30); return controllers.gpu.events.steppingHandles; };
    expect(frame()).toBe(0);
    crowd.setClipEvents('Walking', [{ time: 0.3, name: 'step' }]);
    expect(frame()).toBe(10); // stepped from where the CPU knew them, until steady
    for (let f = 0; f < 60; f++) frame();
    expect(controllers.gpu.events.steppingHandles).toBe(0);
    expect(fired).toBeGreaterThan(10);
    controllers.get(0).setSpeed(2);
    expect(frame()).toBe(1); // a command: that controller alone, until steady again
    crowd.setClipEvents('Walking', []);
    expect(frame()).toBe(0);
    crowd.destroy();
  });

  it('a GPU-driven crowd walking steadily allocates nothing per frame and steps no reference', async () => {
    const robot = await testCharacter('RobotExpressive');
    const crowd = withFeatures(new Crowd(device!, robot, FORMATS));
    const controllers = new CrowdControllers(crowd, withEvents(robot, robotControllerConfig(robot)));
    for (let i = 0; i < 100; i++) controllers.add(crowd.add(), i, 0, 0).setSpeed(1 + (i % 5) / 10);
    let fired = 0;
    crowd.onEvent(() => { fired++; });
    for (let f = 0; f < 60; f++) { controllers.update(1 / 30); crowd.update(1 / 30); }
    expect(controllers.gpu.events.steppingHandles).toBe(0);
    fired = 0;
    const watch = startAllocationWatch();
    try {
      for (let f = 0; f < 30; f++) { controllers.update(1 / 30); crowd.update(1 / 30); }
    } finally {
      watch.stop();
    }
    expect(fired).toBeGreaterThan(100); // ~ 100 walkers x 3 events per ~1 s cycle
    expect(watch.count).toBe(0);
    crowd.destroy();
  });
});
