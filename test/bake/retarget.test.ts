import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRig } from '../../src/bake/build-rig';
import { attachClips, readClipFile, makeClipLibrary, type ClipLibrary } from '../../src/bake/clip-library';
import { parseGltf } from '../../src/bake/parse';
import type { Rig } from '../../src/bake/rig';
import { sampleClip } from '../../src/bake/sampler';
import { createPose, localToModel } from '../../src/math/pose';
import { A_POSE, LEGS_THIGH, WALKER_PARTS } from '../../tools/walker/build';
import { footSlide } from '../helpers/foot-slide';
import { JOINTS, bindFrames, type Quat4 } from '../../tools/walker/skeleton';
import { MIXAMO_NAMES, VROID_NAMES, VRM_BONES } from '../../tools/walker/variants';
import { arrayBufferOf } from '../helpers/gltf-builder';
import { BUNDLED_MODELS } from '../helpers/models';

/**
 * World-space humanoid retargeting (src/bake/retarget.ts) on the Walker's body variants
 * (tools/walker/variants.ts): the Walker's clips, bound with no options to a body renamed (VRoid
 * names with a VRM map, Mixamo names), with other local axes, an A-pose rest or an extra spine
 * joint, put every joint where it is on the Walker itself (within 1% of its height) and turn every
 * bone as it turns there (within 3 degrees), at 64 times through every clip, by the exact sampler.
 */

const WALKER = join(BUNDLED_MODELS, 'Walker');
const HEIGHT = 1.83;
const bytes = (name: string) => arrayBufferOf(readFileSync(join(WALKER, name)));
const rigOf = async (name: string): Promise<Rig> => buildRig(await parseGltf(bytes(name)));
const library = async (name: string): Promise<ClipLibrary> => {
  const warnings: string[] = [];
  return makeClipLibrary([readClipFile(await parseGltf(bytes(name)), name, warnings)], warnings);
};

/** Model matrices of every node of `rig` for clip `clip` at time t. */
function modelAt(rig: Rig, clip: number, t: number): Float64Array {
  const pose = createPose(rig.nodes.count);
  return localToModel(rig.nodes.parent, sampleClip(rig, clip, t, pose), new Float64Array(rig.nodes.count * 16));
}

