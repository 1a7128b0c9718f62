/**
 * Culling, mesh LOD and shadows under shading 'three' (src/three/three-instance.ts,
 * src/three/frame-camera.ts) in Node: three's WebGPURenderer on the test device (Dawn on
 * SwiftShader). ThreeCrowdRenderer.render hands the crowd three's camera itself; three's passes
 * draw the cull pass's lists, the view camera its own, the sun's shadow pass the casters'.
 * Checked: a Fox just outside the view casts its shadow into it exactly as with culling off;
 * an ordinary view is the same picture with culling on and off; culled instances are not in
 * the draws three makes (the indirect records' instance counts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BufferGeometry, Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardNodeMaterial, PerspectiveCamera, PlaneGeometry, Scene, WebGPURenderer,
} from 'three/webgpu';
import { ThreeCrowdRenderer } from '../../src/three/index';
import type { Crowd } from '../../src/index';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice, readBuffer } from '../helpers/gpu';
import { encodePng } from '../../tools/mannequin/png';

Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });

const device = await openTestDevice();
const WIDTH = 128;
const HEIGHT = 96;
const OUT = 'test-results/three-cull';

function standInCanvas(): HTMLCanvasElement {
  return { width: WIDTH, height: HEIGHT, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
}

/** The target's pixels after crowds.renderToTarget (8-bit sRGB RGBA), saved as `name`.png for a person to look at. */
async function picture(crowds: ThreeCrowdRenderer<'webgpu'>, scene: Scene, camera: PerspectiveCamera, name: string): Promise<Uint8Array> {
  // A new frame, as three's animation loop starts one (its requestAnimationFrame is stubbed here):
  // three draws each shadow map once per frame and camera.
  (crowds.renderer as unknown as { _nodes: { nodeFrame: { update(): void } } })._nodes.nodeFrame.update();
  await expectNoGpuError(crowds.device, () => crowds.renderToTarget(scene, camera));
  const pixels = new Uint8Array(await crowds.renderer.readRenderTargetPixelsAsync(crowds.target, 0, 0, WIDTH, HEIGHT) as Uint8Array);
  mkdirSync(OUT, { recursive: true });
  const flipped = new Uint8Array(pixels.length); // three reads bottom row first
  for (let y = 0; y < HEIGHT; y++) flipped.set(pixels.subarray((HEIGHT - 1 - y) * WIDTH * 4, (HEIGHT - y) * WIDTH * 4), y * WIDTH * 4);
  writeFileSync(`${OUT}/${name}.png`, encodePng(WIDTH, HEIGHT, flipped));
  return pixels;
}

/** Pixels whose largest channel differs by more than `tolerance` of 255. */
function changed(a: Uint8Array, b: Uint8Array, tolerance = 2): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.max(Math.abs(a[i] - b[i]), Math.abs(a[i + 1] - b[i + 1]), Math.abs(a[i + 2] - b[i + 2])) > tolerance) n++;
  }
  return n;
}

/** Instances three's draws of the view camera show: the instance counts of the records each level mesh drew with last (the view pass is the last to draw them). */
async function drawnInstances(crowds: ThreeCrowdRenderer<'webgpu'>, object: { children: unknown[] }): Promise<number> {
  let total = 0;
  for (const child of object.children as Mesh<BufferGeometry>[]) {
    const geometry = child.geometry;
    const buffer = (crowds.renderer.backend as unknown as { get(o: object): { buffer: GPUBuffer } }).get(geometry.indirect!).buffer;
    const words = new Uint32Array(await readBuffer(crowds.device, buffer));
    total += words[(geometry.indirectOffset as number) / 4 + 1];
  }
  return total;
}

