import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadCharacter } from '../../src/character/character';
import { createPose, localToModel } from '../../src/math/pose';
import { DIRECTION_NAMES, RUN, WALK, directionVector, gaitPeriod } from '../../tools/walker/clips';
import { buildWalkerGlb, WALKER_PARTS } from '../../tools/walker/build';
import { loadModel, modelPath, REPO_ROOT } from '../helpers/models';
import { sampleUnwrapped } from '../helpers/root-motion';

/**
 * The Walker generator (tools/make-walker.ts, tools/walker/): the committed model is exactly what
 * the generator writes, it loads without a warning with the listed clips, and its gaits walk:
 * planted feet stay put while the hips travel, and the swinging foot steps along the gait's
 * direction.
 */

const CLIPS = [
  'Idle',
  ...DIRECTION_NAMES.map((d) => `Walk${d}`),
  ...DIRECTION_NAMES.map((d) => `Run${d}`),
  'Wave', 'Jump',
];
const COMMITTED = modelPath('Walker');

describe('make-walker', () => {
  it('writes the committed Walker.glb byte for byte, every time (CLI and in process)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'walker-'));
    try {
      const out = join(dir, 'Walker.glb');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', './tools/register.mjs', 'tools/make-walker.ts', '--out', out], { cwd: REPO_ROOT });
      expect(stdout).toMatch(/^wrote .*Walker\.glb \(\d+ bytes\)/);
      const committed = readFileSync(COMMITTED);
      const fresh = readFileSync(out);
      expect(fresh.equals(committed), 'public/models/Walker/Walker.glb is not what tools/make-walker.ts writes: run `npm run make-walker` and commit it').toBe(true);
      expect(Buffer.from(await buildWalkerGlb()).equals(committed)).toBe(true);
      // And its parts beside it, for clips kept apart from bodies (docs/clips.md).
      for (const name of Object.keys(WALKER_PARTS)) {
        const partCommitted = readFileSync(join(dirname(COMMITTED), name));
        expect(readFileSync(join(dir, name)).equals(partCommitted), `public/models/Walker/${name} is not what tools/make-walker.ts writes: run \`npm run make-walker\``).toBe(true);
      }
      expect(committed.byteLength).toBeLessThan(200_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('rejects an unknown option', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', './tools/register.mjs', 'tools/make-walker.ts', '--outfile', 'x.glb'], { cwd: REPO_ROOT });
    await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/make-walker: unknown option --outfile \(known: --out\)/) });
  }, 60_000);
});

describe('the Walker model', () => {
  it('loads without warnings: 17 joints in one skin, two primitives, the listed clips and durations', async () => {
    const bytes = readFileSync(COMMITTED);
    const c = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    expect(c.warnings).toEqual([]);
    expect(c.clipNames).toEqual(CLIPS);
    expect(c.rig.skins.map((s) => s.jointNames.length)).toEqual([17]);
    expect(c.rig.primitives.map((p) => p.material.baseColorFactor.slice(0, 3).map((v) => +v.toFixed(2)))).toEqual([[0.55, 0.62, 0.7], [0.9, 0.35, 0.1]]);
    expect(c.bounds.max[1] - c.bounds.min[1]).toBeCloseTo(1.83, 2);
    DIRECTION_NAMES.forEach((d, k) => {
      expect(c.clipDurations[c.clipIndex(`Walk${d}`)]).toBeCloseTo(gaitPeriod(WALK, directionVector(k)), 6);
      expect(c.clipDurations[c.clipIndex(`Run${d}`)]).toBeCloseTo(gaitPeriod(RUN, directionVector(k)), 6);
    });
    expect([...c.clipDurations.slice(0, 1), ...c.clipDurations.slice(17)].map((d) => +d.toFixed(3))).toEqual([3, 2.4, 1.3]);
  });

  it('gaits walk: a foot on the ground stays put (under 1 cm) while the hips travel, and steps along the gait\'s direction', async () => {
    const { rig } = await loadModel('Walker');
    const pose = createPose(rig.nodes.count);
    const model = new Float64Array(rig.nodes.count * 16);
    const at = (clip: number, t: number, node: number) => {
      localToModel(rig.nodes.parent, sampleUnwrapped(rig, clip, t, pose), model);
      return [model[node * 16 + 12], model[node * 16 + 13], model[node * 16 + 14]];
    };
    const foot = rig.nodes.names.indexOf('Foot.L');
    for (const [prefix, gait] of [['Walk', WALK], ['Run', RUN]] as const) {
      DIRECTION_NAMES.forEach((name, k) => {
        const clip = rig.clips.findIndex((c) => c.name === `${prefix}${name}`);
        const period = gaitPeriod(gait, directionVector(k));
        // The left foot touches down at t = 0 and stays down for the stance fraction of the cycle.
        const down = at(clip, 0, foot);
        let slide = 0;
        for (let s = 1; s <= 20; s++) {
          const p = at(clip, (gait.stance * period * s) / 20, foot);
          slide = Math.max(slide, Math.hypot(p[0] - down[0], p[1] - down[1], p[2] - down[2]));
        }
        expect(slide, `${prefix}${name}`).toBeLessThan(0.01);
        // From lift-off to the next touch-down (one cycle after the last) it moves one stride along the direction.
        const lifted = at(clip, gait.stance * period, foot);
        const [dx, , dz] = directionVector(k);
        const next = [down[0] + gait.speed * period * dx, down[2] + gait.speed * period * dz];
        expect(Math.hypot(next[0] - lifted[0], next[1] - lifted[2]) / (gait.speed * period), `${prefix}${name} stride`).toBeCloseTo(1, 1);
        expect(((next[0] - lifted[0]) * dx + (next[1] - lifted[2]) * dz) / (gait.speed * period), `${prefix}${name} stride direction`).toBeGreaterThan(0.9);
      });
    }
  });
});
