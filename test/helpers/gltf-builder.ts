import { expect } from 'vitest';
import { ModelError } from '../../src/bake/errors';
import type { GltfAccessor, GltfAsset, GltfJson } from '../../src/bake/gltf-json';
import * as morph from '../../src/bake/load-morph';
import { hasMorphTargets, hasVrm, usesQuantization } from '../../src/bake/parse';
import * as quantization from '../../src/bake/quantization';
import * as vrm from '../../src/bake/vrm-humanoid';
import { seededRandom } from './prng';

/**
 * A tiny in-memory glTF builder: typed arrays in, GltfAsset { json, buffers, images } out, with
 * one binary buffer. Tests build a small valid file, then break exactly one thing in `json`.
 */

type ComponentArray = Float32Array | Uint8Array | Uint16Array | Uint32Array | Int8Array | Int16Array;
type AccessorType = GltfAccessor['type'];

const TYPE_COMPONENTS: Record<AccessorType, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

function componentTypeOf(data: ComponentArray): number {
  if (data instanceof Float32Array) return 5126;
  if (data instanceof Uint32Array) return 5125;
  if (data instanceof Uint16Array) return 5123;
  if (data instanceof Int16Array) return 5122;
  if (data instanceof Uint8Array) return 5121;
  return 5120;
}

export class GltfBuilder {
  readonly json: GltfJson & Required<Pick<GltfJson, 'nodes' | 'accessors' | 'bufferViews'>> = {
    asset: { version: '2.0' }, nodes: [], accessors: [], bufferViews: [],
  };
  private readonly chunks: Uint8Array[] = [];
  private byteLength = 0;

  /** Appends `bytes` to buffer 0 (4-byte aligned) as a new bufferView; returns its index. */
  addView(bytes: Uint8Array, byteStride?: number): number {
    const pad = (4 - (this.byteLength % 4)) % 4;
    if (pad) this.push(new Uint8Array(pad));
    const byteOffset = this.byteLength;
    this.push(bytes);
    this.json.bufferViews.push({ buffer: 0, byteOffset, byteLength: bytes.byteLength, ...(byteStride ? { byteStride } : {}) });
    return this.json.bufferViews.length - 1;
  }

  /**
   * Adds an accessor of `type` over `data` in its own tightly packed bufferView; the
   * componentType follows the array class (Float32Array: FLOAT, Uint16Array: UNSIGNED_SHORT...).
   * `extra` overrides any accessor field. Returns the accessor index.
   */
  addAccessor(type: AccessorType, data: ComponentArray, extra: Partial<GltfAccessor> = {}): number {
    const bufferView = this.addView(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return this.addRawAccessor({
      bufferView, componentType: componentTypeOf(data), count: data.length / TYPE_COMPONENTS[type], type, ...extra,
    });
  }

  /** Adds an accessor exactly as given; returns its index. */
  addRawAccessor(accessor: GltfAccessor): number {
    this.json.accessors.push(accessor);
    return this.json.accessors.length - 1;
  }

  /** The asset as the loader sees it. The JSON is copied, so the builder can be changed and built again. */
  build(): GltfAsset {
    const buffer = new Uint8Array(this.byteLength);
    let o = 0;
    for (const chunk of this.chunks) { buffer.set(chunk, o); o += chunk.byteLength; }
    const json: GltfJson = structuredClone({ ...this.json, buffers: [{ byteLength: buffer.byteLength }] });
    // The readers parseGltf attaches to a file that needs them (parse.ts: fetched on demand there).
    return { json, buffers: [buffer], images: [], ...(hasVrm(json) ? { vrm } : {}), ...(hasMorphTargets(json) ? { morph } : {}), ...(usesQuantization(json) ? { quantization } : {}) };
  }

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes.slice());
    this.byteLength += bytes.byteLength;
  }
}

/**
 * A .glb of `json` (JSON.stringify'd, or a string taken as the JSON text as it is) with `bin` as
 * its BIN chunk (none when undefined). Chunks are padded to 4 bytes as the spec requires: JSON
 * with spaces, BIN with zeros. The result is what a file on disk would hold.
 */
