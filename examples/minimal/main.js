// A crowd of 100 foxes walking and running: a device, loadCharacter, a Crowd, a frame loop.
// This file is the README's "Embedding it" code, verbatim (test/e2e/install.test.ts checks it).
import { Crowd, loadCharacter, mat4, requiredCrowdLimits } from 'crowd-skin';

// Your device (with the limits big crowds need) and your canvas.
const adapter = await navigator.gpu?.requestAdapter();
if (!adapter) throw new Error('this browser has no WebGPU adapter');
const device = await adapter.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) });
const canvas = document.querySelector('canvas');
const context = canvas.getContext('webgpu');
const colorFormat = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format: colorFormat, alphaMode: 'opaque' });

// Fetch, parse, validate and bake the model once; then 100 instances on a 10 x 10 grid, each
// blending Walk and Run by its own weight, starting at its own time.
const character = await loadCharacter('/models/Fox/Fox.glb');
const crowd = new Crowd(device, character, { colorFormat, depthFormat: 'depth24plus' });
const { min, max } = character.bounds; // rest pose, model units
const spacing = 1.2 * Math.max(max[0] - min[0], max[2] - min[2]);
for (let i = 0; i < 100; i++) {
  const x = ((i % 10) - 4.5) * spacing;
  const z = (Math.floor(i / 10) - 4.5) * spacing;
  crowd.add({ clipA: 'Walk', clipB: 'Run', blend: (i % 10) / 9, timeA: i * 0.37, timeB: i * 0.37, transform: mat4.translation([x, 0, z]) });
}

// A fixed camera above the crowd's front edge; the depth texture follows the canvas size.
const distance = spacing * 9; // model units
const view = mat4.lookAt([0, distance * 0.5, distance], [0, 0, 0], [0, 1, 0]);
const viewProjection = mat4.create();
/** @type {GPURenderPassColorAttachment} */
const colorAttachment = { view: undefined, clearValue: [0.7, 0.77, 0.84, 1], loadOp: 'clear', storeOp: 'store' };
/** @type {GPURenderPassDepthStencilAttachment} */
const depthAttachment = { view: undefined, depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' };
const passDescriptor = { colorAttachments: [colorAttachment], depthStencilAttachment: depthAttachment };
let depthTexture;
let last = performance.now();

function frame(now) {
  const dt = Math.min(Math.max(now - last, 0) / 1000, 0.1); // seconds since the last frame, at most 0.1
  last = now;
  const width = Math.max(1, Math.floor(canvas.clientWidth * devicePixelRatio));
  const height = Math.max(1, Math.floor(canvas.clientHeight * devicePixelRatio));
  if (depthTexture?.width !== width || depthTexture?.height !== height) {
    canvas.width = width;
    canvas.height = height;
    depthTexture?.destroy();
    depthTexture = device.createTexture({ size: [width, height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    depthAttachment.view = depthTexture.createView();
    mat4.multiply(mat4.perspective(Math.PI / 4, width / height, distance * 0.05, distance * 4), view, viewProjection);
  }

  crowd.update(dt); // advance the clock, upload changed instance records (often nothing)
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder); // the pose compute pass
  colorAttachment.view = context.getCurrentTexture().createView();
  const pass = encoder.beginRenderPass(passDescriptor);
  crowd.draw(pass, viewProjection); // one draw per primitive, all instances
  pass.end();
  device.queue.submit([encoder.finish()]);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
