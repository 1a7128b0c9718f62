/**
 * Per-instance appearance under shading 'three' (src/three/three-appearance.ts), in Node on three
 * r187's WebGPURenderer: three Foxes (a tint, a base-colour variant, a part hidden) drawn by three
 * and by the crowd's own shading under the same sun and ambient light, compared Fox by Fox over
 * the pixels either covers. Then the comparison must fail where three's picture is made wrong on
 * purpose: the tint or the variant taken away. And the parts of RobotExpressive (19 primitives)
 * drawn by one material of the user: the primitive is found per mesh, not per material.
 */
import { describe, expect, it } from 'vitest';
import { AmbientLight, Color, DirectionalLight, MeshBasicNodeMaterial, PerspectiveCamera, Scene, type Mesh, type NodeMaterial } from 'three/webgpu';
import { color } from 'three/tsl';
import { CrowdAppearance, type Character, type Crowd } from '../../src/index';
import type { ThreeCrowdRenderer } from '../../src/three/index';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { comparePictures, coveredPixels, meanColor, renderPicture, savePicture, threeCrowds, type Picture, type PictureDifference } from '../helpers/three-scene';

const device = await openTestDevice();
const WIDTH = 240;
const HEIGHT = 80;
const BLACK = [0, 0, 0];
/** Tolerance of the two shadings under the same light: the materials comparison's (test/e2e/materials.test.ts). */
const MEAN_TOLERANCE = 6;
const PIXEL_THRESHOLD = 32;
const SHARE_TOLERANCE = 0.08;
/** Where each Fox stands (x, metres) and the image columns it covers. */
const SPOTS = [-2.5, 0, 2.5];
const TINT = [1, 0.25, 0.1] as const;
/** The variant image: one solid colour (sRGB bytes). */
const VARIANT_RGB = [40, 110, 230];

function within(d: PictureDifference): boolean {
  return d.mean <= MEAN_TOLERANCE && d.share <= SHARE_TOLERANCE;
}

const show = (d: PictureDifference) => `mean ${d.mean.toFixed(2)}, ${(d.share * 100).toFixed(1)}% over ${PIXEL_THRESHOLD} (${d.covered} px)`;

/** Columns of Fox `i`. */
const columns = (i: number): [number, number] => [Math.round((i * WIDTH) / 3), Math.round(((i + 1) * WIDTH) / 3)];

/**
 * Three Foxes of `crowd`, side-on: 0 tinted, 1 in the variant, 2 with its only part hidden; and
 * first, in slot 0, a plain Fox far outside the view: culled (three's camera is the crowd's), so
 * under shading 'three' the drawn instance i is slot i + 1, and what each Fox reads must follow
 * the slot the cull pass listed, not three's instanceIndex.
 */
function placeFoxes(crowd: Crowd, fox: Character): { looks: CrowdAppearance; ids: number[] } {
  const variant = { width: 4, height: 4, data: new Uint8Array(64).map((_, i) => (i % 4 === 3 ? 255 : VARIANT_RGB[i % 4])) };
  const looks = new CrowdAppearance(crowd, { variants: [variant] });
  const scale = 0.8 / (fox.bounds.max[1] - fox.bounds.min[1]);
  crowd.setPlacement(crowd.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 }), -40, 0, 0, 0, scale);
  const ids = SPOTS.map((x) => {
    const id = crowd.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 });
    crowd.setPlacement(id, x, -fox.bounds.min[1] * scale, 0, Math.PI / 2, scale);
    return id;
  });
  looks.setTint(ids[0], ...TINT);
  looks.setVariant(ids[1], 1);
  looks.setParts(ids[2], 0);
  crowd.update(0);
  return { looks, ids };
}

