import { mat4 } from 'wgpu-matrix';
import { CAMERA } from './layout';
import type { ResolvedLights } from './lights';
import type { PrimitiveBuffers } from './mesh-buffers';

// The skin pass's free helpers (shared by SkinPass, the shadow, pick and impostor passes and the
// WebGL 2 skin pass): the camera uniform, the frame bind group, the vertex entry point's name.

/** What the skin pass reads per instance: InstanceStore satisfies it. The pass does not own the buffers. */
export interface SkinInputs {
  readonly jointBuffer: GPUBuffer;
  /** u32 per slot: the joint set (palette entry) the slot's joints are read from (InstanceStore.jointEntryBuffer). */
  readonly jointEntryBuffer: GPUBuffer;
  readonly instanceBuffer: GPUBuffer;
  readonly identityListBuffer: GPUBuffer;
  readonly drawListBuffer: GPUBuffer;
  readonly listStride: number;
  readonly lodLevels: number;
  readonly generation: number;
}

/** Where a cull pass left the indirect draw arguments (CullPass satisfies it). */
export interface DrawArgs {
  readonly args: GPUBuffer;
  /** Byte offset of the arguments of (list 0 camera / 1 shadow, level, primitive). */
  argsOffset(list: number, level: number, primitive: number): number;
}

/**
 * Writes CAMERA's camera and light fields into `c` (shadow fields untouched): `viewProjection`
 * (column-major, world -> clip, depth in [0, 1]), the lights, and the eye from its inverse
 * (`inverse`: 16 floats of scratch): the point sent to w = 0, or for an orthographic camera the
 * unit direction towards it (w 0). Shared by SkinPass and GLSkinPass.
 */
export function writeCamera(c: Float32Array, viewProjection: ArrayLike<number>, lights: ResolvedLights, inverse: Float32Array): void {
  if (viewProjection.length !== 16) throw new RangeError(`viewProjection must have 16 numbers, got ${viewProjection.length}`);
  c.set(viewProjection, CAMERA.viewProjection / 4);
  c.set(lights.direction, CAMERA.lightDirection / 4);
  c.set(lights.sun, CAMERA.sunColor / 4);
  c.set(lights.sky, CAMERA.skyColor / 4);
  c.set(lights.ground, CAMERA.groundColor / 4);
  // inverse x (0, 0, 1, 0): column 2 (a point at infinity for orthographic cameras, where w stays 0); mat4 reads c's first 16.
  const inv = mat4.inverse(c, inverse);
  const x = inv[8], y = inv[9], z = inv[10], w = inv[11], e = CAMERA.eye / 4;
  // Orthographic (w 0): towards the camera is -z of clip space mapped back, i.e. minus column 2.
  const perspective = Math.abs(w) > 1e-12 * Math.hypot(x, y, z);
  const scale = perspective ? 1 / w : -1 / (Math.hypot(x, y, z) || 1);
  c[e] = x * scale; c[e + 1] = y * scale; c[e + 2] = z * scale; c[e + 3] = Number(perspective);
}

/**
 * A frame bind group (camera, joints, instances, instance list, and the morph weights of a
 * character with morph targets): list `list` is the identity list when it is
 * `inputs.identityListBuffer`, else entry block `block` of the draw lists (list x lodLevels +
 * level, listStride entries each).
 */
export function frameBindGroup(device: GPUDevice, layout: GPUBindGroupLayout, label: string, camera: GPUBuffer, inputs: SkinInputs, list: GPUBuffer, block: number,
  morphWeights?: GPUBuffer): GPUBindGroup {
  const size = inputs.listStride * 4;
  return frameBindGroupAt(device, layout, label, camera, inputs, list, block * size, size, morphWeights);
}

/** frameBindGroup over `size` bytes of `list` from byte `offset` (a storage offset: 256-aligned). */
export function frameBindGroupAt(device: GPUDevice, layout: GPUBindGroupLayout, label: string, camera: GPUBuffer, inputs: SkinInputs, list: GPUBuffer, offset: number,
  size: number, morphWeights?: GPUBuffer): GPUBindGroup {
  return device.createBindGroup({
    label, layout,
    entries: [
      { binding: 0, resource: { buffer: camera } },
      { binding: 1, resource: { buffer: inputs.jointBuffer } },
      { binding: 2, resource: { buffer: inputs.instanceBuffer } },
      { binding: 3, resource: { buffer: list, offset, size } },
      ...(morphWeights ? [{ binding: 4, resource: { buffer: morphWeights } }] : []),
      { binding: 5, resource: { buffer: inputs.jointEntryBuffer } },
    ],
  });
}

/** The skin.wgsl vertex entry point that draws a primitive: by influences (4 or 8), the morph variant when it has morph targets. */
export function vertexEntryPoint(buffers: PrimitiveBuffers): string {
  return `vertex${buffers.influences}${buffers.morphed ? 'Morph' : ''}`;
}
