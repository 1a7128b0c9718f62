import { describe, expect, it } from 'vitest';
import { InstanceStore } from '../../src/runtime/instance-store';
import { INSTANCE } from '../../src/runtime/layout';
import { GLRecordDevice, GLUnreadBuffer, textureBytes } from '../../src/webgl2/gl-record-device';
import { GLRecordTexture } from '../../src/webgl2/record-texture';
import { FakeWebGL2, type FakeTexture } from '../helpers/fake-webgl2';

/** A store of a 3-node, 2-joint, 2-clip rig over a GLRecordDevice on a fake context. */
function makeStore(fake: FakeWebGL2, capacity = 4) {
  const device = new GLRecordDevice(fake as unknown as WebGL2RenderingContext);
  const store = new InstanceStore(device, { nodeCount: 3, slotCount: 2, clipDurations: [1, 2], capacity, label: 'GLCrowd', paletteSize: Infinity });
  return { device, store };
}

/** The texture behind a store buffer, as the fake context holds it. */
function fakeTexture(buffer: unknown): FakeTexture {
  return (buffer as GLRecordTexture).texture as unknown as FakeTexture;
}

describe('InstanceStore over GLRecordDevice: the records in record textures (WebGL 2)', () => {
  it('the buffers a GL pass reads are record textures and the rest have no memory; the records reach the texture byte for byte, only when changed', () => {
    const fake = new FakeWebGL2();
    const { device, store } = makeStore(fake);
    expect(store.instanceBuffer).toBeInstanceOf(GLRecordTexture);
    expect(store.layerStackBuffer).toBeInstanceOf(GLRecordTexture);
    expect(store.masksBuffer).toBeInstanceOf(GLRecordTexture);
    for (const unread of [store.jointBuffer, store.drawListBuffer, store.poseListBuffer, store.stampBuffer, store.identityListBuffer, store.handleSlotBuffer]) {
      expect(unread).toBeInstanceOf(GLUnreadBuffer);
    }
    for (let i = 0; i < 3; i++) store.records.setPlacement(store.slot(store.add()), i, 0, -i, 0.5 * i, 1 + i);
    store.upload(device.queue);
    const words = fakeTexture(store.instanceBuffer).words!;
    expect(Array.from(words.subarray(0, (3 * INSTANCE.size) / 4))).toEqual(Array.from(new Uint32Array(store.records.bytes, 0, (3 * INSTANCE.size) / 4)));
    // Nothing changed: nothing uploaded. One record changed: one row.
    const uploads = fake.uploads.length;
    expect(store.upload(device.queue)).toBe(0);
    expect(fake.uploads.length).toBe(uploads);
    store.records.setBlend(1, 0.25);
    expect(store.upload(device.queue)).toBe(INSTANCE.size);
    expect(fake.uploads.slice(uploads).map((u) => u.height)).toEqual([1]);
    expect(new Float32Array(words.buffer)[(INSTANCE.size + INSTANCE.blend) / 4]).toBe(0.25);
    // No layered instance yet: its stack texture was never allocated, and counts no bytes.
    expect(textureBytes(store.layerStackBuffer)).toBe(0);
    expect(textureBytes(store.instanceBuffer)).toBeGreaterThan(0);
  });

  it('grows as on WebGPU, and the records follow into the new texture', () => {
    const fake = new FakeWebGL2();
    const { device, store } = makeStore(fake, 2);
    for (let i = 0; i < 5; i++) store.records.setPlacement(store.slot(store.add()), i, 0, 0, 0, 1);
    expect(store.capacity).toBeGreaterThanOrEqual(5);
    store.upload(device.queue);
    const words = new Float32Array(fakeTexture(store.instanceBuffer).words!.buffer);
    expect([0, 1, 2, 3, 4].map((s) => words[(s * INSTANCE.size + INSTANCE.world) / 4 + 12])).toEqual([0, 1, 2, 3, 4]);
  });

  it('a capacity past what one MAX_TEXTURE_SIZE-square record texture holds is refused naming MAX_TEXTURE_SIZE; a refused growth changes nothing', () => {
    // 32 x 32 texels of 16 bytes: 16 KiB, 146 instance records of 112 bytes.
    expect(() => makeStore(new FakeWebGL2(32), 147)).toThrow(
      "GLCrowd.instances needs 16.1 KiB for 147 instances but the device's MAX_TEXTURE_SIZE (32: a 32 x 32 RGBA32UI record texture) is 16.0 KiB: at most 146 instances fit; use fewer instances");
    const { store } = makeStore(new FakeWebGL2(32), 146);
    for (let i = 0; i < 146; i++) store.add();
    expect(() => store.add()).toThrow(/MAX_TEXTURE_SIZE/);
    expect([store.count, store.capacity]).toEqual([146, 146]);
  });
});
