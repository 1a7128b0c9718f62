/**
 * CrowdImpostors on a crowd three draws (shading 'three', src/three/index.ts, crowd-pass.ts) in
 * Node: three's WebGPURenderer on the test device (Dawn on SwiftShader). three draws the meshes
 * from the cull pass's level lists; the far instances the cull pass routes to the impostor list are
 * drawn by our pass after three's (Crowd.drawFeatures), lit by the scene's lights. Before, three
 * drew the meshes and nothing drew the impostors: a far Fox vanished (0 pixels).
 * Checked: one Fox just past the switch, seen from a view cell, drawn as its impostor against
 * three's own mesh of it (impostors off) under a coloured sun and ambient light: the issue's
 * measure, within 8/255 over the mesh's pixels; the cull stats count it as an impostor; a far
 * crowd's dots are listed by the frame's camera, though the listing is submitted with three's
 * crowd encode before three's render and the dots' draw after it (without the listing's own write
 * of the camera the first frame after a move lit 20 pixels, not 35); a renderer with a
 * logarithmic depth buffer is refused by name while impostors draw, and draws without them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AmbientLight, Color, DirectionalLight, PerspectiveCamera, Scene, WebGPURenderer } from 'three/webgpu';
import { ThreeCrowdRenderer } from '../../src/three/index';
import { CrowdImpostors, CrowdProps, loadCharacter, type Character, type Crowd } from '../../src/index';
import { boxSphere } from '../../src/features/impostors/impostor-atlas';
import { distanceForPixels, projectionScale } from '../../src/runtime/culling/cull-math';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { BUNDLED_MODELS } from '../helpers/models';
import { lookAt, overMesh } from '../helpers/render';
import { SMALL_ATLAS, SWITCH_VIEW } from '../helpers/impostor-camera';
import { coveredPixels, renderPicture } from '../helpers/three-scene';

Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });

const device = await openTestDevice();

/** The bundled Sword (public/models/Props/Sword.glb). */
function swordProp(): Promise<Character> {
  const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
  return loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
}
const SIZE = SWITCH_VIEW.size;
const BLACK = [0, 0, 0];

/** three's renderer of SIZE x SIZE on the test device, with `options` (depth conventions), and our crowd renderer on it, taking the scene's lights (the default). */
async function threeRenderer(options: { logarithmicDepthBuffer?: boolean } = {}) {
  const canvas = { width: SIZE, height: SIZE, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
  const renderer = new WebGPURenderer({ device: device as never, canvas, ...options });
  await renderer.init();
  renderer.setSize(SIZE, SIZE, false);
  return { renderer, crowds: new ThreeCrowdRenderer(renderer, { backend: 'webgpu' }) };
}

/** A black scene holding `crowd`, under a warm sun from the front left and a cool ambient light: the crowd's own default lights differ from both. */
function litScene(crowds: ThreeCrowdRenderer<'webgpu'>, crowd: Crowd): Scene {
  const scene = new Scene();
  scene.background = new Color(0x000000);
  scene.add(crowds.sceneObject(crowd));
  const sun = new DirectionalLight(0xffc080, 2.5);
  sun.position.set(1, 1.5, 1);
  scene.add(sun, sun.target, new AmbientLight(0x6080ff, 0.8));
  return scene;
}

/** One Fox just past the switch on azimuth 90, under a warm sun and a cool ambient light, on threeRenderer(options). */
async function stage(options: { logarithmicDepthBuffer?: boolean } = {}, sword = false) {
  const { renderer, crowds } = await threeRenderer(options);
  const fox = await testCharacter('Fox');
  const crowd = crowds.createCrowd(fox, { capacity: 2, shading: 'three' });
  // A small atlas (4 frames, 4 azimuths on the horizon) bakes in a moment; azimuth 90 is a view cell.
  const impostors = new CrowdImpostors(crowd, SMALL_ATLAS);
  // A sword 100 model units long on the Fox's head, held by every instance: baked into the atlas.
  if (sword) new CrowdProps(crowd).attach(await swordProp(), { joint: 'b_Head_05', offset: [100, 0, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0, 0, 10, 0, 1] });
  // Clip 1 at a baked frame (a quarter cycle), the Fox at the origin in its own frame.
  crowd.setPlacement(crowd.add({ clipA: 1, timeA: fox.clipDurations[1] / 4, speedA: 0 }), 0, 0, 0, 0, 1);
  const scene = litScene(crowds, crowd);
  // The camera on azimuth 90 (+x) at the horizon, 1.02 x the switch distance from the box's centre (the draw tests' cameraAtSwitch).
  const { centre, radius } = boxSphere(impostors.atlas.box);
  const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: SWITCH_VIEW.fovY });
  const d = distanceForPixels(2 * radius, impostors.switchPixels, projectionScale(probe.viewProjection), SIZE) * 1.02;
  const camera = new PerspectiveCamera((SWITCH_VIEW.fovY * 180) / Math.PI, 1, d / 4, 4 * d);
  camera.position.set(centre[0] + d, centre[1], centre[2]);
  camera.lookAt(centre[0], centre[1], centre[2]);
  return { renderer, crowds, crowd, impostors, scene, camera };
}

