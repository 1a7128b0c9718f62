import { mat4d } from 'wgpu-matrix';
import { localToModel, createPose } from '../math/pose';
import { quatMulAt } from '../math/quat';
import { TRACK_NONE, type BakedModel } from './bake';
import { ModelError } from './errors';
import type { Channel, Clip, Rig } from './rig';
import { restPose, sampleChannel } from './sampler';

/**
 * Root motion, taken out of the clips at load time (before baking) and kept beside the baked
 * tables.
 *
 * The root-motion joint (default: the root joint of the file's first skin) moves in model space
 * (the glTF scene's space: +y up; "horizontal" is x and z). For every clip of the file, its
 * horizontal translation, and with `yaw` its rotation about +y, are removed, so the clip plays
 * on the spot: the joint's model-space x and z stay at their value at clip time 0 in every frame
 * (its height, and its tilt, stay in the clip). What was removed is a rigid motion of the ground
 * plane per clip time t,
 *
 *     M(t) = translate(x(t), 0, z(t)) * rotateY(yaw(t)),  M(0) = identity,
 *
 * such that  original root (model space) = M(t) * in-place root. It is baked as a track with the
 * same entries (times e * d / (clipEntries[c] - 1)) as the clip's other tracks, and summarised per
 * clip: the motion of one whole cycle M(d) and the speed |(x(d), z(d))| / d. src/anim/root-motion.ts
 * composes them in closed form for any span of clip time (whole cycles plus the partial one).
 *
 * With `translation: 'mean-velocity'` only the cycle's mean travel is removed: M(t) =
 * translate(T t / d), T = (x(d) - x(0), z(d) - z(0)) the travel of one cycle of d seconds, a
 * linear track (M(d) and the speed are the same as with 'all'). The in-place joint keeps its sway
 * and surge within the cycle (its x is x(t) - T.x t / d, back at its start at t = d, so the clip
 * still loops seamlessly): a character moved at the clip's own speed then plays the original
 * motion, and its planted feet stay planted (docs/root-motion.md). Not with `yaw` (turning a
 * swaying root back key by key is no affine map of its keys).
 *
 * Exactness. The joint's translation keys are changed by an affine map (the same for every key
 * of a clip), so the in-place translation is exact at every time, for STEP, LINEAR and
 * CUBICSPLINE alike. With 'mean-velocity' each key loses the linear M at its own time (CUBICSPLINE
 * tangents its velocity), exact for LINEAR and CUBICSPLINE between the channel's first and last
 * key; a STEP channel holds its in-place value between keys while M moves on, so their sum leads
 * the original by up to the mean speed times the key interval. With `yaw`, each rotation key is
 * turned back by the yaw at its own time (tangents of CUBICSPLINE keys by the derivative of
 * that); between keys the in-place rotation is then exact for a turn about +y over a fixed tilt,
 * and otherwise off by a second-order term in the rotation between the two keys. The track itself is sampled from the original clip, so
 * it is exact at its entries.
 *
 * Limits: the joint's ancestors must not be animated (root motion is the motion of the topmost
 * moving node), and with `yaw` they must have uniform scale (so "rotation about +y" is defined).
 */

/** What baking does with root motion (see RootMotionOptions.mode). */
export type RootMotionMode = 'in-place' | 'apply';

/** Root motion extraction at load time (LoadOptions.rootMotion). */
export interface RootMotionOptions {
  /** Rig node whose motion is root motion, by name (default: the root joint of the first skin). */
  joint?: string;
  /**
   * 'in-place': clips play on the spot; the motion is data (BakedRootMotion) for the caller.
   * 'apply': baked the same way, and a Crowd of the character advances each instance's world
   * transform by the root motion as its clips play (src/features/root-motion/crowd-root-motion.ts, on the GPU).
   */
  mode: RootMotionMode;
  /** Also take out the rotation about +y (default false: turning clips keep turning in place). */
  yaw?: boolean;
  /**
   * Which horizontal translation comes out (default 'all'). 'all': all of it, key by key: the
   * joint stands still in x, z. 'mean-velocity': only the cycle's mean travel velocity (a linear
   * M(t)); the joint keeps its sway and surge within the cycle, so a character moved at the
   * clip's speed (controllers' rate matching, steering) plants its feet. Not with `yaw: true`.
   */
  translation?: RootMotionTranslation;
}