/** A lit scene with a shadow-receiving ground, a low sun from -x casting shadows, and a camera looking down at the ground around x = 0.6. */
async function stage() {
  const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas() });
  await renderer.init();
  renderer.setSize(WIDTH, HEIGHT, false);
  renderer.shadowMap.enabled = true;
  const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu', samples: 1 });
  const fox = await testCharacter('Fox');
  const crowd = crowds.createCrowd(fox, { capacity: 8, shading: 'three' });
  const scene = new Scene();
  scene.background = new Color(0x203040);
  const ground = new Mesh(new PlaneGeometry(30, 30), new MeshStandardNodeMaterial({ color: 0xdddddd, roughness: 1 }));
  ground.rotation.x = -Math.PI / 2;
  ground.receiveShadow = true;
  scene.add(ground, new HemisphereLight(0xffffff, 0x444444, 1));
  const sun = new DirectionalLight(0xffffff, 3);
  sun.position.set(-6, 1.5, 0);
  sun.castShadow = true;
  sun.shadow.mapSize.set(512, 512);
  Object.assign(sun.shadow.camera, { left: -6, right: 6, top: 6, bottom: -6, near: 0.5, far: 20 });
  sun.shadow.camera.updateProjectionMatrix();
  scene.add(sun, sun.target);
  scene.add(crowds.sceneObject(crowd));
  const camera = new PerspectiveCamera(40, WIDTH / HEIGHT, 0.1, 50);
  camera.position.set(0.6, 3, 2.2);
  camera.lookAt(0.6, 0, 0);
  const scale = 0.8 / (fox.bounds.max[1] - fox.bounds.min[1]);
  const lift = -fox.bounds.min[1] * scale;
  const place = (x: number, z: number) => crowd.setPlacement(crowd.add({ clipA: 'Walk', speedA: 0 }), x, lift, z, 0, scale);
  return { renderer, crowds, crowd, scene, camera, place, ground };
}

/** Renders with culling on, then off; returns both pictures and the instances drawn in view for each. */
async function onAndOff(crowds: ThreeCrowdRenderer<'webgpu'>, crowd: Crowd, scene: Scene, camera: PerspectiveCamera, name: string) {
  const object = crowds.sceneObject(crowd);
  crowd.culling = true;
  crowd.update(0);
  const on = await picture(crowds, scene, camera, `${name}-culling-on`);
  const drawnOn = await drawnInstances(crowds, object);
  const statsOn = await crowd.readCullStats();
  crowd.culling = false;
  crowd.update(0);
  const off = await picture(crowds, scene, camera, `${name}-culling-off`);
  const drawnOff = await drawnInstances(crowds, object);
  crowd.culling = true;
  return { on, off, drawnOn, drawnOff, visibleOn: statsOn.visible };
}

