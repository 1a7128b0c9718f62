/**
 * CrowdProps on a crowd three draws (shading 'three', src/three/index.ts, crowd-pass.ts) in Node:
 * three's WebGPURenderer on the test device (Dawn on SwiftShader). three draws the Walker from the
 * cull pass's level lists; our pass, after three's and in its depth buffer, draws its sword
 * (Crowd.drawFeatures), lit by the scene's lights. Before, such a crowd refused CrowdProps at its
 * first render.
 * Checked: the sword's pixels (where the picture with it differs from the one without) against the
 * same crowd under shading 'crowd' (our pass draws the sword there too, over our own Walker); the
 * scene's lights reach the sword (with the renderer's lights 'own' its pixels differ); three still
 * draws the Walker's other pixels as without the sword.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AmbientLight, Color, DirectionalLight, PerspectiveCamera, Scene, WebGPURenderer } from 'three/webgpu';
import { mat4 } from 'wgpu-matrix';
import { ThreeCrowdRenderer, type ThreeCrowdLights } from '../../src/three/index';
import { CrowdProps, loadCharacter } from '../../src/index';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { BUNDLED_MODELS } from '../helpers/models';
import { renderPicture, savePicture, type Picture } from '../helpers/three-scene';

Object.assign(globalThis, { self: globalThis, requestAnimationFrame: () => 1, cancelAnimationFrame: () => {} });

const device = await openTestDevice();
const SIZE = 128;

/** The Walker at the origin facing the camera, in Idle, with (`armed`) the bundled Sword in its right hand, under a warm sun and a cool ambient light. */
async function picture(shading: 'three' | 'crowd', armed: boolean, lights: ThreeCrowdLights = 'scene'): Promise<Picture> {
  const canvas = { width: SIZE, height: SIZE, style: {}, addEventListener() {}, removeEventListener() {}, setAttribute() {} } as unknown as HTMLCanvasElement;
  const renderer = new WebGPURenderer({ device: device as never, canvas });
  await renderer.init();
  renderer.setSize(SIZE, SIZE, false);
  const crowds = new ThreeCrowdRenderer(renderer, { backend: 'webgpu', lights });
  const crowd = crowds.createCrowd(await testCharacter('Walker'), { capacity: 1, shading });
  crowd.add({ clipA: 'Idle', speedA: 0 });
  if (armed) {
    const bytes = readFileSync(join(BUNDLED_MODELS, 'Props/Sword.glb'));
    const sword = await loadCharacter(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { lod: false });
    // A big sword held up and out (as test/features/props/crowd-props.test.ts holds it).
    const offset = mat4.multiply(mat4.translation([0, -0.08, 0]), mat4.multiply(mat4.rotationZ(0.5), mat4.uniformScaling(1.2)));
    new CrowdProps(crowd).attach(sword, { joint: 'Hand.R', offset: Array.from(offset) });
  }
  const scene = new Scene();
  scene.background = new Color(0x000000);
  if (shading === 'three') scene.add(crowds.sceneObject(crowd));
  const sun = new DirectionalLight(0xffc080, 2.5);
  sun.position.set(-1, 1.5, 1);
  scene.add(sun, sun.target, new AmbientLight(0x6080ff, 0.8));
  const camera = new PerspectiveCamera(40, 1, 0.1, 100);
  camera.position.set(0, 1, 4);
  camera.lookAt(0, 1, 0);
  crowd.update(0);
  const made = await renderPicture(crowds, scene, camera);
  crowds.dispose();
  renderer.dispose();
  return made;
}

/** Pixels where `a` and `b` differ. */
function differing(a: Picture, b: Picture): number[] {
  const out: number[] = [];
  for (let o = 0; o < a.data.length; o += 4) if (a.data[o] !== b.data[o] || a.data[o + 1] !== b.data[o + 1] || a.data[o + 2] !== b.data[o + 2]) out.push(o);
  return out;
}

/** Mean absolute channel difference (/255) of `a` and `b` over `pixels` (byte offsets). */
function meanOver(a: Picture, b: Picture, pixels: readonly number[]): number {
  let sum = 0;
  for (const o of pixels) for (let c = 0; c < 3; c++) sum += Math.abs(a.data[o + c] - b.data[o + c]);
  return sum / (3 * Math.max(1, pixels.length));
}

describe.skipIf(!device)("CrowdProps under shading 'three' (WebGPU in Node)", () => {
  it("draws the props of a crowd three draws with our pass after three's, lit by the scene's lights as under shading 'crowd'", async () => {
    const bare = await picture('three', false);
    const armed = await picture('three', true);
    const sword = differing(armed, bare);
    const ours = await picture('crowd', true);
    const own = await picture('three', true, 'own');
    savePicture(armed, 'three-props-sword');
    const againstCrowd = meanOver(armed, ours, sword);
    const againstOwn = meanOver(armed, own, sword);
    console.log(`shading three with a sword: ${sword.length} sword pixels; against shading 'crowd' ${againstCrowd.toFixed(2)}/255 over them, ` +
      `against the crowd's own lights ${againstOwn.toFixed(2)}/255`);
    expect(sword.length, 'no sword drawn (nothing draws the props of a crowd three draws)').toBeGreaterThan(100);
    // Our pass draws the sword under both shadings, in the same lights: only the depth it is tested against (three's Walker, or ours) differs.
    expect(againstCrowd, "the sword differs from shading 'crowd''s").toBeLessThanOrEqual(2);
    // The scene's lights reach it: lit by the crowd's own (default) lights it is another colour.
    expect(againstOwn, "the sword is not lit by the scene's lights").toBeGreaterThan(10);
  }, 120_000);
});
