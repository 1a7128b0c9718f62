import { create, globals } from 'webgpu';
import type { BakedModel } from '../src/bake/bake';
import type { Rig } from '../src/bake/rig';
import { InstanceRecords, type InstanceAnimation } from '../src/gpu/instance-records';
import { LayerStackRecords, MaskTable, type GpuLayerStack } from '../src/gpu/layer-records';
import { JOINT_MATRIX_BYTES, LAYERS_NONE } from '../src/gpu/layout';
import { PosePass } from '../src/gpu/pose-pass';
import { packRigData } from '../src/gpu/rig-data';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

let gpu: GPU | undefined; // kept reachable for as long as the process uses WebGPU

/**
 * The WebGPU adapter in Node through Dawn (the `webgpu` package), or null when there is none.
 * Without a GPU driver it uses the SwiftShader Vulkan driver from Debian's chromium package.
 */
export async function requestNodeAdapter(): Promise<GPUAdapter | null> {
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  Object.assign(globalThis, globals);
  gpu ??= create([]);
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
export type GpuPoseRequest = InstanceAnimation & { stack?: GpuLayerStack };

export interface GpuPoseOptions {
  /** World transform of instance i (16 numbers); identity when absent. */
  world?: (instance: number) => ArrayLike<number>;
  /** Crowd clock in seconds at evaluation (records are posed at clock 0). */
  clock?: number;
  /** Blend masks (a weight per rig node each), referenced by index from the stacks. */
  masks?: Float32Array[];
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/**
 * Runs the real pose pass (shaders/pose.wgsl) on `requests` (one instance each) and returns every
 * instance's joint matrices as column-major 4x4s: 16 floats per slot, slots in RigData order
 * (skin after skin). The output buffer is filled with NaN first, so a matrix the shader failed
 * to write stays NaN.
 */
export async function gpuJointMatrices(device: GPUDevice, rig: Rig, baked: BakedModel, requests: GpuPoseRequest[], options: GpuPoseOptions = {}): Promise<Float32Array> {
  const data = packRigData(rig, baked);
  const pass = new PosePass(device, data);
  const count = requests.length;
  const maskTable = new MaskTable(rig.nodes.count);
  for (const mask of options.masks ?? []) maskTable.add(mask);
  const records = new InstanceRecords(count, baked.clipDurations);
  const stackRecords = new LayerStackRecords(count, baked.clipDurations, () => maskTable.count);
  // The pass poses plain records first, then layered ones (PosePass): place them so, and
  // remember where each request went.
  const order = requests.map((_, i) => i).sort((a, b) => Number(!!requests[a].stack) - Number(!!requests[b].stack));
  const plainCount = requests.filter((r) => !r.stack).length;
  order.forEach((request, slot) => {
    const r = requests[request];
    records.setWorld(slot, options.world?.(request) ?? IDENTITY);
    records.setAnimation(slot, r, 0);
    records.setLayerStack(slot, r.stack ? slot : LAYERS_NONE);
    if (r.stack) stackRecords.set(slot, r.stack, 0);
  });
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
  const instances = device.createBuffer({ label: 'gpuJointMatrices.instances', size: records.bytes.byteLength, usage });
  const stacks = device.createBuffer({ label: 'gpuJointMatrices.stacks', size: stackRecords.bytes.byteLength, usage });
  const masks = device.createBuffer({ label: 'gpuJointMatrices.masks', size: maskTable.byteLength, usage });
  const bytes = count * data.slotCount * JOINT_MATRIX_BYTES;
  const joints = device.createBuffer({ label: 'gpuJointMatrices.joints', size: bytes, usage: usage | GPUBufferUsage.COPY_SRC });
  device.queue.writeBuffer(joints, 0, new Float32Array(bytes / 4).fill(NaN));
  records.upload(device.queue, instances);
  stackRecords.upload(device.queue, stacks);
  maskTable.upload(device.queue, masks);
  pass.bind(instances, stacks, masks, joints);
  pass.update(plainCount, count - plainCount, options.clock ?? 0);
  const staging = device.createBuffer({ label: 'gpuJointMatrices.readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  pass.encode(encoder);
  encoder.copyBufferToBuffer(joints, 0, staging, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const rows = new Float32Array(staging.getMappedRange().slice(0));
  for (const buffer of [staging, joints, instances, stacks, masks]) buffer.destroy();
  pass.destroy();
  const out = new Float32Array((rows.length / 12) * 16);
  const slots = data.slotCount;
  order.forEach((request, slot) => {
    for (let j = 0; j < slots; j++) {
      const m = request * slots + j; // output matrix
      const g = slot * slots + j; // GPU matrix
      for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[m * 16 + c * 4 + r] = rows[g * 12 + r * 4 + c];
      out[m * 16 + 3] = 0; out[m * 16 + 7] = 0; out[m * 16 + 11] = 0; out[m * 16 + 15] = 1;
      // A row left NaN by the shader must stay visible in the bottom-row-free form too.
      if (rows.subarray(g * 12, g * 12 + 12).some(Number.isNaN)) out[m * 16 + 15] = NaN;
    }
  });
  return out;
}