describe.skipIf(!device)("shading 'three': culling, LOD and shadows through three's passes (WebGPU in Node)", () => {
  it('a Fox outside the view casts its shadow into it as with culling off; an ordinary view is the same picture; culled Foxes are not drawn', async () => {
    const { renderer, crowds, crowd, scene, camera, place } = await stage();
    const empty = await picture(crowds, scene, camera, 'empty');
    expect(() => crowd.setCasterCamera([1, 2, 3])).toThrow(/caster viewProjection/);

    // A Fox left of the view, the low sun throwing its shadow (about 3.2 m long) rightwards into it.
    place(-3.2, 0);
    const shadow = await onAndOff(crowds, crowd, scene, camera, 'shadow-from-outside');
    const shadowPixels = changed(shadow.off, empty, 8);
    console.log(`shading three, Fox outside the view: culled from the view (visible ${shadow.visibleOn}, drawn ${shadow.drawnOn}), ` +
      `its shadow changes ${shadowPixels} pixels; culling on vs off: ${changed(shadow.on, shadow.off)} pixels differ`);
    expect(shadow.visibleOn, 'the Fox meant to stand outside the view is in it').toBe(0);
    expect(shadow.drawnOn, 'three drew the culled Fox in the view pass').toBe(0);
    expect(shadowPixels, 'the Fox\'s shadow does not fall into the view (the test would prove nothing)').toBeGreaterThan(40);
    expect(changed(shadow.on, shadow.off), 'the shadow of a Fox outside the view is lost or changed with culling on').toBe(0);

    // An ordinary view: two Foxes in it, three out of it (behind the camera, far left, far right).
    place(0.3, 0.2);
    place(1.1, -0.4);
    place(0.6, 8);
    place(-12, -3);
    place(14, -2);
    const view = await onAndOff(crowds, crowd, scene, camera, 'ordinary-view');
    console.log(`shading three, 6 Foxes, 2 in view: drawn in the view pass with culling ${view.drawnOn}, without ${view.drawnOff}; ` +
      `${changed(view.on, view.off)} pixels differ`);
    expect(view.visibleOn, 'the cull pass sees other than the two Foxes in view').toBe(2);
    expect(view.drawnOn, 'three drew culled Foxes in the view pass').toBe(2);
    expect(view.drawnOff, 'with culling off three does not draw every Fox').toBe(6);
    expect(changed(view.on, view.off), 'culling changed the picture').toBe(0);
    expect(changed(view.on, shadow.on, 8), 'the two Foxes in view are not drawn').toBeGreaterThan(100);
    // Another camera, rendered by three directly (a second view): the crowd was culled for `camera`, so it draws every instance.
    crowd.update(0);
    await picture(crowds, scene, camera, 'ordinary-view-culled-again');
    expect(await drawnInstances(crowds, crowds.sceneObject(crowd))).toBe(2);
    const other = camera.clone();
    other.position.set(0, 30, 0);
    renderer.setRenderTarget(crowds.target);
    renderer.render(scene, other);
    renderer.setRenderTarget(null);
    expect(await drawnInstances(crowds, crowds.sceneObject(crowd)), 'a camera the crowd was not culled for does not draw every instance').toBe(6);
    crowds.dispose();
    renderer.dispose();
  }, 180_000);

  it("the palette under shading 'three' draws as without one; shading 'crowd' is culled with three's camera too", async () => {
    const { renderer, crowds, crowd, scene, camera, place } = await stage();
    const fox = await testCharacter('Fox');
    // Capacity past paletteSize: the palette pass hands each drawn Fox a set from its free stack (set != slot).
    const palette = crowds.createCrowd(fox, { capacity: 8, paletteSize: 4, shading: 'three' });
    const scale = 0.8 / (fox.bounds.max[1] - fox.bounds.min[1]);
    const lift = -fox.bounds.min[1] * scale;
    // Slot 0 behind the camera and outside the sun's shadow box: never drawn, so it gets no set and the others' sets are not their slots.
    for (const [x, z] of [[0.6, 8], [-0.2, 0.3], [0.4, -0.3], [1.0, 0.3], [1.5, -0.3]]) {
      place(x, z);
      palette.setPlacement(palette.add({ clipA: 'Walk', speedA: 0 }), x, lift, z, 0, scale);
    }
    palette.update(0);
    scene.remove(crowds.sceneObject(palette));
    const own = await onAndOff(crowds, crowd, scene, camera, 'four-own-sets');
    scene.remove(crowds.sceneObject(crowd));
    scene.add(crowds.sceneObject(palette));
    const shared = await picture(crowds, scene, camera, 'four-palette-of-4');
    console.log(`shading three, 4 Foxes: a joint palette (sets handed out) vs a set per slot: ${changed(shared, own.on)} pixels differ (palette active: ${palette.palette.active})`);
    expect(palette.palette.active, 'the palette is not active').toBe(true);
    expect(changed(shared, own.on), 'the palette crowd is not drawn as the crowd with a joint set per Fox').toBe(0);

    // The default shading in the same scene: one Fox in view, one behind the camera; ThreeCrowdRenderer gave it three's camera.
    scene.remove(crowds.sceneObject(palette));
    const ours = crowds.createCrowd(fox, { capacity: 2 });
    ours.setPlacement(ours.add({ clipA: 'Walk', speedA: 0 }), 0.6, lift, 0, 0, scale);
    ours.setPlacement(ours.add({ clipA: 'Walk', speedA: 0 }), 0.6, lift, 8, 0, scale);
    ours.update(0);
    await picture(crowds, scene, camera, 'shading-crowd');
    const stats = await ours.readCullStats();
    console.log(`shading crowd in three's scene: ${stats.visible} of 2 visible, ${stats.posed} posed`);
    expect(stats.visible, "shading 'crowd' is not culled with the render call's camera").toBe(1);
    crowds.dispose();
    renderer.dispose();
  }, 180_000);
});
