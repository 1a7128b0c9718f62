/**
 * Morph targets under shading 'three' (src/three/three-morph.ts), in Node on three r187's
 * WebGPURenderer: RobotExpressive's face (three Head primitives with the targets Angry, Surprised
 * and Sad) drawn by three and by the crowd's own shading, each with a CrowdMorph, and by three's
 * own SkinnedMesh (GLTFLoader, AnimationMixer, morphTargetInfluences), under the same sun and
 * ambient light. Compared over the pixels the expression moves (where the reference face with
 * and without it differ), then the same comparisons must fail for three's crowd without it.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { AmbientLight, AnimationMixer, Color, DirectionalLight, PerspectiveCamera, Scene, type Mesh } from 'three/webgpu';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { CrowdMorph, type Crowd } from '../../src/index';
import { testCharacter } from '../helpers/character';
import { openTestDevice } from '../helpers/gpu';
import { modelPath } from '../helpers/models';
import { renderPicture, savePicture, threeCrowds, type Picture } from '../helpers/three-scene';

const device = await openTestDevice();
const SIZE = 96;
/** Over the pixels the expression moves: the mean absolute channel difference (0-255) and the share off by more than PIXEL_THRESHOLD. */
const MEAN_TOLERANCE = 6;
const PIXEL_THRESHOLD = 32;
const SHARE_TOLERANCE = 0.08;
const EXPRESSION = { Angry: 1, Surprised: 0.6 };

interface Difference { mean: number; share: number; pixels: number }

/** `a` against `b` over the pixels where `with` and `without` differ by more than 8 in a channel. */
function compareWhereMoved(a: Picture, b: Picture, withIt: Picture, without: Picture): Difference {
  let sum = 0, over = 0, pixels = 0;
  for (let o = 0; o < a.data.length; o += 4) {
    let moved = false;
    for (let c = 0; c < 3; c++) moved ||= Math.abs(withIt.data[o + c] - without.data[o + c]) > 8;
    if (!moved) continue;
    pixels++;
    let worst = 0;
    for (let c = 0; c < 3; c++) {
      const d = Math.abs(a.data[o + c] - b.data[o + c]);
      sum += d;
      worst = Math.max(worst, d);
    }
    if (worst > PIXEL_THRESHOLD) over++;
  }
  return { mean: sum / Math.max(1, pixels), share: over / Math.max(1, pixels), pixels };
}

const show = (d: Difference) => `mean ${d.mean.toFixed(2)}, ${(d.share * 100).toFixed(1)}% over ${PIXEL_THRESHOLD} (${d.pixels} px)`;
const within = (d: Difference) => d.mean <= MEAN_TOLERANCE && d.share <= SHARE_TOLERANCE;

/** One robot at the origin, Idle at 0 s, with a CrowdMorph; returns a function setting its expression (null: none). */
function robot(crowd: Crowd): (expression: typeof EXPRESSION | null) => void {
  const morph = new CrowdMorph(crowd);
  const id = crowd.add({ clipA: 'Idle', timeA: 0, speedA: 0 });
  return (expression) => {
    morph.set(id, expression ? EXPRESSION : [0, 0, 0]);
    crowd.update(0);
  };
}

