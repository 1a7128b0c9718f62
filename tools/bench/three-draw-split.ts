/**
 * Our skin pass's draw against three's draw of the same crowd, each less the frame without it
 * (docs/draw.md, step 4): the three-shading bench's scene (tools/bench/three-shading.ts: Foxes on a
 * grid, a ground, a hemisphere light and a sun, 640 x 360) drawn three ways, interleaved frame by
 * frame: shading 'crowd' (our skin pass after three's render), shading 'three' (three's
 * MeshStandardNodeMaterial draw), and shading 'crowd' with Crowd.draw skipped (the cull and pose
 * passes and three's ground: what both share). Per round, (crowd - none) / (three - none) by the
 * CPU ms of this process from update to the GPU done (SwiftShader draws on this process's threads);
 * the median over rounds.
 *
 *   N=1000 ROUNDS=30 node --import ./tools/register.mjs tools/bench/three-draw-split.ts
 */
import {
  Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardMaterial, PerspectiveCamera, PlaneGeometry, Scene, WebGPURenderer,
} from 'three/webgpu';
import { ThreeCrowdRenderer } from '../../src/three/index';
import { openNodeDevice } from '../gpu-poser';
import { characterFromFile } from './ours';
import { CROWD_MODEL } from './sections/context';
import { median } from './timed-frame';

const count = Number(process.env.N ?? 1000);
const rounds = Number(process.env.ROUNDS ?? 30);
const { device, adapterName } = await openNodeDevice({});
const character = await characterFromFile(CROWD_MODEL[1]);
Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });
const canvas = { width: 640, height: 360, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
const renderer = new WebGPURenderer({ device: device as never, canvas, antialias: false });
await renderer.init();
renderer.setSize(640, 360, false);
const side = Math.ceil(Math.sqrt(count));
const half = (side - 1) * 1.6 / 2;
const camera = new PerspectiveCamera(50, 640 / 360, 0.5, 500);
camera.position.set(0, half * 1.4 + 5, half * 1.3 + 5);
camera.lookAt(0, 0, 0);
const scale = 0.8 / (character.bounds.max[1] - character.bounds.min[1]);

const setups = (['crowd', 'three', 'none'] as const).map((variant) => {
  const scene = new Scene();
  scene.background = new Color(0xb3c4d6);
  scene.add(new HemisphereLight(0xffffff, 0x667755, 1));
  const sun = new DirectionalLight(0xffffff, 2);
  sun.position.set(-10, 30, 15);
  scene.add(sun);
  const ground = new Mesh(new PlaneGeometry(4 * half + 20, 4 * half + 20), new MeshStandardMaterial({ color: 0x8f9a94 }));
  ground.rotation.x = -Math.PI / 2;
  scene.add(ground);
  const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
  const crowd = crowds.createCrowd(character, variant === 'three' ? { capacity: count, shading: 'three' } : { capacity: count });
  if (variant === 'three') scene.add(crowds.sceneObject(crowd));
  // 'none': the frame with our draw skipped, all else as 'crowd'.
  if (variant === 'none') crowd.draw = () => {};
  for (let i = 0; i < count; i++) {
    const id = crowd.add({ clipA: 'Walk', clipB: 'Run', blend: 0.5, timeA: i * 0.37, timeB: i * 0.37 });
    crowd.setPlacement(id, (i % side) * 1.6 - half, -character.bounds.min[1] * scale, Math.floor(i / side) * 1.6 - half, i * 0.7, scale);
  }
  return { variant, scene, crowds, crowd, cpu: [] as number[] };
});

const nextFrame = () => (renderer as unknown as { _nodes: { nodeFrame: { update(): void } } })._nodes.nodeFrame.update();
for (let round = 0; round < rounds + 2; round++) {
  for (const s of setups) {
    nextFrame();
    const cpu = process.cpuUsage();
    s.crowd.update(1 / 60);
    s.crowds.renderToTarget(s.scene, camera);
    await device.queue.onSubmittedWorkDone();
    const used = process.cpuUsage(cpu);
    if (round >= 2) s.cpu.push((used.user + used.system) / 1000);
  }
}
const [ours, three, none] = setups;
const ratios = ours.cpu.map((c, i) => (c - none.cpu[i]) / (three.cpu[i] - none.cpu[i]));
console.log(`${count} Foxes on ${adapterName}, ${rounds} rounds: frame CPU ms 'crowd' ${median(ours.cpu).toFixed(1)}, 'three' ${median(three.cpu).toFixed(1)}, no draw ${median(none.cpu).toFixed(1)}; `
  + `our draw / three's draw ${median(ratios).toFixed(2)} (per-round range ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`);
for (const s of setups) s.crowds.dispose();
renderer.dispose();
process.exit(0);
