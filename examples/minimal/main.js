// A crowd of 100 foxes walking and running: loadCharacter, createCrowd on a canvas (WebGPU or WebGL 2), a frame loop.
// This file is the README's "Embedding it" code, verbatim (test/e2e/install.test.ts checks it).
import { createCrowd, loadCharacter, mat4 } from 'crowd-skin';

// Fetch, parse, validate and bake the model once; then a crowd on your canvas: on WebGPU where the
// browser has it, else on WebGL 2 (crowd.backend says which; { backend: 'webgl2' } forces it).
const canvas = document.querySelector('canvas');
const character = await loadCharacter('/models/Fox/Fox.glb');
const crowd = await createCrowd(canvas, character, { clearColor: [0.7, 0.77, 0.84, 1] });
console.log(`crowd-skin draws on ${crowd.backend}`);

// 100 instances on a 10 x 10 grid, each blending Walk and Run by its own weight, starting at its own time.
const { min, max } = character.bounds; // rest pose, model units
const spacing = 1.2 * Math.max(max[0] - min[0], max[2] - min[2]);
for (let i = 0; i < 100; i++) {
  const x = ((i % 10) - 4.5) * spacing;
  const z = (Math.floor(i / 10) - 4.5) * spacing;
  crowd.add({ clipA: 'Walk', clipB: 'Run', blend: (i % 10) / 9, timeA: i * 0.37, timeB: i * 0.37, transform: mat4.translation([x, 0, z]) });
}

// A fixed camera above the crowd's front edge; the canvas follows its CSS size.
const distance = spacing * 9; // model units
const eye = [0, distance * 0.5, distance];
const view = mat4.lookAt(eye, [0, 0, 0], [0, 1, 0]);
const viewProjection = mat4.create();
let last = performance.now();

function frame(now) {
  const dt = Math.min(Math.max(now - last, 0) / 1000, 0.1); // seconds since the last frame, at most 0.1
  last = now;
  canvas.width = Math.max(1, Math.floor(canvas.clientWidth * devicePixelRatio));
  canvas.height = Math.max(1, Math.floor(canvas.clientHeight * devicePixelRatio));
  mat4.multiply(mat4.perspective(Math.PI / 4, canvas.width / canvas.height, distance * 0.05, distance * 4), view, viewProjection);

  crowd.update(dt); // advance the clock, upload changed instance records (often nothing)
  crowd.setCamera(viewProjection, eye); // culling and LOD see what the camera sees
  crowd.render(viewProjection); // clear the canvas, pose every instance on the GPU, one draw per primitive
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
