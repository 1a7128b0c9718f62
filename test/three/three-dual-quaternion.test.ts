/**
 * Dual-quaternion skinning under shading 'three' (src/three/three-skinning.ts), in Node on three
 * r187's WebGPURenderer: the twist rig (test/helpers/twist-rig.ts, a cylinder whose upper joint
 * turns 150 degrees about its axis) drawn by three and by the crowd's own shading, both with
 * `skinning: 'dual-quaternion'`, under the same sun and ambient light, compared over the pixels
 * either covers. Then the same comparison must fail for three's crowd switched to linear skinning
 * (the middle of the cylinder collapses: the candy-wrapper that dual quaternions avoid).
 */
import { describe, expect, it } from 'vitest';
import { AmbientLight, Color, DirectionalLight, PerspectiveCamera, Scene } from 'three/webgpu';
import { loadCharacter, type Crowd } from '../../src/index';
import { openTestDevice } from '../helpers/gpu';
import { arrayBufferOf, assetToGlb } from '../helpers/gltf-builder';
import { comparePictures, coveredPixels, renderPicture, savePicture, threeCrowds, type PictureDifference } from '../helpers/three-scene';
import { twistRigModel } from '../helpers/twist-rig';

const device = await openTestDevice();
const WIDTH = 64;
const HEIGHT = 96;
const BLACK = [0, 0, 0];
/** Tolerance of the two shadings under the same light: the materials comparison's (test/e2e/materials.test.ts). */
const MEAN_TOLERANCE = 6;
const PIXEL_THRESHOLD = 32;
const SHARE_TOLERANCE = 0.08;

const show = (d: PictureDifference) => `mean ${d.mean.toFixed(2)}, ${(d.share * 100).toFixed(1)}% over ${PIXEL_THRESHOLD} (${d.covered} px)`;
const within = (d: PictureDifference) => d.mean <= MEAN_TOLERANCE && d.share <= SHARE_TOLERANCE;

/** The twist rig in a dielectric orange (glTF's default material is a rough metal, lit alike whatever the normal). */
function paintedTwistRig() {
  const model = twistRigModel();
  model.json.materials = [{ pbrMetallicRoughness: { baseColorFactor: [0.9, 0.5, 0.2, 1], metallicFactor: 0, roughnessFactor: 0.6 } }];
  model.json.meshes![0].primitives[0].material = 0;
  return model.builder.build();
}

/**
 * The twist rig fully twisted (clip 'twist' at 1 s, held), standing at the origin. Mesh LOD off:
 * levels are judged on the rest pose, where the straight cylinder loses its middle rings, and
 * twisted without them it pinches under either skinning (ThreeCrowdRenderer hands the crowd its camera).
 */
function twisted(crowd: Crowd): void {
  crowd.lod = false;
  crowd.add({ clipA: 'twist', timeA: 1, speedA: 0 });
  crowd.update(0);
}

describe.skipIf(!device)("dual-quaternion skinning under shading 'three'", () => {
  it("twists the rig as shading 'crowd' does under the same light, and not as linear skinning does", async () => {
    const crowds = await threeCrowds(device!, WIDTH, HEIGHT);
    const rig = await loadCharacter(arrayBufferOf(assetToGlb(paintedTwistRig())));
    const scene = new Scene();
    scene.background = new Color(0x000000);
    const sun = new DirectionalLight(0xffffff, 2);
    sun.position.set(2, 1, 3);
    scene.add(sun, new AmbientLight(0xffffff, 0.5));
    const lights = { sun: { direction: [-2, -1, -3] as [number, number, number], intensity: 2 }, ambient: { intensity: 0.5 } };
    // The middle of the cylinder (y 0.5 to 1.5), where the twist is shared by the two joints.
    const camera = new PerspectiveCamera(20, WIDTH / HEIGHT, 0.1, 20);
    camera.position.set(0, 1, 3);
    camera.lookAt(0, 1, 0);

    const ours = crowds.createCrowd(rig, { capacity: 1, skinning: 'dual-quaternion', lights });
    twisted(ours);
    const reference = await renderPicture(crowds, scene, camera);
    crowds.removeCrowd(ours);

    const shaded = crowds.createCrowd(rig, { capacity: 1, skinning: 'dual-quaternion', shading: 'three' });
    scene.add(crowds.sceneObject(shaded));
    twisted(shaded);
    const drawn = await renderPicture(crowds, scene, camera);
    const same = comparePictures(reference, drawn, BLACK, PIXEL_THRESHOLD);

    // Made-up violation: the same crowd skinned linearly (Crowd.skinning, taken up by the bridge).
    shaded.skinning = 'linear';
    shaded.update(0);
    const linear = await renderPicture(crowds, scene, camera);
    const collapsed = comparePictures(reference, linear, BLACK, PIXEL_THRESHOLD);
    savePicture(reference, 'dual-quaternion-crowd');
    savePicture(drawn, 'dual-quaternion-three');
    savePicture(linear, 'dual-quaternion-three-linear');
    console.log(`dual quaternion, three vs crowd: ${show(same)}; three linear vs crowd: ${show(collapsed)}; ` +
      `covered px crowd ${coveredPixels(reference, BLACK)}, three ${coveredPixels(drawn, BLACK)}, three linear ${coveredPixels(linear, BLACK)}`);
    expect(coveredPixels(reference, BLACK), 'shading crowd drew no cylinder').toBeGreaterThan(0.3 * WIDTH * HEIGHT);
    expect(within(same), `three vs crowd: ${show(same)}`).toBe(true);
    expect(within(collapsed), 'linear skinning passed the comparison').toBe(false);
    crowds.dispose();
    crowds.renderer.dispose();
  }, 120_000);
});
