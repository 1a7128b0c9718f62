/**
 * crowd-skin/three's two shadings at the same crowd (docs/three.md, "Which shading"): the frame
 * cost of `count` Foxes in a three.js scene (a ground, a hemisphere light and a directional
 * light; three's WebGPURenderer in Node on the bench's device, rendering into the bridge's
 * 640 x 360 target) drawn by our skin pass ('crowd', the baseline), by three with shading
 * 'three' without shadows, and with the sun casting them (a 1024^2 shadow map the crowd draws
 * into); and the per-frame copy of the crowd's joints and records into three's buffers alone.
 * The variants are interleaved frame by frame, so that a busy machine slows each alike. Used by
 * tools/bench.ts (--section three-shading).
 */
import {
  Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardMaterial, PerspectiveCamera, PlaneGeometry, Scene, WebGPURenderer,
} from 'three/webgpu';
import type { Character } from '../../src/character/character';
import { ThreeCrowdRenderer, type ThreeCrowdOptions } from '../../src/three/index';
import { OrbitCamera } from '../../demo/orbit-camera';
import { Population } from '../../demo/population';
import { spiralHalfSide } from '../../demo/spiral';
import { median } from './timed-frame';

const WIDTH = 640;
const HEIGHT = 360;
const SPACING = 1.6; // metres between Foxes on the grid

export type ShadingVariant = 'crowd' | 'three' | 'three + shadows';
/**
 * frameMs: the median frame's wall ms; cpuMs: the median frame's CPU ms of this process (user +
 * system, every thread: on SwiftShader the GPU's work too); callingMs: the median frame's wall ms
 * on the calling thread until renderToTarget returns (update, the JavaScript of three and ours,
 * Dawn's encoding and submits; the GPU idle as it starts), the part of frameMs a GPU does not
 * change.
 */
export interface ShadingRow { instances: number; variant: ShadingVariant | 'copy alone'; frameMs: number; cpuMs: number; callingMs: number; ratio: number }

/**
 * Starts a new frame of three's node clock, as its animation loop does each frame (its
 * requestAnimationFrame is stubbed in Node): three draws each shadow map once per frame and camera,
 * so without it the shadow rows would reuse the first frame's map.
 */
function nextFrame(renderer: WebGPURenderer): void {
  (renderer as unknown as { _nodes: { nodeFrame: { update(): void } } })._nodes.nodeFrame.update();
}

function standInCanvas(): HTMLCanvasElement {
  return { width: WIDTH, height: HEIGHT, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
}

/** `frames` measured frames per variant after 2 warm-up rounds: wall ms from update to the GPU done, medians. */
export async function benchThreeShading(device: GPUDevice, character: Character, count: number, frames: number): Promise<ShadingRow[]> {
  // three's renderer starts its frame clock with self.requestAnimationFrame, as in a browser.
  Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });
  const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas(), antialias: false });
  await renderer.init();
  renderer.setSize(WIDTH, HEIGHT, false);
  renderer.shadowMap.enabled = true;
  const side = Math.ceil(Math.sqrt(count));
  const half = (side - 1) * SPACING / 2;
  const scale = 0.8 / (character.bounds.max[1] - character.bounds.min[1]);
  const camera = new PerspectiveCamera(50, WIDTH / HEIGHT, 0.5, 500);
  camera.position.set(0, half * 1.4 + 5, half * 1.3 + 5);
  camera.lookAt(0, 0, 0);

  const variants: ShadingVariant[] = ['crowd', 'three', 'three + shadows'];
  const setups = variants.map((variant) => {
    const scene = new Scene();
    scene.background = new Color(0xb3c4d6);
    scene.add(new HemisphereLight(0xffffff, 0x667755, 1));
    const sun = new DirectionalLight(0xffffff, 2);
    sun.position.set(-10, 30, 15);
    sun.castShadow = variant === 'three + shadows';
    sun.shadow.mapSize.set(1024, 1024);
    Object.assign(sun.shadow.camera, { left: -half - 2, right: half + 2, top: half + 2, bottom: -half - 2, near: 1, far: 100 });
    scene.add(sun);
    const ground = new Mesh(new PlaneGeometry(4 * half + 20, 4 * half + 20), new MeshStandardMaterial({ color: 0x8f9a94 }));
    ground.rotation.x = -Math.PI / 2;
    ground.receiveShadow = true;
    scene.add(ground);
    const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
    const options: ThreeCrowdOptions = variant === 'crowd' ? { capacity: count } : { capacity: count, shading: 'three', castShadow: variant === 'three + shadows' };
    const crowd = crowds.createCrowd(character, options);
    if (variant !== 'crowd') scene.add(crowds.sceneObject(crowd));
    for (let i = 0; i < count; i++) {
      const id = crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.5, timeA: i * 0.37, timeB: i * 0.37 });
      crowd.setPlacement(id, (i % side) * SPACING - half, -character.bounds.min[1] * scale, Math.floor(i / side) * SPACING - half, i * 0.7, scale);
    }
    return { variant, scene, crowds, crowd, times: [] as number[], cpuTimes: [] as number[], calling: [] as number[] };
  });

  for (let round = 0; round < frames + 2; round++) {
    for (const setup of setups) {
      const start = performance.now();
      nextFrame(renderer);
      const cpu = process.cpuUsage();
      setup.crowd.update(1 / 60);
      setup.crowds.renderToTarget(setup.scene, camera);
      const returned = performance.now();
      await device.queue.onSubmittedWorkDone();
      const used = process.cpuUsage(cpu);
      if (round >= 2) {
        setup.calling.push(returned - start);
        setup.times.push(performance.now() - start);
        setup.cpuTimes.push((used.user + used.system) / 1000);
      }
    }
  }

  // The copy alone: the bytes ThreeShading.encode copies for `count` instances, submit to done.
  const jointBytes = count * setups[0].crowd.jointsPerInstance * 48;
  const recordBytes = count * 112;
  const usage = GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const buffers = [jointBytes, jointBytes, recordBytes, recordBytes].map((size) => device.createBuffer({ size, usage }));
  const copyTimes: number[] = [];
  for (let round = 0; round < frames + 2; round++) {
    const start = performance.now();
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(buffers[0], 0, buffers[1], 0, jointBytes);
    encoder.copyBufferToBuffer(buffers[2], 0, buffers[3], 0, recordBytes);
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (round >= 2) copyTimes.push(performance.now() - start);
  }
  for (const buffer of buffers) buffer.destroy();

  const base = median(setups[0].times);
  const rows: ShadingRow[] = setups.map((s) => ({ instances: count, variant: s.variant, frameMs: median(s.times), cpuMs: median(s.cpuTimes), callingMs: median(s.calling), ratio: median(s.times) / base }));
  rows.push({ instances: count, variant: 'copy alone', frameMs: median(copyTimes), cpuMs: Number.NaN, callingMs: Number.NaN, ratio: median(copyTimes) / base });
  for (const s of setups) s.crowds.dispose();
  renderer.dispose();
  return rows;
}

