import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bake, TRACK_NONE } from '../../src/bake/bake';
import { buildRig } from '../../src/bake/build-rig';
import { bakeRootMotion, extractRootMotion, rootMotionJoint, type BakedRootMotion, type RootMotionOptions } from '../../src/bake/root-motion';
import type { Rig } from '../../src/bake/rig';
import { loadCharacter } from '../../src/character/character';
import { quatMulAt } from '../../src/math/quat';
import { skinnedModel } from '../helpers/gltf-builder';
import { modelPath } from '../helpers/models';
import { createPose } from '../../src/math/pose';
import { armatureRig, entryPose, rootMotionErrors, type RootClip } from '../helpers/root-motion';

/**
 * Root motion at load time (src/bake/root-motion.ts): every invalid option named; the root-motion
 * joint standing still horizontally in every baked frame; the track plus the in-place clip giving
 * back the original clip frame by frame (hand-built rigs of every interpolation, the Walker,
 * CesiumMan); the per-clip data (cycle, speed, track layout).
 */

const load = (name: string, rootMotion?: RootMotionOptions) => {
  const bytes = readFileSync(modelPath(name));
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, rootMotion ? { rootMotion } : {});
};

/** Bake `rig` with root motion taken out; its size for tolerances is `size`. */
function extractAndBake(rig: Rig, options: RootMotionOptions) {
  const x = extractRootMotion(rig, options);
  const baked = bake(x.rig);
  return { x, baked, motion: bakeRootMotion(x, baked) };
}

/** Quaternion of `angle` about a unit axis. */
const axisAngle = (axis: number[], angle: number) => [...axis.map((v) => v * Math.sin(angle / 2)), Math.cos(angle / 2)];
const mul = (a: number[], b: number[]) => { const out = new Float64Array(4); quatMulAt(a, 0, false, b, 0, out, 0); return Array.from(out); };

/** Model-space root path of the turning clip: a circle of radius 0.5 m, heading along it. */
const TURN_TIMES = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2];
const turnAngle = (t: number) => (Math.PI / 2) * t; // 180 degrees over 2 s
const turnTranslation = (t: number) => {
  const a = turnAngle(t);
  const [x, y, z] = [0.5 * (1 - Math.cos(a)), 0.9 + 0.02 * Math.sin(4 * a), 0.5 * Math.sin(a)];
  return [100 * x, -100 * z, 100 * y]; // model -> armature local (cm, z up)
};
/** The root's rotation: about model +y (local z under the armature) by the turn angle, over a fixed 0.2 rad tilt. */
const turnRotation = (t: number) => mul(axisAngle([0, 0, 1], turnAngle(t)), axisAngle([1, 0, 0], 0.2));

const CLIPS: RootClip[] = [
  // Forward 1.5 m (local -y) in 1 s with a sway (local x) and a bob (local z).
  { name: 'Walk', interpolation: 'LINEAR', times: [0, 0.25, 0.5, 0.75, 1], translation: [0, 0, 90, 2, -37.5, 87, 0, -75, 90, -2, -112.5, 87, 0, -150, 90] },
  { name: 'Shuffle', interpolation: 'STEP', times: [0, 0.25, 0.5, 0.75, 1], translation: [0, 0, 90, 2, -37.5, 87, 0, -75, 90, -2, -112.5, 87, 0, -150, 90] },
  // in-tangent, value, out-tangent per key (cm per second).
  { name: 'Glide', interpolation: 'CUBICSPLINE', times: [0, 0.5, 1], translation: [0, -100, 0, 0, 0, 90, 0, -100, 0, 10, -120, 0, 5, -50, 95, 10, -80, 0, 0, -100, 0, 0, -100, 90, 0, -100, 0] },
  { name: 'Turn', interpolation: 'LINEAR', times: TURN_TIMES, translation: TURN_TIMES.flatMap(turnTranslation), rotation: TURN_TIMES.flatMap(turnRotation) },
];

