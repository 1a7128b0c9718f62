import { create, globals } from 'webgpu';
import type { BakedModel } from '../src/bake/bake';
import type { Rig } from '../src/bake/rig';
import type { InstanceAnimation } from '../src/runtime/instance-records';
import { InstanceStore } from '../src/runtime/instance-store';
import type { ResolvedLayers } from '../src/runtime/layer-records';
import { PosePass } from '../src/runtime/pose-pass';
import { JOINT_BYTES, type SkinningMethod } from '../src/runtime/layout';
import { packRigData } from '../src/bake/rig-data';
import { IDENTITY_MATRIX } from '../src/math/affine';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

let gpu: GPU | undefined; // kept reachable for as long as the process uses WebGPU

/**
 * The WebGPU adapter in Node through Dawn (the `webgpu` package), or null when there is none.
 * Without a GPU driver it uses the SwiftShader Vulkan driver from Debian's chromium package.
 */
export async function requestNodeAdapter(): Promise<GPUAdapter | null> {
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  Object.assign(globalThis, globals);
  // Timestamps unquantized: Dawn rounds them to 65.5 µs by default, which hides passes shorter than that (tools measure, nothing here is a page).
  gpu ??= create(['disable-dawn-features=timestamp_quantization']);
  return gpu.requestAdapter();
}

/** A device of `adapter` with `requiredLimits` clamped to what it offers, and timestamp-query when it has it. */
export async function deviceFrom(adapter: GPUAdapter, requiredLimits: Record<string, number> = {}): Promise<GPUDevice> {
  const limits: Record<string, number> = {};
  const available = adapter.limits as unknown as Record<string, number>;
  for (const [key, value] of Object.entries(requiredLimits)) limits[key] = Math.min(value, available[key]);
  const features: GPUFeatureName[] = adapter.features.has('timestamp-query') ? ['timestamp-query'] : [];
  return adapter.requestDevice({ requiredLimits: limits, requiredFeatures: features });
}

/** A Node WebGPU device and its adapter's name; throws with what to install when no adapter is found. */
export async function openNodeDevice(requiredLimits: Record<string, number> = {}): Promise<{ device: GPUDevice; adapterName: string }> {
  const adapter = await requestNodeAdapter();
  if (!adapter) throw new Error('no WebGPU adapter: install Debian\'s chromium and libvulkan1 packages (SwiftShader), or run on a machine with a GPU driver');
  const info = adapter.info;
  return {
    device: await deviceFrom(adapter, requiredLimits),
    adapterName: [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'unknown adapter',
  };
}

/** One instance for gpuJointMatrices: the two-clip record, optionally with a layer stack. */
export type GpuPoseRequest = InstanceAnimation & { stack?: ResolvedLayers };

export interface GpuPoseOptions {
  /** World transform of instance i (16 numbers); identity when absent. */
  world?: (instance: number) => ArrayLike<number>;
  /** Crowd clock in seconds at evaluation (records are posed at clock 0). */
  clock?: number;
  /** Blend masks (a weight per rig node each), referenced by index from the stacks. */
  masks?: Float32Array[];
  /** 'dual-quaternion': the pose pass writes JOINT_DQ records, returned as they are (default 'linear'). */
  skinning?: SkinningMethod;
  /** Threads per instance (PosePass's `workgroupSize`; default its own, 32). */
  workgroupSize?: number;
}

/**
 * Runs the real pose pass (shaders/pose.wgsl) on `requests` (one instance each) and returns every
 * instance's joint matrices as column-major 4x4s: 16 floats per slot, slots in RigData order
 * (skin after skin). The instances live in an InstanceStore, as a Crowd's do (so the plain /
 * layered partition is the store's). The output buffer is filled with NaN first, so a matrix
 * the shader failed to write stays NaN. With `options.skinning` 'dual-quaternion' the 16 floats
 * per slot are the slot's JOINT_DQ record as the shader wrote it (q, then the rows of [S | t]).
 */
export async function gpuJointMatrices(device: GPUDevice, rig: Rig, baked: BakedModel, requests: GpuPoseRequest[], options: GpuPoseOptions = {}): Promise<Float32Array> {
  const data = packRigData(rig, baked);
  const skinning = options.skinning ?? 'linear';
  const pass = new PosePass(device, data, { skinning, workgroupSize: options.workgroupSize });
  const store = new InstanceStore(device, {
    nodeCount: data.nodeCount, slotCount: data.slotCount, clipDurations: baked.clipDurations, capacity: Math.max(1, requests.length), label: 'gpuJointMatrices',
    // A joint set per instance however many (every instance's matrices are read back), not the default palette budget.
    bytesPerJoint: JOINT_BYTES[skinning], paletteSize: Infinity,
  });
  for (const mask of options.masks ?? []) store.masks.add(mask);
  const handles = requests.map((r, i) => {
    const handle = store.add();
    store.records.setWorld(store.slot(handle), options.world?.(i) ?? IDENTITY_MATRIX);
    store.records.setAnimation(store.slot(handle), r, 0);
    if (r.stack) {
      store.stacks.validate(r.stack);
      store.stacks.set(store.makeLayered(handle), r.stack, 0);
    }
    return handle;
  });
  const bytes = store.jointBytes(requests.length);
  device.queue.writeBuffer(store.jointBuffer, 0, new Float32Array(bytes / 4).fill(NaN));
  store.upload(device.queue);
  pass.update(store, options.clock ?? 0);
  const staging = device.createBuffer({ label: 'gpuJointMatrices.readback', size: Math.max(16, bytes), usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  pass.encode(encoder);
  if (bytes > 0) encoder.copyBufferToBuffer(store.jointBuffer, 0, staging, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const rows = new Float32Array(staging.getMappedRange().slice(0, bytes));
  staging.destroy();
  const slots = data.slotCount;
  const out = new Float32Array(requests.length * slots * 16);
  handles.forEach((handle, request) => {
    const slot = store.slot(handle);
    for (let j = 0; j < slots; j++) {
      const m = request * slots + j; // output matrix
      const g = slot * slots + j; // GPU matrix
      if (skinning === 'dual-quaternion') {
        out.set(rows.subarray(g * 16, g * 16 + 16), m * 16);
        continue;
      }
      for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[m * 16 + c * 4 + r] = rows[g * 12 + r * 4 + c];
      out[m * 16 + 3] = 0; out[m * 16 + 7] = 0; out[m * 16 + 11] = 0; out[m * 16 + 15] = 1;
      // A row left NaN by the shader must stay visible in the bottom-row-free form too.
      if (rows.subarray(g * 12, g * 12 + 12).some(Number.isNaN)) out[m * 16 + 15] = NaN;
    }
  });
  store.destroy();
  pass.destroy();
  return out;
}
