import type { DrawOrder } from '../bake/draw-order';
import { triangleList, type SkinnedPrimitive } from '../bake/rig';
import { LOD_RANGE } from './layout';
import { morphTargetData, primitiveVertices } from './mesh-data';

/**
 * What a primitive's vertex streams hold, which fixes its vertex buffer layouts (vertexLayouts) and
 * the skin shader's per-pipeline constants (vertexConstants): see docs/draw.md.
 */
export interface VertexStreams {
  influences: 4 | 8;
  /**
   * Whether the shading stream holds the primitive's normals; false for a faceted primitive drawn
   * with shared vertices (DrawOrder.vertexOf): the zero stand-in then, and the fragment stage
   * derives each face's normal.
   */
  normals: boolean;
  /** UV sets: 1 (TEXCOORD_0, 8 bytes a vertex) or 2 (TEXCOORD_0 and _1, 16 bytes: a texture reads TEXCOORD_1). */
  uvSets: 1 | 2;
  /** Whether the shading stream holds the primitive's own TANGENT (16 bytes a vertex) rather than the stand-in. */
  tangents: boolean;
  /** Whether the shading stream holds the primitive's own COLOR_0 (16 bytes a vertex) rather than the white stand-in. */
  colors: boolean;
  /** Bytes per joint index: 1 (uint8, every joint slot below 256) or 2 (uint16). */
  jointBytes: 1 | 2;
}

/** One primitive's GPU buffers, shared by the passes that draw it (SkinPass, ShadowPass). */
export interface PrimitiveBuffers extends VertexStreams {
  label: string;
  primitive: SkinnedPrimitive;
  /**
   * Vertex buffer slots 0..2 (vertexLayouts): the skin stream (position, joints, weights
   * interleaved: all a depth-only pass reads), the shading stream (normal, UVs, colour, tangent:
   * those the primitive has), and MeshBuffers' shared stand-in for those it lacks.
   */
  vertexBuffers: GPUBuffer[];
  /** The primitive's vertex -> the GPU vertex drawn for it where its vertices are shared (DrawOrder.vertexOf), else undefined (the same numbering). */
  vertexOf?: Uint32Array;
  /** Every LOD level's triangles, level after level (see `ranges`). */
  indexBuffer: GPUBuffer;
  indexFormat: GPUIndexFormat;
  /** (indexCount, firstIndex) of each level in `indexBuffer`. */
  ranges: [number, number][];
  /**
   * The morph-target buffer (mesh-data.ts morphTargetData) when the character has morph targets:
   * every primitive has one (a header alone for a primitive without targets); else undefined.
   */
  morphTargets?: GPUBuffer;
  /** Whether the primitive has morph targets (it is drawn with the morph entry points). */
  morphed: boolean;
}

/** How a character's morph weights are laid out per instance (BakedMorph satisfies it). */
export interface MorphWeightLayout {
  /** First weight of each morph set. */
  setBase: ArrayLike<number>;
  /** Weights per instance. */
  weightCount: number;
}

/**
 * The vertex and index buffers of a character's primitives, uploaded once. Index buffers hold
 * every mesh LOD level one after another; skinning attributes are shared by all levels.
 * Non-indexed primitives get the indices 0, 1, 2, ... so that every draw is indexed (the same
 * triangles in the same order). Owns its buffers.
 */
export class MeshBuffers {
  readonly primitives: PrimitiveBuffers[] = [];
  /** LOD levels (the same for every primitive). */
  readonly levels: number;
  /** Whether the character has morph targets (every primitive then has a morphTargets buffer). */
  readonly morph: boolean;
  /** Vertex buffer 2 of every primitive: STAND_IN's (0, 0, 0, 0) and (1, 1, 1, 1), read with arrayStride 0 by every vertex. */
  private readonly standIn: GPUBuffer;

