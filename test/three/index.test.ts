/**
 * crowd-skin/three (src/three/index.ts) in Node: three's WebGPURenderer runs on the test device
 * (Dawn on SwiftShader) with a stand-in canvas, renders into the bridge's target, and the target
 * is read back with readRenderTargetPixelsAsync. The canvas output pass needs a browser: it is
 * covered by test/e2e/three.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  ArrayCamera, BoxGeometry, Color, Mesh, MeshBasicMaterial, PerspectiveCamera, PlaneGeometry, Scene, WebGPURenderer,
  type Renderer, type WebGPURendererParameters,
} from 'three/webgpu';
import { queuedTransparent } from '../../src/three/backend';
import { ThreeCrowdRenderer } from '../../src/three/index';
import type { Crowd } from '../../src/index';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice } from '../helpers/gpu';

// three's renderer starts its frame clock with self.requestAnimationFrame, as in a browser or a worker.
Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });

const device = await openTestDevice();
const WIDTH = 96;
const HEIGHT = 64;
const RED = [255, 0, 0];
const BLUE = [0, 0, 255];

/** What three needs of a canvas when nothing is presented to it. */
function standInCanvas(): HTMLCanvasElement {
  return { width: WIDTH, height: HEIGHT, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
}

async function newRenderer(parameters: WebGPURendererParameters = {}, on = device): Promise<WebGPURenderer> {
  const renderer = new WebGPURenderer({ device: on as never, canvas: standInCanvas(), ...parameters });
  await renderer.init();
  renderer.setSize(WIDTH, HEIGHT, false);
  return renderer;
}

/**
 * A red-background scene seen from (0, 0.35, 2.2) m, and a crowd of one Fox, 0.8 m tall, standing
 * side-on at the origin, paused at the start of Walk (its body within z = -0.35..0.35 m).
 */
async function foxScene(renderer: WebGPURenderer, options?: ConstructorParameters<typeof ThreeCrowdRenderer>[1]) {
  const crowds = new ThreeCrowdRenderer(renderer, { ...options, backend: 'webgpu' });
  const fox = await testCharacter('Fox');
  const crowd = crowds.createCrowd(fox, { capacity: 4 });
  const scale = 0.8 / (fox.bounds.max[1] - fox.bounds.min[1]);
  crowd.setPlacement(crowd.add({ clipA: 'Walk', speedA: 0 }), 0, -fox.bounds.min[1] * scale, 0, Math.PI / 2, scale);
  crowd.update(0);
  const scene = new Scene();
  scene.background = new Color(0xff0000);
  const camera = new PerspectiveCamera(40, WIDTH / HEIGHT, 0.1, 50);
  camera.position.set(0, 0.35, 2.2);
  camera.lookAt(0, 0.35, 0);
  return { crowds, crowd, scene, camera };
}

/** An unlit pure blue slab, 2.2 x 1.2 m and 0.1 m thick, centred at (0, 0.35, z): it fills the view around the Fox. */
function blueSlab(z: number): Mesh {
  const slab = new Mesh(new BoxGeometry(2.2, 1.2, 0.1), new MeshBasicMaterial({ color: 0x0000ff }));
  slab.position.set(0, 0.35, z);
  return slab;
}

/** The bridge's target read back as 8-bit sRGB RGBA, rows from the top (WebGPU's layout). */
interface Picture { width: number; height: number; rgba: Uint8Array }

/** Renders into the bridge's target (failing on any WebGPU validation error) and reads it back. */
async function renderTarget(crowds: ThreeCrowdRenderer<'webgpu'>, scene: Scene, camera: PerspectiveCamera): Promise<Picture> {
  await expectNoGpuError(crowds.device, () => crowds.renderToTarget(scene, camera));
  const { width, height } = crowds.target;
  return { width, height, rgba: await crowds.renderer.readRenderTargetPixelsAsync(crowds.target, 0, 0, width, height) as Uint8Array };
}

/** RGB of pixel `p` (index in the picture, row-major). */
function rgb(picture: Picture, p: number): number[] {
  return Array.from(picture.rgba.subarray(p * 4, p * 4 + 3));
}

function distance(a: number[], b: readonly number[]): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i])));
}

