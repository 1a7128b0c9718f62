import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { dracoCompressed, meshoptCompressed } from '../helpers/compress';
import { modelPath } from '../helpers/models';

/**
 * The CLI hands in every decoder itself (tools/node-decoders.ts): `pose` reads a compressed copy
 * of Fox with no flag and prints the positions of the original within the quantization's error.
 */
const dir = mkdtempSync(join(tmpdir(), 'crowd-skin-decoders-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function positions(file: string, clip = 'Run', stride = '7'): Promise<number[][]> {
  const run = await runCli('pose', file, '--clip', clip, '--time', '0.3', '--positions', '--stride', stride);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return (JSON.parse(run.stdout) as { positions: number[][] }).positions;
}

describe('tools/node-decoders: the CLI reads compressed files with no flag', () => {
  it('pose on Fox with EXT_meshopt_compression (required) and KHR_mesh_quantization: the original positions within 1e-3 of its size', async () => {
    const file = join(dir, 'fox-meshopt.glb');
    writeFileSync(file, new Uint8Array(await meshoptCompressed(modelPath('Fox'))));
    const [before, after] = await Promise.all([positions(modelPath('Fox')), positions(file)]);
    expect(after.length).toBe(before.length);
    const extent = [0, 1, 2].map((c) => Math.max(...before.map((p) => p[c])) - Math.min(...before.map((p) => p[c])));
    const size = Math.hypot(...extent);
    const worst = Math.max(...before.map((p, i) => Math.hypot(p[0] - after[i][0], p[1] - after[i][1], p[2] - after[i][2])));
    expect(worst / size).toBeLessThan(1e-3);
  });

  it('pose on CesiumMan with KHR_draco_mesh_compression (required; draco3dgltf loaded on demand): every position within 1e-3 of its size of an original one', async () => {
    const file = join(dir, 'cesium-draco.glb');
    writeFileSync(file, new Uint8Array(await dracoCompressed(modelPath('CesiumMan'))));
    const [before, after] = await Promise.all([positions(modelPath('CesiumMan'), '0', '1'), positions(file, '0', '3')]);
    const extent = [0, 1, 2].map((c) => Math.max(...before.map((p) => p[c])) - Math.min(...before.map((p) => p[c])));
    const size = Math.hypot(...extent);
    const worst = Math.max(...after.map((p) => Math.min(...before.map((q) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2])))));
    expect(after.length).toBeGreaterThan(300);
    expect(worst / size).toBeLessThan(1e-3);
  });
});