  /**
   * `lods[p][l]`: triangle indices of primitive p at level l >= 1 (level 0 is the primitive's
   * own); every primitive has the same number of levels. `morph`: the morph weight layout of a
   * character with morph targets (undefined for one without: no morph buffers at all). `order`:
   * the vertices and every level's triangles as the character's load ordered them
   * (Character.drawOrder, which then stands for `lods`); without, vertices as loaded and
   * triangles in file order.
   */
  constructor(private readonly device: GPUDevice, primitives: SkinnedPrimitive[], skinSlotOffset: Uint32Array, lods: Uint32Array[][] = [], morph?: MorphWeightLayout,
    order?: DrawOrder) {
    this.levels = order ? order.levels[0]?.length ?? 1 : 1 + (lods[0]?.length ?? 0);
    this.morph = morph !== undefined;
    this.standIn = this.upload('MeshBuffers.standIn', Float32Array.of(0, 0, 0, 0, 1, 1, 1, 1), GPUBufferUsage.VERTEX);
    primitives.forEach((prim, p) => {
      const label = `MeshBuffers.primitive${p}`;
      const levels = order ? order.levels[p] : [triangleList(prim), ...(lods[p] ?? [])];
      if (levels.length !== this.levels) throw new RangeError(`primitive ${p} has ${levels.length} LOD levels, primitive 0 has ${this.levels}`);
      const data = primitiveStreams(prim, skinSlotOffset[prim.skin], levels, order?.vertexOf[p]);
      this.primitives.push({
        label, primitive: prim, ...data.streams, ranges: data.ranges, vertexOf: data.vertexOf,
        vertexBuffers: [
          this.upload(`${label}.skinStream`, data.skin, GPUBufferUsage.VERTEX),
          this.upload(`${label}.shadingStream`, data.shading, GPUBufferUsage.VERTEX),
          this.standIn,
        ],
        indexBuffer: this.upload(`${label}.indices`, data.indices, GPUBufferUsage.INDEX),
        indexFormat: data.indices instanceof Uint32Array ? 'uint32' : 'uint16',
        morphTargets: morph && this.upload(`${label}.morphTargets`, morphTargetData(prim, morph.setBase, morph.weightCount), GPUBufferUsage.STORAGE),
        morphed: morph !== undefined && prim.morph !== undefined,
      });
    });
  }

  /** LOD_RANGE records (indexCount, firstIndex) per (level, primitive), level after level: the cull pass's table. */
  lodRanges(): Uint32Array<ArrayBuffer> {
    const words = LOD_RANGE.size / 4;
    const out = new Uint32Array(this.levels * this.primitives.length * words);
    for (let l = 0; l < this.levels; l++) {
      this.primitives.forEach((p, i) => {
        const o = (l * this.primitives.length + i) * words;
        out[o + LOD_RANGE.indexCount / 4] = p.ranges[l][0];
        out[o + LOD_RANGE.firstIndex / 4] = p.ranges[l][1];
      });
    }
    return out;
  }

  /** Indices drawn per instance at each level, summed over primitives. */
  indicesPerInstance(): number[] {
    return Array.from({ length: this.levels }, (_, l) => this.primitives.reduce((n, p) => n + p.ranges[l][0], 0));
  }

  /** Binds primitive `p`'s vertex and index buffers into `pass`. */
  setBuffers(pass: GPURenderPassEncoder, p: PrimitiveBuffers): void {
    for (let slot = 0; slot < p.vertexBuffers.length; slot++) pass.setVertexBuffer(slot, p.vertexBuffers[slot]);
    pass.setIndexBuffer(p.indexBuffer, p.indexFormat);
  }

  destroy(): void {
    for (const p of this.primitives) for (const buffer of [...p.vertexBuffers, p.indexBuffer]) if (buffer !== this.standIn) buffer.destroy();
    this.standIn.destroy();
    for (const p of this.primitives) p.morphTargets?.destroy();
  }

  private upload(label: string, data: ArrayBufferView, usage: number): GPUBuffer {
    const bytes = data.byteLength;
    const buffer = this.device.createBuffer({ label, size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: usage | GPUBufferUsage.COPY_DST, mappedAtCreation: true });
    new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, bytes));
    buffer.unmap();
    return buffer;
  }
}

/**
 * One primitive's vertex streams and indices as every backend uploads them (MeshBuffers on
 * WebGPU, GLMesh on WebGL 2): the skin and shading streams interleaved (vertexStreams), every LOD
 * level's triangles one after another (uint32 only above 65,536 vertices) with their
 * (indexCount, firstIndex). `slotOffset`: the primitive's skin's first joint slot; `levels`: the
 * triangle list of each level; `vertexOf`: DrawOrder.vertexOf of a primitive drawn with shared
 * vertices (undefined: the vertices as loaded).
 */
