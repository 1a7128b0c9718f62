/**
 * `npm run bench -- --section S --against REF` for the sections besides controllers that have a
 * CPU-per-frame figure (issue 42): each section's frame, built from this tree's library and from
 * REF's (TreeLibrary.load: each tree's own modules, driven by the scene code here), run frame by
 * frame in alternation by tools/bench/against.ts runPaired. What a frame is follows the section:
 *
 * - gl-cull: GLCull.run over 10,000 Foxes in a store without GPU memory (the WebGL 2 crowd's CPU culling);
 * - million: 100,000 Foxes, 1% in view, a palette of 4,096: update + encode + draw + finish;
 * - appearance: 2,000 Mannequins, every one tinted, 1% of the tints set again a frame: the same frame;
 * - steering: 10,000 agents through the doors: update + encode + finish.
 *
 * None is submitted (the CPU a frame costs to record, as the controllers' paired scenes). The
 * sections left out measure the GPU (culling, draw, three-shading: on SwiftShader the emulated
 * GPU's work), frames until an answer (picking), or loading (clip-library, load-formats).
 */
import { mat4 } from 'wgpu-matrix';
import type { Character } from '../../src/character/character';
import type { Crowd } from '../../src/runtime/crowd';
import { OrbitCamera } from '../../demo/orbit-camera';
import { Population } from '../../demo/population';
import { spiralHalfSide } from '../../demo/spiral';
import { mannequinTexture } from '../mannequin/build';
import type { Scene, TreeLibrary } from './against';
import { glCullScene, type GLCullModules } from './gl-cull';
import { gridArrays } from './million';

/** The sections with paired scenes here (controllers has its own, in against.ts). */
export const PAIRED_SECTIONS = ['gl-cull', 'million', 'appearance', 'steering'] as const;
export type PairedSection = (typeof PAIRED_SECTIONS)[number];

/** One paired scene: its name and size, and how a tree's library builds it. */
export interface PairedSpec {
  scene: string;
  instances: number;
  make(lib: TreeLibrary, device: GPUDevice): Promise<Scene>;
}

const FORMATS = { colorFormat: 'rgba8unorm', depthFormat: 'depth24plus' } as const;
const WIDTH = 640, HEIGHT = 360;

/** `lib`'s Crowd class. */
async function crowdClass(lib: TreeLibrary): Promise<new (device: GPUDevice, character: Character, options: object) => Crowd> {
  return (await lib.load('src/runtime/crowd.ts')).Crowd;
}