describe.skipIf(!device)("per-instance appearance under shading 'three'", () => {
  it("tints, varies and hides as shading 'crowd' does under the same light, and not with the tint or variant left out", async () => {
    const crowds: ThreeCrowdRenderer<'webgpu'> = await threeCrowds(device!, WIDTH, HEIGHT);
    const fox = await testCharacter('Fox');
    const scene = new Scene();
    scene.background = new Color(0x000000);
    const sun = new DirectionalLight(0xffffff, 2);
    sun.position.set(1, 2, 3);
    scene.add(sun, new AmbientLight(0xffffff, 1));
    const camera = new PerspectiveCamera(30, WIDTH / HEIGHT, 0.1, 50);
    camera.position.set(0, 0.4, 5.5);
    camera.lookAt(0, 0.4, 0);
    const lights = { sun: { direction: [-1, -2, -3] as [number, number, number], intensity: 2 }, ambient: { intensity: 1 } };

    const ours = crowds.createCrowd(fox, { capacity: 4, lights });
    placeFoxes(ours, fox);
    const reference = await renderPicture(crowds, scene, camera);
    crowds.removeCrowd(ours);

    const shaded = crowds.createCrowd(fox, { capacity: 1, shading: 'three' }); // grows to 3 with the appearance records
    scene.add(crowds.sceneObject(shaded));
    const { looks, ids } = placeFoxes(shaded, fox);
    const drawn = await renderPicture(crowds, scene, camera);
    savePicture(reference, 'appearance-crowd');
    savePicture(drawn, 'appearance-three');
    const differences = [0, 1, 2].map((i) => comparePictures(reference, drawn, BLACK, PIXEL_THRESHOLD, ...columns(i)));
    const colours = (p: Picture) => [0, 1].map((i) => meanColor(p, BLACK, ...columns(i)).map((c) => c.toFixed(0)).join(', '));
    console.log(`appearance, three vs crowd: tinted ${show(differences[0])}; variant ${show(differences[1])}; ` +
      `mean colours crowd [${colours(reference).join('] [')}], three [${colours(drawn).join('] [')}]`);
    expect(coveredPixels(reference, BLACK, ...columns(0)), 'shading crowd drew no Fox').toBeGreaterThan(100);
    expect(within(differences[0]), `the tinted Fox: ${show(differences[0])}`).toBe(true);
    expect(within(differences[1]), `the Fox in the variant: ${show(differences[1])}`).toBe(true);
    expect(coveredPixels(reference, BLACK, ...columns(2)), 'shading crowd drew the hidden part').toBe(0);
    expect(coveredPixels(drawn, BLACK, ...columns(2)), 'shading three drew the hidden part').toBe(0);

    // With culling on (as above) the Fox outside the view is not drawn, and the picture is the one culling off draws.
    const { visible } = await shaded.readCullStats();
    shaded.culling = false;
    const unculled = await renderPicture(crowds, scene, camera);
    shaded.culling = true;
    const culledVsNot = comparePictures(drawn, unculled, BLACK, 0);
    console.log(`appearance with culling: ${visible} of 4 visible; culling on vs off: mean ${culledVsNot.mean.toFixed(3)}, ${(culledVsNot.share * 100).toFixed(1)}% differ`);
    expect(visible, 'the Fox meant to stand outside the view is in it').toBe(3);
    expect(culledVsNot.mean, 'culling changed the appearance picture').toBe(0);

    // Made-up violations: three's Foxes without the tint, without the variant, with the part shown.
    looks.setTint(ids[0], 1, 1, 1);
    looks.setVariant(ids[1], 0);
    looks.setParts(ids[2], looks.allParts);
    shaded.update(0);
    const plain = await renderPicture(crowds, scene, camera);
    savePicture(plain, 'appearance-three-plain');
    const untinted = comparePictures(reference, plain, BLACK, PIXEL_THRESHOLD, ...columns(0));
    const unvaried = comparePictures(reference, plain, BLACK, PIXEL_THRESHOLD, ...columns(1));
    console.log(`appearance violations: tint left out ${show(untinted)}; variant left out ${show(unvaried)}`);
    expect(within(untinted), 'a Fox without its tint passed the comparison').toBe(false);
    expect(within(unvaried), 'a Fox without its variant passed the comparison').toBe(false);
    expect(coveredPixels(plain, BLACK, ...columns(2)), 'the part shown again is not drawn').toBeGreaterThan(100);

    // A colorNode set on the material later is wrapped again: pure green under the tint (1, 0.25, 0.1) is a dark green.
    looks.setTint(ids[0], ...TINT);
    shaded.update(0);
    const mesh = crowds.sceneObject(shaded).children[0] as Mesh;
    (mesh.material as NodeMaterial).colorNode = color(0x00ff00);
    const green = meanColor(await renderPicture(crowds, scene, camera), BLACK, ...columns(0));
    console.log(`appearance: a green colorNode set later, under the tint: mean colour ${green.map((c) => c.toFixed(0)).join(', ')}`);
    expect(green[1], 'the colorNode set later is not drawn').toBeGreaterThan(3 * Math.max(green[0], green[2]) + 10);
    expect(green[1], 'the colorNode set later is not tinted').toBeLessThan(0.75 * 255);
    crowds.dispose();
    crowds.renderer.dispose();
  }, 120_000);

  it('hides the right parts when one material of yours draws every primitive (RobotExpressive without its head)', async () => {
    const crowds = await threeCrowds(device!, 64, 64);
    const robot = await testCharacter('RobotExpressive');
    const scene = new Scene();
    scene.background = new Color(0x000000);
    const camera = new PerspectiveCamera(40, 1, 0.1, 50);
    camera.position.set(0, 2.2, 8);
    camera.lookAt(0, 2.2, 0);
    const headless = (crowd: Crowd) => {
      const looks = new CrowdAppearance(crowd);
      const id = crowd.add({ clipA: 'Idle', timeA: 0, speedA: 0 });
      looks.setParts(id, looks.partMask(looks.parts.filter((part) => !part.startsWith('Head'))));
      crowd.update(0);
      return { looks, id };
    };
    const ours = crowds.createCrowd(robot, { capacity: 1 });
    headless(ours);
    const reference = await renderPicture(crowds, scene, camera);
    crowds.removeCrowd(ours);
    const shaded = crowds.createCrowd(robot, { capacity: 1, shading: 'three', material: new MeshBasicNodeMaterial({ color: 0x00ff00 }) });
    scene.add(crowds.sceneObject(shaded));
    const { looks, id } = headless(shaded);
    const drawn = await renderPicture(crowds, scene, camera);
    looks.setParts(id, looks.allParts);
    shaded.update(0);
    const whole = await renderPicture(crowds, scene, camera);
    savePicture(drawn, 'appearance-parts-three');
    /** Pixels covered in exactly one of `a`, `b`. */
    const xor = (a: Picture, b: Picture) => {
      let n = 0;
      for (let o = 0; o < a.data.length; o += 4) n += Number((a.data[o] + a.data[o + 1] + a.data[o + 2] > 0) !== (b.data[o] + b.data[o + 1] + b.data[o + 2] > 0));
      return n;
    };
    const body = coveredPixels(reference, BLACK);
    console.log(`appearance parts, one material: body ${body} px; three differs from crowd on ${xor(reference, drawn)} px, with the head on ${xor(reference, whole)} px`);
    expect(body, 'shading crowd drew no body').toBeGreaterThan(200);
    expect(xor(reference, drawn), 'three hides other parts than shading crowd').toBeLessThan(0.03 * body);
    expect(xor(reference, whole), 'the head is too small to tell').toBeGreaterThan(0.2 * body);
    crowds.dispose();
    crowds.renderer.dispose();
  }, 120_000);
});