export function primitiveStreams(prim: SkinnedPrimitive, slotOffset: number, levels: readonly Uint32Array[], vertexOf?: Uint32Array): {
  streams: VertexStreams; skin: Uint8Array; shading: Uint8Array; indices: Uint16Array | Uint32Array; ranges: [number, number][]; vertexOf?: Uint32Array;
} {
  const v = primitiveVertices(prim, slotOffset);
  // One source vertex per GPU vertex (those it stands for are equal in every uploaded stream).
  const shared = vertexOf && sourceVertices(vertexOf);
  const gather = <T extends Float32Array | Uint16Array>(data: T, size: number): T => (shared ? gatherVertices(data, size, shared) : data);
  const total = levels.reduce((n, l) => n + l.length, 0);
  const indices = prim.vertexCount > 0x10000 ? new Uint32Array(total) : new Uint16Array(total);
  const ranges: [number, number][] = [];
  let first = 0;
  for (const level of levels) {
    indices.set(level, first);
    ranges.push([level.length, first]);
    first += level.length;
  }
  const joints = compactJoints(gather(v.joints, v.influences));
  const streams: VertexStreams = {
    influences: v.influences, normals: shared === undefined, uvSets: v.uvSets, tangents: v.tangents !== undefined, colors: prim.colors !== undefined,
    jointBytes: joints.BYTES_PER_ELEMENT as 1 | 2,
  };
  const data: Record<StreamField['name'], ArrayBufferView | undefined> = {
    position: gather(v.positions, 3), joints, weights: gather(v.weights, v.influences),
    normal: streams.normals ? v.normals : undefined, uv: gather(v.uvs, v.uvSets * 2),
    color: prim.colors && gather(v.colors, 4), tangent: v.tangents && gather(v.tangents, 4),
  };
  const count = shared ? shared.length : prim.vertexCount;
  const [skin, shading] = vertexStreams(streams);
  return { streams, skin: interleave(skin, data, count), shading: interleave(shading, data, count), indices, ranges, vertexOf };
}

/** One attribute in an interleaved vertex stream: `bytes` a vertex from the array MeshBuffers holds under `name`. */
export interface StreamField {
  name: 'position' | 'joints' | 'weights' | 'normal' | 'uv' | 'color' | 'tangent';
  bytes: number;
  /** The shader locations it feeds (JOINTS_1 / WEIGHTS_1 follow JOINTS_0 / WEIGHTS_0 in the same field), offsets within the stream. */
  attributes: GPUVertexAttribute[];
}

/** The offsets in STAND_IN (MeshBuffers' shared stand-in buffer): zero (normal, tangent) and white (colour). */
const STAND_IN = { zero: 0, white: 16 };

/**
 * The fields of a primitive's two interleaved streams (shaders/skin.wgsl locations 0..8): the skin
 * stream (position float32x3, joints uint8x4 or uint16x4, weights float32x4; one or two of each
 * for 4 or 8 influences) and the shading stream (normal float32x3, UVs float32x2 or float32x4,
 * colour and tangent float32x4: those the primitive has). Location 2 is a vec4f whose zw,
 * TEXCOORD_1, WebGPU fills with (0, 1) from float32x2. Weights stay float32: unorm16 moved
 * RobotExpressive's skinned normals 1.4e-5 from the reference, over the 1e-5 oracle (docs/draw.md).
 */
export function vertexStreams(streams: VertexStreams): [skin: StreamField[], shading: StreamField[]] {
  const { influences, uvSets, tangents, colors, normals, jointBytes } = streams;
  const joints = jointBytes === 1 ? 'uint8x4' : 'uint16x4';
  const pair = (first: number, second: number, format: GPUVertexFormat, size: number): GPUVertexAttribute[] =>
    influences === 8 ? [{ shaderLocation: first, format, offset: 0 }, { shaderLocation: second, format, offset: size }] : [{ shaderLocation: first, format, offset: 0 }];
  const one = (name: StreamField['name'], shaderLocation: number, format: GPUVertexFormat, bytes: number): StreamField => ({ name, bytes, attributes: [{ shaderLocation, format, offset: 0 }] });
  const skin: StreamField[] = [
    one('position', 0, 'float32x3', 12),
    { name: 'joints', bytes: influences * jointBytes, attributes: pair(3, 5, joints, 4 * jointBytes) },
    { name: 'weights', bytes: influences * 4, attributes: pair(4, 6, 'float32x4', 16) },
  ];
  const shading: StreamField[] = [
    ...(normals ? [one('normal', 1, 'float32x3', 12)] : []),
    one('uv', 2, uvSets === 2 ? 'float32x4' : 'float32x2', uvSets * 8),
    ...(colors ? [one('color', 7, 'float32x4', 16)] : []),
    ...(tangents ? [one('tangent', 8, 'float32x4', 16)] : []),
  ];
  return [skin, shading];
}