export function toGlb(json: unknown, bin?: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(typeof json === 'string' ? json : JSON.stringify(json));
  const jsonLength = Math.ceil(text.byteLength / 4) * 4;
  const binLength = bin ? Math.ceil(bin.byteLength / 4) * 4 : 0;
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsonLength);
  out.set(text, 20);
  if (bin) {
    view.setUint32(20 + jsonLength, binLength, true);
    view.setUint32(24 + jsonLength, 0x004e4942, true);
    out.set(bin, 28 + jsonLength);
  }
  return out;
}

/** The .glb of a built asset: its JSON and buffer 0 as the BIN chunk (buffer 0 loses its uri). */
export function assetToGlb(asset: GltfAsset): Uint8Array {
  const json = structuredClone(asset.json);
  if (json.buffers?.[0]) delete json.buffers[0].uri;
  return toGlb(json, asset.buffers[0]);
}

/** An ArrayBuffer holding exactly `bytes` (what parseGltf takes). */
export function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** Column-major 4x4 translation matrix. */
export function translationMatrix(x: number, y: number, z: number): number[] {
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1];
}

/** Accessor indices of the valid model made by `skinnedModel`. */
export interface SkinnedModel {
  builder: GltfBuilder;
  json: GltfBuilder['json'];
  acc: { positions: number; joints: number; weights: number; indices: number; inverseBind: number; times: number; rotations: number };
}

/**
 * A minimal valid skinned model:
 * - node 0 `root` (joint 0) with child node 1 `arm` (joint 1, translation (0, 1, 0));
 *   node 2 `mesh` draws mesh 0 with skin 0. Scene roots: 0 and 2.
 * - mesh 0: one triangle; vertex 0 on joint 0, vertex 1 on joint 1, vertex 2 half and half.
 * - skin 0: joints [0, 1], inverse bind matrices identity and translate(0, -1, 0).
 * - animation 'wave': channel 0 rotates node 1 (LINEAR, keys at 0 and 1 s).
 */
export function skinnedModel(): SkinnedModel {
  const b = new GltfBuilder();
  const acc = {
    positions: b.addAccessor('VEC3', Float32Array.of(0, 0, 0, 0, 2, 0, 1, 1, 0)),
    joints: b.addAccessor('VEC4', Uint8Array.of(0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0)),
    weights: b.addAccessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0)),
    indices: b.addAccessor('SCALAR', Uint16Array.of(0, 1, 2)),
    inverseBind: b.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, 0, 0), ...translationMatrix(0, -1, 0))),
    times: b.addAccessor('SCALAR', Float32Array.of(0, 1)),
    rotations: b.addAccessor('VEC4', Float32Array.of(0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2)),
  };
  b.json.nodes.push({ name: 'root', children: [1] }, { name: 'arm', translation: [0, 1, 0] }, { name: 'mesh', mesh: 0, skin: 0 });
  b.json.scenes = [{ nodes: [0, 2] }];
  b.json.meshes = [{ primitives: [{ attributes: { POSITION: acc.positions, JOINTS_0: acc.joints, WEIGHTS_0: acc.weights }, indices: acc.indices }] }];
  b.json.skins = [{ joints: [0, 1], inverseBindMatrices: acc.inverseBind }];
  b.json.animations = [{
    name: 'wave',
    channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }],
    samplers: [{ input: acc.times, output: acc.rotations, interpolation: 'LINEAR' }],
  }];
  return { builder: b, json: b.json, acc };
}

/** Asserts that `fn` throws a ModelError whose message matches `message`. */
export function expectModelError(fn: () => unknown, message: RegExp): void {
  expect(fn).toThrow(ModelError);
  expect(fn).toThrow(message);
}

/** Options of `longClipModel`. */
export interface LongClipOptions {
  /** Clip length in seconds and keys per second (keys at 0, 1/fps, ..., seconds). */
  seconds: number;
  fps: number;
  interpolation?: 'LINEAR' | 'STEP' | 'CUBICSPLINE';
  /** Moves each inner key time by up to +-jitter/fps (seeded), so keys lie on no grid. */
  jitter?: number;
  /** Multiplies every angular speed (1: the spine turns at up to 2.9 rad/s). */
  speed?: number;
}

/**
 * A three-joint character (hip, spine, head stacked 1 unit apart, a 6-vertex mesh skinned to
 * them; about 3.3 units tall) with one long clip 'long' of smooth motion keyed from closed-form
 * curves: hip translation, spine rotation about z, head rotation about x and head scale. With
 * CUBICSPLINE the tangents are the curves' derivatives, so the exact spline follows the curves.
 */
