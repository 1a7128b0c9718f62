import { afterAll, beforeAll } from 'vitest';
import type { Character } from '../../src/character/character';
import { testCharacter } from './character';
import { openTestDevice } from './gpu';

/**
 * What the GPU test files ask of a device beyond WebGPU's defaults, by name: pass one (or several,
 * spread into one object) to `openTestDevice` or `gpuSuite`. A file that needs none asks for
 * nothing, and runs on the default limits the README's device has.
 *
 * Checked 2026-12-03 on SwiftShader (Dawn in Node): the ten files that ask for these limits all
 * pass on the default limits too, so none of their cases depends on them today; they stay as
 * each file asked, named here so that a file says what it asks for.
 */

/**
 * Storage bindings up to 1 GiB (WebGPU's default: 128 MiB) and buffers up to 256 MiB (the default
 * already): asked for by the files of large crowds (pose, skin, cull and palette passes, culling,
 * dual quaternions, quantization). The adapter's own limits cap both (deviceFrom).
 */
export const LARGE_BUFFERS = { maxStorageBufferBindingSize: 1 << 30, maxBufferSize: 1 << 28 } as const;

/**
 * 32 KiB of workgroup storage a compute pipeline (the default is 16 KiB): the pose pass keeps 64
 * bytes a rig node in workgroup memory (WORKGROUP_BYTES_PER_NODE), so a rig of 257 to 512 nodes
 * needs it, and PosePass refuses a device short of it, naming the limit.
 */
export const WORKGROUP_32K = { maxComputeWorkgroupStorageSize: 32768 } as const;

/** What a describe block's GPU tests get: the device (undefined without an adapter) and the characters it named. */
export interface GpuSuite<N extends string> {
  /** The block's own device; undefined where no adapter is found (the tests skip, see openTestDevice). */
  device: GPUDevice | undefined;
  /** Each named test character (testCharacter: loaded once a worker, shared read-only; never mutate one). */
  characters: Record<N, Character>;
}

/**
 * The device and characters of one describe block: `beforeAll` opens a device with `limits`
 * (openTestDevice) and loads `characters` (testCharacter, with mesh LOD), in that order, and hands
 * them to `take`; `afterAll` destroys the device. Each block has a device of its own: nothing
 * mutable (a device, a crowd, a buffer) is shared between blocks or files. A block that needs
 * its device when its tests are collected (`describe.skipIf(!device)`) opens it at the file's
 * top instead: `const device = await openTestDevice(LIMITS)`.
 *
 *     let device: GPUDevice | undefined;
 *     let fox: Character;
 *     gpuSuite({ characters: ['Fox'] }, (gpu) => { device = gpu.device; fox = gpu.characters.Fox; });
 */
export function gpuSuite<const N extends string = never>(
  needs: { limits?: Record<string, number>; characters?: readonly N[] },
  take: (gpu: GpuSuite<N>) => void,
): void {
  let device: GPUDevice | undefined;
  beforeAll(async () => {
    device = await openTestDevice(needs.limits);
    const characters = {} as Record<N, Character>;
    for (const name of needs.characters ?? []) characters[name] = await testCharacter(name);
    take({ device, characters });
  });
  afterAll(() => device?.destroy());
}
