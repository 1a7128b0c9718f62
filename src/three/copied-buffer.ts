/**
 * A three-owned storage buffer one of the crowd's buffers is copied into each frame, in the
 * crowd's command encoder (three r187 binds only GPUBuffers it made: backend.ts). Shared by the
 * features' three sides (three-appearance.ts, three-morph.ts). Owns its attribute.
 */
import type { StorageBufferAttribute } from 'three/webgpu';
import type { WebGpuBackend } from './backend';

export class CopiedBuffer {
  /** The attribute three's nodes read (replaced by `replace`: rebuild the nodes then). */
  attribute!: StorageBufferAttribute;
  private buffer!: GPUBuffer;

  /** `label` names the buffer in three's errors. */
  constructor(private readonly backend: WebGpuBackend, private readonly label: string) {}

  /** Makes three's buffer for `attribute`, freeing the one before (growth). */
  replace(attribute: StorageBufferAttribute): void {
    if (this.attribute) this.backend.destroyAttribute(this.attribute);
    this.attribute = attribute;
    this.buffer = this.backend.storageBuffer(attribute, this.label);
  }

  /** Copies the first `bytes` of `source` (cut to both buffers' sizes). */
  copy(encoder: GPUCommandEncoder, source: GPUBuffer, bytes: number): void {
    const size = Math.min(bytes, source.size, this.buffer.size);
    if (size > 0) encoder.copyBufferToBuffer(source, 0, this.buffer, 0, size);
  }

  /** Bytes of three's buffer. */
  get size(): number {
    return this.buffer.size;
  }

  destroy(): void {
    this.backend.destroyAttribute(this.attribute);
  }
}