describe.skipIf(!device)("morph targets under shading 'three'", () => {
  it("move the face as shading 'crowd' does under the same light, and the face without them does not pass", async () => {
    const crowds = await threeCrowds(device!, SIZE, SIZE);
    const character = await testCharacter('RobotExpressive');
    const scene = new Scene();
    scene.background = new Color(0x000000);
    const sun = new DirectionalLight(0xffffff, 2);
    sun.position.set(1, 2, 3);
    scene.add(sun, new AmbientLight(0xffffff, 1));
    const lights = { sun: { direction: [-1, -2, -3] as [number, number, number], intensity: 2 }, ambient: { intensity: 1 } };
    const camera = new PerspectiveCamera(30, 1, 0.1, 50);
    camera.position.set(0, 3.7, 4);
    camera.lookAt(0, 3.7, 0);

    const ours = crowds.createCrowd(character, { capacity: 1, lights });
    const express = robot(ours);
    express(EXPRESSION);
    const reference = await renderPicture(crowds, scene, camera);
    express(null);
    const blank = await renderPicture(crowds, scene, camera);
    crowds.removeCrowd(ours);

    // three's own SkinnedMesh (GLTFLoader, AnimationMixer at Idle 0 s) with the same morph target influences.
    const gltf = await new GLTFLoader().parseAsync(readFileSync(modelPath('RobotExpressive')).buffer as ArrayBuffer, '');
    const mixer = new AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations.find((clip) => clip.name === 'Idle')!).play();
    mixer.update(0);
    const faces: Mesh[] = [];
    gltf.scene.traverse((o) => { if ((o as Mesh).morphTargetInfluences) faces.push(o as Mesh); });
    const influence = (expression: typeof EXPRESSION | null) => {
      for (const face of faces) {
        for (const [name, index] of Object.entries(face.morphTargetDictionary!)) face.morphTargetInfluences![index] = expression?.[name as keyof typeof EXPRESSION] ?? 0;
      }
    };
    scene.add(gltf.scene);
    influence(EXPRESSION);
    const threeOwn = await renderPicture(crowds, scene, camera);
    influence(null);
    const threeOwnBlank = await renderPicture(crowds, scene, camera);
    scene.remove(gltf.scene);

    const shaded = crowds.createCrowd(character, { capacity: 1, shading: 'three' });
    scene.add(crowds.sceneObject(shaded));
    const expressThree = robot(shaded);
    expressThree(EXPRESSION);
    const drawn = await renderPicture(crowds, scene, camera);
    // Made-up violation: three's face without the expression.
    expressThree(null);
    const blankThree = await renderPicture(crowds, scene, camera);
    savePicture(reference, 'morph-crowd');
    savePicture(drawn, 'morph-three');
    savePicture(blankThree, 'morph-three-blank');
    savePicture(threeOwn, 'morph-three-skinned-mesh');

    const same = compareWhereMoved(reference, drawn, reference, blank);
    const ignored = compareWhereMoved(reference, blankThree, reference, blank);
    const unmoved = compareWhereMoved(blank, blankThree, blank, blank); // nowhere: 0 pixels
    const wholeFace = compareWhereMoved(reference, drawn, reference, { ...reference, data: new Uint8Array(reference.data.length) });
    const own = compareWhereMoved(threeOwn, drawn, threeOwn, threeOwnBlank);
    const ownIgnored = compareWhereMoved(threeOwn, blankThree, threeOwn, threeOwnBlank);
    console.log(`morph, three vs three's own SkinnedMesh where its expression moves: ${show(own)}; without the expression: ${show(ownIgnored)}`);
    expect(own.pixels, 'the expression moved nothing on three\'s SkinnedMesh').toBeGreaterThan(0.02 * SIZE * SIZE);
    expect(within(own), `three vs three's SkinnedMesh: ${show(own)}`).toBe(true);
    expect(within(ownIgnored), 'three\'s face without the expression passed the comparison with three\'s SkinnedMesh').toBe(false);
    console.log(`morph, three vs crowd where the expression moves: ${show(same)}; over every covered pixel: ${show(wholeFace)}; ` +
      `three without the expression: ${show(ignored)}`);
    expect(unmoved.pixels).toBe(0);
    expect(same.pixels, 'the expression moved nothing in shading crowd').toBeGreaterThan(0.02 * SIZE * SIZE);
    expect(within(same), `three vs crowd: ${show(same)}`).toBe(true);
    expect(within(wholeFace), `three vs crowd, the whole picture: ${show(wholeFace)}`).toBe(true);
    expect(within(ignored), 'three\'s face without the expression passed the comparison').toBe(false);
    crowds.dispose();
    crowds.renderer.dispose();
  }, 120_000);
});