export type CullVariant = "'crowd' all on" | "'three' all on" | "'three' all off";
export interface ThreeCullRow { variant: CullVariant; frameMs: number; ratio: number; visible: number; posed: number }

/**
 * The demo's crowd of `count` Foxes (Population, crowd mode) from the demo's default camera
 * (OrbitCamera.frame), in a three.js scene with a ground, a hemisphere light and a sun casting
 * shadows (2048^2 map over the crowd): shading 'crowd' with culling, mesh LOD and animation LOD
 * (the defaults), shading 'three' with them, and shading 'three' with all three off (every Fox
 * drawn at full detail by the view pass and again by the shadow pass). `frames` measured frames
 * after 2 warm-up rounds (animation LOD settles into its stagger), variants interleaved; medians,
 * ratios to 'crowd' all on. Cameras come from ThreeCrowdRenderer.render, as in an app.
 */
export async function benchThreeCulling(device: GPUDevice, character: Character, count: number, frames: number): Promise<ThreeCullRow[]> {
  Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });
  const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas(), antialias: false });
  await renderer.init();
  renderer.setSize(WIDTH, HEIGHT, false);
  renderer.shadowMap.enabled = true;
  const variants: CullVariant[] = ["'crowd' all on", "'three' all on", "'three' all off"];
  const orbit = new OrbitCamera();
  const camera = new PerspectiveCamera(45, WIDTH / HEIGHT, 1, 1);
  const setups = variants.map((variant) => {
    const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
    const three = variant !== "'crowd' all on";
    const crowd = crowds.createCrowd(character, three ? { capacity: count, shading: 'three' } : { capacity: count });
    const population = new Population(crowd, character);
    population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
    const off = variant === "'three' all off";
    crowd.culling = crowd.lod = crowd.animationLod = !off;
    const halfX = spiralHalfSide(count) * population.spacing[0];
    const halfZ = spiralHalfSide(count) * population.spacing[1];
    orbit.frame(halfX, halfZ, population.height);
    orbit.update(WIDTH / HEIGHT);
    const scene = new Scene();
    scene.background = new Color(0xb3c4d6);
    scene.add(new HemisphereLight(0xffffff, 0x667755, 1));
    const sun = new DirectionalLight(0xffffff, 2);
    const reach = Math.hypot(halfX, halfZ) + population.height;
    sun.position.set(-0.3 * reach, reach, 0.4 * reach);
    sun.castShadow = true;
    sun.shadow.mapSize.set(2048, 2048);
    Object.assign(sun.shadow.camera, { left: -reach, right: reach, top: reach, bottom: -reach, near: 1, far: 4 * reach });
    sun.shadow.camera.updateProjectionMatrix();
    scene.add(sun);
    const ground = new Mesh(new PlaneGeometry(4 * reach, 4 * reach), new MeshStandardMaterial({ color: 0x8f9a94 }));
    ground.rotation.x = -Math.PI / 2;
    ground.receiveShadow = true;
    scene.add(ground);
    if (three) scene.add(crowds.sceneObject(crowd));
    return { variant, scene, crowds, crowd, times: [] as number[], visible: [] as number[], posed: [] as number[] };
  });
  camera.position.set(orbit.eye[0], orbit.eye[1], orbit.eye[2]);
  camera.near = orbit.distance / 100;
  camera.far = (orbit.distance + orbit.sceneRadius) * 2;
  camera.updateProjectionMatrix();
  camera.lookAt(orbit.target[0], orbit.target[1], orbit.target[2]);

  for (let round = 0; round < frames + 2; round++) {
    for (const setup of setups) {
      const start = performance.now();
      nextFrame(renderer);
      setup.crowd.update(1 / 60);
      setup.crowds.renderToTarget(setup.scene, camera);
      await device.queue.onSubmittedWorkDone();
      const ms = performance.now() - start;
      const stats = await setup.crowd.readCullStats().catch(() => ({ visible: count, posed: count }));
      if (round >= 2) {
        setup.times.push(ms);
        setup.visible.push(setup.variant === "'three' all off" ? count : stats.visible);
        setup.posed.push(setup.variant === "'three' all off" ? count : stats.posed);
      }
    }
  }
  const base = median(setups[0].times);
  const rows = setups.map((s) => ({ variant: s.variant, frameMs: median(s.times), ratio: median(s.times) / base, visible: median(s.visible), posed: median(s.posed) }));
  for (const s of setups) s.crowds.dispose();
  renderer.dispose();
  return rows;
}