/** Rotation part of a column-major matrix at node n as a row-major 3x3 (scale-free: the Walker's joints have none). */
const rotationOf = (m: Float64Array, n: number) => [0, 1, 2].map((r) => [0, 1, 2].map((c) => m[n * 16 + c * 4 + r]));
const quatMatrix = ([x, y, z, w]: Quat4) => [
  [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
];
const times3 = (a: number[][], b: number[][]) => a.map((row) => [0, 1, 2].map((c) => row[0] * b[0][c] + row[1] * b[1][c] + row[2] * b[2][c]));
const transpose = (a: number[][]) => [0, 1, 2].map((r) => [0, 1, 2].map((c) => a[c][r]));
/** Angle in degrees between two rotation matrices. */
const angle = (a: number[][], b: number[][]) => {
  const m = times3(transpose(a), b);
  return (Math.acos(Math.min(1, Math.max(-1, (m[0][0] + m[1][1] + m[2][2] - 1) / 2))) * 180) / Math.PI;
};

interface Worst { position: number; degrees: number; where: string }

/**
 * Worst joint distance (share of the height) and bone rotation (degrees) of `body` (file `name`,
 * its joints named by `names`) against the Walker, over every clip at 64 times. A bone's
 * rotation is its world rotation from its own rest, times the turn its rest makes from the
 * Walker's (the A-pose's arms), so that it compares with the Walker's own.
 */
function compare(walker: Rig, body: Rig, name: string, names: Readonly<Record<string, string>> = {}): Worst {
  const parts = WALKER_PARTS[name];
  const joints = parts.body?.joints ?? JOINTS;
  const frames = bindFrames(joints);
  const turns = parts.body?.boxTurns ?? joints.map((): Quat4 => [0, 0, 0, 1]);
  const worst: Worst = { position: 0, degrees: 0, where: '' };
  for (let clip = 0; clip < walker.clips.length; clip++) {
    const bodyClip = body.clips.findIndex((c) => c.name === walker.clips[clip].name);
    expect(bodyClip, walker.clips[clip].name).toBeGreaterThanOrEqual(0);
    const duration = walker.clips[clip].duration;
    for (let k = 0; k < 64; k++) {
      const t = (duration * k) / 64 + 0.003; // off the key grid: between keys too
      const w = modelAt(walker, clip, t);
      const b = modelAt(body, bodyClip, t);
      for (const joint of JOINTS) {
        const wn = walker.nodes.names.indexOf(joint.name);
        const bn = body.nodes.names.indexOf(names[joint.name] ?? joint.name);
        const d = Math.hypot(w[wn * 16 + 12] - b[bn * 16 + 12], w[wn * 16 + 13] - b[bn * 16 + 13], w[wn * 16 + 14] - b[bn * 16 + 14]) / HEIGHT;
        const j = joints.findIndex((x) => x.name === joint.name);
        const turned = times3(times3(rotationOf(b, bn), transpose(quatMatrix(frames.rotations[j]))), quatMatrix(turns[j]));
        const a = angle(rotationOf(w, wn), turned);
        if (d > worst.position) worst.position = d;
        if (a > worst.degrees) { worst.degrees = a; worst.where = `${walker.clips[clip].name} ${joint.name} t=${t.toFixed(3)}`; }
      }
    }
  }
  return worst;
}

describe('humanoid retargeting onto the Walker\'s body variants', { timeout: 120_000 }, async () => {
  const walker = await rigOf('WalkerBody.glb');
  attachClips(walker, [await library('WalkerClips.glb')]);
  const bodies: [string, Readonly<Record<string, string>>, string][] = [
    ['WalkerVRoid.glb', VROID_NAMES, 'VRoid names and a VRMC_vrm map, other local axes'],
    ['WalkerMixamo.glb', MIXAMO_NAMES, `Mixamo names without the prefix, an A-pose rest (arms ${(A_POSE * 180 / Math.PI).toFixed(0)} degrees out)`],
    ['WalkerSpine.glb', {}, 'an extra spine joint'],
    ['WalkerBack.glb', {}, 'facing -z, as VRM 0.x avatars do'],
  ];
  for (const clips of ['WalkerClips.glb', 'WalkerClipsMixamo.glb']) {
    for (const [name, names, what] of bodies) {
      it(`${clips} on ${name} (${what}): every joint within 1% of the height, every bone within 3 degrees of the Walker's`, async () => {
        const body = await rigOf(name);
        const [binding] = attachClips(body, [await library(clips)]);
        expect(binding.humanoid?.body).toBe(name === 'WalkerVRoid.glb' ? 'VRMC_vrm' : name === 'WalkerMixamo.glb' ? 'Mixamo' : 'crowd-skin');
        // What the binding reports (Character.clipBindings, the demo's clips scene): every Walker bone
        // mapped, the extra spine joint unmapped (spread over), no leg solved (legs in proportion).
        expect(binding.humanoid).toMatchObject({ file: 'crowd-skin', bones: 17, legs: 0 }); // WalkerClipsMixamo.glb: the Walker's names behind `mixamorig:`
        expect(binding.humanoid?.unmapped).toEqual(name === 'WalkerSpine.glb' ? ['Spine.001'] : []);
        // The body turns to face as the clips do: the comparison below is with the Walker's own pose.
        expect(binding.retargeted).toBe(true);
        const worst = compare(walker, body, name, names);
        console.log(`${clips} on ${name}: worst joint ${(100 * worst.position).toFixed(4)}% of the height, worst bone ${worst.degrees.toFixed(4)} degrees (${worst.where})`);
        expect(worst.position).toBeLessThanOrEqual(0.01);
        expect(worst.degrees).toBeLessThanOrEqual(3);
      });
    }
  }

  it('clips from a skeleton with the extra spine joint, on the Walker (one joint fewer): the chest turns as there, joints within 1%', async () => {
    // The clips as bound to WalkerSpine.glb, read back as a clips file of that skeleton.
    const spine = await rigOf('WalkerSpine.glb');
    attachClips(spine, [await library('WalkerClips.glb')]);
    const n = spine.nodes;
    const file = { name: 'spine-clips', names: [...n.names], parent: n.parent, restTranslation: n.restTranslation, restRotation: n.restRotation, restScale: n.restScale, clips: spine.clips, named: false };
    const { humanoidOf } = await import('../../src/bake/clip-library');
    const fromSpine = makeClipLibrary([{ ...file, humanoid: humanoidOf(undefined, (i) => i, file.names) }], []);
    const body = await rigOf('WalkerBody.glb');
    const [binding] = attachClips(body, [fromSpine]);
    expect(binding.humanoid).toEqual({ body: 'crowd-skin', file: 'crowd-skin', bones: 17, unmapped: [], legs: 0 });
    expect(body.warnings.join('\n')).toContain('(Spine.001)'); // animated there, absent here: folded into the chest's turn
    const worst = compare(walker, body, 'WalkerBody.glb');
    console.log(`WalkerSpine's clips on WalkerBody.glb: worst joint ${(100 * worst.position).toFixed(4)}% of the height, worst bone ${worst.degrees.toFixed(4)} degrees (${worst.where})`);
    expect(worst.position).toBeLessThanOrEqual(0.01);
    expect(worst.degrees).toBeLessThanOrEqual(3);
  });

  it(`the leg solve on WalkerLegs.glb (thigh ${LEGS_THIGH} m, shin ${(0.8 - LEGS_THIGH).toFixed(1)} m): planted feet slide at most 2% of walking speed, not without it`, async () => {
    const solved = await rigOf('WalkerLegs.glb');
    const [solvedBinding] = attachClips(solved, [await library('WalkerClipsMixamo.glb')]);
    const copied = await rigOf('WalkerLegs.glb');
    const [copiedBinding] = attachClips(copied, [await library('WalkerClipsMixamo.glb')], { legSolve: false });
    expect(solvedBinding.humanoid?.legs).toBe(2);
    expect(copiedBinding.humanoid?.legs).toBe(0);
    const feet = ['Foot.L', 'Foot.R'];
    const lines: string[] = [];
    for (const clip of ['WalkForward', 'WalkRight', 'RunForward']) {
      const index = (r: Rig) => r.clips.findIndex((c) => c.name === clip);
      const source = footSlide(walker, index(walker), feet, 'Hips');
      const on = footSlide(solved, index(solved), feet, 'Hips');
      const off = footSlide(copied, index(copied), feet, 'Hips');
      lines.push(`${clip}: Walker ${(100 * source.meanShare).toFixed(2)}% mean / ${(100 * source.worstShare).toFixed(2)}% worst; ` +
        `WalkerLegs with the leg solve ${(100 * on.meanShare).toFixed(2)}% / ${(100 * on.worstShare).toFixed(2)}%; without ${(100 * off.meanShare).toFixed(2)}% / ${(100 * off.worstShare).toFixed(2)}%`);
      expect(on.walkingSpeed).toBeCloseTo(source.walkingSpeed, 6);
      if (clip.startsWith('Walk')) expect(on.meanShare).toBeLessThanOrEqual(0.02);
      expect(on.meanShare).toBeLessThanOrEqual(source.meanShare * 1.1 + 1e-3);
      expect(off.meanShare).toBeGreaterThan(on.meanShare * 2);
    }
    console.log(lines.join('\n'));
  });

  it('the Walker\'s own body and clips bind as before: names and rests agree, so the values are copied (not retargeted)', async () => {
    const body = await rigOf('WalkerBody.glb');
    const [binding] = attachClips(body, [await library('WalkerClips.glb')]);
    expect(binding.retargeted).toBe(false);
    expect(binding.humanoid).toBeUndefined();
    expect(body.clips.map((c) => c.channels.length)).toEqual(walker.clips.map((c) => c.channels.length));
  });

  it('the VRM map is read from the file: every Walker joint\'s bone names the renamed node', async () => {
    const body = await rigOf('WalkerVRoid.glb');
    expect(body.humanoid?.source).toBe('VRMC_vrm');
    const { HUMAN_BONES } = await import('../../src/bake/vrm-humanoid');
    for (const [joint, bone] of Object.entries(VRM_BONES)) {
      expect(body.nodes.names[body.humanoid!.nodes[HUMAN_BONES.indexOf(bone as never)]]).toBe(VROID_NAMES[joint]);
    }
  });
});
