import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createBlendWeights } from '../../../src/anim/blend-weights';
import { parseControllerConfig } from '../../../src/anim/control/config';
import { AnimationController, ControllerRuntime } from '../../../src/anim/control/controller';
import { directionalBlendSpace } from '../../../src/anim/control/directional-space';
import { parseScript, simulate, type SimulationFrame } from '../../../src/anim/control/simulate';
import { CLIP_NAMES, clipShares, durationOf, syntheticRuntime } from '../../helpers/control';
import { BUNDLED_MODELS, loadModel } from '../../helpers/models';

/**
 * The 2D locomotion blend (src/anim/control/directional-space.ts, blendSpace "2d") and facing:
 * where the clip sets sit, which clips a velocity relative to the heading blends, and a Walker
 * controller strafing and backpedalling through its directional clips.
 */

const walkerRuntime = async (): Promise<ControllerRuntime> => {
  const clips = (await loadModel('Walker')).rig.clips;
  const json: unknown = JSON.parse(readFileSync(`${BUNDLED_MODELS}/Walker/Walker.controller.json`, 'utf8'));
  return new ControllerRuntime(parseControllerConfig(json, clips.map((c) => c.name)), clips.map((c) => c.duration));
};

/** Clip shares of a frame, to 6 digits, without zero entries. */
function shares(frame: SimulationFrame): Record<string, number> {
  return Object.fromEntries(Object.entries(clipShares(frame)).filter(([, w]) => w > 1e-9).map(([c, w]) => [c, +w.toFixed(6)]));
}

/** Facing `heading`, moving in world direction (x, z) for 2 s (long enough to reach a steady gait); the last frame. */
function steady(runtime: ControllerRuntime, move: [number, number], run = false, heading = 0): SimulationFrame {
  const frames = simulate(runtime, parseScript([{ at: 0, face: heading }, { at: 0, move, run }, { at: 2, face: heading }], runtime), 30);
  return frames[frames.length - 1];
}

describe('the 2D directional blend space', () => {
  const LOCOMOTION = {
    idle: 'Idle', blendSpace: '2d', walkSpeed: 1.5,
    directions: { any: { walk: 'Walk', run: 'Run' }, back: { walk: 'WalkBack', run: 'RunBack' }, left: 'none' },
  };

  it('idle at the origin, each direction\'s walk at 1 and run at 2 (walkSpeed units; x right, y forward), "none" idle', () => {
    const config = parseControllerConfig({ locomotion: LOCOMOTION }, CLIP_NAMES).locomotion!;
    const space = directionalBlendSpace(config, (clip) => durationOf(CLIP_NAMES[clip]));
    expect(space.count).toBe(17);
    const out = createBlendWeights(3);
    const only = (x: number, y: number) => {
      space.evaluate(x, y, out);
      expect(out.count, `(${x}, ${y})`).toBe(1);
      return CLIP_NAMES[out.clips[0]];
    };
    expect(only(0, 0)).toBe('Idle');
    expect(only(0, 1)).toBe('Walk');
    expect(only(0, 2)).toBe('Run');
    expect(only(1, 0)).toBe('Walk'); // right: "any"
    expect(only(0, -1)).toBe('WalkBack');
    expect(only(0, -2)).toBe('RunBack');
    expect(only(-1, 0)).toBe('Idle'); // left: "none"
    expect(only(-Math.SQRT1_2 * 2, Math.SQRT1_2 * 2)).toBe('Run'); // forward-left: "any"
    // Halfway from idle to the back walk: half and half; outside the run ring: clamped to it.
    space.evaluate(0, -0.5, out);
    expect(Object.fromEntries(Array.from({ length: out.count }, (_, i) => [CLIP_NAMES[out.clips[i]], +out.weights[i].toFixed(9)]))).toEqual({ Idle: 0.5, WalkBack: 0.5 });
    expect(only(0, -5)).toBe('RunBack');
  });

  it('with blendSpace "sectors" (the default) the runtime keeps one 1D space per direction and no plane', () => {
    expect(syntheticRuntime({ locomotion: { ...LOCOMOTION, blendSpace: undefined } }).locomotion!.plane).toBeNull();
    expect(syntheticRuntime({ locomotion: LOCOMOTION }).locomotion!.plane!.count).toBe(17);
  });
});

