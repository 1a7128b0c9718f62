/**
 * shading 'three' (src/three/three-shading.ts) in Node: three's WebGPURenderer on the test device
 * (Dawn on SwiftShader), a crowd drawn by three with a user's MeshBasicNodeMaterial, read back
 * from the bridge's target. The skinning matches three's own SkinnedMesh in
 * test/e2e/three-lighting.test.ts; here: it draws where the instances stand, follows the crowd's
 * count, applies edits of the user's material, is fogged by three's fog, and refuses what it cannot draw (appearance and 'dual-quaternion' skinning it now draws).
 */
import { describe, expect, it } from 'vitest';
import {
  AmbientLight, Color, DirectionalLight, Fog, HemisphereLight, MeshBasicNodeMaterial, PerspectiveCamera, PointLight, Raycaster, Scene, SpotLight, Vector3, WebGPURenderer,
  type NodeMaterial,
} from 'three/webgpu';
import { ThreeCrowdRenderer } from '../../src/three/index';
import { CrowdAppearance, type Character } from '../../src/index';
import { testCharacter } from '../helpers/character';
import { expectNoGpuError, openTestDevice } from '../helpers/gpu';
import { coveredPixels, renderPicture, threeCrowds } from '../helpers/three-scene';

Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });

const device = await openTestDevice();
const WIDTH = 96;
const HEIGHT = 64;

function standInCanvas(): HTMLCanvasElement {
  return { width: WIDTH, height: HEIGHT, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
}

/** Share of the target's pixels within 40 of `rgb` (8-bit sRGB). */
async function share(crowds: ThreeCrowdRenderer<'webgpu'>, scene: Scene, camera: PerspectiveCamera, rgb: number[], half?: 'left' | 'right'): Promise<number> {
  await expectNoGpuError(crowds.device, () => crowds.renderToTarget(scene, camera));
  const { width, height } = crowds.target;
  const pixels = await crowds.renderer.readRenderTargetPixelsAsync(crowds.target, 0, 0, width, height) as Uint8Array;
  let n = 0, counted = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if ((half === 'left' && x >= width / 2) || (half === 'right' && x < width / 2)) continue;
      const o = (y * width + x) * 4;
      counted++;
      if (Math.max(Math.abs(pixels[o] - rgb[0]), Math.abs(pixels[o + 1] - rgb[1]), Math.abs(pixels[o + 2] - rgb[2])) <= 40) n++;
    }
  }
  return n / counted;
}

/**
 * A crowd of `fox` with shading 'three' (capacity 1, `material` or the glTF one) in a scene of
 * `background` colour, a camera 3.4 m away, and the scale / lift that stand a Fox 0.8 m tall on y = 0.
 */
function stage(crowds: ThreeCrowdRenderer<'webgpu'>, fox: Character, background: number, material?: NodeMaterial) {
  const crowd = crowds.createCrowd(fox, { capacity: 1, shading: 'three', material });
  const scene = new Scene();
  scene.background = new Color(background);
  scene.add(crowds.sceneObject(crowd));
  const camera = new PerspectiveCamera(40, WIDTH / HEIGHT, 0.1, 50);
  camera.position.set(0, 0.35, 3.4);
  camera.lookAt(0, 0.35, 0);
  const scale = 0.8 / (fox.bounds.max[1] - fox.bounds.min[1]);
  return { crowd, scene, camera, scale, lift: -fox.bounds.min[1] * scale };
}

