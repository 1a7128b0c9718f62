import { mat4d } from 'wgpu-matrix';
import { CpuPoser } from '../../anim/evaluate';
import { restPose } from '../../bake/sampler';
import type { Character } from '../../character/character';
import { checkF32, WORLD, WORLD_WHY } from '../../math/float32';
import { JOINT_MATRIX_BYTES } from '../../runtime/layout';
import type { MeshBuffers } from '../../runtime/mesh-buffers';
import type { SkinInputs, SkinPass } from '../../runtime/skin-pass';
import type { PropPass } from './prop-pass';

// One attachment of CrowdProps: what it keeps, and the checks and data made when it is attached.

/** What one attachment keeps on the CPU (everything restore needs), and its GPU objects. */
export interface Attachment {
  readonly prop: Character;
  readonly joint: number;
  /** The joint's name and the offset as given (identity when none): the impostor bake attaches the same. */
  readonly jointName: string;
  readonly offset: Float64Array;
  /** inverse(inverseBind(joint)) x offset, float64. */
  readonly local: Float64Array;
  /** The prop's rest-pose joint matrices, 3 vec4f rows each (the same for every instance). */
  readonly rest: Float32Array<ArrayBuffer>;
  /** Handles of the chosen instances (InstanceStore.handle of their ids), or null for every instance. */
  selection: Set<number> | null;
  gpu?: AttachmentGpu;
}

export interface AttachmentGpu {
  pass: PropPass;
  mesh: MeshBuffers;
  skin: SkinPass;
  rest: GPUBuffer;
  /** PropPass.generation the skin pass is bound to (-1: never). */
  boundGeneration: number;
  /** The impostor band's frame group (drawBand) and what it was made over. */
  band?: { group: GPUBindGroup; list: GPUBuffer; offset: number; camera: GPUBuffer; generation: number };
}

export function destroyGpu(a: Attachment): void {
  const gpu = a.gpu;
  if (!gpu) return;
  for (const o of [gpu.pass, gpu.skin, gpu.mesh, gpu.rest]) o.destroy();
  a.gpu = undefined;
}

/** SkinPass's view of an attachment: the prop's rest joints, its records and its list (one level). */
export function skinInputs(gpu: AttachmentGpu): SkinInputs {
  const { pass } = gpu;
  return {
    // slotCount 0: every slot reads joint set 0 whatever its entry, so any u32 list serves as the entries.
    jointBuffer: gpu.rest, jointEntryBuffer: pass.list, instanceBuffer: pass.records, identityListBuffer: pass.list, drawListBuffer: pass.list,
    listStride: pass.listStride, lodLevels: 1, generation: pass.generation,
  };
}

export function isCharacter(value: unknown): value is Character {
  const c = value as Character | null;
  return typeof c === 'object' && c !== null && typeof c.rig === 'object' && Array.isArray(c.rig?.primitives) && typeof c.gpu === 'object' && c.gpu !== null;
}

/** The offset as float64, identity when absent; an error naming what is wrong otherwise. */
export function checkOffset(offset: ArrayLike<number> | undefined): Float64Array {
  if (offset === undefined) return mat4d.identity(new Float64Array(16));
  const length = (offset as { length?: unknown } | null)?.length;
  if (typeof offset !== 'object' || offset === null || typeof length !== 'number') {
    throw new TypeError(`offset must be 16 finite numbers (a column-major 4x4), got ${offset === null ? 'null' : typeof offset}`);
  }
  if (length !== 16) throw new RangeError(`offset must be 16 finite numbers (a column-major 4x4), got ${length} numbers`);
  const out = new Float64Array(16);
  for (let i = 0; i < 16; i++) {
    const v = offset[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`offset[${i}] must be a finite number, got ${typeof v === 'number' ? v : typeof v}`);
    checkF32(v, `offset[${i}]`, WORLD, WORLD_WHY);
    out[i] = v;
  }
  if (out[3] !== 0 || out[7] !== 0 || out[11] !== 0 || out[15] !== 1) {
    throw new RangeError(`offset must be affine: its bottom row (entries 3, 7, 11, 15) must be 0, 0, 0, 1, got ${out[3]}, ${out[7]}, ${out[11]}, ${out[15]}`);
  }
  return out;
}

/** The prop's rest-pose joint matrices as the skin shader reads them: 3 rows (vec4f) per joint slot. */
export function restJointRows(prop: Character): Float32Array<ArrayBuffer> {
  const { rig, gpu } = prop;
  const poser = new CpuPoser(rig, (_clip, _time, out) => restPose(rig.nodes, out));
  poser.evaluate({ clipA: 0, timeA: 0 });
  const rows = new Float32Array(Math.max(1, gpu.slotCount) * (JOINT_MATRIX_BYTES / 4));
  rig.skins.forEach((_, k) => {
    const m = poser.jointMatrices(k);
    for (let j = 0; j < m.length / 16; j++) {
      const o = (gpu.skinSlotOffset[k] + j) * 12;
      for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) rows[o + r * 4 + c] = m[j * 16 + c * 4 + r];
    }
  });
  return rows;
}