/** What horizontal translation root motion takes out (RootMotionOptions.translation). */
export type RootMotionTranslation = 'all' | 'mean-velocity';

/** Root motion of every baked clip (see the file comment); kept in BakedModel.rootMotion and Character.rootMotion. */
export interface BakedRootMotion {
  /** Rig node the motion was taken from, and its name. */
  joint: number;
  /** Name of that node. */
  jointName: string;
  /** The mode it was baked with. */
  mode: RootMotionMode;
  /** Whether the rotation about +y was taken out too. */
  yaw: boolean;
  /** What horizontal translation was taken out ('mean-velocity': M(t) is linear in t, see the file comment). */
  translation: RootMotionTranslation;
  /**
   * M(t) per entry of each clip, one vec4 per entry: (x, 0, z, yaw), model units and radians; yaw
   * is continuous along the track (never wrapped), so neighbouring entries interpolate linearly.
   * Clip c has clipEntries[c] entries, starting at vec4 index trackOffsets[c].
   */
  track: Float32Array;
  /** vec4 index of each clip's entry 0 in `track`, or TRACK_NONE (difference clips: no root motion). */
  trackOffsets: Uint32Array;
  /** Entries and seconds per clip (the baked model's clipEntries and clipDurations). */
  clipEntries: Uint32Array;
  /** Seconds per clip. */
  clipDurations: Float32Array;
  /** Per clip, vec4 (x, 0, z, yaw): M(d), the motion of one whole cycle (0 for difference clips). */
  cycle: Float32Array;
  /** Per clip: horizontal distance of one cycle / duration, model units (metres) per second. */
  speed: Float32Array;
}

/** The in-place rig and what bakeRootMotion needs to sample the original motion. */
export interface RootMotionExtraction {
  /** The rig with the root-motion joint's channels made in place (shares everything else with `original`). */
  rig: Rig;
  original: Rig;
  joint: number;
  mode: RootMotionMode;
  yaw: boolean;
  translation: RootMotionTranslation;
  /** Model matrix of the joint's parent (column-major; identity for a scene root). */
  parent: Float64Array;
  /** Its rotation (unit quaternion; with `yaw` only, where the ancestors have uniform scale). */
  parentRotation: Float64Array;
}

const MODES: readonly RootMotionMode[] = ['in-place', 'apply'];
const TRANSLATIONS: readonly RootMotionTranslation[] = ['all', 'mean-velocity'];

