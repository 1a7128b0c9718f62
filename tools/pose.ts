/**
 * Pose dump: prints the joint matrices (and optionally skinned positions) of one skin of a model
 * for a clip (or a blend of two) at a time, as one JSON object. See docs/cli.md.
 * Run through the CLI (tools/cli.ts):
 *
 *   npm run --silent pose -- --model public/models/Fox/Fox.glb --clip Walk --time 0.3
 *   npx crowd-skin pose Fox.glb --clip Walk --time 0.3
 */
import { readFile } from 'node:fs/promises';
import { CpuPoser, type ClipSampler, type TwoClipRequest } from '../src/anim/evaluate';
import type { CpuLayerStack } from '../src/anim/layers';
import { parseLayerStack } from '../src/anim/stack-json';
import { skinPositions } from '../src/anim/skinning';
import { sampleLut } from '../src/anim/lut';
import { bake } from '../src/bake/bake';
import { resolveClip } from '../src/bake/clip-names';
import type { Rig } from '../src/bake/rig';
import { sampleClip } from '../src/bake/sampler';
import { listOption, numberOption, parseArgs } from './args';
import { rigWithClips } from './clip-files';
import { MASK_NONE, MAX_ADDITIVE_LAYERS, MAX_OVERRIDE_LAYERS } from '../src/runtime/layout';
import type { GpuPoseRequest } from './gpu-poser';
import { ROTATION_BLEND } from '../src/math/quat';

const OPTIONS = ['model', 'clips', 'skin', 'clip', 'time', 'clip-b', 'time-b', 'blend', 'backend', 'stride', 'layers'] as const;
const FLAGS = ['positions'] as const;
const BACKENDS = ['exact', 'lut', 'gpu', 'webgl2'];

function findClip(rig: Rig, name: string, option: string): number {
  return resolveClip(rig.clips.map((c) => c.name), name, { where: `--${option}`, accepts: 'name or digits', noun: 'named or numbered', quote: 'single' });
}

/** What to pose: the two-clip record, or a layer stack (--layers). */
type PoseInput = { kind: 'clips'; request: TwoClipRequest } | { kind: 'stack'; stack: CpuLayerStack };

/** Joint matrices (16 per joint, column-major) of glTF skin `skin` from the chosen backend. */
async function jointMatricesFor(rig: Rig, skin: number, backend: string, input: PoseInput): Promise<Float64Array> {
  if (backend === 'gpu') {
    // The real WGSL (shaders/pose.wgsl) through WebGPU in Node; one instance, identity world.
    const baked = bake(rig);
    const { gpuJointMatrices, openNodeDevice } = await loadGpuPoser();
    const { device } = await openNodeDevice({ maxComputeWorkgroupStorageSize: 65536 });
    try {
      const { request, masks } = input.kind === 'stack' ? gpuStackRequest(input.stack) : { request: gpuClipsRequest(input.request), masks: [] };
      const all = await gpuJointMatrices(device, rig, baked, [request], { masks });
      const first = rig.skins.slice(0, skin).reduce((n, s) => n + s.joints.length, 0);
      return Float64Array.from(all.subarray(first * 16, (first + rig.skins[skin].joints.length) * 16));
    } finally {
      device.destroy();
    }
  }
  if (backend === 'webgl2') {
    // The real GLSL (shaders/webgl2/pose*.glsl) through WebGL 2 in headless Chromium; one instance, identity world.
    const { glJointMatrices } = await import('./gl-poser');
    const { request, masks } = input.kind === 'stack' ? gpuStackRequest(input.stack) : { request: gpuClipsRequest(input.request), masks: [] };
    const all = await glJointMatrices(rig, bake(rig), [request], { masks });
    const first = rig.skins.slice(0, skin).reduce((n, s) => n + s.joints.length, 0);
    return Float64Array.from(all.subarray(first * 16, (first + rig.skins[skin].joints.length) * 16));
  }
  let sampler: ClipSampler;
  if (backend === 'lut') {
    const baked = bake(rig);
    sampler = (clip, t, out) => sampleLut(baked, clip, t, out);
  } else {
    sampler = (clip, t, out) => sampleClip(rig, clip, t, out);
  }
  const poser = new CpuPoser(rig, sampler);
  if (input.kind === 'stack') poser.evaluateStack(input.stack);
  else poser.evaluate(input.request);
  return poser.jointMatrices(skin);
}

/**
 * The GPU poser, loaded only for --backend gpu: it needs the `webgpu` package (Dawn for Node), a
 * devDependency here and an optional peer dependency of the published package.
 */
export async function loadGpuPoser(): Promise<typeof import('./gpu-poser')> {
  try {
    return await import('./gpu-poser');
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    if (error.code === 'ERR_MODULE_NOT_FOUND' && /'webgpu'/.test(error.message)) {
      throw new Error('--backend gpu needs the `webgpu` package (Dawn for Node): npm install webgpu');
    }
    throw error;
  }
}

function gpuClipsRequest(r: TwoClipRequest): GpuPoseRequest {
  return {
    clipA: r.clipA, clipB: r.clipB ?? r.clipA, timeA: r.timeA, timeB: r.timeB ?? r.timeA,
    speedA: 0, speedB: 0, blend: r.clipB === undefined ? 0 : r.blend ?? 0,
  };
}