/** Pixels of a picture of the Fox alone on red: unlike the red, as is every neighbour (anti-aliased edges dropped). */
function foxPixels(picture: Picture): number[] {
  const { width, height } = picture;
  const isFox = (x: number, y: number) => distance(rgb(picture, y * width + x), RED) > 60;
  const pixels: number[] = [];
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      let all = true;
      for (let dy = -1; dy <= 1 && all; dy++) for (let dx = -1; dx <= 1 && all; dx++) all = isFox(x + dx, y + dy);
      if (all) pixels.push(y * width + x);
    }
  }
  return pixels;
}

/** Share of a picture's pixels that are `colour` exactly. */
function share(picture: Picture, colour: readonly number[]): number {
  let n = 0;
  for (let p = 0; p < picture.width * picture.height; p++) if (distance(rgb(picture, p), colour) === 0) n++;
  return n / (picture.width * picture.height);
}

/** A stand-in renderer with the given backend, for refusals that need no GPU. */
function fakeRenderer(backend: object, fields: object = {}): Renderer {
  return { backend, initialized: true, reversedDepthBuffer: false, logarithmicDepthBuffer: false, samples: 0, ...fields } as unknown as Renderer;
}

describe('ThreeCrowdRenderer validity', () => {
  it('refuses what is not a WebGPURenderer on one of its backends, naming what is wrong', () => {
    expect(() => new ThreeCrowdRenderer({} as Renderer)).toThrow(/expected a three.js WebGPURenderer .*got Object with no \.backend/);
    expect(() => new ThreeCrowdRenderer(null as unknown as Renderer)).toThrow(/expected a three.js WebGPURenderer/);
    expect(() => new ThreeCrowdRenderer(fakeRenderer({ isWebGPUBackend: false }))).toThrow(/neither three's WebGPUBackend nor its WebGLBackend/);
    // three's WebGL 2 backend is taken (three-gl in the e2e tests); its context must be there, and a backend asked for must be the one running.
    expect(() => new ThreeCrowdRenderer(fakeRenderer({ isWebGLBackend: true, gl: {} }))).toThrow(/keeps no WebGL2RenderingContext in renderer\.backend\.gl/);
    expect(() => new ThreeCrowdRenderer(fakeRenderer({ isWebGLBackend: true, gl: null }))).toThrow(/not initialised \(renderer\.backend\.gl is null\)/);
    expect(() => new ThreeCrowdRenderer(fakeRenderer({ isWebGLBackend: true, gl: {} }), { backend: 'webgpu' })).toThrow(/options\.backend is 'webgpu'.*WebGL 2 fallback backend/);
  });

  it('refuses a WebGPU backend whose internals it cannot reach, or a device without vertex-stage storage', () => {
    expect(() => new ThreeCrowdRenderer(fakeRenderer({ isWebGPUBackend: true, device: { limits: {} } }))).toThrow(/has no get\(object\).*written against r187/);
    const compat = { isWebGPUBackend: true, device: { limits: { maxStorageBuffersInVertexStage: 0 } }, get: () => ({}) };
    expect(() => new ThreeCrowdRenderer(fakeRenderer(compat))).toThrow(/maxStorageBuffersInVertexStage = 0.*new WebGPURenderer\(\{ device \}\)/);
  });
});

describe.skipIf(!device)('ThreeCrowdRenderer on three r187 (WebGPU in Node)', () => {
  it('refuses an uninitialised renderer and depth conventions the crowd cannot share', async () => {
    const uninitialised = new WebGPURenderer({ device: device as never, canvas: standInCanvas() });
    expect(() => new ThreeCrowdRenderer(uninitialised, { backend: 'webgpu' })).toThrow(/not initialised .*`await renderer.init\(\)` first/);
    // A crowd of the default shading cannot share these depth buffers; one three draws can (three-shading.test.ts).
    const fox = await testCharacter('Fox');
    await expect(newRenderer({ reversedDepthBuffer: true }).then((r) => new ThreeCrowdRenderer(r, { backend: 'webgpu' }).createCrowd(fox))).rejects.toThrow(/reversedDepthBuffer: true.*shading: 'three'/);
    await expect(newRenderer({ logarithmicDepthBuffer: true }).then((r) => new ThreeCrowdRenderer(r, { backend: 'webgpu' }).createCrowd(fox))).rejects.toThrow(/logarithmicDepthBuffer: true.*shading: 'three'/);
    const renderer = await newRenderer();
    expect(() => new ThreeCrowdRenderer(renderer, { backend: 'webgpu', samples: 2 as 4 })).toThrow(/samples must be 1 or 4.*got 2/);
    const { crowds, scene } = await foxScene(renderer);
    expect(() => crowds.renderToTarget(scene, new ArrayCamera([]))).toThrow(/ArrayCamera .* not supported/);
    const stranger = { destroy() {} } as unknown as Crowd;
    expect(() => crowds.removeCrowd(stranger)).toThrow(/not made by this ThreeCrowdRenderer/);
    crowds.dispose();
  });

  it('adopts a crowd whose renderer lost its device: restored onto the new renderer\'s device, drawn as before', async () => {
    const first = (await openTestDevice())!;
    const { crowds: old, crowd, scene, camera } = await foxScene(await newRenderer({}, first));
    const before = await renderTarget(old, scene, camera);
    expect(foxPixels(before).length, 'the Fox is not drawn').toBeGreaterThan(300);
    first.destroy();
    old.removeCrowd(crowd, false);
    const crowds = new ThreeCrowdRenderer(await newRenderer(), { backend: 'webgpu' });
    crowds.adoptCrowd(crowd);
    expect(crowd.device).toBe(device);
    const after = await renderTarget(crowds, scene, camera);
    expect(Array.from(after.rgba)).toEqual(Array.from(before.rgba));
    expect(() => crowds.adoptCrowd(crowd)).toThrow(/drawn here already/);
    crowds.removeCrowd(crowd, false);
    const antialiased = new ThreeCrowdRenderer(await newRenderer({ antialias: true }), { backend: 'webgpu' });
    expect(() => antialiased.adoptCrowd(crowd)).toThrow(/x1, this renderer's target is rgba8unorm-srgb \/ depth32float x4/);
    expect(crowd.device).toBe(device);
    antialiased.dispose();
    crowds.dispose();
    crowd.destroy();
  });

  for (const antialias of [false, true]) {
    const samples = antialias ? 4 : 1;
    describe(`${samples} sample(s) per pixel (antialias: ${antialias})`, () => {
      it('takes its formats from three\'s target and uses three\'s device', async () => {
        const renderer = await newRenderer({ antialias });
        const { crowds } = await foxScene(renderer);
        expect(crowds.device).toBe(device);
        expect(crowds.formats).toEqual({ colorFormat: 'rgba8unorm-srgb', depthFormat: 'depth32float', sampleCount: samples });
        crowds.dispose();
      });

      it('shares depth: a slab in front hides the Fox, one behind it does not', async () => {
        const renderer = await newRenderer({ antialias });
        const { crowds, scene, camera } = await foxScene(renderer);
        const alone = await renderTarget(crowds, scene, camera);
        const fox = foxPixels(alone);
        expect(fox.length, 'the Fox is not drawn').toBeGreaterThan(300);
        expect(rgb(alone, 0)).toEqual(RED);

        const front = blueSlab(0.6);
        scene.add(front);
        const hidden = await renderTarget(crowds, scene, camera);
        expect(fox.filter((p) => distance(rgb(hidden, p), BLUE) > 0).length, 'Fox pixels showing through a slab in front').toBe(0);
        scene.remove(front);

        scene.add(blueSlab(-0.6));
        const behind = await renderTarget(crowds, scene, camera);
        expect(fox.filter((p) => distance(rgb(behind, p), rgb(alone, p)) > 0).length, 'Fox pixels covered by a slab behind it').toBe(0);
        expect(share(behind, BLUE), 'the slab is not visible around the Fox').toBeGreaterThan(0.2);
        crowds.dispose();
      });

      it('draws three\'s transparent objects over the crowd, or before it when asked not to', async () => {
        for (const transparentAfterCrowds of [true, false]) {
          const renderer = await newRenderer({ antialias });
          const { crowds, scene, camera } = await foxScene(renderer, { transparentAfterCrowds });
          const alone = await renderTarget(crowds, scene, camera);
          const fox = foxPixels(alone);
          // Half-transparent green glass 1 m in front of the Fox; three's transparent materials write depth.
          const glass = new Mesh(new PlaneGeometry(3, 3), new MeshBasicMaterial({ color: 0x00ff00, transparent: true, opacity: 0.5 }));
          glass.position.set(0, 0.35, 1);
          scene.add(glass);
          const seen = await renderTarget(crowds, scene, camera);
          const glassOverRed = rgb(seen, 0);
          expect(distance(glassOverRed, RED)).toBeGreaterThan(60);
          const tinted = fox.filter((p) => distance(rgb(seen, p), rgb(alone, p)) > 10 && distance(rgb(seen, p), glassOverRed) > 40);
          const hidden = fox.filter((p) => distance(rgb(seen, p), glassOverRed) <= 2);
          if (transparentAfterCrowds) {
            expect(tinted.length, 'Fox pixels not seen through the glass').toBe(fox.length);
          } else {
            // Drawn before the crowd, the glass wrote depth: the Fox behind it does not show.
            expect(hidden.length).toBe(fox.length);
          }
          crowds.dispose();
        }
      });

      it('renders the scene a second time only in frames whose first render queued transparent objects in view', async () => {
        const renderer = await newRenderer({ antialias });
        const { crowds, scene, camera } = await foxScene(renderer);
        const render = renderer.render.bind(renderer);
        let renders = 0;
        renderer.render = (...args: Parameters<typeof renderer.render>) => { renders++; return render(...args); };
        const rendersOf = async (): Promise<number> => {
          renders = 0;
          await renderTarget(crowds, scene, camera);
          return renders;
        };
        scene.add(blueSlab(-0.6));
        expect(await rendersOf(), 'an opaque scene').toBe(1);
        const glass = new Mesh(new PlaneGeometry(3, 3), new MeshBasicMaterial({ color: 0x00ff00, transparent: true, opacity: 0.5 }));
        glass.position.set(0, 0.35, 1);
        scene.add(glass);
        expect(await rendersOf(), 'glass in front of the Fox').toBe(2);
        glass.position.set(0, 0.35, 10); // behind the camera, bounding sphere and all: culled by three's frustum test
        expect(await rendersOf(), 'glass out of view').toBe(1);
        glass.position.set(0, 0.35, 1);
        glass.visible = false;
        expect(await rendersOf(), 'glass hidden').toBe(1);
        glass.visible = true;
        expect(await rendersOf(), 'glass shown again').toBe(2);
        // Where three keeps no render list to read (another release, a camera three did not render with): unknown, so the bridge renders.
        expect(queuedTransparent({} as Renderer, scene, camera)).toBeUndefined();
        expect(queuedTransparent(renderer, scene, new PerspectiveCamera())).toBeUndefined();
        expect(queuedTransparent(renderer, scene, camera)).toBe(true);
        crowds.dispose();
      });

      it('follows the drawing buffer when the renderer is resized', async () => {
        const renderer = await newRenderer({ antialias });
        const { crowds, scene, camera } = await foxScene(renderer);
        const before = foxPixels(await renderTarget(crowds, scene, camera)).length;
        renderer.setSize(WIDTH * 2, HEIGHT * 2, false);
        const resized = await renderTarget(crowds, scene, camera);
        expect([resized.width, resized.height]).toEqual([WIDTH * 2, HEIGHT * 2]);
        expect(foxPixels(resized).length, 'the Fox is not drawn (4 times as large) after a resize').toBeGreaterThan(before * 3.5);
        crowds.dispose();
      });
    });
  }
});