/** Validates `options` against `rig` and returns the rig with every clip in place (a new Rig; `rig` is not changed). */
export function extractRootMotion(rig: Rig, options: RootMotionOptions): RootMotionExtraction {
  if (typeof options !== 'object' || options === null) throw new TypeError(`rootMotion must be an object { joint?, mode, yaw?, translation? }, got ${JSON.stringify(options)}`);
  for (const key of Object.keys(options)) {
    if (!['joint', 'mode', 'yaw', 'translation'].includes(key)) throw new RangeError(`rootMotion: unknown field "${key}" (fields: joint, mode, yaw, translation)`);
  }
  if (!MODES.includes(options.mode)) throw new RangeError(`rootMotion.mode must be 'in-place' or 'apply', got ${JSON.stringify(options.mode)}`);
  if (options.yaw !== undefined && typeof options.yaw !== 'boolean') throw new TypeError(`rootMotion.yaw must be true or false, got ${JSON.stringify(options.yaw)}`);
  if (options.translation !== undefined && !TRANSLATIONS.includes(options.translation)) {
    throw new RangeError(`rootMotion.translation must be 'all' or 'mean-velocity', got ${JSON.stringify(options.translation)}`);
  }
  const yaw = options.yaw ?? false;
  const translation = options.translation ?? 'all';
  if (yaw && translation === 'mean-velocity') {
    throw new RangeError("rootMotion.translation 'mean-velocity' cannot go with rootMotion.yaw: true (turning a swaying root back key by key is not exact); use translation 'all' or yaw false");
  }
  const joint = rootMotionJoint(rig, options.joint);
  const { nodes } = rig;
  const ancestors: number[] = [];
  for (let p = nodes.parent[joint]; p >= 0; p = nodes.parent[p]) ancestors.push(p);
  for (const clip of rig.clips) {
    const moved = clip.channels.find((ch) => ancestors.includes(ch.node));
    if (moved) {
      throw new RangeError(`rootMotion.joint "${nodes.names[joint]}": clip "${clip.name}" animates its ancestor "${nodes.names[moved.node]}" `
        + '(root motion is taken from the topmost moving node: name that one)');
    }
  }
  const model = localToModel(nodes.parent, restPose(nodes, createPose(nodes.count)), new Float64Array(nodes.count * 16));
  const parentIndex = nodes.parent[joint];
  const parent = parentIndex < 0 ? mat4d.identity(new Float64Array(16)) : model.slice(parentIndex * 16, parentIndex * 16 + 16);
  const parentRotation = Float64Array.of(0, 0, 0, 1);
  for (const a of ancestors.slice().reverse()) {
    const s = nodes.restScale.subarray(a * 3, a * 3 + 3);
    if (yaw && (Math.abs(s[0] - s[1]) > 1e-6 * Math.abs(s[0]) || Math.abs(s[0] - s[2]) > 1e-6 * Math.abs(s[0]) || s[0] <= 0)) {
      throw new RangeError(`rootMotion.yaw: ancestor "${nodes.names[a]}" of "${nodes.names[joint]}" has scale (${Array.from(s).join(', ')}); `
        + 'taking out the rotation about +y needs uniform positive scale on the ancestors');
    }
    quatMulAt(parentRotation, 0, false, nodes.restRotation, a * 4, parentRotation, 0);
  }
  const horizontal = horizontalOnly(parent);
  const clips = rig.clips.map((clip): Clip => ({
    ...clip,
    channels: clip.channels.map((ch) => {
      if (ch.node !== joint) return ch;
      if (ch.path === 'translation') return inPlaceTranslation(ch, horizontal, translation === 'mean-velocity' ? clip.duration : null);
      if (ch.path === 'rotation' && yaw) return inPlaceRotation(ch, parentRotation, `clip "${clip.name}"`);
      return ch;
    }),
  }));
  return { rig: { ...rig, clips }, original: rig, joint, mode: options.mode, yaw, translation, parent, parentRotation };
}

/** Rig node of the root-motion joint: `name`, or the root joint of the first skin of the file. */
export function rootMotionJoint(rig: Rig, name?: string): number {
  const { nodes } = rig;
  if (name !== undefined) {
    if (typeof name !== 'string') throw new TypeError(`rootMotion.joint must be a node name, got ${JSON.stringify(name)}`);
    const matches = nodes.names.flatMap((n, i) => (n === name ? [i] : []));
    const joints = matches.filter((i) => nodes.isJoint[i]);
    if (matches.length === 0) throw new RangeError(`rootMotion.joint: no joint or node named ${JSON.stringify(name)} (joints: ${nodes.names.filter((_, i) => nodes.isJoint[i]).join(', ')})`);
    if (joints.length > 1 || (joints.length === 0 && matches.length > 1)) throw new RangeError(`rootMotion.joint: ${matches.length} nodes are named ${JSON.stringify(name)}; rename one`);
    return joints[0] ?? matches[0];
  }
  if (rig.gltfSkinCount === 0) throw new RangeError('rootMotion: the model has no skin, so it has no root joint; name the node in rootMotion.joint');
  const joints = Array.from(rig.skins[0].joints);
  const roots = joints.filter((j) => {
    for (let p = nodes.parent[j]; p >= 0; p = nodes.parent[p]) if (joints.includes(p)) return false;
    return true;
  });
  if (roots.length !== 1) {
    throw new RangeError(`rootMotion: skin 0 has ${roots.length} root joints (${roots.map((r) => nodes.names[r]).join(', ')}); name one in rootMotion.joint`);
  }
  return roots[0];
}

/**
 * B = L^-1 H L for the parent's linear part L and H = diag(1, 0, 1): the part of a local
 * translation change that moves the joint horizontally in model space. Column-major 3x3.
 */
function horizontalOnly(parent: Float64Array): Float64Array {
  const inverse = mat4d.inverse(parent, new Float64Array(16));
  const b = new Float64Array(9);
  for (let c = 0; c < 3; c++) {
    for (let r = 0; r < 3; r++) b[c * 3 + r] = inverse[r] * parent[c * 4] + inverse[8 + r] * parent[c * 4 + 2];
  }
  return b;
}