describe('rootMotion validity', () => {
  const rig = buildRig(armatureRig(CLIPS));

  it('rejects every bad option with a message naming the field', () => {
    const bad: [unknown, RegExp][] = [
      [null, /rootMotion must be an object/],
      ['in-place', /rootMotion must be an object/],
      [{ mode: 'in-place', joints: 'Root' }, /rootMotion: unknown field "joints" \(fields: joint, mode, yaw, translation\)/],
      [{}, /rootMotion.mode must be 'in-place' or 'apply', got undefined/],
      [{ mode: 'inplace' }, /rootMotion.mode must be 'in-place' or 'apply', got "inplace"/],
      [{ mode: 'apply', yaw: 1 }, /rootMotion.yaw must be true or false, got 1/],
      [{ mode: 'in-place', joint: 3 }, /rootMotion.joint must be a node name, got 3/],
      [{ mode: 'apply', translation: 'mean' }, /rootMotion.translation must be 'all' or 'mean-velocity', got "mean"/],
      [{ mode: 'apply', translation: 'mean-velocity', yaw: true }, /rootMotion.translation 'mean-velocity' cannot go with rootMotion.yaw: true/],
      [{ mode: 'in-place', joint: 'Hips' }, /rootMotion.joint: no joint or node named "Hips" \(joints: Root, Foot\)/],
    ];
    for (const [options, message] of bad) expect(() => extractRootMotion(rig, options as RootMotionOptions), JSON.stringify(options)).toThrow(message);
  });

  it('rejects a joint whose ancestor a clip animates, naming the clip and the ancestor', () => {
    const moved = buildRig(armatureRig([...CLIPS, { name: 'Carried', interpolation: 'LINEAR', times: [0, 1], armature: [0, 0, 0, 0, 1, 0] }]));
    expect(() => extractRootMotion(moved, { mode: 'in-place' })).toThrow(/rootMotion.joint "Root": clip "Carried" animates its ancestor "Armature"/);
    // Naming the armature node itself (a node, not a joint) is allowed: it is the topmost mover.
    expect(rootMotionJoint(moved, 'Armature')).toBe(0);
  });

  it('yaw needs uniform scale on the ancestors; the default joint needs a skin with one root joint', () => {
    const asset = armatureRig(CLIPS);
    asset.json.nodes![0].scale = [0.01, 0.02, 0.01];
    expect(() => extractRootMotion(buildRig(asset), { mode: 'in-place', yaw: true })).toThrow(/rootMotion.yaw: ancestor "Armature" of "Root" has scale \(0.01, 0.02, 0.01\)/);
    expect(() => extractRootMotion(buildRig(asset), { mode: 'in-place' })).not.toThrow();
    const twoRoots = skinnedModel();
    twoRoots.json.nodes[0].children = [];
    twoRoots.json.scenes = [{ nodes: [0, 1, 2] }];
    expect(() => rootMotionJoint(buildRig(twoRoots.builder.build()))).toThrow(/skin 0 has 2 root joints \(root, arm\); name one in rootMotion.joint/);
  });

  it('loadCharacter rejects a bad rootMotion before baking anything', async () => {
    await expect(load('Walker', { mode: 'walk' as never })).rejects.toThrow(/rootMotion.mode must be 'in-place' or 'apply'/);
    await expect(load('Walker', { mode: 'in-place', joint: 'Pelvis' })).rejects.toThrow(/no joint or node named "Pelvis"/);
  });
});