describe('Walker locomotion through the 2D blend space', () => {
  it('facing +z, moving sideways gives the Left / Right clips all the weight; back gives Back; diagonals their own', async () => {
    const rt = await walkerRuntime();
    // The character faces +z: its left is +x, its right -x.
    expect(shares(steady(rt, [1, 0]))).toEqual({ WalkLeft: 1 });
    expect(shares(steady(rt, [-1, 0]))).toEqual({ WalkRight: 1 });
    expect(shares(steady(rt, [0, -1]))).toEqual({ WalkBack: 1 });
    expect(shares(steady(rt, [-1, 0], true))).toEqual({ RunRight: 1 });
    expect(shares(steady(rt, [1, -1]))).toEqual({ WalkBackLeft: 1 });
    expect(shares(steady(rt, [0, 1], true))).toEqual({ RunForward: 1 });
    // Facing -x (heading -pi/2), -z is to its right and +x behind it.
    expect(shares(steady(rt, [0, -1], false, -Math.PI / 2))).toEqual({ WalkRight: 1 });
    expect(shares(steady(rt, [1, 0], false, -Math.PI / 2))).toEqual({ WalkBack: 1 });
  });

  it('between two directions the neighbours share the weight (and a little of the run, inside the walk ring\'s chord)', async () => {
    const rt = await walkerRuntime();
    const angle = (3 * Math.PI) / 8; // 67.5 degrees to the right of forward: between ForwardRight and Right
    const s = shares(steady(rt, [-Math.sin(angle), Math.cos(angle)]));
    // The square between the two walks and their runs is split by one diagonal (cocircular points:
    // see BlendSpace2D), so the two walks need not weigh the same.
    expect(Object.keys(s).sort()).toEqual(['RunForwardRight', 'WalkForwardRight', 'WalkRight']);
    expect(s.WalkRight).toBeGreaterThan(0.3);
    expect(s.WalkForwardRight).toBeGreaterThan(0.3);
    expect(s.RunForwardRight).toBeLessThan(0.09);
  });

  it('strafing keeps the heading; every clip of the blend stays in phase; letting go of face() turns toward the movement again', async () => {
    const rt = await walkerRuntime();
    const c = new AnimationController(rt);
    c.face(0.3);
    c.move(-1, 0.2);
    const durations = rt.clipDurations;
    for (let i = 0; i < 90; i++) {
      c.update(1 / 30);
      const out = c.output;
      const phase = out.baseTime / durations[out.baseClip];
      for (let k = 0; k < out.layerCount; k++) expect(out.layerTime[k] / durations[out.layerClip[k]]).toBeCloseTo(phase, 9);
    }
    expect(c.locomotion!.heading).toBeCloseTo(0.3, 12);
    expect(c.locomotion!.direction).toBe('right');
    c.face(null);
    for (let i = 0; i < 60; i++) c.update(1 / 30);
    expect(c.locomotion!.heading).toBeCloseTo(Math.atan2(-1, 0.2), 6);
    expect(c.locomotion!.direction).toBe('forward');
    expect(() => c.face(Number.NaN)).toThrow(/facing must be a finite heading in radians or null, got NaN/);
    expect(() => c.face(Infinity)).toThrow(RangeError);
  });

  it('the config\'s walkSpeed is the Walker\'s walking root speed, and twice it the running one: the feet do not slide', async () => {
    const rt = await walkerRuntime();
    const { rig } = await loadModel('Walker');
    const walkSpeed = rt.config.locomotion!.walkSpeed;
    for (const clip of rig.clips.filter((c) => /^(Walk|Run)/.test(c.name))) {
      const hips = clip.channels.find((ch) => ch.node === 0 && ch.path === 'translation')!;
      const last = hips.values.length - 3;
      const travelled = Math.hypot(hips.values[last] - hips.values[0], hips.values[last + 2] - hips.values[2]);
      expect(travelled / clip.duration, clip.name).toBeCloseTo(clip.name.startsWith('Walk') ? walkSpeed : 2 * walkSpeed, 5);
    }
  });
});
