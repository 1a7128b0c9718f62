import { describe, expect, it } from 'vitest';
import { Crowd } from '../../src/runtime/crowd';
import { openTestDevice, readBuffer } from '../helpers/gpu';
import { LARGE_BUFFERS } from '../helpers/gpu-suite';
import { testCharacter } from '../helpers/character';

const device = await openTestDevice(LARGE_BUFFERS);
const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;

/** A stand-in render pass that counts the commands recorded into it. */
function countingPass() {
  const counts = { draw: 0, drawIndexed: 0, setPipeline: 0, instances: [] as number[] };
  const pass = {
    setPipeline: () => { counts.setPipeline++; },
    setBindGroup: () => {},
    setVertexBuffer: () => {},
    setIndexBuffer: () => {},
    draw: (_vertices: number, instances: number) => { counts.draw++; counts.instances.push(instances); },
    drawIndexed: (_indices: number, instances: number) => { counts.drawIndexed++; counts.instances.push(instances); },
  };
  return { pass: pass as unknown as GPURenderPassEncoder, counts };
}

describe.skipIf(!device)('SkinPass: one draw per primitive', () => {
  for (const [name, primitives] of [['Fox', 1], ['RobotExpressive', 19]] as const) {
    it(`${name}: ${primitives} draw call(s) for 1 and for 10,000 instances`, async () => {
      const crowd = new Crowd(device!, await testCharacter(name), { ...FORMATS, capacity: 16 });
      const identity = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
      for (const instances of [1, 10_000]) {
        crowd.clear();
        for (let i = 0; i < instances; i++) crowd.add({ timeA: i * 0.01 });
        crowd.update(0);
        const { pass, counts } = countingPass();
        crowd.draw(pass, identity);
        expect(counts.draw + counts.drawIndexed).toBe(primitives);
        expect(crowd.drawCallCount).toBe(primitives);
        expect(counts.instances.every((n) => n === instances)).toBe(true);
      }
      crowd.destroy();
    });
  }

  it('draws lit pixels where the character stands (real render, read back)', async () => {
    const character = await testCharacter('CesiumMan');
    const crowd = new Crowd(device!, character, FORMATS);
    crowd.add({ timeA: 0.5 });
    crowd.update(0);
    const size = 64;
    const color = device!.createTexture({ size: [size, size], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
    const depth = device!.createTexture({ size: [size, size], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    // Orthographic view of the rest bounds: x -> x, z (CesiumMan is Z-up) -> y, depth from y.
    const { min, max } = character.bounds;
    const half = Math.max(max[0] - min[0], max[2] - min[2]) * 0.6;
    const cx = (min[0] + max[0]) / 2, cz = (min[2] + max[2]) / 2;
    const depthRange = max[1] - min[1] + 2;
    const viewProjection = [1 / half, 0, 0, 0, 0, 0, 1 / depthRange, 0, 0, 1 / half, 0, 0, -cx / half, -cz / half, 0.5, 1];
    const encoder = device!.createCommandEncoder();
    crowd.encode(encoder);
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: color.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 1] }],
      depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
    });
    crowd.draw(pass, viewProjection);
    pass.end();
    const readback = device!.createBuffer({ size: size * size * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    encoder.copyTextureToBuffer({ texture: color }, { buffer: readback, bytesPerRow: size * 4 }, [size, size]);
    device!.queue.submit([encoder.finish()]);
    const pixels = new Uint8Array(await readBuffer(device!, readback));
    let lit = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 30) lit++;
    // A walking figure seen from the side fills a few percent of a frame sized to its bounds.
    expect(lit / (size * size)).toBeGreaterThan(0.03);
    expect(lit / (size * size)).toBeLessThan(0.9);
    crowd.destroy();
  });
});