/** A layer stack as one GPU instance: base in the record, layers in its stack, masks listed. */
function gpuStackRequest(stack: CpuLayerStack): { request: GpuPoseRequest; masks: Float32Array[] } {
  if (stack.layers.length > MAX_OVERRIDE_LAYERS || stack.additive.length > MAX_ADDITIVE_LAYERS) {
    throw new Error(`the gpu and webgl2 backends hold at most ${MAX_OVERRIDE_LAYERS} override and ${MAX_ADDITIVE_LAYERS} additive layers per instance`);
  }
  const masks: Float32Array[] = [];
  const maskIndex = (mask: Float32Array | undefined) => (mask ? masks.push(mask) - 1 : MASK_NONE);
  const layers = stack.layers.map((l) => ({ clip: l.clip, time: l.time, speed: 0, weight: l.weight, mask: maskIndex(l.mask) }));
  const additive = stack.additive.map((l) => ({
    clip: l.clip, time: l.time, speed: 0, weight: l.weight, mask: maskIndex(l.mask),
    reference: typeof l.reference === 'string' ? l.reference : { clip: l.reference.clip, time: l.reference.time, speed: 0 },
  }));
  const { clip, time } = stack.base;
  return { request: { clipA: clip, clipB: clip, timeA: time, timeB: time, speedA: 0, speedB: 0, blend: 0, stack: { layers, additive } }, masks };
}

/** --layers: a JSON string, or @file. */
async function readLayers(value: string): Promise<unknown> {
  const text = value.startsWith('@') ? await readFile(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`--layers is not valid JSON: ${(e as Error).message}`);
  }
}

/** The card's two-clip request from --clip, --time, --clip-b, --time-b, --blend. */
function twoClipRequest(rig: Rig, options: Map<string, string>): TwoClipRequest {
  const clipA = findClip(rig, options.get('clip') ?? '0', 'clip');
  const timeA = numberOption(options, 'time', 0)!;
  const hasB = options.has('clip-b');
  if (!hasB && (options.has('time-b') || options.has('blend'))) throw new Error('--time-b and --blend need --clip-b');
  const clipB = hasB ? findClip(rig, options.get('clip-b')!, 'clip-b') : undefined;
  const timeB = numberOption(options, 'time-b', timeA)!;
  const blend = numberOption(options, 'blend', hasB ? 0.5 : 0)!;
  if (!(blend >= 0 && blend <= 1)) throw new Error(`--blend must be in [0, 1], got ${blend}`);
  return { clipA, timeA, clipB, timeB, blend };
}

/** `pose [--model] PATH ...`: prints the JSON object described above to stdout. */
export async function pose(argv: string[]): Promise<void> {
  const options = parseArgs(argv, OPTIONS, FLAGS, ['clips']);
  const modelPath = options.get('model');
  if (!modelPath) throw new Error('--model PATH is required');
  const backend = options.get('backend') ?? 'exact';
  if (!BACKENDS.includes(backend)) throw new Error(`--backend must be one of ${BACKENDS.join(', ')}, got '${backend}'`);
  const { rig } = await rigWithClips(modelPath, listOption(options, 'clips'));
  for (const warning of rig.warnings) process.stderr.write(`warning: ${warning}\n`);

  const skin = numberOption(options, 'skin', 0)!;
  if (!Number.isInteger(skin) || skin < 0 || skin >= rig.gltfSkinCount) {
    throw new Error(`--skin ${skin}: the model has ${rig.gltfSkinCount} skin(s)${rig.gltfSkinCount ? ` (0..${rig.gltfSkinCount - 1})` : ''}`);
  }
  if (rig.clips.length === 0) throw new Error('the model has no animations');
  let input: PoseInput;
  if (options.has('layers')) {
    for (const name of ['clip', 'time', 'clip-b', 'time-b', 'blend']) {
      if (options.has(name)) throw new Error(`--${name} cannot be combined with --layers (the stack's "base" names the clip)`);
    }
    const stack = parseLayerStack(await readLayers(options.get('layers')!), { nodes: rig.nodes, clipNames: rig.clips.map((c) => c.name) });
    input = { kind: 'stack', stack };
  } else {
    input = { kind: 'clips', request: twoClipRequest(rig, options) };
  }
  const stride = numberOption(options, 'stride', 1)!;
  if (!Number.isInteger(stride) || stride < 1) throw new Error(`--stride must be a positive integer, got ${stride}`);
  if (options.has('stride') && !options.has('positions')) throw new Error('--stride needs --positions');

  const matrices = await jointMatricesFor(rig, skin, backend, input);
  const result: Record<string, unknown> = {
    joints: rig.skins[skin].jointNames,
    jointMatrices: Array.from({ length: matrices.length / 16 }, (_, j) => Array.from(matrices.subarray(j * 16, j * 16 + 16))),
    rotationBlend: ROTATION_BLEND,
  };
  if (options.has('positions')) {
    const positions: number[][] = [];
    let index = 0;
    for (const prim of rig.primitives.filter((p) => p.skin === skin)) {
      const flat = skinPositions(prim, matrices, new Float64Array(prim.vertexCount * 3));
      for (let v = 0; v < prim.vertexCount; v++, index++) {
        if (index % stride === 0) positions.push([flat[v * 3], flat[v * 3 + 1], flat[v * 3 + 2]]);
      }
    }
    result.positions = positions;
  }
  // Wait for the pipe to take the whole object before exiting (a GPU device can keep Node alive).
  await new Promise<void>((done) => process.stdout.write(JSON.stringify(result) + '\n', () => done()));
}
