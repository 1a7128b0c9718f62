import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseControllerConfig } from '../../../src/anim/control/config';
import { sampleClip } from '../../../src/bake/sampler';
import { loadCharacter } from '../../../src/character/character';
import { CrowdControllers } from '../../../src/features/controllers/crowd-controllers';
import { CrowdRootMotion } from '../../../src/features/root-motion/crowd-root-motion';
import { CrowdSteering } from '../../../src/features/steering/crowd-steering';
import { blendPoses, createPose, localToModel } from '../../../src/math/pose';
import { Crowd } from '../../../src/runtime/crowd';
import { readInstanceStack } from '../../../tools/control-readback';
import { openTestDevice } from '../../helpers/gpu';
import { modelPath } from '../../helpers/models';

/**
 * Foot sliding of steered, GPU-controlled Walkers crossing (docs/clips.md's measure, in world
 * space): each frame the clips, times, weights and placement the GPU wrote are read back
 * (tools/control-readback.ts) and the feet are posed from them on the CPU (the in-place clips,
 * override layers blended in order); a foot is planted while within 0.1% of the hip height of its
 * lowest point within 0.5 s either side (speeds and blends change over the run), and sliding is
 * its horizontal world speed then against the agent's. Two pairs crossing, and a controller
 * walking alone as the baseline; 360 frames at 1/240 s (contact needs fine steps); SwiftShader on
 * CI. The Walker takes out only its clips' mean travel (rootMotion.translation 'mean-velocity'),
 * its config slows the walk down to 0.15 of its rate before blending idle (slowestWalkRate), and
 * the agents accelerate at the default 2 x maxSpeed (docs/steering.md#foot-sliding-under-steering).
 */

const device = await openTestDevice();
const FORMATS = { colorFormat: 'bgra8unorm', depthFormat: 'depth24plus' } as const;
const DT = 1 / 240;
const FRAMES = 360;
/** Frames either side of a step over which a foot's lowest point is taken (0.5 s). */
const WINDOW = 120;

