// Five robots, each under an animation controller built from the model's JSON config
// (locomotion, actions, which action may follow which). The keyboard drives one of them:
// WASD or arrows move it, Shift runs, 1-9 request the config's actions, Tab picks the next robot.
import { Crowd, CrowdControllers, CrowdMorph, loadCharacter, mat4, parseControllerConfig, requiredCrowdLimits } from 'crowd-skin';

const adapter = await navigator.gpu?.requestAdapter();
if (!adapter) throw new Error('this browser has no WebGPU adapter');
const device = await adapter.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) });
const canvas = document.querySelector('canvas');
const context = canvas.getContext('webgpu');
const colorFormat = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format: colorFormat, alphaMode: 'opaque' });

const character = await loadCharacter('/models/RobotExpressive/RobotExpressive.glb');
const json = await (await fetch('/models/RobotExpressive/RobotExpressive.controller.json')).json();
const config = parseControllerConfig(json, character.clipNames); // throws naming the bad field
const crowd = new Crowd(device, character, { colorFormat, depthFormat: 'depth24plus' });
new CrowdMorph(crowd); // the robot's face: its clips animate morph targets
const controllers = new CrowdControllers(crowd, config);
const robotHeight = character.bounds.max[1] - character.bounds.min[1]; // model units, as the config's speeds
const robots = [-2, -1, 0, 1, 2].map((i) => controllers.add(crowd.add(), i * robotHeight, 0, 0)); // at (x, z), facing +z
const actions = config.actions.slice(0, 9).map((a) => a.name);
let selected = 2;

// Keyboard: movement keys held, action presses queued for the next frame.
const held = new Set();
const pressed = [];
addEventListener('keydown', (e) => {
  if (e.code === 'Tab') {
    robots[selected].stop(); // it stops where it is; the keys move the next one
    selected = (selected + 1) % robots.length;
  }
  else if (/^Digit[1-9]$/.test(e.code) && !e.repeat) pressed.push(Number(e.code[5]) - 1);
  else held.add(e.code);
  e.preventDefault();
});
addEventListener('keyup', (e) => held.delete(e.code));
addEventListener('blur', () => held.clear());
const key = (...codes) => codes.some((c) => held.has(c));

function drive(robot) {
  const x = (key('KeyD', 'ArrowRight') ? 1 : 0) - (key('KeyA', 'ArrowLeft') ? 1 : 0);
  const z = (key('KeyS', 'ArrowDown') ? 1 : 0) - (key('KeyW', 'ArrowUp') ? 1 : 0);
  if (x !== 0 || z !== 0) robot.move(x, z, key('ShiftLeft', 'ShiftRight')); // a world direction
  else robot.stop();
  for (const action of pressed.splice(0)) if (action < actions.length) robot.requestAction(actions[action]);
}

const help = document.getElementById('help');
const keys = `WASD / arrows move, Shift runs, Tab: next robot\n${actions.map((name, i) => `${i + 1} ${name}`).join('  ')}`;
let shown = '';
function describe() {
  const text = `${keys}\nrobot ${selected + 1} of ${robots.length}: ${robots[selected].state}`;
  if (text !== shown) help.textContent = shown = text;
}

// A fixed camera in front of the row, looking slightly down.
const viewProjection = mat4.create();
const view = mat4.lookAt([0, robotHeight * 2, robotHeight * 6], [0, robotHeight * 0.4, 0], [0, 1, 0]);
/** @type {GPURenderPassColorAttachment} */
const colorAttachment = { view: undefined, clearValue: [0.78, 0.8, 0.74, 1], loadOp: 'clear', storeOp: 'store' };
/** @type {GPURenderPassDepthStencilAttachment} */
const depthAttachment = { view: undefined, depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' };
let depthTexture;
let last = performance.now();

requestAnimationFrame(function frame(now) {
  const dt = Math.min(Math.max(now - last, 0) / 1000, 0.1); // seconds since the last frame, at most 0.1
  last = now;
  const width = Math.max(1, Math.floor(canvas.clientWidth * devicePixelRatio));
  const height = Math.max(1, Math.floor(canvas.clientHeight * devicePixelRatio));
  if (depthTexture?.width !== width || depthTexture?.height !== height) {
    [canvas.width, canvas.height] = [width, height];
    depthTexture?.destroy();
    depthTexture = device.createTexture({ size: [width, height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    depthAttachment.view = depthTexture.createView();
    mat4.multiply(mat4.perspective(Math.PI / 4, width / height, robotHeight * 0.1, robotHeight * 30), view, viewProjection);
  }

  drive(robots[selected]);
  controllers.update(dt); // every controller, then its layer stack and placement into the crowd
  crowd.update(dt); // the same dt
  describe();

  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  colorAttachment.view = context.getCurrentTexture().createView();
  const pass = encoder.beginRenderPass({ colorAttachments: [colorAttachment], depthStencilAttachment: depthAttachment });
  crowd.draw(pass, viewProjection);
  pass.end();
  device.queue.submit([encoder.finish()]);
  requestAnimationFrame(frame);
});