describe('clips in place', () => {
  it('hand-built rigs (STEP, LINEAR, CUBICSPLINE translation; a turn with yaw): the joint stands still in x, z and track + in-place = original', () => {
    const rig = buildRig(armatureRig(CLIPS));
    const { x, baked, motion } = extractAndBake(rig, { mode: 'in-place', yaw: true });
    expect(motion.jointName).toBe('Root');
    const { reconstruction, drift } = rootMotionErrors(rig, baked, motion);
    console.log(`armature rig, yaw: reconstruction ${reconstruction.toExponential(2)} m, drift ${drift.toExponential(2)} m`);
    expect(drift).toBeLessThan(1e-6);
    expect(reconstruction).toBeLessThan(1e-5); // metres; the rig is ~1 m
    // Only the root's channels changed; the rig handed in is untouched.
    x.rig.clips.forEach((clip, c) => clip.channels.forEach((ch, k) => {
      expect(ch.times).toBe(rig.clips[c].channels[k].times);
      expect(ch.values === rig.clips[c].channels[k].values).toBe(ch.node !== x.joint);
    }));
    expect(Array.from(rig.clips[0].channels[0].values.subarray(12, 15))).toEqual([0, -150, 90]);
  });

  it('without yaw a turning clip keeps its turn (only x, z come out); the track yaw is 0', () => {
    const rig = buildRig(armatureRig(CLIPS));
    const { baked, motion } = extractAndBake(rig, { mode: 'in-place' });
    expect(Math.max(...Array.from(motion.track).filter((_, i) => i % 4 === 3).map(Math.abs))).toBe(0);
    const { reconstruction, drift } = rootMotionErrors(rig, baked, motion);
    expect(drift).toBeLessThan(1e-6);
    expect(reconstruction).toBeLessThan(1e-5);
  });

  it('a CUBICSPLINE turn with yaw: tangents are turned too (with the yaw rate), so the in-place clip holds still between keys', () => {
    const times = [0, 1, 2];
    // d/dt of (about z by a(t)) * tilt is a'/2 (0, 0, 1, 0) * q, with a' = pi/2 per second.
    const tangent = (t: number) => mul([0, 0, Math.PI / 4, 0], turnRotation(t));
    const rotation = times.flatMap((t) => [...tangent(t), ...turnRotation(t), ...tangent(t)]);
    const rig = buildRig(armatureRig([{ name: 'TurnCubic', interpolation: 'CUBICSPLINE', times, rotation }]));
    const { baked, motion } = extractAndBake(rig, { mode: 'in-place', yaw: true });
    const { reconstruction } = rootMotionErrors(rig, baked, motion);
    console.log(`CUBICSPLINE turn with yaw: reconstruction ${reconstruction.toExponential(2)} m`);
    expect(motion.cycle[3]).toBeCloseTo(Math.PI, 6);
    // Every key and tangent is a turn about +y times the tilt, so the spline stays such a turn and
    // the in-place clip is the tilt alone: exact to float32 (tangents left unturned are off by cm).
    expect(reconstruction).toBeLessThan(1e-6);
  });

  for (const [name, yaw, tolerance] of [['Walker', false, 1e-6], ['Walker', true, 1e-5], ['CesiumMan', false, 1e-6], ['CesiumMan', true, 1e-5]] as const) {
    it(`${name}${yaw ? ' with yaw' : ''}: still in x, z in every baked frame; track + in-place = original within ${tolerance} of its size`, async () => {
      const original = await load(name);
      const character = await load(name, { mode: 'in-place', yaw });
      const motion = character.baked.rootMotion!;
      const size = Math.hypot(...character.bounds.max.map((v, c) => v - character.bounds.min[c]));
      const { reconstruction, drift } = rootMotionErrors(original.rig, character.baked, motion);
      console.log(`${name} yaw ${yaw}: reconstruction ${(reconstruction / size).toExponential(2)} of ${size.toFixed(2)} m, drift ${(drift / size).toExponential(2)}`);
      expect(drift / size).toBeLessThan(1e-6);
      expect(reconstruction / size).toBeLessThan(tolerance);
    });
  }
});

