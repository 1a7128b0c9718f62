/**
 * A character's vertex and index buffers on WebGL 2 (the twin of src/runtime/mesh-buffers.ts):
 * per primitive the same interleaved skin and shading streams and every LOD level's indices
 * (primitiveStreams), in a vertex array object whose attribute locations are skin.wgsl's (0..8;
 * shaders/webgl2/skin.vert.glsl), plus location 9: the instance slot, an instanced uint attribute
 * read from the caller's slot buffer, and location 10: the joint set the slot's matrices are read
 * from (the slot buffer again, or a palette's joint-set buffer: pointSlots). Owns its buffers and
 * vertex arrays.
 */
import type { DrawOrder } from '../bake/draw-order';
import type { Character } from '../character/character';
import { triangleList, type SkinnedPrimitive } from '../bake/rig';
import { primitiveStreams, vertexLayouts, type VertexStreams } from '../runtime/mesh-buffers';

/** skin.vert.glsl's location of the instance slot attribute (divisor 1). */
export const SLOT_LOCATION = 9;
/** skin.vert.glsl's location of the joint set attribute (divisor 1). */
export const JOINT_SET_LOCATION = 10;

/** Mesh LOD levels GLMesh makes of `character` (its draw order's, else 1 + its LOD index sets), without making it. */
export function meshLevels(character: Pick<Character, 'lods' | 'drawOrder'>): number {
  const order = character.drawOrder;
  return order ? order.levels[0]?.length ?? 1 : 1 + (character.lods?.indices[0]?.length ?? 0);
}

/** One primitive on WebGL 2. */
export interface GLPrimitive extends VertexStreams {
  primitive: SkinnedPrimitive;
  vertexArray: WebGLVertexArrayObject;
  /** gl.UNSIGNED_SHORT or gl.UNSIGNED_INT. */
  indexType: number;
  /** Bytes per index (2 or 4). */
  indexBytes: number;
  /** (indexCount, firstIndex) of each LOD level in the index buffer. */
  ranges: [number, number][];
}

/** GPUVertexFormat -> (components, GL type, integer attribute). */
const FORMATS: Record<string, [number, number, boolean]> = {
  float32x2: [2, 0x1406, false], float32x3: [3, 0x1406, false], float32x4: [4, 0x1406, false], // gl.FLOAT
  uint8x4: [4, 0x1401, true], uint16x4: [4, 0x1403, true], // gl.UNSIGNED_BYTE, gl.UNSIGNED_SHORT
};

/** The vertex arrays of a character's primitives, uploaded once (every LOD level's triangles one after another, as MeshBuffers does). */
export class GLMesh {
  readonly primitives: GLPrimitive[] = [];
  /** LOD levels (the same for every primitive). */
  readonly levels: number;
  private readonly buffers: WebGLBuffer[] = [];

  /**
   * `slotBuffer`: the ARRAY_BUFFER the instance slots are read from (u32 each; not owned). `lods`
   * and `order` as MeshBuffers takes them (Character.lods?.indices, Character.drawOrder).
   */
  constructor(private readonly gl: WebGL2RenderingContext, primitives: SkinnedPrimitive[], skinSlotOffset: Uint32Array, private readonly slotBuffer: WebGLBuffer,
    lods: Uint32Array[][] = [], order?: DrawOrder) {
    this.levels = order ? order.levels[0]?.length ?? 1 : 1 + (lods[0]?.length ?? 0);
    try {
      primitives.forEach((prim, p) => {
        const levels = order ? order.levels[p] : [triangleList(prim), ...(lods[p] ?? [])];
        if (levels.length !== this.levels) throw new RangeError(`primitive ${p} has ${levels.length} LOD levels, primitive 0 has ${this.levels}`);
        const data = primitiveStreams(prim, skinSlotOffset[prim.skin], levels, order?.vertexOf[p]);
        const vertexArray = gl.createVertexArray();
        gl.bindVertexArray(vertexArray);
        const layouts = vertexLayouts(data.streams);
        // Layouts 0 and 1: the skin and shading streams; 2 (MeshBuffers' stand-in) is not needed: skin.vert.glsl declares only what the primitive has.
        [data.skin, data.shading].forEach((bytes, stream) => {
          gl.bindBuffer(gl.ARRAY_BUFFER, this.buffer(gl.ARRAY_BUFFER, bytes));
          const { arrayStride, attributes } = layouts[stream];
          for (const a of attributes) {
            const [size, type, integer] = FORMATS[a.format];
            gl.enableVertexAttribArray(a.shaderLocation);
            if (integer) gl.vertexAttribIPointer(a.shaderLocation, size, type, Number(arrayStride), a.offset);
            else gl.vertexAttribPointer(a.shaderLocation, size, type, false, Number(arrayStride), a.offset);
          }
        });
        gl.bindBuffer(gl.ARRAY_BUFFER, slotBuffer);
        for (const location of [SLOT_LOCATION, JOINT_SET_LOCATION]) {
          gl.enableVertexAttribArray(location);
          gl.vertexAttribIPointer(location, 1, gl.UNSIGNED_INT, 4, 0);
          gl.vertexAttribDivisor(location, 1);
        }
        gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, this.buffer(gl.ELEMENT_ARRAY_BUFFER, data.indices));
        gl.bindVertexArray(null);
        const wide = data.indices instanceof Uint32Array;
        this.primitives.push({ primitive: prim, ...data.streams, vertexArray, indexType: wide ? gl.UNSIGNED_INT : gl.UNSIGNED_SHORT, indexBytes: wide ? 4 : 2, ranges: data.ranges });
      });
    } catch (error) {
      gl.bindVertexArray(null);
      this.destroy();
      throw error;
    }
  }

  /**
   * Points the bound vertex array's slot attribute at entry `first` of the slot buffer (a level's
   * list), and its joint set attribute at entry `first` of `jointSets` (u32 per listed slot,
   * parallel to the slots) or, without one, of the slot buffer (set = slot).
   */
  pointSlots(first: number, jointSets?: WebGLBuffer): void {
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, this.slotBuffer);
    gl.vertexAttribIPointer(SLOT_LOCATION, 1, gl.UNSIGNED_INT, 4, first * 4);
    if (jointSets) gl.bindBuffer(gl.ARRAY_BUFFER, jointSets);
    gl.vertexAttribIPointer(JOINT_SET_LOCATION, 1, gl.UNSIGNED_INT, 4, first * 4);
  }

  destroy(): void {
    for (const p of this.primitives) this.gl.deleteVertexArray(p.vertexArray);
    for (const b of this.buffers) this.gl.deleteBuffer(b);
    this.primitives.length = 0;
    this.buffers.length = 0;
  }

  private buffer(target: number, data: ArrayBufferView): WebGLBuffer {
    const buffer = this.gl.createBuffer();
    this.buffers.push(buffer);
    this.gl.bindBuffer(target, buffer);
    this.gl.bufferData(target, data, this.gl.STATIC_DRAW);
    return buffer;
  }
}
