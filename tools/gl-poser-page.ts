/**
 * The browser side of `pose --backend webgl2` (tools/gl-poser.ts bundles it with esbuild and
 * serves it to headless Chromium): the real WebGL 2 pose pass (src/webgl2/gl-pose-pass.ts) on the
 * requests it is handed, fed by the real CPU record classes, as gpuJointMatrices does for WebGPU.
 * `window.glPose(header)` fetches the rig's packed arrays from /rig.bin and returns every
 * request's joint matrices as 12 numbers (the three rows) per joint slot.
 */
import type { RigData } from '../src/bake/rig-data';
import { InstanceRecords } from '../src/runtime/instance-records';
import { LayerStackRecords, MaskTable } from '../src/runtime/layer-records';
import { INSTANCE, LAYER_STACK } from '../src/runtime/layout';
import { GLPosePass } from '../src/webgl2/gl-pose-pass';
import { GLRecordTexture } from '../src/webgl2/record-texture';
import type { GlPoseHeader } from './gl-poser';

const queue = { writeBuffer: (t: GLRecordTexture, offset: number, data: ArrayBuffer, dataOffset?: number, size?: number) => t.write(offset, data, dataOffset, size) } as unknown as GPUQueue;
const asBuffer = (t: GLRecordTexture) => t as unknown as GPUBuffer;

async function glPose(h: GlPoseHeader): Promise<number[]> {
  const bin = await (await fetch('/rig.bin')).arrayBuffer();
  const part = (name: keyof GlPoseHeader['parts']) => bin.slice(h.parts[name][0], h.parts[name][0] + h.parts[name][1]);
  const rig: RigData = {
    ...h.rig,
    skinSlotOffset: new Uint32Array(part('skinSlotOffset')),
    tracks: new Float32Array(part('tracks')),
    records: new Float32Array(part('records')),
    trackRefs: new Uint32Array(part('trackRefs')),
    nodes: part('nodes'),
    slots: part('slots'),
  };
  const masksData = new Float32Array(part('masks'));
  const gl = (document.getElementById('gl') as HTMLCanvasElement).getContext('webgl2');
  if (!gl) throw new Error('this Chromium offers no WebGL 2 context');
  const count = h.requests.length;
  const records = new InstanceRecords(count, h.clipDurations);
  const maskTable = new MaskTable(rig.nodeCount);
  for (let m = 0; m < h.maskCount; m++) maskTable.add(masksData.subarray(m * rig.nodeCount, (m + 1) * rig.nodeCount));
  const stacks = new LayerStackRecords(count, h.clipDurations, () => maskTable.count);
  // Plain records first, layered after (as InstanceStore keeps them); out[i] is request i.
  const order = [...h.requests.keys()].sort((a, b) => Number(!!h.requests[a].stack) - Number(!!h.requests[b].stack));
  const plainCount = h.requests.filter((r) => !r.stack).length;
  order.forEach((request, slot) => {
    const r = h.requests[request];
    records.setWorld(slot, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    records.setAnimation(slot, r, 0);
    if (r.stack) {
      stacks.validate(r.stack);
      stacks.set(slot - plainCount, r.stack, 0);
      records.setLayerStack(slot, slot - plainCount);
    } else {
      records.clearLayers(slot);
    }
  });
  const textures = [
    new GLRecordTexture(gl, 'glPose.instances', count * INSTANCE.size),
    new GLRecordTexture(gl, 'glPose.stacks', count * LAYER_STACK.size),
    new GLRecordTexture(gl, 'glPose.masks', maskTable.byteLength),
  ];
  const [instances, stackTexture, masks] = textures;
  records.upload(queue, asBuffer(instances));
  stacks.markAllDirty(count);
  stacks.upload(queue, asBuffer(stackTexture));
  maskTable.upload(queue, asBuffer(masks));
  const pass = new GLPosePass(gl, { gpu: rig });
  try {
    pass.update({ instanceBuffer: instances, layerStackBuffer: stackTexture, masksBuffer: masks, plainCount, layeredCount: count - plainCount }, h.clock);
    pass.encode(Uint32Array.from({ length: count }, (_, i) => i), count);
    const target = pass.joints;
    const framebuffer = gl.createFramebuffer();
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, framebuffer);
    const rows = target.rows.map((texture) => {
      gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
      const out = new Float32Array(target.width * target.height * 4);
      gl.readPixels(0, 0, target.width, target.height, gl.RGBA, gl.FLOAT, out);
      return out;
    });
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    gl.deleteFramebuffer(framebuffer);
    const J = rig.slotCount;
    const out: number[] = new Array<number>(count * J * 12);
    order.forEach((request, slot) => {
      for (let j = 0; j < J; j++) {
        const texel = (slot % target.slotsPerRow) * J + j + Math.floor(slot / target.slotsPerRow) * target.width;
        for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[(request * J + j) * 12 + r * 4 + c] = rows[r][texel * 4 + c];
      }
    });
    return out;
  } finally {
    pass.destroy();
    for (const t of textures) t.destroy();
  }
}

Object.assign(window, { glPose });
document.body.dataset.ready = '1';
