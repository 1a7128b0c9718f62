/**
 * Renders one glTF character with three.js (WebGLRenderer, GLTFLoader -> MeshStandardMaterial,
 * no tone mapping, sRGB output) and with crowd-skin (WebGPU) from the same camera under the same
 * lights, pose = the first clip at time 0, into two 256 x 256 canvases; the test compares them.
 * `window.renderBoth(url, crowdLights?)` resolves when both are drawn. `crowdLights` lets the
 * test make the crowd's lights differ from three's on purpose (its made-up violation).
 */
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { Crowd, CrowdMorph, loadCharacter, mat4, requiredCrowdLimits, type LightOptions } from '../../../src/index';

const SIZE = 256;
const SUN = [-0.4, -1, -0.55];
const SUN_INTENSITY = 0.65 * Math.PI;
const AMBIENT_INTENSITY = 0.35 * Math.PI;

interface View { eye: [number, number, number]; target: [number, number, number]; near: number; far: number }

async function renderBoth(url: string, crowdLights?: LightOptions): Promise<string[]> {
  const character = await loadCharacter(url);
  const { min, max } = character.bounds;
  const target: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  const radius = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2;
  const d = radius / Math.sin(Math.PI / 8) * 1.05;
  const dir = [0.35, 0.3, 1];
  const len = Math.hypot(...dir);
  const view: View = { eye: [target[0] + dir[0] / len * d, target[1] + dir[1] / len * d, target[2] + dir[2] / len * d], target, near: d * 0.1, far: d * 4 };
  const clip = character.clipNames[0];
  await renderThree(url, clip, view);
  await renderCrowd(character, clip, view, crowdLights);
  return [...character.warnings];
}

async function renderThree(url: string, clipName: string | undefined, view: View): Promise<void> {
  const canvas = document.getElementById('three') as HTMLCanvasElement;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(SIZE, SIZE, false);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.setClearColor(0x000000, 1);
  const gltf = await new GLTFLoader().loadAsync(url);
  const scene = new THREE.Scene();
  scene.add(gltf.scene);
  const sun = new THREE.DirectionalLight(0xffffff, SUN_INTENSITY);
  sun.position.set(-SUN[0], -SUN[1], -SUN[2]);
  scene.add(sun, sun.target, new THREE.AmbientLight(0xffffff, AMBIENT_INTENSITY));
  const clip = gltf.animations.find((a) => a.name === clipName) ?? gltf.animations[0];
  if (clip) {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    mixer.clipAction(clip).play();
    mixer.update(0);
  }
  gltf.scene.traverse((o) => { o.frustumCulled = false; });
  const camera = new THREE.PerspectiveCamera(45, 1, view.near, view.far);
  camera.position.set(...view.eye);
  camera.lookAt(...view.target);
  renderer.render(scene, camera);
}

async function renderCrowd(character: Awaited<ReturnType<typeof loadCharacter>>, clip: string | undefined, view: View, lights?: LightOptions): Promise<void> {
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) });
  const canvas = document.getElementById('crowd') as HTMLCanvasElement;
  const context = canvas.getContext('webgpu')!;
  const colorFormat = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format: colorFormat, alphaMode: 'opaque' });
  const crowd = new Crowd(device, character, { colorFormat, depthFormat: 'depth24plus', ...(lights ? { lights } : {}) });
  if (character.morphTargets.length > 0) new CrowdMorph(crowd);
  crowd.add({ ...(clip === undefined ? {} : { clipA: clip, timeA: 0 }), transform: mat4.identity() });
  crowd.update(0);
  const depth = device.createTexture({ size: [SIZE, SIZE], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const viewProjection = mat4.multiply(mat4.perspective(Math.PI / 4, 1, view.near, view.far), mat4.lookAt(view.eye, view.target, [0, 1, 0]));
  const encoder = device.createCommandEncoder();
  crowd.encode(encoder);
  const pass = encoder.beginRenderPass({
    colorAttachments: [{ view: context.getCurrentTexture().createView(), clearValue: [0, 0, 0, 1], loadOp: 'clear', storeOp: 'store' }],
    depthStencilAttachment: { view: depth.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' },
  });
  crowd.draw(pass, viewProjection);
  pass.end();
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
}

(window as unknown as { renderBoth: typeof renderBoth }).renderBoth = renderBoth;
document.body.dataset.ready = '1';