/**
 * The translation channel with its horizontal motion since time 0 removed: v - B (v - v(0)) per
 * key, t - B t per tangent. With `meanOver` (the clip's duration d, mean-velocity), only the
 * mean travel: v - B u t_k per key at time t_k, t - B u per tangent, u = (v(d) - v(0)) / d.
 */
function inPlaceTranslation(ch: Channel, b: Float64Array, meanOver: number | null): Channel {
  const first = new Float64Array(3);
  sampleChannel(ch, 0, first, 0);
  const cubic = ch.interpolation === 'CUBICSPLINE';
  const stride = cubic ? 9 : 3;
  const velocity = new Float64Array(3); // local units per second (mean-velocity only)
  if (meanOver !== null && meanOver > 0) {
    sampleChannel(ch, meanOver, velocity, 0);
    for (let c = 0; c < 3; c++) velocity[c] = (velocity[c] - first[c]) / meanOver;
  }
  const values = new Float32Array(ch.values.length);
  for (let o = 0; o < values.length; o += 3) {
    const tangent = cubic && (o / 3) % 3 !== 1;
    const time = ch.times[Math.floor(o / stride)];
    const d = meanOver === null
      ? [0, 1, 2].map((c) => ch.values[o + c] - (tangent ? 0 : first[c]))
      : [0, 1, 2].map((c) => velocity[c] * (tangent ? 1 : time));
    for (let r = 0; r < 3; r++) values[o + r] = ch.values[o + r] - (b[r] * d[0] + b[3 + r] * d[1] + b[6 + r] * d[2]);
  }
  return { ...ch, values };
}

/**
 * Twist of the model rotation parentRotation * q (q at `o` in `q`) about +y, radians, taken
 * within pi of `near` (so a track of twists is continuous).
 */
function twistNear(parentRotation: Float64Array, q: ArrayLike<number>, o: number, near: number, scratch: Float64Array, where: string): number {
  quatMulAt(parentRotation, 0, false, q, o, scratch, 0);
  const y = scratch[1];
  const w = scratch[3];
  if (y * y + w * w < 1e-10) throw new ModelError(`${where}: the root-motion joint is turned upside down, so its rotation about +y is undefined`);
  const angle = 2 * Math.atan2(y, w);
  return angle + Math.round((near - angle) / (2 * Math.PI)) * 2 * Math.PI;
}

/** The rotation channel turned back by its yaw since time 0: q' = conj(P) Y(-yaw) P q per key (P the parent rotation). */
function inPlaceRotation(ch: Channel, parentRotation: Float64Array, where: string): Channel {
  const scratch = new Float64Array(4);
  const q0 = new Float64Array(4);
  sampleChannel(ch, 0, q0, 0);
  const start = twistNear(parentRotation, q0, 0, 0, scratch, where);
  const cubic = ch.interpolation === 'CUBICSPLINE';
  const stride = cubic ? 12 : 4;
  const valueAt = cubic ? 4 : 0;
  const values = new Float32Array(ch.values.length);
  const g = new Float64Array(4); // conj(P) Y(-yaw) P
  const dg = new Float64Array(4); // its time derivative per unit yaw rate
  const term = new Float64Array(4);
  const tangent = new Float64Array(4);
  let twist = start;
  for (let k = 0; k < ch.times.length; k++) {
    const v = k * stride + valueAt;
    twist = twistNear(parentRotation, ch.values, v, twist, scratch, `${where} key ${k}`);
    const yaw = twist - start;
    conjugatedYaw(parentRotation, [0, -Math.sin(yaw / 2), 0, Math.cos(yaw / 2)], g);
    quatMulAt(g, 0, false, ch.values, v, term, 0);
    values.set(term, v);
    if (!cubic) continue;
    // d/dt (G q) = dG/dt q + G dq/dt, with dG/dt = conj(P) dY(-yaw)/dt P and dY(-yaw)/dt = yaw' / 2 (0, -cos, 0, -sin)(yaw / 2).
    conjugatedYaw(parentRotation, [0, -Math.cos(yaw / 2) / 2, 0, -Math.sin(yaw / 2) / 2], dg);
    for (const t of [k * stride, k * stride + 8]) {
      const rate = twistRate(parentRotation, ch.values, v, t, scratch);
      quatMulAt(g, 0, false, ch.values, t, tangent, 0);
      quatMulAt(dg, 0, false, ch.values, v, term, 0);
      for (let c = 0; c < 4; c++) values[t + c] = tangent[c] + rate * term[c];
    }
  }
  return { ...ch, values };
}

