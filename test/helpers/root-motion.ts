import { TRACK_INDEX_MASK, TRACK_NONE, type BakedModel } from '../../src/bake/bake';
import type { BakedRootMotion } from '../../src/bake/root-motion';
import type { Rig } from '../../src/bake/rig';
import { restPose, sampleChannel } from '../../src/bake/sampler';
import { createPose, localToModel, type Pose } from '../../src/math/pose';
import { GltfBuilder } from './gltf-builder';

/**
 * Helpers for root-motion tests (src/bake/root-motion.ts, src/anim/root-motion.ts): exact poses
 * at unwrapped times, poses read from one baked entry, and a small hand-built rig whose root
 * sits under a rotated, scaled armature node (as FBX exports have it).
 */

/** Local pose of `clip` at time t without wrapping (t = d is the last key, not the first). */
export function sampleUnwrapped(rig: Rig, clip: number, t: number, out: Pose): Pose {
  restPose(rig.nodes, out);
  for (const ch of rig.clips[clip].channels) {
    const target = ch.path === 'translation' ? out.translation : ch.path === 'rotation' ? out.rotation : out.scale;
    sampleChannel(ch, t, target, ch.node * (ch.path === 'rotation' ? 4 : 3));
  }
  return out;
}

/** Local pose stored in entry e of clip `clip`'s tables (the rest value where a node has no track). */
export function entryPose(baked: BakedModel, clip: number, e: number, out: Pose): Pose {
  for (let n = 0; n < baked.nodeCount; n++) {
    for (let p = 0; p < 3; p++) {
      const ref = baked.trackRefs[(clip * baked.nodeCount + n) * 3 + p];
      const size = p === 1 ? 4 : 3;
      const target = p === 0 ? out.translation : p === 1 ? out.rotation : out.scale;
      for (let c = 0; c < size; c++) {
        target[n * size + c] = ref === TRACK_NONE ? baked.rest[n * 12 + p * 4 + c] : baked.tracks[((ref & TRACK_INDEX_MASK) + e) * 4 + c];
      }
    }
  }
  return out;
}

/** Whether rig node `node` is `root` or lies below it. */
export function under(parent: Int32Array, node: number, root: number): boolean {
  for (let n = node; n >= 0; n = parent[n]) if (n === root) return true;
  return false;
}

/**
 * Worst distance, over every baked entry of every clip of `original`, between a node at or below
 * the root-motion joint in the original clip (exact sampler, model space) and the same node in the
 * baked in-place clip moved by the track's M(t) (x, z, yaw). Also the worst drift of the joint's
 * in-place x, z from its value at t = 0 in the original.
 */
export function rootMotionErrors(original: Rig, baked: BakedModel, motion: BakedRootMotion): { reconstruction: number; drift: number } {
  const n = original.nodes.count;
  const exact = createPose(n);
  const stored = createPose(n);
  const a = new Float64Array(n * 16);
  const b = new Float64Array(n * 16);
  const j = motion.joint;
  let reconstruction = 0;
  let drift = 0;
  original.clips.forEach((clip, c) => {
    const entries = baked.clipEntries[c];
    localToModel(original.nodes.parent, sampleUnwrapped(original, c, 0, exact), a);
    const x0 = a[j * 16 + 12];
    const z0 = a[j * 16 + 14];
    for (let e = 0; e < entries; e++) {
      const t = (e * clip.duration) / (entries - 1);
      localToModel(original.nodes.parent, sampleUnwrapped(original, c, t, exact), a);
      localToModel(baked.parents, entryPose(baked, c, e, stored), b);
      drift = Math.max(drift, Math.hypot(b[j * 16 + 12] - x0, b[j * 16 + 14] - z0));
      const o = (motion.trackOffsets[c] + e) * 4;
      const [mx, , mz, yaw] = motion.track.subarray(o, o + 4);
      for (let k = 0; k < n; k++) {
        if (!under(original.nodes.parent, k, j)) continue;
        const px = b[k * 16 + 12], py = b[k * 16 + 13], pz = b[k * 16 + 14];
        const x = mx + px * Math.cos(yaw) + pz * Math.sin(yaw);
        const z = mz - px * Math.sin(yaw) + pz * Math.cos(yaw);
        reconstruction = Math.max(reconstruction, Math.hypot(x - a[k * 16 + 12], py - a[k * 16 + 13], z - a[k * 16 + 14]));
      }
    }
  });
  return { reconstruction, drift };
}

export interface RootClip {
  name: string;
  interpolation: 'STEP' | 'LINEAR' | 'CUBICSPLINE';
  times: number[];
  /** Root translation keys in the armature's local space (cm), with tangents for CUBICSPLINE (in, value, out per key). */
  translation?: number[];
  /** Root rotation keys (x, y, z, w), with tangents for CUBICSPLINE. */
  rotation?: number[];
  /** Keys of the armature node's translation (to test the ancestor check). */
  armature?: number[];
}

/**
 * A rig as FBX exports make them: node 0 'Armature' turned -90 degrees about x and scaled 0.01
 * (so local z is model +y, local -y is model +z, and units are centimetres), its child 1 'Root'
 * (skin joint 0, at local (0, 0, 90): 0.9 m up) and that one's child 2 'Foot' (local (10, 0, -80)).
 * One clip per entry of `clips`, each animating the Root.
 */
export function armatureRig(clips: RootClip[]): ReturnType<GltfBuilder['build']> {
  const b = new GltfBuilder();
  b.json.nodes.push(
    { name: 'Armature', rotation: [-Math.SQRT1_2, 0, 0, Math.SQRT1_2], scale: [0.01, 0.01, 0.01], children: [1] },
    { name: 'Root', translation: [0, 0, 90], children: [2] },
    { name: 'Foot', translation: [10, 0, -80] },
  );
  b.json.scenes = [{ nodes: [0] }];
  b.json.skins = [{ joints: [1, 2] }];
  b.json.animations = clips.map((clip) => {
    const input = b.addAccessor('SCALAR', Float32Array.from(clip.times));
    const channels: { node: number; path: string; values: number[]; type: 'VEC3' | 'VEC4' }[] = [];
    if (clip.translation) channels.push({ node: 1, path: 'translation', values: clip.translation, type: 'VEC3' });
    if (clip.rotation) channels.push({ node: 1, path: 'rotation', values: clip.rotation, type: 'VEC4' });
    if (clip.armature) channels.push({ node: 0, path: 'translation', values: clip.armature, type: 'VEC3' });
    return {
      name: clip.name,
      samplers: channels.map((ch) => ({ input, output: b.addAccessor(ch.type, Float32Array.from(ch.values)), interpolation: clip.interpolation })),
      channels: channels.map((ch, i) => ({ sampler: i, target: { node: ch.node, path: ch.path } })),
    };
  });
  return b.build();
}