describe.skipIf(!device)('foot sliding of steered controllers', async () => {
  it('Walkers crossing: planted feet stay planted under the steered motion (under 1.5% of the agents\' speed after 0.5 s)', async () => {
    const bytes = readFileSync(modelPath('Walker'));
    const walker = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { rootMotion: { mode: 'apply', translation: 'mean-velocity' }, lod: false });
    const config = parseControllerConfig(JSON.parse(readFileSync(modelPath('Walker').replace(/\.glb$/, '.controller.json'), 'utf8')), walker.clipNames);
    const walkSpeed = 1.2; // Walker.controller.json
    const crowd = new Crowd(device!, walker, FORMATS);
    new CrowdRootMotion(crowd);
    const controllers = new CrowdControllers(crowd, config);
    const steering = new CrowdSteering(crowd);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const left = i < 2;
      const [x, z, heading] = [left ? -1.5 : 1.5, (i % 2) - 0.5 + (left ? 0 : 0.5), left ? Math.PI / 2 : -Math.PI / 2];
      const id = crowd.add();
      crowd.setPlacement(id, x, 0, z, heading);
      controllers.add(id, x, z, heading);
      steering.addAgent(id, { radius: 0.35, maxSpeed: 2, preferredSpeed: walkSpeed, goal: [-x, z] });
      ids.push(id);
    }
    // The baseline: a controller walking on its own (no steering), far from the others.
    const alone = crowd.add();
    crowd.setPlacement(alone, 0, 0, -20, Math.PI / 2);
    controllers.add(alone, 0, -20, Math.PI / 2).setSpeed(1);
    ids.push(alone);
    const rig = walker.rig;
    const n = rig.nodes;
    const feet = ['Foot.L', 'Foot.R'].map((name) => n.names.indexOf(name));
    const hips = n.names.indexOf('Hips');
    expect(Math.min(...feet, hips)).toBeGreaterThanOrEqual(0);
    const hipHeight = n.restTranslation[hips * 3 + 1];
    const pose = createPose(n.count), layer = createPose(n.count);
    const model = new Float64Array(n.count * 16);
    // tracks[agent][frame]: agent x, z, then each foot's world x, y, z.
    const tracks: number[][][] = ids.map(() => []);
    for (let f = 0; f < FRAMES; f++) {
      controllers.update(DT);
      crowd.update(DT);
      const encoder = device!.createCommandEncoder();
      crowd.encode(encoder);
      device!.queue.submit([encoder.finish()]);
      for (let a = 0; a < ids.length; a++) {
        const stack = await readInstanceStack(device!, crowd, ids[a]);
        stack.layers.forEach((l, k) => {
          sampleClip(rig, l.clip, l.time, k === 0 ? pose : layer);
          if (k > 0) blendPoses(pose, layer, l.weight, pose);
        });
        localToModel(n.parent, pose, model);
        const [c, s] = [Math.cos(stack.yaw), Math.sin(stack.yaw)];
        const row = [stack.x, stack.z];
        for (const foot of feet) {
          const [px, py, pz] = [model[foot * 16 + 12], model[foot * 16 + 13], model[foot * 16 + 14]];
          row.push(stack.x + c * px + s * pz, py, stack.z - s * px + c * pz);
        }
        tracks[a].push(row);
      }
    }
    // Sliding of `agents`' planted feet over frames [from, FRAMES): mean foot speed / mean agent speed, and the worst step / walkSpeed.
    const slide = (agents: number[], from: number) => {
      let footSum = 0, agentSum = 0, count = 0, worst = 0;
      for (const a of agents) {
        const track = tracks[a];
        for (let k = 0; k < feet.length; k++) {
          const o = 2 + 3 * k;
          for (let f = Math.max(1, from); f < track.length; f++) {
            const [p, q] = [track[f - 1], track[f]];
            // Its lowest point over the step's neighbourhood (a walk cycle is about 1 s: each foot plants in it).
            const lowest = Math.min(...track.slice(Math.max(0, f - WINDOW), f + WINDOW).map((r) => r[o + 1]));
            if (p[o + 1] > lowest + 0.001 * hipHeight || q[o + 1] > lowest + 0.001 * hipHeight) continue;
            footSum += Math.hypot(q[o] - p[o], q[o + 2] - p[o + 2]) / DT;
            agentSum += Math.hypot(q[0] - p[0], q[1] - p[1]) / DT;
            count++;
            worst = Math.max(worst, Math.hypot(q[o] - p[o], q[o + 2] - p[o + 2]) / DT / walkSpeed);
          }
        }
      }
      return { mean: footSum / agentSum, worst, count, speed: agentSum / count };
    };
    const steered = [0, 1, 2, 3];
    const report = (name: string, r: ReturnType<typeof slide>) => `${name}: ${r.count} planted foot-frames at ${r.speed.toFixed(3)} m/s, sliding ${(100 * r.mean).toFixed(2)}% mean, worst step ${(100 * r.worst).toFixed(2)}% of walkSpeed`;
    const all = slide(steered, 0), steady = slide(steered, 120), baseline = slide([4], 120);
    console.log([report('steered, whole run', all), report('steered, from 0.5 s', steady), report('controller alone, from 0.5 s', baseline)].join('\n'));
    expect(steady.count).toBeGreaterThan(10);
    expect(baseline.count).toBeGreaterThan(5);
    // Measured 0.84% (steered, after 0.5 s) and 0.55% (alone): under the 5% with margin.
    // Each cause fails a bound: the whole horizontal travel taken out (translation 'all'): 10.3%
    // alone, 8.2% steered; idle blended under walkSpeed (slowestWalkRate 1): 18%; no acceleration
    // bound: 2.0% (the heading jitters with the velocity); the channel unwired: about 100%.
    expect(steady.mean).toBeLessThan(0.015);
    expect(baseline.mean).toBeLessThan(0.015);
    // From the start the feet go from the idle stance to the walk's within the first 0.05 s
    // (34.5%: start clips or foot IK would remove it); held where it stands.
    expect(all.mean).toBeLessThan(0.45);
    crowd.destroy();
  });
});
