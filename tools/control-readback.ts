import type { Crowd } from '../src/runtime/crowd';
import type { InstanceStore } from '../src/runtime/instance-store';
import { gpuClipTime } from '../src/runtime/clip-clock';
import { INSTANCE, LAYER, LAYER_STACK, LAYERS_IDLE, LAYERS_INDEX, MASK_NONE } from '../src/runtime/layout';

/** One clip of a stack as the GPU holds it: clip index, time now (s), weight, crowd mask id or -1. */
export interface ReadLayer { clip: number; time: number; weight: number; mask: number }

/** What the GPU holds for one instance: its base clip (weight 1) and override layers, and its world placement. */
export interface ReadStack { layers: ReadLayer[]; x: number; z: number; yaw: number }

/**
 * Reads back what the GPU wrote for instance `id` of `crowd` (after a submitted frame): the base
 * clip of its instance record and the override layers of its stack (or its clip B, when the
 * record is marked LAYERS_IDLE), times evaluated at the
 * crowd's clock as the pose pass does (src/runtime/clip-clock.ts gpuClipTime), and the translation
 * and yaw of its world transform.
 * Waits for the GPU: for tools and tests, never for a frame loop.
 */
export async function readInstanceStack(device: GPUDevice, crowd: Crowd, id: number): Promise<ReadStack> {
  const store = storeOf(crowd);
  const durations = crowd.character.clipDurations;
  const slot = crowd.jointMatrixIndex(id) / crowd.jointsPerInstance;
  const record = new DataView(await readBack(device, store.instanceBuffer, slot * INSTANCE.size, INSTANCE.size));
  // (phase, speed, rate words) at byte `o` + the field offsets of `f`, evaluated at the crowd clock.
  const at = (v: DataView, clip: number, o: number, f: { phase: number; speed: number; rateLo: number; rateHi: number }) => gpuClipTime(
    v.getUint32(o + f.phase, true), v.getUint32(o + f.rateLo, true), v.getUint32(o + f.rateHi, true), v.getFloat32(o + f.speed, true), durations[clip], crowd.clock);
  const clip = record.getUint32(INSTANCE.clipA, true);
  const layers = [{ clip, time: at(record, clip, 0, { phase: INSTANCE.phaseA, speed: INSTANCE.speedA, rateLo: INSTANCE.rateLoA, rateHi: INSTANCE.rateHiA }), weight: 1, mask: -1 }];
  const stack = record.getUint32(INSTANCE.layers, true);
  // A record whose stack does not apply (LAYERS_IDLE: the control pass wrote an output of two
  // clips at most as the record's blend) holds its second clip as clip B, weighted by the blend,
  // as an unmasked override layer of that weight would.
  const blend = record.getFloat32(INSTANCE.blend, true);
  if ((stack & LAYERS_IDLE) !== 0 && blend > 0) {
    const b = record.getUint32(INSTANCE.clipB, true);
    layers.push({ clip: b, time: at(record, b, 0, { phase: INSTANCE.phaseB, speed: INSTANCE.speedB, rateLo: INSTANCE.rateLoB, rateHi: INSTANCE.rateHiB }), weight: blend, mask: -1 });
  }
  if ((stack & LAYERS_IDLE) === 0) {
    const s = new DataView(await readBack(device, store.layerStackBuffer, (stack & LAYERS_INDEX) * LAYER_STACK.size, LAYER_STACK.size));
    for (let i = 0; i < s.getUint32(LAYER_STACK.overrideCount, true); i++) {
      const l = LAYER_STACK.layers + i * LAYER.size;
      const c = s.getUint32(l + LAYER.clip, true);
      const mask = s.getUint32(l + LAYER.mask, true);
      layers.push({ clip: c, time: at(s, c, l, LAYER), weight: s.getFloat32(l + LAYER.weight, true), mask: mask === MASK_NONE ? -1 : mask });
    }
  }
  const w = (k: number) => record.getFloat32(INSTANCE.world + k * 4, true);
  return { layers, x: w(12), z: w(14), yaw: Math.atan2(w(8), w(0)) };
}

async function readBack(device: GPUDevice, buffer: GPUBuffer, offset: number, size: number): Promise<ArrayBuffer> {
  const staging = device.createBuffer({ label: 'readInstanceStack.staging', size, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, offset, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const copy = staging.getMappedRange().slice(0);
  staging.destroy();
  return copy;
}

const stores = new WeakMap<Crowd, InstanceStore>();

/** The crowd's instance store, got as a feature gets it (a probe installed once per crowd). */
function storeOf(crowd: Crowd): InstanceStore {
  let store = stores.get(crowd);
  if (!store) {
    store = crowd.install({ featureName: 'control-readback' }).store;
    stores.set(crowd, store);
  }
  return store;
}
