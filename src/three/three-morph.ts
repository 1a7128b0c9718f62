/**
 * Morph targets under shading 'three': the morph pass (src/features/morph/) writes every
 * instance's blended weights into the crowd's weight buffer as under the default shading; this
 * copies them into a three-owned storage buffer in the crowd's command encoder (after the morph
 * pass), and the position node adds `sum w_t * delta_t` to the vertex's position and normal
 * before skinning, as skin.wgsl's `morph` does. Made by ThreeShading only while a feature
 * provides the weights (CrowdKernel.draws.vertexWeights: a CrowdMorph), so a crowd without one
 * pays nothing and this file names no feature.
 *
 * Every primitive's displacements (src/runtime/mesh-data.ts morphTargetData, header stripped) sit
 * in one storage buffer, and a per-primitive header (first displacement, target count, first
 * weight, normals) in another, indexed by the drawn primitive: one material may draw every
 * primitive (ThreeShadingOptions.material), so nothing per primitive can be a constant of it.
 * Owns its three storage attributes.
 */
import { If, Loop, storage, uint, vertexIndex } from 'three/tsl';
import { StorageBufferAttribute } from 'three/webgpu';
import type { Character } from '../character/character';
import { MORPH_HEADER } from '../runtime/layout';
import { morphTargetData } from '../runtime/mesh-data';
import type { WebGpuBackend } from './backend';
import { CopiedBuffer } from './copied-buffer';
import type { SkinnedVertex, TslNode } from './three-skinning';

/** Words of a primitive's header here: first displacement (vec4f index), targets, first weight, normals (0 or 1). */
const HEADER_WORDS = 4;

/** three's side of a crowd's morph targets: displacements, headers and the copied weights. */
export class ThreeMorph {
  /** f32 weights per instance slot (BakedMorph.weightCount). */
  readonly weightCount: number;
  private readonly deltas: StorageBufferAttribute;
  private readonly headers: StorageBufferAttribute;
  /** Three's copy of the crowd's weights. */
  private readonly weights: CopiedBuffer;

  /** `character` must have morph targets (Character.baked.morph); a RangeError otherwise. */
  constructor(character: Character, backend: WebGpuBackend, capacity: number) {
    const morph = character.baked.morph;
    if (!morph) throw new RangeError(`crowd-skin/three: ${character.name} has no morph targets`);
    this.weightCount = morph.weightCount;
    const primitives = character.rig.primitives;
    const blocks = primitives.map((prim) => morphTargetData(prim, morph.setBase, morph.weightCount));
    const headerFloats = MORPH_HEADER.size / 4;
    const deltas = new Float32Array(blocks.reduce((sum, block) => sum + block.length - headerFloats, 0));
    const headers = new Uint32Array(Math.max(1, primitives.length) * HEADER_WORDS);
    let at = 0;
    blocks.forEach((block, p) => {
      const words = new Uint32Array(block.buffer, 0, headerFloats);
      headers[p * HEADER_WORDS] = at / 4;
      headers[p * HEADER_WORDS + 1] = words[MORPH_HEADER.targetCount / 4];
      headers[p * HEADER_WORDS + 2] = words[MORPH_HEADER.weightBase / 4];
      headers[p * HEADER_WORDS + 3] = words[MORPH_HEADER.normals / 4];
      deltas.set(block.subarray(headerFloats), at);
      at += block.length - headerFloats;
    });
    this.deltas = new StorageBufferAttribute(deltas, 4);
    this.headers = new StorageBufferAttribute(headers, 4);
    this.weights = new CopiedBuffer(backend, 'crowd morph weights');
    this.allocate(capacity);
  }

  /** Three's weight buffer for `capacity` slots (the old one freed): call when the crowd grows, then rebuild the nodes. */
  allocate(capacity: number): void {
    this.weights.replace(new StorageBufferAttribute(Math.max(1, capacity) * this.weightCount, 1));
  }

  /** Copies the weights of slots [0, count) from `source` (the crowd's weight buffer, written by the morph pass this frame). */
  encode(encoder: GPUCommandEncoder, source: GPUBuffer, count: number): void {
    this.weights.copy(encoder, source, count * this.weightCount * 4);
  }

  /**
   * The vertex of primitive `primitive` of instance `slot`, displaced by its targets times the
   * slot's weights (targets of weight 0 skipped; not renormalised). In a TSL Fn.
   */
  morphed(slot: TslNode<'uint'>, primitive: TslNode<'uint'>, vertex: SkinnedVertex): SkinnedVertex {
    const deltas = storage(this.deltas, 'vec4', this.deltas.count).toReadOnly();
    const headers = storage(this.headers, 'uvec4', this.headers.count).toReadOnly();
    const weights = storage(this.weights.attribute, 'float', this.weights.attribute.count).toReadOnly();
    const header = headers.element(primitive).toVar();
    const position = vertex.position.toVar();
    const normal = vertex.normal.toVar();
    const first = slot.mul(uint(this.weightCount)).add(header.z).toVar();
    const stride = header.w.add(uint(1));
    Loop({ start: uint(0), end: header.y, type: 'uint', condition: '<' }, ({ i }: { i: TslNode<'uint'> }) => {
      const w = weights.element(first.add(i)).toVar();
      If(w.notEqual(0), () => {
        const d = header.x.add(vertexIndex.mul(header.y).add(i).mul(stride)).toVar();
        position.addAssign(deltas.element(d).xyz.mul(w));
        If(header.w.notEqual(uint(0)), () => {
          normal.addAssign(deltas.element(d.add(uint(1))).xyz.mul(w));
        });
      });
    });
    return { position, normal };
  }

  /** Bytes of three's buffers (the displacements, headers and weights). */
  get gpuBytes(): number {
    return this.deltas.array.byteLength + this.headers.array.byteLength + this.weights.size;
  }

  destroy(): void {
    this.weights.destroy();
    this.deltas.dispose();
    this.headers.dispose();
  }
}