export function longClipModel(options: LongClipOptions): SkinnedModel {
  const { seconds, fps, interpolation = 'LINEAR', jitter = 0, speed = 1 } = options;
  const b = new GltfBuilder();
  const keyCount = Math.round(seconds * fps) + 1;
  const random = seededRandom(12345);
  const times = Float32Array.from({ length: keyCount }, (_, k) => (k > 0 && k < keyCount - 1 ? (k + (random() * 2 - 1) * jitter) / fps : k / fps));
  const a = (t: number) => 0.6 * Math.sin(2.1 * speed * t) + 0.3 * Math.sin(5.3 * speed * t); // spine angle
  const da = (t: number) => 0.6 * 2.1 * speed * Math.cos(2.1 * speed * t) + 0.3 * 5.3 * speed * Math.cos(5.3 * speed * t);
  const h = (t: number) => 0.8 * Math.sin(3.7 * speed * t + 1); // head angle
  const dh = (t: number) => 0.8 * 3.7 * speed * Math.cos(3.7 * speed * t + 1);
  const curves: { node: number; path: 'translation' | 'rotation' | 'scale'; value: (t: number) => number[]; slope: (t: number) => number[] }[] = [
    { node: 0, path: 'translation', value: (t) => [0.3 * Math.sin(0.7 * t), 1, 0.2 * Math.sin(1.3 * t)], slope: (t) => [0.21 * Math.cos(0.7 * t), 0, 0.26 * Math.cos(1.3 * t)] },
    { node: 1, path: 'rotation', value: (t) => [0, 0, Math.sin(a(t) / 2), Math.cos(a(t) / 2)], slope: (t) => [0, 0, Math.cos(a(t) / 2) * da(t) / 2, -Math.sin(a(t) / 2) * da(t) / 2] },
    { node: 2, path: 'rotation', value: (t) => [Math.sin(h(t) / 2), 0, 0, Math.cos(h(t) / 2)], slope: (t) => [Math.cos(h(t) / 2) * dh(t) / 2, 0, 0, -Math.sin(h(t) / 2) * dh(t) / 2] },
    { node: 2, path: 'scale', value: (t) => { const s = 1 + 0.1 * Math.sin(0.5 * t); return [s, s, s]; }, slope: (t) => { const s = 0.05 * Math.cos(0.5 * t); return [s, s, s]; } },
  ];
  const input = b.addAccessor('SCALAR', times);
  const samplers = curves.map((curve) => {
    const values = Array.from(times).flatMap((t) => (interpolation === 'CUBICSPLINE' ? [...curve.slope(t), ...curve.value(t), ...curve.slope(t)] : curve.value(t)));
    return { input, output: b.addAccessor(curve.path === 'rotation' ? 'VEC4' : 'VEC3', Float32Array.from(values)), interpolation };
  });
  const acc = {
    positions: b.addAccessor('VEC3', Float32Array.of(-0.5, 0, 0, 0.5, 0, 0, -0.5, 1.5, 0, 0.5, 1.5, 0, -0.5, 3, 0.3, 0.5, 3, 0.3)),
    joints: b.addAccessor('VEC4', Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0)),
    weights: b.addAccessor('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)),
    indices: b.addAccessor('SCALAR', Uint16Array.of(0, 1, 2, 2, 3, 4, 3, 5, 4)),
    inverseBind: b.addAccessor('MAT4', Float32Array.of(...translationMatrix(0, -1, 0), ...translationMatrix(0, -2, 0), ...translationMatrix(0, -3, 0))),
    times: input,
    rotations: samplers[1].output,
  };
  b.json.nodes.push(
    { name: 'hip', translation: [0, 1, 0], children: [1] }, { name: 'spine', translation: [0, 1, 0], children: [2] },
    { name: 'head', translation: [0, 1, 0] }, { name: 'mesh', mesh: 0, skin: 0 });
  b.json.scenes = [{ nodes: [0, 3] }];
  b.json.meshes = [{ primitives: [{ attributes: { POSITION: acc.positions, JOINTS_0: acc.joints, WEIGHTS_0: acc.weights }, indices: acc.indices }] }];
  b.json.skins = [{ joints: [0, 1, 2], inverseBindMatrices: acc.inverseBind }];
  b.json.animations = [{
    name: 'long',
    channels: curves.map((curve, i) => ({ sampler: i, target: { node: curve.node, path: curve.path } })),
    samplers,
  }];
  return { builder: b, json: b.json, acc };
}