describe("translation: 'mean-velocity'", () => {
  /** The worst distance between M(t) at each entry and the cycle's travel x t / d (a linear track?), and the biggest in-place sway. */
  const linearity = (motion: BakedRootMotion) => {
    let worst = 0;
    motion.trackOffsets.forEach((offset, c) => {
      const entries = motion.clipEntries[c];
      for (let e = 0; e < entries; e++) {
        const o = (offset + e) * 4, f = e / (entries - 1);
        worst = Math.max(worst, Math.hypot(motion.track[o] - motion.cycle[c * 4] * f, motion.track[o + 2] - motion.cycle[c * 4 + 2] * f), Math.abs(motion.track[o + 3]));
      }
    });
    return worst;
  };

  it('hand-built rigs (LINEAR, CUBICSPLINE): the track is linear, the joint keeps its sway, track + in-place = original; STEP leads by at most speed x key interval', () => {
    const clips = CLIPS.filter((c) => c.name !== 'Turn');
    const rig = buildRig(armatureRig(clips));
    const { baked, motion } = extractAndBake(rig, { mode: 'apply', translation: 'mean-velocity' });
    const all = extractAndBake(rig, { mode: 'apply' }).motion;
    expect(motion.translation).toBe('mean-velocity');
    expect(all.translation).toBe('all');
    expect(Array.from(motion.cycle)).toEqual(Array.from(all.cycle));
    expect(Array.from(motion.speed)).toEqual(Array.from(all.speed));
    expect(linearity(motion)).toBeLessThan(1e-6);
    const exact = buildRig(armatureRig(clips.filter((c) => c.interpolation !== 'STEP')));
    const fit = extractAndBake(exact, { mode: 'apply', translation: 'mean-velocity' });
    const { reconstruction, drift } = rootMotionErrors(exact, fit.baked, fit.motion);
    console.log(`armature rig, mean-velocity: reconstruction ${reconstruction.toExponential(2)} m, sway kept ${drift.toFixed(4)} m`);
    expect(reconstruction).toBeLessThan(1e-6);
    expect(drift).toBeGreaterThan(0.019); // the Walk's 2 cm sideways sway (and the Glide's surge) stay in the clip
    // STEP: the in-place key is held while M moves on (the file comment's limit): 1.5 m/s x 0.25 s at most.
    const step = rootMotionErrors(rig, baked, motion).reconstruction;
    expect(step).toBeGreaterThan(0.01);
    expect(step).toBeLessThanOrEqual(1.5 * 0.25 + 1e-6);
  });

  it('Walker: track + in-place = original within 1e-6 of its size, the hips keep their sway, and end each clip where they began in x, z', async () => {
    const original = await load('Walker');
    const character = await load('Walker', { mode: 'apply', translation: 'mean-velocity' });
    const motion = character.baked.rootMotion!;
    const size = Math.hypot(...character.bounds.max.map((v, c) => v - character.bounds.min[c]));
    const { reconstruction, drift } = rootMotionErrors(original.rig, character.baked, motion);
    console.log(`Walker mean-velocity: reconstruction ${(reconstruction / size).toExponential(2)} of ${size.toFixed(2)} m, hips sway ${drift.toFixed(4)} m`);
    expect(reconstruction / size).toBeLessThan(1e-6);
    expect(drift).toBeGreaterThan(0.01);
    expect(linearity(motion)).toBeLessThan(1e-5);
    // The Hips are a scene root (local = model space): horizontally where they began, so loops are seamless.
    expect(motion.joint).toBe(0);
    const stored = createPose(character.rig.nodes.count);
    for (let c = 0; c < character.clipNames.length; c++) {
      const [x0, , z0] = entryPose(character.baked, c, 0, stored).translation;
      const [x1, , z1] = entryPose(character.baked, c, character.baked.clipEntries[c] - 1, stored).translation;
      expect(Math.hypot(x1 - x0, z1 - z0), character.clipNames[c]).toBeLessThan(1e-6 * size);
    }
  });
});

