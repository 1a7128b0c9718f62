import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { Crowd } from '../../../src/runtime/crowd';
import { testCharacter } from '../../helpers/character';
import { openTestDevice } from '../../helpers/gpu';

/**
 * Crowd.encode's timestamp ranges (issue 23's benchmark splits the frame): `timestampWrites`
 * alone spans the cull pass's beginning to the pose pass's end; with `poseTimestampWrites` the
 * first spans the cull pass (and the palette pass after it) and the second the pose pass.
 * Unwritten queries resolve to 0, which is what shows a range was left out.
 */
const device = await openTestDevice();
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

async function frameTimestamps(crowd: Crowd, split: boolean): Promise<bigint[]> {
  const querySet = device!.createQuerySet({ type: 'timestamp', count: 4 });
  const resolve = device!.createBuffer({ size: 32, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device!.createBuffer({ size: 32, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  crowd.update(1 / 60);
  const encoder = device!.createCommandEncoder();
  if (split) crowd.encode(encoder, { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 }, { querySet, beginningOfPassWriteIndex: 2, endOfPassWriteIndex: 3 });
  else crowd.encode(encoder, { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 });
  encoder.resolveQuerySet(querySet, 0, 4, resolve, 0);
  encoder.copyBufferToBuffer(resolve, 0, read, 0, 32);
  device!.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const t = Array.from(new BigUint64Array(read.getMappedRange()));
  read.unmap();
  for (const o of [querySet, resolve, read]) o.destroy();
  return t;
}

describe.skipIf(!device?.features.has('timestamp-query'))('Crowd.encode timestamp ranges', () => {
  for (const palette of [false, true]) {
    it(`with a camera${palette ? ' and an active palette' : ''}: one range spans cull to pose; two ranges split cull${palette ? ' + palette' : ''} from pose, in order`, async () => {
      const character = await testCharacter('Fox');
      const crowd = new Crowd(device!, character, { ...FORMATS, capacity: 64, ...(palette ? { paletteSize: 4 } : {}) });
      crowd.addMany({ count: 64, positions: Float32Array.from({ length: 192 }, (_, i) => (i % 3 === 1 ? 0 : (i % 24) * 40)) });
      expect(crowd.palette.active).toBe(palette);
      const eye = [200, 600, 200];
      crowd.setCamera(mat4.multiply(mat4.perspective(1, 1, 10, 5000), mat4.lookAt(eye, [200, 0, 201], [0, 1, 0])), eye);
      const one = await frameTimestamps(crowd, false);
      expect(one[0]).toBeGreaterThan(0n);
      expect(one[1]).toBeGreaterThanOrEqual(one[0]);
      expect(one.slice(2)).toEqual([0n, 0n]);
      const two = await frameTimestamps(crowd, true);
      for (const t of two) expect(t).toBeGreaterThan(0n);
      for (let i = 1; i < 4; i++) expect(two[i]).toBeGreaterThanOrEqual(two[i - 1]);
      crowd.destroy();
    });
  }
});
