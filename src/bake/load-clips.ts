import { readAccessor, ComponentType as C } from './accessor';
import { check, ModelError } from './errors';
import type { GltfAnimation, GltfAsset } from './gltf-json';
import { uniqueClipNames } from './clip-names';
import { PATH_COMPONENTS, type Channel, type Clip, type Interpolation, type TrsPath, type WeightsChannel } from './rig';

const ROTATION_TYPES = [
  { type: C.FLOAT }, { type: C.BYTE, normalized: true }, { type: C.UNSIGNED_BYTE, normalized: true },
  { type: C.SHORT, normalized: true }, { type: C.UNSIGNED_SHORT, normalized: true },
];
const INTERPOLATIONS: readonly string[] = ['STEP', 'LINEAR', 'CUBICSPLINE'];
/**
 * The smallest normal float32, seconds: a clip shorter than this (and longer than 0) is refused.
 * Its duration is subnormal in the GPU's records: WGSL may flush it to 0 (a still clip there, a
 * moving one on the CPU), and the passes divide seconds by it in float32 (the clock's residual
 * in pose.wgsl, clip times in control.wgsl), which overflows to Infinity and poses NaN.
 */
const SHORTEST_CLIP = 2 ** -126;
/** Component types a weights channel's output may have (glTF 2.0, 3.11: float, or normalized integers). */
const WEIGHT_TYPES = ROTATION_TYPES;

/** The morph sets of the rig, for `weights` channels: glTF node -> morph set, and targets per set. */
export interface MorphLookup {
  morphOf: ReadonlyMap<number, number>;
  targetCounts: readonly number[];
}

/**
 * Reads every glTF animation as a Clip over rig nodes. `rigIndexOf[gltfNode]` is the node's rig
 * index or -1. `weights` channels become the clip's WeightsChannels of the node's morph set
 * (`morphs`). Channels on nodes outside the rig (they move nothing drawn) and `weights` channels
 * on nodes that draw no morph targets are skipped with a warning; every other problem is a
 * ModelError naming the channel.
 */
export function loadClips(asset: GltfAsset, rigIndexOf: Int32Array, warnings: string[], morphs: MorphLookup = { morphOf: new Map(), targetCounts: [] }): Clip[] {
  const animations = asset.json.animations ?? [];
  const names = uniqueClipNames(animations.map((animation, a) => animation.name ?? `clip${a}`), (a, name, unique) =>
    warnings.push(`animation ${a}: another animation is also named '${name}'; this one is named '${unique}'`));
  return animations.map((animation, a) => {
    const name = names[a];
    const label = `animation '${name}'`;
    check(Array.isArray(animation.channels) && Array.isArray(animation.samplers), `${label}: needs channels and samplers arrays`);
    const channels: Channel[] = [];
    const weights: WeightsChannel[] = [];
    const targets = new Set<string>();
    const longest = { channel: 0, time: 0 }; // the channel whose last key sets the duration
    const keep = (c: number, times: Float32Array) => { if (times[times.length - 1] > longest.time) Object.assign(longest, { channel: c, time: times[times.length - 1] }); };
    animation.channels.forEach((channel, c) => {
      const where = `${label} channel ${c}`;
      const path = channel.target?.path;
      const node = channel.target?.node;
      if (node === undefined) return; // allowed by the spec for extension targets
      check(Number.isInteger(node) && node >= 0 && node < rigIndexOf.length, `${where}: target node ${node} does not exist`);
      if (path === 'weights') {
        const weightsChannel = readWeightsChannel(asset, animation.samplers, channel.sampler, node, morphs, where, warnings);
        if (weightsChannel) {
          check(!targets.has(`${node}/weights`), `${where}: node ${node} weights is already animated by another channel of this animation`);
          targets.add(`${node}/weights`);
          weights.push(weightsChannel);
          keep(c, weightsChannel.times);
        }
        return;
      }
      if (path !== 'translation' && path !== 'rotation' && path !== 'scale') {
        warnings.push(`${where}: target path '${path}' is not supported; ignored`);
        return;
      }
      const key = `${node}/${path}`;
      check(!targets.has(key), `${where}: node ${node} ${path} is already animated by another channel of this animation`);
      targets.add(key);
      check(asset.json.nodes![node].matrix === undefined, `${where}: node ${node} is animated but has a matrix (the spec requires TRS)`);
      const sampler = animation.samplers[channel.sampler];
      check(sampler !== undefined, `${where}: sampler ${channel.sampler} does not exist (the animation has ${animation.samplers.length})`);
      const interpolation = (sampler.interpolation ?? 'LINEAR') as Interpolation;
      check(INTERPOLATIONS.includes(interpolation), `${where}: interpolation '${interpolation}' is not STEP, LINEAR or CUBICSPLINE`);
      const parsed = readChannel(asset, sampler.input, sampler.output, path, interpolation, where);
      const rigNode = rigIndexOf[node];
      if (rigNode < 0) {
        warnings.push(`${where}: node ${node} moves no joint or drawn mesh; ignored`);
        return;
      }
      channels.push({ node: rigNode, path, interpolation, ...parsed });
      keep(c, parsed.times);
    });
    const duration = [...channels, ...weights].reduce((d, ch) => Math.max(d, ch.times[ch.times.length - 1]), 0);
    check(!(duration > 0 && duration < SHORTEST_CLIP), () => `${label} channel ${longest.channel}: its last key is at ${duration} s, so the clip ` +
      `is shorter than float32's smallest normal number (${SHORTEST_CLIP} s): the GPU may read its duration as 0, and its clip time overflows`);
    return weights.length > 0 ? { name, duration, channels, weights } : { name, duration, channels };
  });
}

