import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Inspection } from '../../tools/inspect';
import { runCli, type Run } from '../helpers/cli';
import { skinnedModel } from '../helpers/gltf-builder';
import { loadModel, modelPath } from '../helpers/models';

/**
 * `crowd-skin inspect`, run as a child process from source (as `npm run crowd-skin -- inspect`).
 * A hand-made .gltf with an external .bin checks every number against values worked out by
 * hand; Fox checks the human report and agreement with the loader. Runs are concurrent.
 */
const inspect = (...args: string[]): Promise<Run> => runCli('inspect', ...args);

function json(run: Run): Inspection {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Inspection;
}

const dir = mkdtempSync(join(tmpdir(), 'inspect-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * skinnedModel (two joints root -> arm, one triangle, clip 'wave' rotating arm with keys at 0
 * and 1 s) as model.gltf + model.bin, with vertex 0's weights summing to 0.5 (a loader warning).
 */
function writeHandModel(): string {
  const model = skinnedModel();
  const asset = model.builder.build();
  const bin = asset.buffers[0].slice();
  const weightsView = asset.json.bufferViews![asset.json.accessors![model.acc.weights].bufferView!];
  new Float32Array(bin.buffer, weightsView.byteOffset! + bin.byteOffset, 1)[0] = 0.5;
  const gltf = { ...asset.json, buffers: [{ uri: 'model.bin', byteLength: bin.byteLength }] };
  writeFileSync(join(dir, 'model.bin'), bin);
  writeFileSync(join(dir, 'model.gltf'), JSON.stringify(gltf));
  return join(dir, 'model.gltf');
}

describe.concurrent('inspect CLI', () => {
  it('--json on a hand-made .gltf with an external buffer: every field as worked out by hand', async ({ expect }) => {
    const r = json(await inspect(writeHandModel(), '--json'));
    expect(r.file).toBe('model.gltf');
    expect(r.clips).toHaveLength(1);
    expect(r.clips[0]).toMatchObject({ index: 0, name: 'wave', duration: 1, channels: 1, keys: 2 });
    expect(r.skins).toEqual([{ index: 0, name: expect.any(String), fromFile: true, joints: [{ name: 'root', parent: null }, { name: 'arm', parent: 'root' }] }]);
    expect(r.nodes).toEqual([{ name: 'root', parent: -1, joint: true }, { name: 'arm', parent: 0, joint: true }]);
    // Vertex 0 on joint 0 only, vertex 1 on joint 1 only, vertex 2 half and half.
    expect(r.primitives).toEqual([{
      node: 2, mesh: 0, primitive: 0, skin: 0, vertices: 3, triangles: 1, normals: false, uvs: false, texture: null,
      influences: { stored: 4, max: 2, mean: 4 / 3, histogram: [2, 1, 0, 0] },
    }]);
    // One animated track (arm rotation) of `entries` vec4f; refs: 1 clip x 2 nodes x 3 paths x u32; rest: 2 nodes x 3 vec4f.
    const entries = r.clips[0].entriesPerTrack;
    expect(r.baked).toEqual({ bytes: entries * 16 + 24 + 96, tracks: 1, trackBytes: entries * 16, trackRefBytes: 24, restBytes: 96 });
    // At rest both joints' skinning matrices are the identity: the bind-pose triangle itself.
    expect(r.bounds).toEqual({ min: [0, 0, 0], max: [1, 2, 0], size: [1, 2, 0] });
    expect(r.perInstance).toEqual({ jointMatrices: 2, jointMatrixBytes: 96, workgroupBytes: 128 });
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/1 vertices had weights not summing to 1; renormalised/);
  });

  it('the human report of Fox: every section, clips and joints as the loader has them', async ({ expect }) => {
    const [run, { rig }] = await Promise.all([inspect(modelPath('Fox')), loadModel('Fox')]);
    expect(run.code, run.stderr).toBe(0);
    const text = run.stdout;
    for (const heading of ['clips (3)', 'skins (1)', 'nodes (25, parent-first; * marks a joint)', 'primitives (1)', 'baked tables', 'rest-pose bounds (model units)', 'per instance in a crowd', 'warnings (0)']) {
      expect(text).toContain(`\n${heading}\n`);
    }
    for (const [i, clip] of rig.clips.entries()) expect(text).toMatch(new RegExp(`\\n  ${i}\\s+${clip.name}\\s+${clip.duration.toFixed(3)}\\s`));
    // The tree: b_Head_05 sits under b_Neck_04, one level deeper.
    const neck = text.split('\n').find((l) => l.endsWith('* b_Neck_04'))!;
    const head = text.split('\n').find((l) => l.endsWith('* b_Head_05'))!;
    expect(head.indexOf('*')).toBe(neck.indexOf('*') + 2);
    expect(text).toMatch(/\n  24 joint matrices: 1,152 bytes \(1\.1 KiB\) of joint buffer/);
    expect(text).toMatch(/\n  1 +0 +0 +0 +1728 +576 +4\/4\/1\.58 +772 917 33 6 +no +yes +image\/png\n/);
  });

  it('--json of Fox agrees with the loader: clips, joints, vertices, influences summing to the vertex count', async ({ expect }) => {
    const [r, { rig }] = await Promise.all([inspect('--model', modelPath('Fox'), '--json').then(json), loadModel('Fox')]);
    expect(r.clips.map((c) => [c.name, c.duration])).toEqual(rig.clips.map((c) => [c.name, Math.fround(c.duration)]));
    expect(r.skins[0].joints.map((j) => j.name)).toEqual(rig.skins[0].jointNames);
    expect(r.primitives.map((p) => p.vertices)).toEqual(rig.primitives.map((p) => p.vertexCount));
    for (const p of r.primitives) expect(p.influences.histogram.reduce((a, b) => a + b, 0)).toBe(p.vertices);
    for (let c = 0; c < 3; c++) expect(r.bounds.max[c]).toBeGreaterThan(r.bounds.min[c]);
    expect(r.humanoid).toBeNull(); // a fox: clips files bind to it by node name
  });

  it('the humanoid map, bone by bone, and the joints it leaves unmapped (the Walker with an extra spine joint, its clips in Mixamo names)', async ({ expect }) => {
    const walker = join(dirname(modelPath('Walker')), 'WalkerSpine.glb');
    const r = json(await inspect(walker, '--clips', join(dirname(modelPath('Walker')), 'WalkerClipsMixamo.glb'), '--json'));
    expect(r.humanoid!.source).toBe('crowd-skin');
    expect(r.humanoid!.bones).toHaveLength(17);
    expect(r.humanoid!.bones.slice(0, 3)).toEqual([{ bone: 'hips', node: 'Hips' }, { bone: 'spine', node: 'Spine' }, { bone: 'chest', node: 'Chest' }]);
    expect(r.humanoid!.unmapped).toEqual(['Spine.001']);
    expect(r.clipFiles).toEqual([{ file: 'WalkerClipsMixamo.glb', humanoid: 'crowd-skin', bones: 17, nameMap: false }]);
    expect(r.warnings).toEqual([]);
  });

  it('a missing file, a file that is not glTF, no model and an unknown option exit 1 naming the problem', async ({ expect }) => {
    const notGltf = join(dir, 'not-a-model.glb');
    writeFileSync(notGltf, 'hello');
    const [missing, broken, none, unknown] = await Promise.all([
      inspect(join(dir, 'nothing-here.glb')), inspect(notGltf), inspect(), inspect(modelPath('Fox'), '--tables'),
    ]);
    for (const run of [missing, broken, none, unknown]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
    }
    expect(missing.stderr).toMatch(/^inspect: cannot read .*nothing-here\.glb: ENOENT/);
    expect(broken.stderr).toMatch(/^inspect: \S/);
    expect(none.stderr).toMatch(/^inspect: a model path is required/);
    expect(unknown.stderr).toMatch(/^inspect: unknown option --tables \(known: --model --clips --json\)/);
  });
});