/** A frame of `crowd`: `before`, update(dt) + encode + draw with `viewProjection` into a render pass + finish, not submitted. Owns its target. */
function crowdScene(device: GPUDevice, crowd: Crowd, viewProjection: Float32Array, dt: number, before: () => void = () => {}): Scene {
  const color = device.createTexture({ size: [WIDTH, HEIGHT], format: FORMATS.colorFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const depth = device.createTexture({ size: [WIDTH, HEIGHT], format: FORMATS.depthFormat, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const views = { color: color.createView(), depth: depth.createView() };
  return {
    frame() {
      before();
      crowd.update(dt);
      const encoder = device.createCommandEncoder();
      crowd.encode(encoder);
      const pass = encoder.beginRenderPass({
        colorAttachments: [{ view: views.color, loadOp: 'clear', storeOp: 'store' }],
        depthStencilAttachment: { view: views.depth, depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
      });
      crowd.draw(pass, viewProjection);
      pass.end();
      encoder.finish();
    },
    destroy() {
      crowd.destroy();
      color.destroy();
      depth.destroy();
    },
  };
}

/** The paired scenes of `section` (`quick`: smaller). */
export function pairedSpecs(section: PairedSection, quick: boolean): PairedSpec[] {
  if (section === 'gl-cull') {
    const count = 10000;
    return (['inside', 'above'] as const).map((view) => ({
      scene: view === 'inside' ? 'GLCull.run, inside the crowd' : 'GLCull.run, all in view', instances: count,
      async make(lib) {
        const [store, settings, cull, device] = await Promise.all(['src/runtime/instance-store.ts', 'src/runtime/culling/cull-settings.ts', 'src/webgl2/gl-cull.ts', 'src/webgl2/gl-record-device.ts'].map(lib.load));
        const mods: GLCullModules = { InstanceStore: store.InstanceStore, CullSettings: settings.CullSettings, GLCull: cull.GLCull, GLUnreadBuffer: device.GLUnreadBuffer };
        return glCullScene(await lib.characterFromFile('public/models/Fox/Fox.glb'), count, view, mods);
      },
    }));
  }
  if (section === 'million') {
    const count = quick ? 20_000 : 100_000;
    return [{
      scene: 'palette 4,096, 1% in view: update + encode + draw', instances: count,
      async make(lib, device) {
        const Crowd = await crowdClass(lib);
        const crowd = new Crowd(device, await lib.characterFromFile('public/models/Fox/Fox.glb'), { ...FORMATS, capacity: 1024, paletteSize: 4096 });
        const { positions, clipsA, timesA, side } = gridArrays(count);
        crowd.addMany({ count, positions, clipsA, timesA });
        const spacing = positions[3]; // the grid's step (tools/bench/million.ts)
        const block = Math.sqrt(0.01) * side * spacing, fovY = 0.9;
        const height = block / 2 / Math.tan(fovY / 2);
        const centre = [(side * spacing) / 2, 0, (side * spacing) / 2];
        const eye = [centre[0], height, centre[2] + 1];
        const viewProjection = mat4.multiply(mat4.perspective(fovY, 1, height / 4, height * 2), mat4.lookAt(eye, centre, [0, 1, 0])) as Float32Array;
        crowd.setCamera(viewProjection, eye, { viewportHeight: 1080 });
        return crowdScene(device, crowd, viewProjection, 1 / 60);
      },
    }];
  }
  if (section === 'appearance') {
    const count = quick ? 500 : 2000;
    return [{
      scene: 'every instance tinted, 1% set again a frame: update + encode + draw', instances: count,
      async make(lib, device) {
        const Crowd = await crowdClass(lib);
        const { CrowdAppearance } = await lib.load('src/features/appearance/crowd-appearance.ts');
        const character = await lib.characterFromFile('public/models/Mannequin/Mannequin.glb');
        const crowd = new Crowd(device, character, { ...FORMATS, capacity: count });
        const population = new Population(crowd, character);
        population.setCount(count, { mode: 'crowd', blend: 0.5, randomPhases: true, variety: 0.15, clipA: 0, clipB: Math.min(1, character.clipNames.length - 1) });
        const camera = new OrbitCamera();
        const halfSide = spiralHalfSide(count);
        camera.frame(halfSide * population.spacing[0], halfSide * population.spacing[1], population.height);
        camera.update(WIDTH / HEIGHT);
        crowd.setCamera(camera.viewProjection, camera.eye, { viewportHeight: HEIGHT });
        const looks = new CrowdAppearance(crowd, { variants: [mannequinTexture(1), mannequinTexture(2)] });
        const heads = [looks.partMask(['Body', 'HeadBox']), looks.partMask(['Body', 'HeadWide']), looks.partMask(['Body', 'HeadBox', 'Hat'])];
        for (let id = 0; id < count; id++) looks.set(id, { tint: [0.5 + (id % 5) / 8, 0.5 + (id % 7) / 12, 0.5 + (id % 3) / 4], variant: id % 3, parts: heads[id % 3] });
        const changed = Math.max(1, Math.round(count / 100));
        let next = 0;
        return crowdScene(device, crowd, camera.viewProjection as Float32Array, 1 / 60, () => {
          for (let i = 0; i < changed; i++, next = (next + 1) % count) looks.setTint(next, (next % 4) / 4, 0.6, 1 - (next % 4) / 4);
        });
      },
    }];
  }
  const count = quick ? 2000 : 10000;
  return [{
    scene: 'every instance an agent, through the doors: update + encode', instances: count,
    async make(lib, device) {
      const Crowd = await crowdClass(lib);
      const { CrowdSteering } = await lib.load('src/features/steering/crowd-steering.ts');
      const crowd = new Crowd(device, await lib.characterFromFile('public/models/Fox/Fox.glb'), { ...FORMATS, capacity: count });
      // tools/bench/steering.ts's bottleneck: a block of agents left of a wall with a door every 10 m, the goal 20 m right.
      const side = Math.ceil(Math.sqrt(count)), depth = side * 0.75, half = depth / 2 + 5;
      const steering = new CrowdSteering(crowd, { flowField: { min: [-depth - 10, -half], max: [30, half], cellSize: Math.max(0.5, (depth + 40) / 512), clearance: 0.3 } });
      for (let z = -half; z < half; z += 10) steering.addObstacle([[0, z + 1.5], [0, Math.min(z + 10, half)]]);
      const positions = new Float32Array(count * 3);
      for (let i = 0; i < count; i++) {
        positions[3 * i] = -1 - (i % side) * 0.75;
        positions[3 * i + 2] = -depth / 2 + Math.floor(i / side) * 0.75;
      }
      const ids = crowd.addMany({ count, positions, yaws: new Float32Array(count).fill(Math.PI / 2), clipA: 0 });
      for (let i = 0; i < count; i++) steering.addAgent(ids[i], { radius: 0.3, maxSpeed: 1.8, preferredSpeed: 1.3, goal: [20, 0] });
      while (steering.cpuModel.pendingFieldCount > 0) steering.cpuModel.advanceFields();
      return {
        frame() {
          crowd.update(1 / 30);
          const encoder = device.createCommandEncoder();
          crowd.encode(encoder);
          encoder.finish();
        },
        destroy: () => crowd.destroy(),
      };
    },
  }];
}
