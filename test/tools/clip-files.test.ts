import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliHere, type Run } from '../helpers/cli';
import { throttleGpuPolling } from '../helpers/gpu';
import { loadModel, modelPath, BUNDLED_MODELS } from '../helpers/models';
import { splitModel } from '../helpers/split-model';

throttleGpuPolling(); // --backend gpu runs in this process

/**
 * `--clips FILE` (repeatable) of inspect, pose and simulate (tools/clip-files.ts), run in this
 * process (runCliHere: the dispatcher the executable runs; pose.test.ts and simulate.test.ts
 * run the executable itself): every bundled model split into a body file and a clips-only file poses as the
 * original through --backend exact, lut and gpu; --clip names and indices resolve in the
 * combined list; inspect says where each clip came from; simulate runs a body on its clips file.
 */
const dir = mkdtempSync(join(tmpdir(), 'clip-files-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WALKER = modelPath('Walker');
const part = (name: string) => join(BUNDLED_MODELS, 'Walker', name);

function ok(run: Run): string {
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}
const matrices = (run: Run): number[][] => (JSON.parse(ok(run)) as { jointMatrices: number[][] }).jointMatrices;

describe('--clips FILE', { timeout: 300_000 }, () => {
  for (const name of ['CesiumMan', 'Fox', 'RobotExpressive', 'Walker']) {
    it(`pose: ${name} as body + clips file equals the original, --backend exact, lut and gpu`, async () => {
      const { asset, rig } = await loadModel(name);
      const split = splitModel(asset);
      const body = join(dir, `${name}Body.glb`);
      const clips = join(dir, `${name}Clips.glb`);
      writeFileSync(body, split.body);
      writeFileSync(clips, split.clips);
      const last = rig.clips.length - 1;
      const time = String(rig.clips[last].duration * 0.37);
      for (const backend of ['exact', 'lut', 'gpu']) {
        const [original, parts] = await Promise.all([
          runCliHere('pose', modelPath(name), '--clip', String(last), '--time', time, '--backend', backend),
          runCliHere('pose', body, '--clips', clips, '--clip', String(last), '--time', time, '--backend', backend),
        ]);
        if (backend === 'gpu' && /needs the `webgpu` package|no WebGPU adapter/i.test(parts.stderr)) continue;
        expect(matrices(parts), backend).toEqual(matrices(original));
      }
    });
  }

  it('pose: --clip names and indices resolve in the combined list (the model\'s clips, then each file\'s)', async () => {
    const [byIndex, byName, own] = await Promise.all([
      runCliHere('pose', WALKER, '--clips', part('WalkerClips.glb'), '--clip', '20', '--time', '0.4'),
      runCliHere('pose', WALKER, '--clips', part('WalkerClips.glb'), '--clip', 'WalkForward (2)', '--time', '0.4'),
      runCliHere('pose', WALKER, '--clip', 'WalkForward', '--time', '0.4'),
    ]);
    expect(matrices(byIndex)).toEqual(matrices(own));
    expect(matrices(byName)).toEqual(matrices(own));
    const missing = await runCliHere('pose', WALKER, '--clips', part('WalkerClips.glb'), '--clip', '38');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--clip: no clip named or numbered '38' \(clips: 0 'Idle', .* 37 'Jump \(2\)'\)/);
  });

  it('inspect: --clips twice lists 38 clips with the file each came from; Mixamo-named clips bind to the body as a humanoid, with no name map (issue 39)', async () => {
    const report = JSON.parse(ok(await runCliHere('inspect', part('WalkerBody.glb'), '--clips', part('WalkerClips.glb'), '--clips', part('WalkerClips.glb'), '--json'))) as
      { clips: { name: string; from: string }[]; warnings: string[] };
    expect(report.clips).toHaveLength(38);
    expect(report.clips[0]).toMatchObject({ name: 'Idle', from: 'WalkerClips.glb' });
    expect(report.clips[19]).toMatchObject({ name: 'Idle (2)', from: 'WalkerClips.glb' });
    expect(report.warnings).toContain("clips file 'WalkerClips.glb': clip 'Idle' is also the name of an earlier clip of the library; this one is named 'Idle (2)'");
    const text = ok(await runCliHere('inspect', WALKER, '--clips', part('WalkerClips.glb')));
    expect(text).toMatch(/\n {2}0\s+Idle\s.*\sWalker\.glb\n/);
    expect(text).toMatch(/\n {2}19\s+Idle \(2\)\s.*\sWalkerClips\.glb\n/);
    const mixamo = JSON.parse(ok(await runCliHere('inspect', part('WalkerBody.glb'), '--clips', part('WalkerClipsMixamo.glb'), '--json'))) as { clips: { name: string; from: string }[] };
    expect(mixamo.clips.filter((c) => c.from === 'WalkerClipsMixamo.glb').length).toBeGreaterThan(0);
  });

  it('simulate: the Walker\'s body with its clips file runs the Walker\'s controller as the Walker does (cpu and gpu)', async () => {
    const script = join(dir, 'walk.json');
    writeFileSync(script, JSON.stringify([{ at: 0, speed: 1.5 }, { at: 0.5, move: [1, 1] }, { at: 1, speed: 0 }]));
    const config = part('Walker.controller.json');
    for (const backend of ['cpu', 'gpu']) {
      const [whole, parts] = await Promise.all([
        runCliHere('simulate', WALKER, '--script', script, '--fps', '20', '--backend', backend),
        runCliHere('simulate', part('WalkerBody.glb'), '--clips', part('WalkerClips.glb'), '--config', config, '--script', script, '--fps', '20', '--backend', backend),
      ]);
      if (backend === 'gpu' && /needs the `webgpu` package|no WebGPU adapter/i.test(parts.stderr)) continue;
      expect(ok(parts), backend).toBe(ok(whole));
    }
  });
});
