import type { RecordBufferLike, RecordDevice, StorageLimits } from '../runtime/record-device';
import { GLRecordTexture, TEXEL_BYTES } from './record-texture';

/**
 * The buffers of an InstanceStore that a WebGL 2 pass reads, by the last part of their label
 * (InstanceStore names them `${label}.instances`, ...): the instance records (pose and draw), the
 * layer stacks and the masks (pose), and the appearance records a feature makes on this device
 * (the draw: CrowdAppearance's `${label}.appearances`). Those become record textures.
 */
const READ_ON_GL = new Set(['instances', 'layerStacks', 'masks', 'appearances']);

/**
 * A store buffer that no WebGL 2 pass reads: the WebGPU cull pass's lists (poseState, poseList,
 * drawLists, identity, stamps), the joint buffer (GL poses into its own float target,
 * src/webgl2/gl-joints.ts) and the handle slots (read by the control pass only). It has a size,
 * so that the store's limit checks and growth run as on WebGPU, and no memory: writes to it are
 * dropped by GLRecordDevice.queue, since nothing would read them.
 */
export class GLUnreadBuffer implements RecordBufferLike {
  constructor(readonly label: string, readonly size: number) {}
  destroy(): void {}
}

/** What a GL store buffer is: a record texture a pass reads, or a buffer none reads. */
export type GLStoreBuffer = GLRecordTexture | GLUnreadBuffer;

/**
 * The RecordDevice an InstanceStore runs over on WebGL 2 (docs/architecture.md, "Two
 * backends"): createBuffer makes a GLRecordTexture (the buffer's bytes in an RGBA32UI texture,
 * allocated on its first write) for the buffers the GL passes read, and a GLUnreadBuffer for the
 * rest; queue.writeBuffer is GLRecordTexture.write, the same meaning as GPUQueue.writeBuffer.
 * The storage limit is what one MAX_TEXTURE_SIZE-square RGBA32UI texture holds, named so in
 * the store's refusals. Not owned: the store destroys what it made; the context is the caller's.
 */
export class GLRecordDevice implements RecordDevice<GLStoreBuffer> {
  readonly limits: StorageLimits;
  readonly queue = {
    writeBuffer(buffer: GLStoreBuffer, offset: number, data: ArrayBuffer | ArrayBufferView<ArrayBuffer>, dataOffset?: number, size?: number): void {
      if (buffer instanceof GLRecordTexture) buffer.write(offset, data, dataOffset, size);
    },
  };
  constructor(readonly gl: WebGL2RenderingContext) {
    const max = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    const bytes = max * max * TEXEL_BYTES;
    this.limits = { maxStorageBufferBindingSize: bytes, maxBufferSize: bytes, storageLimitName: `MAX_TEXTURE_SIZE (${max}: a ${max} x ${max} RGBA32UI record texture)` };
  }

  createBuffer(descriptor: { label: string; size: number; usage: number }): GLStoreBuffer {
    const name = descriptor.label.slice(descriptor.label.lastIndexOf('.') + 1);
    if (!READ_ON_GL.has(name)) return new GLUnreadBuffer(descriptor.label, descriptor.size);
    return new GLRecordTexture(this.gl, descriptor.label, descriptor.size);
  }
}

/** Bytes of the texture behind a store buffer: whole rows once allocated (first write), else 0. */
export function textureBytes(buffer: GLStoreBuffer): number {
  return buffer instanceof GLRecordTexture && buffer.texture ? buffer.width * buffer.height * TEXEL_BYTES : 0;
}