/** Accessor indices of the model made by `morphModel`, on top of skinnedModel's. */
export interface MorphModel extends SkinnedModel {
  morph: { normals: number; positions: [number, number]; normalDeltas: [number, number] };
}

/**
 * skinnedModel with morph targets on its mesh (node 2, skinned), for the morph tests:
 * - the triangle gets normals (0, 0, 1) and two targets, 'smile' (vertex 1 moves by (0.5, 0, 0),
 *   vertex 2 by (0, 0.25, 0), normals tilt) and 'blink' (vertex 0 moves by (0, 0, 0.5), vertex 2 by
 *   (-0.25, 0, 0.125), no NORMAL); mesh.weights [0.25, 0], names in extras.targetNames;
 * - animation 'wave' also animates the weights (LINEAR, keys at 0, 0.5, 1 s: (0, 0), (1, 0.5), (0.2, 1));
 * - animation 'blink' animates only the weights, CUBICSPLINE over 2 s (keys at 0, 1.5, 2 s);
 * - animation 'snap' animates the weights by STEP (keys at 0, 0.25, 0.5 s) and rotates the arm.
 */
export function morphModel(): MorphModel {
  const m = skinnedModel();
  const b = m.builder;
  const prim = m.json.meshes![0].primitives[0];
  const morph = {
    normals: b.addAccessor('VEC3', Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1)),
    positions: [
      b.addAccessor('VEC3', Float32Array.of(0, 0, 0, 0.5, 0, 0, 0, 0.25, 0)),
      b.addAccessor('VEC3', Float32Array.of(0, 0, 0.5, 0, 0, 0, -0.25, 0, 0.125)),
    ] as [number, number],
    normalDeltas: [
      b.addAccessor('VEC3', Float32Array.of(0.5, 0, 0, 0, 0.5, 0, 0.25, 0.25, 0)),
      -1,
    ] as [number, number],
  };
  prim.attributes.NORMAL = morph.normals;
  prim.targets = [{ POSITION: morph.positions[0], NORMAL: morph.normalDeltas[0] }, { POSITION: morph.positions[1] }];
  m.json.meshes![0].weights = [0.25, 0];
  m.json.meshes![0].extras = { targetNames: ['smile', 'blink'] };
  const times = b.addAccessor('SCALAR', Float32Array.of(0, 0.5, 1));
  const wave = m.json.animations![0];
  wave.samplers.push({ input: times, output: b.addAccessor('SCALAR', Float32Array.of(0, 0, 1, 0.5, 0.2, 1)), interpolation: 'LINEAR' });
  wave.channels.push({ sampler: 1, target: { node: 2, path: 'weights' } });
  // CUBICSPLINE: per key 2 in-tangents, 2 values, 2 out-tangents.
  const cubic = Float32Array.of(0, 0, 0, 0, 1, -1, /**/ 0.5, 0, 0.6, 0.9, 0.5, 0, /**/ -1, 0, 0.1, 0.3, 0, 0);
  m.json.animations!.push({
    name: 'blink',
    channels: [{ sampler: 0, target: { node: 2, path: 'weights' } }],
    samplers: [{ input: b.addAccessor('SCALAR', Float32Array.of(0, 1.5, 2)), output: b.addAccessor('SCALAR', cubic), interpolation: 'CUBICSPLINE' }],
  });
  const stepTimes = b.addAccessor('SCALAR', Float32Array.of(0, 0.25, 0.5));
  m.json.animations!.push({
    name: 'snap',
    channels: [{ sampler: 0, target: { node: 2, path: 'weights' } }, { sampler: 1, target: { node: 1, path: 'rotation' } }],
    samplers: [
      { input: stepTimes, output: b.addAccessor('SCALAR', Float32Array.of(1, 0, 0, 1, 0.5, 0.5)), interpolation: 'STEP' },
      { input: m.acc.times, output: m.acc.rotations, interpolation: 'LINEAR' },
    ],
  });
  return { ...m, morph };
}
