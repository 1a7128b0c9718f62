/**
 * The narrow device the instance store runs over (InstanceStore, JointPalette, the limit checks
 * in limits.ts): make a buffer, write bytes into it, know how large one may be. A GPUDevice is
 * one as it is (GPUBuffer and GPUQueue fit these shapes), so the WebGPU path passes its device
 * straight through; the WebGL 2 backend passes one whose buffers are RGBA32UI record textures
 * (src/webgl2/gl-record-device.ts: luma.gl's swap of a storage buffer for a texture). The
 * records, ids, errors and growth rules above it are then one copy for both backends
 * (docs/architecture.md, "Two backends").
 */

/** What the store keeps of a buffer: its size in bytes and a way to free it (a GPUBuffer, a GLRecordTexture). */
export interface RecordBufferLike {
  /** Bytes the buffer holds. */
  readonly size: number;
  /** Frees it (a no-op on a lost device or context). */
  destroy(): void;
}

/** GPUQueue.writeBuffer's shape: `dataOffset` and `size` in bytes for an ArrayBuffer, in elements for a typed array. */
export interface RecordQueue<B extends RecordBufferLike> {
  writeBuffer(buffer: B, offset: number, data: ArrayBuffer | ArrayBufferView<ArrayBuffer>, dataOffset?: number, size?: number): void;
}

/**
 * The two limits a store's buffer must stay within (GPUSupportedLimits' names); a device whose
 * limit has another name (WebGL 2's MAX_TEXTURE_SIZE) says so in `storageLimitName`, which the
 * refusals then name.
 */
export interface StorageLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  /** The limit's name in the refusals, when it is not one of the two above (the GL backend's). */
  readonly storageLimitName?: string;
}

/** A device whose limits the growth checks read (limits.ts): a GPUDevice or a RecordDevice. */
export interface LimitsSource {
  readonly limits: StorageLimits;
}

/** What InstanceStore needs of a device: GPUDevice satisfies it with B = GPUBuffer. */
export interface RecordDevice<B extends RecordBufferLike = GPUBuffer> extends LimitsSource {
  readonly queue: RecordQueue<B>;
  /** Makes a zero-filled buffer of `size` bytes; `usage` is WebGPU's GPUBufferUsage bits (BUFFER_USAGE), which a texture-backed device may ignore. */
  createBuffer(descriptor: { label: string; size: number; usage: number }): B;
}

/**
 * GPUBufferUsage's bits the store uses, with WebGPU's values (fixed by the specification), so
 * that the store runs where the global `GPUBufferUsage` does not exist (a browser without WebGPU).
 */
export const BUFFER_USAGE = { COPY_SRC: 0x4, COPY_DST: 0x8, STORAGE: 0x80 } as const;
