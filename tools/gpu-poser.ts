import { create, globals } from 'webgpu';
import type { BakedModel } from '../src/bake/bake';
import type { Rig } from '../src/bake/rig';
import { InstanceRecords, type InstanceAnimation } from '../src/gpu/instance-records';
import { JOINT_MATRIX_BYTES } from '../src/gpu/layout';
import { PosePass } from '../src/gpu/pose-pass';
import { packRigData } from '../src/gpu/rig-data';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * A WebGPU device in Node through Dawn (the `webgpu` package). Without a GPU driver it uses the
 * SwiftShader Vulkan driver from Debian's chromium package. Throws with what to install when
 * no adapter is found.
 */
export async function openNodeDevice(requiredLimits: Record<string, number> = {}): Promise<{ device: GPUDevice; adapterName: string }> {
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  Object.assign(globalThis, globals);
  const gpu = create([]);
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter: install Debian\'s chromium and libvulkan1 packages (SwiftShader), or run on a machine with a GPU driver');
  const limits: Record<string, number> = {};
  const available = adapter.limits as unknown as Record<string, number>;
  for (const [key, value] of Object.entries(requiredLimits)) limits[key] = Math.min(value, available[key]);
  const features: GPUFeatureName[] = adapter.features.has('timestamp-query') ? ['timestamp-query'] : [];
  const device = await adapter.requestDevice({ requiredLimits: limits, requiredFeatures: features });
  // keep `gpu` reachable while the device lives
  (device as unknown as { __gpu: GPU }).__gpu = gpu;
  const info = adapter.info;
  return { device, adapterName: [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'unknown adapter' };
}

/** A world transform per instance (16 numbers) or identity for all. */
export type WorldFor = (instance: number) => ArrayLike<number>;
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/**
 * Runs the real pose pass (shaders/pose.wgsl) on `requests` (one instance each, posed at clock 0
 * and evaluated at `clock` seconds) and
 * returns every instance's joint matrices as column-major 4x4s: 16 floats per slot, slots in
 * RigData order (skin after skin). The output buffer is filled with NaN first, so a matrix the
 * shader failed to write stays NaN.
 */
export async function gpuJointMatrices(
  device: GPUDevice, rig: Rig, baked: BakedModel, requests: InstanceAnimation[], world: WorldFor = () => IDENTITY, clock = 0,
): Promise<Float32Array> {
  const data = packRigData(rig, baked);
  const pass = new PosePass(device, data);
  const count = requests.length;
  const records = new InstanceRecords(count, baked.clipDurations);
  requests.forEach((request, i) => {
    records.setWorld(i, world(i));
    records.setAnimation(i, request, 0);
  });
  const instances = device.createBuffer({ label: 'gpuJointMatrices.instances', size: records.bytes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  const bytes = count * data.slotCount * JOINT_MATRIX_BYTES;
  const joints = device.createBuffer({ label: 'gpuJointMatrices.joints', size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(joints, 0, new Float32Array(bytes / 4).fill(NaN));
  records.upload(device.queue, instances);
  pass.bind(instances, joints);
  pass.update(count, clock);
  const staging = device.createBuffer({ label: 'gpuJointMatrices.readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  pass.encode(encoder);
  encoder.copyBufferToBuffer(joints, 0, staging, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const rows = new Float32Array(staging.getMappedRange().slice(0));
  staging.destroy(); joints.destroy(); instances.destroy(); pass.destroy();
  const out = new Float32Array((rows.length / 12) * 16);
  for (let m = 0; m < rows.length / 12; m++) {
    for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[m * 16 + c * 4 + r] = rows[m * 12 + r * 4 + c];
    out[m * 16 + 3] = 0; out[m * 16 + 7] = 0; out[m * 16 + 11] = 0; out[m * 16 + 15] = 1;
    // A row left NaN by the shader must stay visible in the bottom-row-free form too.
    if (rows.subarray(m * 12, m * 12 + 12).some(Number.isNaN)) out[m * 16 + 15] = NaN;
  }
  return out;
}
