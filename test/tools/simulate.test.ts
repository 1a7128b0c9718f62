import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, runCliHere, type Run } from '../helpers/cli';
import { throttleGpuPolling } from '../helpers/gpu';
import { modelPath } from '../helpers/models';

throttleGpuPolling(); // --backend gpu runs in this process

/**
 * The simulation CLI (`crowd-skin simulate`, tools/simulate.ts), run in this process through the
 * dispatcher the executable runs (runCliHere: a child process costs about 0.5 s of CPU to start),
 * one run at a time, and in the first case as the bundled executable in a child process, with
 * scripts in a temporary folder; one of its frames is then fed to the pose dump (`crowd-skin
 * pose --layers`), which proves the frame's base/layers/additive have the shape the pose dump takes.
 */
const dir = mkdtempSync(join(tmpdir(), 'simulate-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(content: unknown): string {
  const path = join(dir, `f${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

interface Frame {
  t: number; state: string; base: { clip: string; time: number }; layers: { clip: string; time: number; weight: number; mask?: unknown }[]; additive: unknown[];
  events: { name: string; clip: string; time: number }[];
}

function frames(run: Run): Frame[] {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  return lines.map((line) => JSON.parse(line) as Frame);
}

const ROBOT = modelPath('RobotExpressive');
const FOX = modelPath('Fox');

describe.concurrent('simulate CLI', () => {
  it('prints one JSON line per frame (round(lastAt * fps) + 1 of them) with exactly t, state, base, layers, additive, events; a frame poses with pose --layers', async ({ expect }) => {
    const script = file([
      { at: 0, play: 'Idle' }, { at: 0.2, fadeTo: 'Walking' }, { at: 0.4, action: 'Wave' }, { at: 0.5, speed: 1.2 },
      { at: 1, move: [0, 1], run: true }, { at: 1.25, action: 'Jump' },
    ]);
    const out = frames(await runCli('simulate', '--model', ROBOT, '--script', script, '--fps', '30')); // the executable
    expect(out).toHaveLength(Math.round(1.25 * 30) + 1); // 39
    out.forEach((f, k) => {
      expect(Object.keys(f)).toEqual(['t', 'state', 'base', 'layers', 'additive', 'events']);
      expect(f.t).toBeCloseTo(k / 30, 12);
      expect(f.additive).toEqual([]);
      expect(f.events).toEqual([]); // RobotExpressive.controller.json has no events
    });
    expect(out[0].state).toBe('play:Idle');
    expect(out[6].state).toBe('fade:Idle->Walking');
    // Wave (masked to the torso, from the model's RobotExpressive.controller.json) over a fade.
    const busiest = out.reduce((a, b) => (b.layers.length > a.layers.length ? b : a));
    expect(busiest.layers.length).toBeGreaterThanOrEqual(3);
    expect(busiest.layers[busiest.layers.length - 1]).toMatchObject({ clip: 'Wave', mask: { root: 'Torso' } });
    const { base, layers, additive } = busiest;
    const pose = await runCliHere('pose', '--model', ROBOT, '--layers', JSON.stringify({ base, layers, additive }));
    expect(pose.code, pose.stderr).toBe(0);
    const dump = JSON.parse(pose.stdout) as { jointMatrices: number[][] };
    expect(dump.jointMatrices.length).toBeGreaterThan(0);
    expect(dump.jointMatrices.flat().every(Number.isFinite)).toBe(true);
  });

  it('--config replaces the model\'s config; --fps defaults to 60', async ({ expect }) => {
    const config = file({
      fade: { seconds: 0.5, curve: 'linear' },
      locomotion: { idle: 'Survey', directions: { any: { walk: 'Walk', run: 'Run' } }, walkSpeed: 40 },
      actions: { Sniff: { clip: 'Survey', fadeIn: 0.1, fadeOut: 0.1, mask: { root: 'b_Neck_04' } } },
      transitions: [['locomotion', 'Sniff']],
    });
    const script = file([{ at: 0, play: 'Walk' }, { at: 0, fadeTo: 'Run' }, { at: 0.25, action: 'Sniff' }, { at: 0.5, speed: 0.5 }]);
    const out = frames(await runCliHere('simulate', '--model', FOX, '--script', script, '--config', config));
    expect(out).toHaveLength(31);
    expect(out[15].state).toBe('to-action:Sniff'); // no "Sniff" in Fox.controller.json
    expect(out[15].layers.map((l) => l.clip)).toEqual(['Run', 'Survey']);
    expect(out[15].layers[0].weight).toBeCloseTo(0.5, 9); // linear 0.5 s fade, from the --config file
    const pose = await runCliHere('pose', '--model', FOX, '--layers', JSON.stringify({ base: out[15].base, layers: out[15].layers, additive: out[15].additive }));
    expect(pose.code, pose.stderr).toBe(0);
  });

  it('"events" lists the clip events each frame\'s step fired, the same on --backend cpu and gpu', async ({ expect }) => {
    const config = file({
      locomotion: { idle: 'Survey', directions: { any: { walk: 'Walk', run: 'Run' } }, walkSpeed: 40, maxAcceleration: 120 },
      actions: { Sniff: { clip: 'Survey', fadeIn: 0.1, fadeOut: 0.1, mask: { root: 'b_Neck_04' } } },
      transitions: [['locomotion', 'Sniff']],
      // sniff: 0.4 s into the action, exactly 24 frames of 1/60 s after it starts
      events: { Walk: [{ time: 0.21, name: 'left' }, { time: 0.56, name: 'right' }], Survey: [{ time: 0.4, name: 'sniff' }] },
    });
    const script = file([{ at: 0, speed: 1 }, { at: 0.5, action: 'Sniff' }, { at: 2, stop: true }]);
    const [cpu, gpu] = await Promise.all(['cpu', 'gpu'].map(async (backend) => frames(await runCliHere('simulate', '--model', FOX, '--script', script, '--config', config, '--backend', backend))));
    expect(cpu).toHaveLength(121);
    expect(gpu.map((f) => f.events)).toEqual(cpu.map((f) => f.events));
    const fired = cpu.flatMap((f) => f.events);
    expect(fired.filter((e) => e.clip === 'Walk').length).toBeGreaterThan(4);
    expect(fired).toContainEqual({ name: 'sniff', clip: 'Survey', time: 0.4 });
    expect(cpu.find((f) => f.events.length)!.events[0]).toEqual({ name: 'left', clip: 'Walk', time: 0.21 });
  });

  it('a bad script entry exits 1 naming the entry', async ({ expect }) => {
    const unknownClip = await runCliHere('simulate', '--model', ROBOT, '--script', file([{ at: 0, play: 'Idle' }, { at: 0.5, fadeTo: 'Moonwalk' }]));
    expect(unknownClip.code).toBe(1);
    expect(unknownClip.stdout).toBe('');
    expect(unknownClip.stderr).toMatch(/^simulate: script\[1\]\.fadeTo: no clip "Moonwalk"/);
    const twoCommands = await runCliHere('simulate', '--model', ROBOT, '--script', file([{ at: 0, play: 'Idle' }, { at: 1, play: 'Idle' }, { at: 2, play: 'Idle', action: 'Jump' }]));
    expect(twoCommands.code).toBe(1);
    expect(twoCommands.stderr).toMatch(/^simulate: script\[2\] must have exactly one of/);
  });

  it('an unknown action exits 1 naming it and the actions there are', async ({ expect }) => {
    const run = await runCliHere('simulate', '--model', ROBOT, '--script', file([{ at: 0, action: 'Backflip' }]));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^simulate: script\[0\]\.action: no action "Backflip" \(actions: Jump, Punch, Wave/);
  });

  it('missing --script, a script that is not JSON, and a bad --config exit 1 with a message', async ({ expect }) => {
    const late = await runCliHere('simulate', '--model', FOX, '--script', file([{ at: 0, play: 'Walk' }]), '--config', file({ events: { Walk: [{ time: 2, name: 'late' }] } }));
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/\.json\.events\.Walk\[0\]\.time 2 is outside the clip \(0 to 0\.70833\d* s\)/);
    const [missing, notJson, badConfig] = await Promise.all([
      runCliHere('simulate', '--model', ROBOT),
      runCliHere('simulate', '--model', ROBOT, '--script', file('[{"at": 0,')),
      runCliHere('simulate', '--model', FOX, '--script', file([{ at: 0, play: 'Walk' }]), '--config', file({ fade: { kind: 'wobbly' } })),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^simulate: --script FILE\.json is required/);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^simulate: script .* is not valid JSON/);
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr).toMatch(/\.json\.fade\.kind must be one of smooth, frozen, first-frame, immediate/);
  });

  it('--root-motion plays locomotion at the rate that matches the clips\' root speed to the movement (Walker walk/run at 1.8 m/s: 1.0625x)', async ({ expect }) => {
    const walker = modelPath('Walker');
    const script = file([{ at: 0, speed: 1.5 }, { at: 1.5, speed: 1.5 }]);
    const [plain, matched, bad] = await Promise.all([
      runCliHere('simulate', '--model', walker, '--script', script, '--fps', '10'),
      runCliHere('simulate', '--model', walker, '--script', script, '--fps', '10', '--root-motion', 'in-place'),
      runCliHere('simulate', '--model', walker, '--script', script, '--root-motion', 'walk'),
    ]);
    // Walk 0.5, Run 0.5 (D = 0.85 s) once at speed: the walk's time advances 0.1 / 0.85 per frame, times 1.0625 matched.
    const step = (out: Frame[]) => {
      const walk = (f: Frame) => [f.base, ...f.layers].find((l) => l.clip === 'WalkForward')!.time;
      return walk(out[15]) - walk(out[14]);
    };
    expect(step(frames(plain))).toBeCloseTo(0.1 / 0.85, 6);
    expect(step(frames(matched))).toBeCloseTo((1.0625 * 0.1) / 0.85, 6);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--root-motion must be in-place or apply, got "walk"');
  });
});
