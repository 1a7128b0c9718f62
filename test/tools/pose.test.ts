import { describe, expect, it } from 'vitest';
import { runCli, runCliHere, type Run } from '../helpers/cli';
import { throttleGpuPolling } from '../helpers/gpu';
import { loadModel, modelPath } from '../helpers/models';

throttleGpuPolling(); // --backend gpu runs in this process

/**
 * The pose dump CLI (`crowd-skin pose`, tools/pose.ts), run in this process through the
 * dispatcher the executable runs (runCliHere: a child process costs about 0.5 s of CPU to start,
 * 1.4 s with --backend gpu), one run at a time; the `--positions` case runs the bundled
 * executable as a child process, which proves that its largest object reaches the pipe whole
 * before the process exits.
 */
const pose = (...args: string[]): Promise<Run> => runCliHere('pose', ...args);

interface PoseDump { joints: string[]; jointMatrices: number[][]; rotationBlend: string; positions?: number[][] }

function parse(run: Run): PoseDump {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1); // exactly one JSON object
  return JSON.parse(lines[0]) as PoseDump;
}

const FOX = modelPath('Fox');

describe.concurrent('pose CLI', () => {
  it('prints joints, 16-number joint matrices and the rotation blend; --time=-0.43 equals d - 0.43; lut is close', async ({ expect }) => {
    const { rig } = await loadModel('Fox');
    const walk = rig.clips.find((c) => c.name === 'Walk')!;
    const [negative, wrapped, lut] = await Promise.all([
      pose('--model', FOX, '--clip', 'Walk', '--time=-0.43'),
      pose('--model', FOX, '--clip', 'Walk', '--time', String(walk.duration - 0.43)),
      pose('--model', FOX, '--clip', 'Walk', '--time', String(walk.duration - 0.43), '--backend', 'lut'),
    ]);
    const a = parse(negative);
    expect(a.rotationBlend).toBe('nlerp');
    expect(a.joints).toEqual(rig.skins[0].jointNames);
    expect(a.jointMatrices).toHaveLength(24);
    for (const m of a.jointMatrices) {
      expect(m).toHaveLength(16);
      expect(m.every(Number.isFinite)).toBe(true);
      expect(m[15]).toBeCloseTo(1, 9);
    }
    const b = parse(wrapped);
    b.jointMatrices.flat().forEach((v, i) => expect(v).toBeCloseTo(a.jointMatrices.flat()[i], 9));
    // The lut reads the baked tables: close to exact (4e-6 measured here, in matrices with
    // entries up to ~44 on a model 175 units across), though not bit-equal.
    const c = parse(lut);
    expect(c.joints).toEqual(b.joints);
    let worst = 0;
    c.jointMatrices.flat().forEach((v, i) => { worst = Math.max(worst, Math.abs(v - b.jointMatrices.flat()[i])); });
    expect(worst).toBeLessThan(1e-3);
    expect(a.positions).toBeUndefined();
  });

  it('--positions --stride K prints ceil(vertices / K) positions', async ({ expect }) => {
    const { rig } = await loadModel('Fox');
    const total = rig.primitives.filter((p) => p.skin === 0).reduce((n, p) => n + p.vertexCount, 0);
    const dump = parse(await runCli('pose', '--model', FOX, '--clip', 'Run', '--time', '0.2', '--positions', '--stride', '7'));
    expect(dump.positions).toHaveLength(Math.ceil(total / 7));
    expect(dump.positions!.every((p) => p.length === 3 && p.every(Number.isFinite))).toBe(true);
  });

  const failures: [string, string[], RegExp][] = [
    ['an unknown clip', ['--model', FOX, '--clip', 'Dance'], /--clip: no clip named or numbered 'Dance' \(clips: 0 'Survey', 1 'Walk', 2 'Run'\)/],
    ['--blend 2', ['--model', FOX, '--clip-b', 'Run', '--blend', '2'], /--blend must be in \[0, 1\], got 2/],
    ['an unknown option', ['--model', FOX, '--speed', '2'], /unknown option --speed/],
    ['a missing --model', ['--clip', 'Walk'], /--model PATH is required/],
    ['--skin out of range', ['--model', FOX, '--skin', '1'], /--skin 1: the model has 1 skin\(s\) \(0\.\.0\)/],
    ['a model with no skins', ['--model', modelPath('InterpolationTest')], /--skin 0: the model has 0 skin\(s\)/],
  ];

  it.for(failures)('exits 1 with a message on stderr for %s', async ([, args, message], { expect }) => {
    const run = await pose(...args);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^pose: /m);
    expect(run.stderr).toMatch(message);
  });

  it('--backend gpu runs the real WGSL and agrees with exact; --layers gives the same on all three backends', async ({ expect }) => {
    const layers = JSON.stringify({
      base: { clip: 'Walk', time: 0.4 },
      layers: [{ clip: 'Survey', time: 1.2, weight: 0.8, mask: { root: 'b_Spine01_02' } }],
      additive: [{ clip: 'Run', time: 0.1, weight: 0.5, reference: { clip: 'Run', time: 0 }, mask: { weights: { b_Head_05: 1 }, default: 0 } }],
    });
    const runs = await Promise.all([
      pose('--model', FOX, '--clip', 'Walk', '--time', '0.3', '--clip-b', 'Run', '--blend', '0.4', '--backend', 'gpu'),
      pose('--model', FOX, '--clip', 'Walk', '--time', '0.3', '--clip-b', 'Run', '--blend', '0.4'),
      ...['exact', 'lut', 'gpu'].map((backend) => pose('--model', FOX, '--layers', layers, '--backend', backend, '--positions', '--stride', '97')),
    ]);
    const [gpu, exact, ...stacked] = runs.map(parse);
    let worst = 0;
    gpu.jointMatrices.flat().forEach((v, i) => { worst = Math.max(worst, Math.abs(v - exact.jointMatrices.flat()[i])); });
    expect(worst).toBeLessThan(1e-3); // float32 on a model 175 units across
    expect(worst).toBeGreaterThan(0); // really a different backend
    const [e, l, g] = stacked;
    for (const other of [l, g]) {
      let far = 0;
      other.positions!.flat().forEach((v, i) => { far = Math.max(far, Math.abs(v - e.positions!.flat()[i])); });
      expect(far).toBeLessThan(2e-3);
    }
    // The layers change the pose: the stack differs from plain Walk at 0.4 s.
    const plain = parse(await pose('--model', FOX, '--clip', 'Walk', '--time', '0.4', '--positions', '--stride', '97'));
    expect(plain.positions!.flat().some((v, i) => Math.abs(v - e.positions!.flat()[i]) > 0.5)).toBe(true);
  });

  it('--backend webgl2 runs the real GLSL in headless Chromium and agrees with lut, on two clips and on --layers', async ({ expect }) => {
    const layers = JSON.stringify({
      base: { clip: 'Walk', time: 0.4 },
      layers: [{ clip: 'Survey', time: 1.2, weight: 0.8, mask: { root: 'b_Spine01_02' } }],
      additive: [{ clip: 'Run', time: 0.1, weight: 0.5, reference: { clip: 'Run', time: 0 }, mask: { weights: { b_Head_05: 1 }, default: 0 } }],
    });
    const clips = ['--clip', 'Walk', '--time', '0.3', '--clip-b', 'Run', '--blend', '0.4'];
    const [gl, lut, glStack, lutStack] = (await Promise.all([
      pose('--model', FOX, ...clips, '--backend', 'webgl2'), pose('--model', FOX, ...clips, '--backend', 'lut'),
      pose('--model', FOX, '--layers', layers, '--backend', 'webgl2'), pose('--model', FOX, '--layers', layers, '--backend', 'lut'),
    ])).map(parse);
    for (const [a, b] of [[gl, lut], [glStack, lutStack]]) {
      expect(a.joints).toEqual(b.joints);
      let worst = 0;
      a.jointMatrices.flat().forEach((v, i) => { worst = Math.max(worst, Math.abs(v - b.jointMatrices.flat()[i])); });
      expect(worst).toBeLessThan(1e-3); // float32 on a model 175 units across
      expect(worst).toBeGreaterThan(0); // really a different backend
    }
    // The stack is not the plain record: the layers reached the GL pass.
    expect(glStack.jointMatrices.flat().some((v, i) => Math.abs(v - gl.jointMatrices.flat()[i]) > 0.5)).toBe(true);
  });

  it('--layers errors name the clip, the joint and the field, exit 1', async ({ expect }) => {
    const [clip, joint, weight, mixed] = await Promise.all([
      pose('--model', FOX, '--layers', '{"base": {"clip": "Jog"}}'),
      pose('--model', FOX, '--layers', '{"base": {"clip": "Walk"}, "layers": [{"clip": "Run", "weight": 1, "mask": {"root": "Tail"}}]}'),
      pose('--model', FOX, '--layers', '{"base": {"clip": "Walk"}, "additive": [{"clip": "Run", "weight": 3, "reference": "rest"}]}'),
      pose('--model', FOX, '--layers', '{"base": {"clip": "Walk"}}', '--clip', 'Run'),
    ]);
    for (const run of [clip, joint, weight, mixed]) expect(run.code).toBe(1);
    expect(clip.stderr).toMatch(/base\.clip: no clip named or numbered "Jog"/);
    expect(joint.stderr).toMatch(/layers\[0\]\.mask root: no joint named 'Tail'/);
    expect(weight.stderr).toMatch(/additive\[0\]\.weight must be a number in \[0, 1\], got 3/);
    expect(mixed.stderr).toMatch(/--clip cannot be combined with --layers/);
  });
});