/**
 * A `weights` channel on glTF node `node`: its keys for the node's morph set, or undefined (with
 * a warning) when the node draws no morph targets in the default scene.
 */
function readWeightsChannel(asset: GltfAsset, samplers: GltfAnimation['samplers'], samplerIndex: number, node: number, morphs: MorphLookup,
  where: string, warnings: string[]): WeightsChannel | undefined {
  const sampler = samplers[samplerIndex];
  check(sampler !== undefined, `${where}: sampler ${samplerIndex} does not exist (the animation has ${samplers.length})`);
  const interpolation = (sampler.interpolation ?? 'LINEAR') as Interpolation;
  check(INTERPOLATIONS.includes(interpolation), `${where}: interpolation '${interpolation}' is not STEP, LINEAR or CUBICSPLINE`);
  const morph = morphs.morphOf.get(node);
  if (morph === undefined) {
    warnings.push(`${where}: node ${node} draws no morph targets; its weights channel is ignored`);
    return undefined;
  }
  const targetCount = morphs.targetCounts[morph];
  const times = readTimes(asset, sampler.input, interpolation, where);
  const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1;
  const out = readAccessor(asset, sampler.output, `${where} sampler output`, { types: ['SCALAR'], components: WEIGHT_TYPES });
  check(out.count === times.length * perKey * targetCount,
    `${where}: sampler output has ${out.count} values, expected ${times.length * perKey * targetCount} for ${times.length} ${interpolation} keys of ${targetCount} morph targets`);
  return { morph, interpolation, times, values: out.values as Float32Array };
}

/** A sampler's key times: at least one, from 0 on, strictly increasing (2 or more for CUBICSPLINE). */
function readTimes(asset: GltfAsset, input: number, interpolation: Interpolation, where: string): Float32Array {
  const times = readAccessor(asset, input, `${where} sampler input`, { types: ['SCALAR'], components: [{ type: C.FLOAT }] }).values as Float32Array;
  check(times.length >= 1, `${where}: sampler input has no keys`);
  check(times[0] >= 0, `${where}: sampler input starts at negative time ${times[0]}`);
  for (let k = 1; k < times.length; k++) {
    if (!(times[k] > times[k - 1])) {
      throw new ModelError(`${where}: sampler input times are not increasing (key ${k} at ${times[k]} s follows ${times[k - 1]} s)`);
    }
  }
  check(interpolation !== 'CUBICSPLINE' || times.length >= 2, `${where}: CUBICSPLINE needs at least 2 keys, has ${times.length}`);
  return times;
}

function readChannel(asset: GltfAsset, input: number, output: number, path: TrsPath, interpolation: Interpolation, where: string):
  { times: Float32Array; values: Float32Array } {
  const times = readTimes(asset, input, interpolation, where);
  const n = PATH_COMPONENTS[path];
  const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1;
  const out = readAccessor(asset, output, `${where} sampler output`, {
    types: [n === 4 ? 'VEC4' : 'VEC3'], components: path === 'rotation' ? ROTATION_TYPES : [{ type: C.FLOAT }],
  });
  check(out.count === times.length * perKey,
    `${where}: sampler output has ${out.count} values, expected ${times.length * perKey} for ${times.length} ${interpolation} keys`);
  const values = out.values as Float32Array;
  if (path === 'rotation') {
    // Key values must be unit quaternions; repair tiny drift, reject zero length. Tangents are left alone.
    for (let k = 0; k < times.length; k++) {
      const o = (k * perKey + (perKey === 3 ? 1 : 0)) * 4;
      const len = Math.hypot(values[o], values[o + 1], values[o + 2], values[o + 3]);
      check(len > 1e-6, `${where}: rotation key ${k} has zero length`);
      for (let i = 0; i < 4; i++) values[o + i] /= len;
    }
  }
  return { times, values };
}