describe('baked root motion', () => {
  it('layout: a track per file clip on its entries, cycle = last entry, speed = |cycle| / duration; none for difference clips', async () => {
    const bytes = readFileSync(modelPath('Walker'));
    const c = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, {
      rootMotion: { mode: 'in-place' }, additiveClips: [{ clip: 'RunForward', reference: { clip: 'RunForward', time: 0 } }],
    });
    const m = c.baked.rootMotion!;
    expect(c.rootMotion).toBe(m);
    expect(m).toMatchObject({ jointName: 'Hips', joint: 0, mode: 'in-place', yaw: false, translation: 'all' });
    expect(c.warnings).toEqual([]);
    const files = c.clipNames.length - 1;
    let offset = 0;
    for (let clip = 0; clip < files; clip++) {
      expect(m.trackOffsets[clip]).toBe(offset);
      expect(Array.from(m.track.subarray(offset * 4, offset * 4 + 4))).toEqual([0, 0, 0, 0]);
      offset += c.baked.clipEntries[clip];
      expect(Array.from(m.cycle.subarray(clip * 4, clip * 4 + 4))).toEqual(Array.from(m.track.subarray((offset - 1) * 4, offset * 4)));
      expect(m.speed[clip]).toBeCloseTo(Math.hypot(m.cycle[clip * 4], m.cycle[clip * 4 + 2]) / c.clipDurations[clip], 6);
    }
    expect(m.track.length).toBe(offset * 4);
    expect(m.trackOffsets[files]).toBe(TRACK_NONE);
    expect(Array.from(m.cycle.subarray(files * 4))).toEqual([0, 0, 0, 0]);
    expect(m.speed[files]).toBe(0);
  });

  it('the Walker\'s gaits travel at their speed along their direction (walks 1.2 m/s, runs 2.4); Idle, Wave and Jump stay put', async () => {
    const c = await load('Walker', { mode: 'in-place' });
    const m = c.baked.rootMotion!;
    const directions: Record<string, [number, number]> = {
      Forward: [0, 1], ForwardRight: [-Math.SQRT1_2, Math.SQRT1_2], Right: [-1, 0], BackRight: [-Math.SQRT1_2, -Math.SQRT1_2],
      Back: [0, -1], BackLeft: [Math.SQRT1_2, -Math.SQRT1_2], Left: [1, 0], ForwardLeft: [Math.SQRT1_2, Math.SQRT1_2],
    };
    c.clipNames.forEach((name, clip) => {
      const gait = /^(Walk|Run)(.*)$/.exec(name);
      const [x, , z] = m.cycle.subarray(clip * 4, clip * 4 + 3);
      if (!gait) {
        expect(m.speed[clip], name).toBeLessThan(1e-6);
        return;
      }
      expect(m.speed[clip], name).toBeCloseTo(gait[1] === 'Walk' ? 1.2 : 2.4, 5);
      const [dx, dz] = directions[gait[2]];
      expect((x * dx + z * dz) / Math.hypot(x, z), name).toBeCloseTo(1, 9);
    });
  });

  it('CesiumMan\'s clip walks on the spot: its root sways up to 1 cm sideways and ends where it began', async () => {
    const m = (await load('CesiumMan', { mode: 'in-place' })).baked.rootMotion!;
    expect(m.jointName).toBe('Skeleton_torso_joint_1');
    const sway = Math.max(...Array.from(m.track).filter((_, i) => i % 4 === 0).map(Math.abs));
    expect(sway).toBeGreaterThan(0.009);
    expect(sway).toBeLessThan(0.011);
    expect(m.speed[0]).toBeLessThan(1e-3);
  });

  it('"apply" bakes the same data as "in-place", without warnings', async () => {
    const inPlace = await load('Walker', { mode: 'in-place' });
    const apply = await load('Walker', { mode: 'apply' });
    expect(apply.baked.rootMotion!.mode).toBe('apply');
    // Byte comparisons: toEqual on a million floats takes seconds.
    const bytes = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(bytes(apply.baked.rootMotion!.track).equals(bytes(inPlace.baked.rootMotion!.track))).toBe(true);
    expect(bytes(apply.baked.tracks).equals(bytes(inPlace.baked.tracks))).toBe(true);
    expect(apply.warnings).toEqual(inPlace.warnings);
    const plain = await load('Walker');
    expect(plain.baked.rootMotion).toBeUndefined();
    expect(plain.rootMotion).toBeNull();
  });
});