/**
 * The vertex buffer layouts of a primitive's three vertex buffers (PrimitiveBuffers.vertexBuffers):
 * the skin stream, the shading stream (vertexStreams), and the stand-in read with arrayStride 0
 * for the normal, colour and tangent a primitive lacks (the shader, told by vertexConstants, does
 * not use them). The Fox: 32 bytes a vertex of skin stream, 8 of shading.
 */
export function vertexLayouts(streams: VertexStreams): GPUVertexBufferLayout[] {
  const layout = (fields: StreamField[]): GPUVertexBufferLayout => {
    let offset = 0;
    const attributes: GPUVertexAttribute[] = [];
    for (const field of fields) {
      for (const a of field.attributes) attributes.push({ ...a, offset: offset + a.offset });
      offset += field.bytes;
    }
    return { arrayStride: offset, attributes };
  };
  const standIn: GPUVertexAttribute[] = [
    ...(streams.normals ? [] : [{ shaderLocation: 1, format: 'float32x3' as const, offset: STAND_IN.zero }]),
    ...(streams.colors ? [] : [{ shaderLocation: 7, format: 'float32x4' as const, offset: STAND_IN.white }]),
    ...(streams.tangents ? [] : [{ shaderLocation: 8, format: 'float32x4' as const, offset: STAND_IN.zero }]),
  ];
  const [skin, shading] = vertexStreams(streams);
  return [layout(skin), layout(shading), { arrayStride: 0, attributes: standIn }];
}

/** `fields` of `count` vertices interleaved into one buffer's bytes, from the arrays `data` holds by name (tightly packed, `bytes` a vertex each). */
function interleave(fields: StreamField[], data: Record<StreamField['name'], ArrayBufferView | undefined>, count: number): Uint8Array {
  const stride = fields.reduce((n, f) => n + f.bytes, 0);
  const out = new Uint8Array(Math.max(4, stride * count));
  let offset = 0;
  for (const field of fields) {
    const source = data[field.name]!;
    const bytes = new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
    for (let v = 0; v < count; v++) out.set(bytes.subarray(v * field.bytes, (v + 1) * field.bytes), v * stride + offset);
    offset += field.bytes;
  }
  return out;
}

/**
 * The skin shader's per-pipeline constants for a primitive's streams (skin.wgsl TANGENTS, COLORS,
 * UV1): what its vertex stage passes on and its fragment stage reads. Give them to both stages.
 */
export function vertexConstants(streams: VertexStreams): Record<string, number> {
  return { NORMALS: Number(streams.normals), TANGENTS: Number(streams.tangents), COLORS: Number(streams.colors), UV1: Number(streams.uvSets === 2) };
}

/** A key that differs wherever vertexLayouts or vertexConstants differ: pipelines are shared by primitives with equal keys. */
export function streamsKey(streams: VertexStreams): string {
  return `i${streams.influences}.n${Number(streams.normals)}.uv${streams.uvSets}.t${Number(streams.tangents)}.c${Number(streams.colors)}.j${streams.jointBytes}`;
}

/** For each GPU vertex of `vertexOf` (a primitive's vertex -> GPU vertex), one vertex drawn as it. */
function sourceVertices(vertexOf: Uint32Array): Uint32Array {
  let count = 0;
  for (const g of vertexOf) count = Math.max(count, g + 1);
  const out = new Uint32Array(count);
  vertexOf.forEach((g, v) => { out[g] = v; });
  return out;
}

/** `data` (`size` values a vertex) of the vertices `vertices` lists, in that order. */
function gatherVertices<T extends Float32Array | Uint16Array>(data: T, size: number, vertices: Uint32Array): T {
  const out = new (data.constructor as new (length: number) => T)(vertices.length * size);
  for (let i = 0; i < vertices.length; i++) out.set(data.subarray(vertices[i] * size, vertices[i] * size + size), i * size);
  return out;
}

/** Joint slots as uint8 when every one is below 256 (half the bytes of uint16), else as they are (uint16). */
export function compactJoints(joints: Uint16Array): Uint8Array | Uint16Array {
  for (let i = 0; i < joints.length; i++) if (joints[i] > 0xff) return joints;
  return Uint8Array.from(joints);
}
