import { expect } from 'vitest';
import { ModelError } from '../../src/bake/errors';
import type { GltfAccessor, GltfAsset, GltfJson } from '../../src/bake/gltf-json';

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
    return { json, buffers: [buffer], images: [] };
  }

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes.slice());
    this.byteLength += bytes.byteLength;
  }
}

/**
 * A .glb of `json` (written as given, after JSON.stringify) with `bin` as its BIN chunk (none
 * when undefined). Chunks are padded to 4 bytes as the spec requires: JSON with spaces, BIN with
 * zeros. The result is what a file on disk would hold.
 */
export function toGlb(json: unknown, bin?: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
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
