import type { Rig } from '../../src/bake/rig';
import { sampleClip } from '../../src/bake/sampler';
import { createPose, localToModel } from '../../src/math/pose';

/** What footSlide measured over one cycle of a walking clip. */
export interface FootSlide {
  /** Horizontal speed of the hips over the cycle (the clip's root motion), model units a second. */
  walkingSpeed: number;
  /** Mean horizontal speed of the feet while planted, as a share of walkingSpeed. */
  meanShare: number;
  /** The largest planted-foot speed over one step of `dt`, as a share of walkingSpeed. */
  worstShare: number;
}

/**
 * Foot sliding of clip `clip` of `rig` (exact sampler, model space: the clip carries its root
 * motion): a foot is planted while its joint is within `contact` (a share of the hip height) of
 * its lowest point over the cycle; its horizontal speed then, against the hips' travel speed.
 */
export function footSlide(rig: Rig, clip: number, feet: readonly string[], hips: string, steps = 480, contact = 0.001): FootSlide {
  const n = rig.nodes;
  const index = (name: string) => {
    const i = n.names.indexOf(name);
    if (i < 0) throw new Error(`no node ${name}`);
    return i;
  };
  const duration = rig.clips[clip].duration;
  const dt = duration / steps;
  const pose = createPose(n.count);
  const model = new Float64Array(n.count * 16);
  const at = (t: number) => {
    // Just inside the cycle at its end, so the wrap does not take the position back to the start.
    sampleClip(rig, clip, Math.min(t, duration * (1 - 1e-9)), pose);
    localToModel(n.parent, pose, model);
    return (i: number) => [model[i * 16 + 12], model[i * 16 + 13], model[i * 16 + 14]];
  };
  const h = index(hips);
  const start = at(0)(h);
  const end = at(duration)(h);
  const hipHeight = n.restTranslation[h * 3 + 1];
  const walkingSpeed = Math.hypot(end[0] - start[0], end[2] - start[2]) / duration;
  let sum = 0;
  let count = 0;
  let worst = 0;
  for (const foot of feet) {
    const f = index(foot);
    const track = Array.from({ length: steps + 1 }, (_, k) => at(k * dt)(f));
    const lowest = Math.min(...track.map((p) => p[1]));
    for (let k = 0; k < steps; k++) {
      const [a, b] = [track[k], track[k + 1]];
      if (a[1] > lowest + contact * hipHeight || b[1] > lowest + contact * hipHeight) continue;
      const speed = Math.hypot(b[0] - a[0], b[2] - a[2]) / dt;
      sum += speed;
      count++;
      worst = Math.max(worst, speed);
    }
  }
  if (count === 0) throw new Error('no planted frames');
  return { walkingSpeed, meanShare: sum / count / walkingSpeed, worstShare: worst / walkingSpeed };
}
