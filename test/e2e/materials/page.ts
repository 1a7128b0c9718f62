/**
 * Renders one glTF character with three.js (WebGLRenderer, GLTFLoader -> MeshStandardMaterial,
 * no tone mapping, sRGB output) and with crowd-skin (WebGPU) from the same camera under the same
 * lights, pose = the first clip at time 0, into two 256 x 256 canvases; the test compares them.
 * `window.renderBoth(url, crowdLights?, environment?, drawThree?)` resolves when both are drawn. `crowdLights` lets the
 * test make the crowd's lights differ from three's on purpose (its made-up violation).
 * `environment`: both sides also lit by a procedural equirectangular environment ('same'), or
 * the crowd's rotated 180 degrees about y / left out (made-up violations). `drawThree` false leaves
 * three's canvas alone: the test compares the crowd's picture with three's from an earlier call.
 * One page serves every case of the test: three's renderer (with its compiled programs) and the
 * WebGPU device are made on the first call and kept; each call's Crowd is destroyed after it draws.
 */
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { Crowd, CrowdMorph, loadCharacter, mat4, requiredCrowdLimits, type LightOptions } from '../../../src/index';

const SIZE = 256;
const SUN = [-0.4, -1, -0.55];
const SUN_INTENSITY = 0.65 * Math.PI;
const AMBIENT_INTENSITY = 0.35 * Math.PI;

type EnvironmentCase = 'same' | 'rotated' | 'ignored';
const ENV_WIDTH = 64;
const ENV_HEIGHT = 32;

/**
 * A smooth linear-RGB environment, rows top (+y) to bottom, `turn` radians about y: a sky
 * gradient, a darker ground blended across the horizon, and one broad warm blob up and towards
 * the camera's side (+z), so that differences in prefilter blur stay small.
 */
function proceduralEnvironment(turn: number): Float32Array {
  const data = new Float32Array(ENV_WIDTH * ENV_HEIGHT * 4);
  const blob = [0.45, 0.55, 0.7];
  const blobLength = Math.hypot(...blob);
  for (let y = 0; y < ENV_HEIGHT; y++) {
    for (let x = 0; x < ENV_WIDTH; x++) {
      const elevation = (0.5 - (y + 0.5) / ENV_HEIGHT) * Math.PI;
      const phi = ((x + 0.5) / ENV_WIDTH - 0.5) * 2 * Math.PI + turn;
      const d = [Math.cos(elevation) * Math.cos(phi), Math.sin(elevation), Math.cos(elevation) * Math.sin(phi)];
      const t = Math.min(Math.max((d[1] + 0.2) / 0.4, 0), 1);
      const sky = [0.5 - 0.3 * d[1], 0.6 - 0.25 * d[1], 0.9];
      const ground = [0.3, 0.25, 0.18];
      const w = 3 * Math.exp(-6 * (1 - (d[0] * blob[0] + d[1] * blob[1] + d[2] * blob[2]) / blobLength));
      const c = [0, 1, 2].map((i) => ground[i] + (sky[i] - ground[i]) * t * t * (3 - 2 * t) + w * [1, 0.7, 0.35][i]);
      data.set([...c, 1], (y * ENV_WIDTH + x) * 4);
    }
  }
  return data;
}

interface View { eye: [number, number, number]; target: [number, number, number]; near: number; far: number }

async function renderBoth(url: string, crowdLights?: LightOptions, environment?: EnvironmentCase, drawThree = true): Promise<string[]> {
  const character = await loadCharacter(url);
  const { min, max } = character.bounds;
  const target: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
  const radius = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2;
  const d = radius / Math.sin(Math.PI / 8) * 1.05;
  const dir = [0.35, 0.3, 1];
  const len = Math.hypot(...dir);
  const view: View = { eye: [target[0] + dir[0] / len * d, target[1] + dir[1] / len * d, target[2] + dir[2] / len * d], target, near: d * 0.1, far: d * 4 };
  const clip = character.clipNames[0];
  if (drawThree) await renderThree(url, clip, view, environment !== undefined);
  const image = { width: ENV_WIDTH, height: ENV_HEIGHT, data: proceduralEnvironment(environment === 'rotated' ? Math.PI : 0) };
  const lights = environment === undefined || environment === 'ignored' ? crowdLights : { ...crowdLights, environment: { image } };
  await renderCrowd(character, clip, view, lights);
  return [...character.warnings];
}

async function renderThree(url: string, clipName: string | undefined, view: View, withEnvironment: boolean): Promise<void> {
  const renderer = threeRenderer();
  const gltf = await new GLTFLoader().loadAsync(url);
  const scene = new THREE.Scene();
  scene.add(gltf.scene);
  const sun = new THREE.DirectionalLight(0xffffff, SUN_INTENSITY);
  sun.position.set(-SUN[0], -SUN[1], -SUN[2]);
  scene.add(sun, sun.target, new THREE.AmbientLight(0xffffff, AMBIENT_INTENSITY));
  if (withEnvironment) {
    // three's DataTexture is not flipped: its row 0 is v = 0 (the bottom), so the rows go in reversed.
    const data = proceduralEnvironment(0);
    const flipped = new Float32Array(data.length);
    const row = ENV_WIDTH * 4;
    for (let y = 0; y < ENV_HEIGHT; y++) flipped.set(data.subarray(y * row, (y + 1) * row), (ENV_HEIGHT - 1 - y) * row);
    const texture = new THREE.DataTexture(flipped, ENV_WIDTH, ENV_HEIGHT, THREE.RGBAFormat, THREE.FloatType);
    texture.mapping = THREE.EquirectangularReflectionMapping;
    texture.colorSpace = THREE.LinearSRGBColorSpace;
    texture.magFilter = THREE.LinearFilter;
    texture.minFilter = THREE.LinearFilter;
    texture.needsUpdate = true;
    scene.environment = new THREE.PMREMGenerator(renderer).fromEquirectangular(texture).texture;
  }
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

let sharedRenderer: THREE.WebGLRenderer | undefined;

/** three's renderer on the #three canvas, made once per page. */
function threeRenderer(): THREE.WebGLRenderer {
  if (sharedRenderer) return sharedRenderer;
  const renderer = new THREE.WebGLRenderer({ canvas: document.getElementById('three') as HTMLCanvasElement, antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(SIZE, SIZE, false);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.setClearColor(0x000000, 1);
  sharedRenderer = renderer;
  return renderer;
}

let gpu: Promise<{ device: GPUDevice; context: GPUCanvasContext; colorFormat: GPUTextureFormat }> | undefined;

/** The WebGPU device and the #crowd canvas's context, made once per page. */
function crowdGpu(): NonNullable<typeof gpu> {
  gpu ??= (async () => {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter');
    const device = await adapter.requestDevice({ requiredLimits: requiredCrowdLimits(adapter) });
    const context = (document.getElementById('crowd') as HTMLCanvasElement).getContext('webgpu')!;
    const colorFormat = navigator.gpu.getPreferredCanvasFormat();
    context.configure({ device, format: colorFormat, alphaMode: 'opaque' });
    return { device, context, colorFormat };
  })();
  return gpu;
}

async function renderCrowd(character: Awaited<ReturnType<typeof loadCharacter>>, clip: string | undefined, view: View, lights?: LightOptions): Promise<void> {
  const { device, context, colorFormat } = await crowdGpu();
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
  crowd.destroy();
  depth.destroy();
}

(window as unknown as { renderBoth: typeof renderBoth }).renderBoth = renderBoth;
document.body.dataset.ready = '1';