/** conj(p) * y * p into out (y need not be unit). */
function conjugatedYaw(p: Float64Array, y: number[], out: Float64Array): void {
  quatMulAt(y, 0, false, p, 0, out, 0);
  quatMulAt(p, 0, true, out, 0, out, 0);
}

/** d(twist)/dt of P q where q (at v) moves with derivative dq (at t): 2 (w y' - y w') / (w^2 + y^2) of P q. */
function twistRate(p: Float64Array, values: ArrayLike<number>, v: number, t: number, scratch: Float64Array): number {
  quatMulAt(p, 0, false, values, v, scratch, 0);
  const y = scratch[1];
  const w = scratch[3];
  quatMulAt(p, 0, false, values, t, scratch, 0);
  return (2 * (w * scratch[1] - y * scratch[3])) / (w * w + y * y);
}

/** Samples the removed motion M(t) of every clip at its baked entries (see the file comment). */
export function bakeRootMotion(x: RootMotionExtraction, baked: BakedModel): BakedRootMotion {
  const { original, joint, parent, parentRotation } = x;
  const clipCount = baked.clipNames.length;
  const trackOffsets = new Uint32Array(clipCount).fill(TRACK_NONE);
  let total = 0;
  for (let c = 0; c < original.clips.length; c++) {
    trackOffsets[c] = total;
    total += baked.clipEntries[c];
  }
  const track = new Float32Array(total * 4);
  const cycle = new Float32Array(clipCount * 4);
  const speed = new Float32Array(clipCount);
  const translation = new Float64Array(3);
  const rotation = new Float64Array(4);
  const scratch = new Float64Array(4);
  original.clips.forEach((clip, c) => {
    const ch = (path: string) => clip.channels.find((channel) => channel.node === joint && channel.path === path);
    const translationChannel = ch('translation');
    const rotationChannel = x.yaw ? ch('rotation') : undefined;
    /** The joint's model position at t (x, y, z). */
    const position = (t: number): number[] => {
      if (translationChannel) sampleChannel(translationChannel, t, translation, 0);
      else translation.set(original.nodes.restTranslation.subarray(joint * 3, joint * 3 + 3));
      return [0, 1, 2].map((r) => parent[r] * translation[0] + parent[4 + r] * translation[1] + parent[8 + r] * translation[2] + parent[12 + r]);
    };
    const twist = (t: number, near: number): number => {
      if (!rotationChannel) return 0;
      sampleChannel(rotationChannel, t, rotation, 0);
      return twistNear(parentRotation, rotation, 0, near, scratch, `clip "${clip.name}"`);
    };
    const p0 = position(0);
    const pd = position(clip.duration);
    const mean = x.translation === 'mean-velocity';
    const start = twist(0, 0);
    let previous = start;
    const entries = baked.clipEntries[c];
    for (let e = 0; e < entries; e++) {
      const t = (e * clip.duration) / (entries - 1);
      const p = position(t);
      previous = twist(t, previous);
      const yaw = previous - start;
      // In place the joint stands at (p0.x, p.y, p0.z); M = translate(m) rotateY(yaw) carries it back to p.
      const cos = Math.cos(yaw);
      const sin = Math.sin(yaw);
      const o = (trackOffsets[c] + e) * 4;
      // Mean-velocity (never with yaw): the travel so far at the cycle's mean velocity.
      const along = clip.duration > 0 ? t / clip.duration : 0;
      track[o] = mean ? (pd[0] - p0[0]) * along : p[0] - (p0[0] * cos + p0[2] * sin);
      track[o + 2] = mean ? (pd[2] - p0[2]) * along : p[2] - (-p0[0] * sin + p0[2] * cos);
      track[o + 3] = yaw;
    }
    const last = (trackOffsets[c] + entries - 1) * 4;
    cycle.set(track.subarray(last, last + 4), c * 4);
    speed[c] = clip.duration > 0 ? Math.hypot(cycle[c * 4], cycle[c * 4 + 2]) / clip.duration : 0;
  });
  return {
    joint, jointName: original.nodes.names[joint], mode: x.mode, yaw: x.yaw, translation: x.translation,
    track, trackOffsets, clipEntries: baked.clipEntries, clipDurations: baked.clipDurations, cycle, speed,
  };
}
