import { PATH_COMPONENTS, type Rig, type TrsPath } from './rig';
import { sampleChannel } from './sampler';

/**
 * The baked model: every clip sampled into fixed-size tables, laid out for the GPU. This file is
 * the contract between the bake and shaders/pose.wgsl (mirrored in src/gpu/layout.ts).
 *
 * Layout
 * - `tracks` (one storage buffer): trackCount tracks of `entriesPerTrack` vec4f entries each.
 *   Track k, entry e sits at float offset (k * entriesPerTrack + e) * 4. A translation or scale
 *   entry is (x, y, z, 0), a rotation entry is the quaternion (x, y, z, w).
 *   Entry e of a clip of duration d holds the exact value at time e * d / (entriesPerTrack - 1),
 *   so entry 0 is t = 0 and the last entry is t = d. Rotation entries are sign-continuous (each
 *   has a non-negative dot with the previous one), so neighbouring entries interpolate along
 *   the short path with a plain nlerp.
 * - `trackRefs`: for clip c, node n, path p (0 translation, 1 rotation, 2 scale), the u32 at
 *   (c * nodeCount + n) * 3 + p is TRACK_NONE (the clip does not animate it: use the rest
 *   value) or a track index, with TRACK_STEP set when the channel is STEP-interpolated.
 * - `rest`: 3 vec4f per node (translation, 0), (rotation), (scale, 0).
 * - `clipDurations`: seconds per clip.
 *
 * Only animated (clip, node, path) triples get a track, so a clip that moves 6 of 43 joints
 * costs 6 tracks, not 43 x 3.
 *
 * Reading (src/anim/lut.ts and pose.wgsl do exactly this): u = wrap(t) / d * (entries - 1),
 * i = min(floor(u), entries - 2), f = u - i, value = mix(entry i, entry i + 1, f), rotations
 * normalised. STEP tracks read entry floor(u) alone, so a step is never smeared.
 */
export const TRACK_NONE = 0xffffffff;
export const TRACK_STEP = 0x80000000;
export const TRACK_INDEX_MASK = 0x7fffffff;
export const DEFAULT_ENTRIES_PER_TRACK = 1024;
export const PATHS: readonly TrsPath[] = ['translation', 'rotation', 'scale'];

export interface BakedModel {
  entriesPerTrack: number;
  nodeCount: number;
  clipNames: string[];
  clipDurations: Float32Array;
  /** Parent rig node per node, -1 for roots (parent-first order). */
  parents: Int32Array;
  rest: Float32Array;
  trackRefs: Uint32Array;
  trackCount: number;
  tracks: Float32Array;
}

export interface BakeOptions {
  /** Entries per track, at least 2 (default 1024). */
  entriesPerTrack?: number;
}

/** Bakes every clip of `rig` into lookup tables (see the layout above). Load time only. */
export function bake(rig: Rig, options: BakeOptions = {}): BakedModel {
  const entries = options.entriesPerTrack ?? DEFAULT_ENTRIES_PER_TRACK;
  if (!Number.isInteger(entries) || entries < 2) throw new RangeError(`entriesPerTrack must be an integer >= 2, got ${entries}`);
  const nodeCount = rig.nodes.count;
  const clipCount = rig.clips.length;
  const trackCount = rig.clips.reduce((sum, clip) => sum + clip.channels.length, 0);
  const tracks = new Float32Array(trackCount * entries * 4);
  const trackRefs = new Uint32Array(clipCount * nodeCount * 3).fill(TRACK_NONE);
  const value = new Float64Array(4);
  let track = 0;
  rig.clips.forEach((clip, c) => {
    for (const channel of clip.channels) {
      const n = PATH_COMPONENTS[channel.path];
      const base = track * entries * 4;
      for (let e = 0; e < entries; e++) {
        value.fill(0);
        sampleChannel(channel, (e * clip.duration) / (entries - 1), value, 0);
        const o = base + e * 4;
        if (n === 4 && e > 0) {
          const dot = value[0] * tracks[o - 4] + value[1] * tracks[o - 3] + value[2] * tracks[o - 2] + value[3] * tracks[o - 1];
          if (dot < 0) for (let i = 0; i < 4; i++) value[i] = -value[i];
        }
        for (let i = 0; i < 4; i++) tracks[o + i] = value[i];
      }
      const ref = (c * nodeCount + channel.node) * 3 + PATHS.indexOf(channel.path);
      trackRefs[ref] = track | (channel.interpolation === 'STEP' ? TRACK_STEP : 0);
      track++;
    }
  });

  const rest = new Float32Array(nodeCount * 12);
  for (let i = 0; i < nodeCount; i++) {
    rest.set(rig.nodes.restTranslation.subarray(i * 3, i * 3 + 3), i * 12);
    rest.set(rig.nodes.restRotation.subarray(i * 4, i * 4 + 4), i * 12 + 4);
    rest.set(rig.nodes.restScale.subarray(i * 3, i * 3 + 3), i * 12 + 8);
  }
  return {
    entriesPerTrack: entries, nodeCount, trackCount, tracks, trackRefs, rest,
    clipNames: rig.clips.map((c) => c.name),
    clipDurations: Float32Array.from(rig.clips, (c) => c.duration),
    parents: rig.nodes.parent,
  };
}

/** Bytes of the baked tables (tracks + refs + rest + durations), as uploaded to the GPU. */
export function bakedBytes(baked: BakedModel): number {
  return baked.tracks.byteLength + baked.trackRefs.byteLength + baked.rest.byteLength + baked.clipDurations.byteLength;
}