describe.skipIf(!device)("shading 'three' on three r187 (WebGPU in Node)", () => {
  it('draws the instances where they stand with the user material, follows the count and the material\'s edits', async () => {
    const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas() });
    await renderer.init();
    renderer.setSize(WIDTH, HEIGHT, false);
    const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
    const fox = await testCharacter('Fox');
    const material = new MeshBasicNodeMaterial({ color: 0x00ff00 });
    const { crowd, scene, camera, scale, lift } = stage(crowds, fox, 0xff0000, material);
    const GREEN = [0, 255, 0];

    expect(await share(crowds, scene, camera, GREEN), 'no instance, nothing drawn').toBe(0);
    // One Fox side-on on the left: green there, none on the right. Two: both. The crowd grows past capacity 1.
    const left = crowd.add({ clipA: 'Walk', speedA: 0 });
    crowd.setPlacement(left, -0.95, lift, 0, Math.PI / 2, scale);
    crowd.update(0);
    const oneLeft = await share(crowds, scene, camera, GREEN, 'left');
    const oneRight = await share(crowds, scene, camera, GREEN, 'right');
    const right = crowd.add({ clipA: 'Run', speedA: 0 });
    crowd.setPlacement(right, 0.95, lift, 0, Math.PI / 2, scale);
    crowd.update(0);
    const twoRight = await share(crowds, scene, camera, GREEN, 'right');
    console.log(`shading three: one Fox covers ${(oneLeft * 100).toFixed(1)}% of the left half, ${(oneRight * 100).toFixed(1)}% of the right; the second ${(twoRight * 100).toFixed(1)}%`);
    expect(oneLeft, 'the Fox placed on the left is not drawn there').toBeGreaterThan(0.04);
    expect(oneRight, 'something is drawn where no instance stands').toBeLessThan(0.002);
    expect(twoRight, 'the second instance (after the crowd grew) is not drawn').toBeGreaterThan(0.04);

    material.color.set(0x0000ff);
    expect(await share(crowds, scene, camera, GREEN), 'an edit of the user material did not apply').toBe(0);
    expect(await share(crowds, scene, camera, [0, 0, 255], 'left')).toBeCloseTo(oneLeft, 2);

    // three's fog reaches the crowd: a fog that is all red from 0.2 m hides the Foxes (3.4 m away) in the background's red.
    scene.fog = new Fog(0xff0000, 0.1, 0.2);
    expect(await share(crowds, scene, camera, [0, 0, 255]), 'three\'s fog does not reach the crowd').toBe(0);
    scene.fog = null;

    // three's Raycaster: the scene object's meshes would hit the Fox's rest pose at the origin (in
    // model units, where no instance stands); they answer nothing (a CrowdObject3D answers for the crowd).
    const centre = new Vector3(0, (fox.bounds.min[1] + fox.bounds.max[1]) / 2, (fox.bounds.min[2] + fox.bounds.max[2]) / 2);
    const throughRestPose = new Raycaster(centre.clone().setX(0), new Vector3(1, 0, 0));
    throughRestPose.ray.origin.x = fox.bounds.min[0] - 1000;
    scene.updateMatrixWorld();
    expect(throughRestPose.intersectObject(scene, true), 'a scene-object mesh answered three\'s Raycaster').toEqual([]);

    crowd.remove(left);
    crowd.remove(right);
    crowd.update(0);
    expect(await share(crowds, scene, camera, [0, 0, 255]), 'removed instances are still drawn').toBe(0);
    crowds.dispose();
    expect(scene.children.length, 'dispose leaves the crowd\'s meshes in the scene').toBe(0);
    renderer.dispose();
  }, 120_000);

  it('each kind of three light reaches the crowd alone (ambient, hemisphere, directional, point, spot); none leaves it black', async () => {
    const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas() });
    await renderer.init();
    renderer.setSize(WIDTH, HEIGHT, false);
    const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
    const fox = await testCharacter('Fox');
    const { crowd, scene, camera, scale, lift } = stage(crowds, fox, 0x000000); // the glTF material as a MeshStandardNodeMaterial
    crowd.setPlacement(crowd.add({ clipA: 'Walk', speedA: 0 }), 0, lift, 0, Math.PI / 2, scale);
    crowd.update(0);
    /** Mean of the brightest channel over the picture (the background is black: only the Fox adds). */
    const brightness = async (): Promise<number> => {
      await expectNoGpuError(crowds.device, () => crowds.renderToTarget(scene, camera));
      const pixels = await crowds.renderer.readRenderTargetPixelsAsync(crowds.target, 0, 0, crowds.target.width, crowds.target.height) as Uint8Array;
      let sum = 0;
      for (let i = 0; i < pixels.length; i += 4) sum += Math.max(pixels[i], pixels[i + 1], pixels[i + 2]);
      return sum / (pixels.length / 4);
    };
    const dark = await brightness();
    const spot = new SpotLight(0xffffff, 60, 0, Math.PI / 8);
    spot.position.set(0, 0.4, 3);
    spot.target.position.set(0, 0.4, 0);
    const point = new PointLight(0xffffff, 30, 0, 2);
    point.position.set(0, 0.4, 2);
    const sun = new DirectionalLight(0xffffff, 3);
    sun.position.set(0, 1, 3);
    const lights = {
      ambient: new AmbientLight(0xffffff, 3), hemisphere: new HemisphereLight(0xffffff, 0x444444, 3), directional: sun,
      point, spot,
    };
    const lit: Record<string, number> = {};
    for (const [name, light] of Object.entries(lights)) {
      scene.add(light);
      if (light === spot) scene.add(spot.target);
      scene.updateMatrixWorld();
      lit[name] = await brightness();
      scene.remove(light);
      if (light === spot) scene.remove(spot.target);
    }
    console.log(`shading three, mean brightness (of 255): no light ${dark.toFixed(2)}, ${Object.entries(lit).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}`);
    expect(dark, 'the crowd is lit without any light').toBeLessThan(0.5);
    for (const [name, value] of Object.entries(lit)) expect(value, `${name} light does not reach the crowd`).toBeGreaterThan(dark + 2);
    crowds.dispose();
    renderer.dispose();
  }, 120_000);

  it('moves to a new renderer after its device was lost, with its appearance: the same picture', async () => {
    const first = (await openTestDevice())!;
    const old = await threeCrowds(first, WIDTH, HEIGHT);
    const fox = await testCharacter('Fox');
    const { crowd, scene, camera, scale, lift } = stage(old, fox, 0x000000);
    scene.add(new AmbientLight(0xffffff, 2));
    const looks = new CrowdAppearance(crowd);
    const id = crowd.add({ clipA: 'Walk', speedA: 0 });
    crowd.setPlacement(id, 0, lift, 0, Math.PI / 2, scale);
    looks.setTint(id, 0.2, 1, 0.4);
    crowd.update(0);
    const before = await renderPicture(old, scene, camera);
    const object = old.sceneObject(crowd);
    first.destroy();
    old.removeCrowd(crowd, false);
    // Crowd.restore alone cannot move it: its copies go into buffers of three's renderer.
    expect(() => crowd.restore(device!)).toThrow(/moves with one: adopt it with the new renderer's ThreeCrowdRenderer.adoptCrowd/);
    const crowds = await threeCrowds(device!, WIDTH, HEIGHT);
    crowds.adoptCrowd(crowd);
    expect(crowd.device).toBe(device);
    expect(crowds.sceneObject(crowd), 'the scene object moves with the crowd').toBe(object);
    crowd.update(0);
    const after = await renderPicture(crowds, scene, camera);
    expect(coveredPixels(before, [0, 0, 0]), 'the Fox is not drawn').toBeGreaterThan(200);
    expect(Array.from(after.data), 'the moved crowd draws another picture').toEqual(Array.from(before.data));
    crowds.dispose();
    crowds.renderer.dispose();
  }, 120_000);

  it('draws under a reversed or logarithmic depth buffer, which only the default shading cannot share', async () => {
    const fox = await testCharacter('Fox');
    for (const depth of [{ reversedDepthBuffer: true }, { logarithmicDepthBuffer: true }]) {
      const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas(), ...depth });
      await renderer.init();
      renderer.setSize(WIDTH, HEIGHT, false);
      const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
      expect(() => crowds.createCrowd(fox), Object.keys(depth)[0]).toThrow(/shading: 'three'/);
      const { crowd, scene, camera, scale, lift } = stage(crowds, fox, 0xff0000, new MeshBasicNodeMaterial({ color: 0x00ff00 }));
      crowd.setPlacement(crowd.add({ clipA: 'Walk', speedA: 0 }), 0, lift, 0, Math.PI / 2, scale);
      crowd.update(0);
      expect(await share(crowds, scene, camera, [0, 255, 0]), `no Fox drawn with ${Object.keys(depth)[0]}`).toBeGreaterThan(0.04);
      crowds.dispose();
      renderer.dispose();
    }
  }, 120_000);

  it('refuses what it cannot draw, naming it, and leaves nothing behind', async () => {
    const renderer = new WebGPURenderer({ device: device as never, canvas: standInCanvas() });
    await renderer.init();
    const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu' });
    const fox = await testCharacter('Fox');
    expect(() => crowds.createCrowd(fox, { shading: 'lit' as 'three' })).toThrow(/shading must be 'crowd' or 'three', got lit/);
    const plain = crowds.createCrowd(fox, { capacity: 1 });
    expect(() => crowds.sceneObject(plain)).toThrow(/not made here with \{ shading: 'three' \}/);
    const shaded = crowds.createCrowd(fox, { capacity: 1, shading: 'three' });
    // Accepted since shading 'three' draws them (test/three/three-appearance.test.ts, three-morph, three-dual-quaternion).
    const looks = crowds.createCrowd(fox, { capacity: 1, shading: 'three', skinning: 'dual-quaternion' });
    new CrowdAppearance(looks);
    await expectNoGpuError(crowds.device, () => crowds.renderToTarget(new Scene(), new PerspectiveCamera()));
    crowds.removeCrowd(looks);
    crowds.removeCrowd(shaded);
    crowds.dispose();
    renderer.dispose();
  }, 120_000);
});