/** The stage's picture with impostors on, its cull stats, and the picture with them off (three's mesh): the impostor against the mesh. */
async function impostorAndMesh({ crowds, crowd, impostors, scene, camera }: Awaited<ReturnType<typeof stage>>) {
  crowd.update(0);
  const impostor = await renderPicture(crowds, scene, camera);
  const stats = await crowd.readCullStats();
  impostors.enabled = false;
  crowd.update(0);
  const mesh = await renderPicture(crowds, scene, camera);
  return { impostor, mesh, stats, ...overMesh(impostor.data, mesh.data) };
}

describe.skipIf(!device)("CrowdImpostors under shading 'three' (WebGPU in Node)", () => {
  it('draws a far Fox as its impostor after three\'s pass, lit by the scene\'s lights, within 8/255 of three\'s mesh', async () => {
    const staged = await stage();
    const { renderer, crowds } = staged;
    const { impostor, stats, mean, pixels } = await impostorAndMesh(staged);
    const drawn = coveredPixels(impostor, BLACK);
    console.log(`shading three, a Fox past the switch: impostor against three's mesh ${mean.toFixed(2)}/255 over the mesh's ${pixels} pixels; ` +
      `the impostor covers ${drawn}; stats ${JSON.stringify(stats.perLevel)}`);
    expect(stats.perLevel.at(-1), 'the Fox is not drawn as an impostor').toBe(1);
    expect(pixels, 'three did not draw the Fox\'s mesh (the test would prove nothing)').toBeGreaterThan(100);
    expect(drawn, 'the impostor is missing (nothing draws the impostors of a crowd three draws)').toBeGreaterThan(0.8 * pixels);
    expect(mean, 'the impostor differs from three\'s mesh (not lit by the scene\'s lights?)').toBeLessThanOrEqual(8);
    crowds.dispose();
    renderer.dispose();
  }, 120_000);

  it('draws the sword every instance holds in the far Fox\'s impostor, within 8/255 of three\'s mesh with our pass\'s sword', async () => {
    const staged = await stage({}, true);
    const { renderer, crowds } = staged;
    const { impostor, mesh, stats, mean, pixels } = await impostorAndMesh(staged);
    const bare = await stage();
    bare.impostors.enabled = false;
    bare.crowd.update(0);
    const meshBare = await renderPicture(bare.crowds, bare.scene, bare.camera);
    const sword = coveredPixels(mesh, BLACK) - coveredPixels(meshBare, BLACK);
    console.log(`shading three, a Fox with a sword past the switch: impostor against three's mesh and our sword ${mean.toFixed(2)}/255 over ${pixels} pixels, ` +
      `${sword} of them the sword's; the impostor covers ${coveredPixels(impostor, BLACK)}`);
    expect(stats.perLevel.at(-1), 'the Fox is not drawn as an impostor').toBe(1);
    expect(sword, 'no sword drawn on the mesh (the test would prove nothing)').toBeGreaterThan(20);
    expect(mean, 'the impostor differs from the mesh with its sword').toBeLessThanOrEqual(8);
    for (const c of [crowds, bare.crowds]) c.dispose();
    renderer.dispose();
    bare.renderer.dispose();
  }, 120_000);

  it('lists the far crowd\'s dots by the frame\'s camera though its compute is submitted before three\'s render and its draw after: the first frame after the camera moves lights what the next does', async () => {
    const { renderer, crowds } = await threeRenderer();
    const fox = await testCharacter('Fox');
    const side = 12;
    const crowd = crowds.createCrowd(fox, { capacity: side * side, shading: 'three' });
    const impostors = new CrowdImpostors(crowd, SMALL_ATLAS);
    const { centre, radius } = boxSphere(impostors.atlas.box);
    // Apart (6 radii), so that no two dots share a pixel.
    for (let i = 0; i < side * side; i++) {
      const id = crowd.add({ clipA: 1, timeA: (i % 5) * 0.1, speedA: 0 });
      crowd.setPlacement(id, ((i % side) - (side - 1) / 2) * 6 * radius, 0, (Math.floor(i / side) - (side - 1) / 2) * 6 * radius, i * 0.7, 1);
    }
    const scene = litScene(crowds, crowd);
    const probe = lookAt([0, 0, 1], [0, 0, 0], { fovY: SWITCH_VIEW.fovY });
    // 37.5 degrees up, far enough that a framing sphere spans `pixels` (under dotPixels, 2: every Fox a dot).
    const view = (pixels: number) => {
      const d = distanceForPixels(2 * radius, pixels, projectionScale(probe.viewProjection), SIZE);
      const camera = new PerspectiveCamera((SWITCH_VIEW.fovY * 180) / Math.PI, 1, d / 4, 4 * d);
      const e = (37.5 * Math.PI) / 180;
      camera.position.set(centre[0], centre[1] + Math.sin(e) * d, centre[2] + Math.cos(e) * d);
      camera.lookAt(centre[0], centre[1], centre[2]);
      return camera;
    };
    const lit = async (camera: PerspectiveCamera) => {
      crowd.update(0);
      return coveredPixels(await renderPicture(crowds, scene, camera), BLACK);
    };
    const far = await lit(view(1.2));
    const near = view(1.7);
    const moved = await lit(near);
    const stats = await crowd.readCullStats();
    const steady = await lit(near);
    console.log(`shading three, ${side * side} dots: ${far} pixels lit from afar, ${moved} the first frame nearer, ${steady} the next`);
    expect(stats.dots, 'every Fox a dot').toBe(side * side);
    expect(moved, 'the nearer camera lights more of the dots (the test would prove nothing)').toBeGreaterThan(1.3 * far);
    // Listed by the last frame's camera, the dots that light a sample only from nearer would be missing.
    expect(moved, 'the dots listed by a stale camera').toBe(steady);
    crowds.dispose();
    renderer.dispose();
  }, 120_000);

  it('refuses a logarithmic depth buffer by name while impostors draw, and draws without them', async () => {
    const { renderer, crowds, crowd, impostors, scene, camera } = await stage({ logarithmicDepthBuffer: true });
    crowd.update(0);
    expect(() => crowds.renderToTarget(scene, camera)).toThrow(/CrowdImpostors.*logarithmicDepthBuffer/);
    impostors.enabled = false;
    crowd.update(0);
    const mesh = await renderPicture(crowds, scene, camera);
    expect(coveredPixels(mesh, BLACK), 'three did not draw the Fox without impostors').toBeGreaterThan(100);
    crowds.dispose();
    renderer.dispose();
  }, 120_000);
});
