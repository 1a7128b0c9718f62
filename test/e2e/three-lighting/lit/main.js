/**
 * One Fox in one three.js scene (a ground, a directional light casting shadows, a hemisphere
 * light), drawn either by three itself (GLTFLoader + SkinnedMesh + AnimationMixer, ?mode=three)
 * or by crowd-skin with shading 'three' (?mode=crowd), at clip `?clip=` time `?t=` seconds.
 * `?mode=empty` draws the scene without a Fox. `?sun=off` turns the directional light off (a made-up violation for the test). Both modes
 * output through ThreeCrowdRenderer.render, so the only difference is who poses and draws the Fox.
 * Sets body.dataset.done when the URL's case is on the canvas (or body.dataset.error). The test
 * draws its cases one after another on one page (renderer, device and Fox kept): `await
 * window.draw('mode=crowd&t=0.55')` draws another.
 */
import * as THREE from 'three/webgpu';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { loadCharacter } from 'crowd-skin';
import { ThreeCrowdRenderer } from 'crowd-skin/three';

const URL_FOX = '/models/Fox/Fox.glb';
const SCALE = 0.01; // the Fox is ~79 model units tall: 0.79 m

/**
 * Draws the case `query` (mode, clip, t, sun, material as above) on `renderer`: a new scene, and
 * for mode 'crowd' a new crowd of `crowds`, removed when the next case is drawn. Two frames: the
 * first compiles pipelines; the screenshot is of the second, and no frame is drawn after it (the
 * canvas keeps showing it; SwiftShader drawing frames nobody looks at took most of a screenshot's time).
 */
async function drawCase(renderer, crowds, query) {
  const params = new URLSearchParams(query);
  const mode = params.get('mode') ?? 'crowd';
  const clip = params.get('clip') ?? 'Walk';
  const time = Number(params.get('t') ?? '0.3');
  if (current) crowds.removeCrowd(current);
  current = undefined;

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xb3c4d6);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667755, 1.0));
  const sun = new THREE.DirectionalLight(0xffffff, 2.5);
  sun.position.set(1.5, 3, 1);
  sun.castShadow = true;
  sun.shadow.mapSize.set(1024, 1024);
  Object.assign(sun.shadow.camera, { left: -1.5, right: 1.5, top: 1.5, bottom: -1.5, near: 0.5, far: 8 });
  sun.visible = params.get('sun') !== 'off';
  scene.add(sun);
  const ground = new THREE.Mesh(new THREE.PlaneGeometry(10, 10), new THREE.MeshStandardMaterial({ color: 0x8f9a94 }));
  ground.rotation.x = -Math.PI / 2;
  ground.receiveShadow = true;
  scene.add(ground);

  const camera = new THREE.PerspectiveCamera(40, innerWidth / innerHeight, 0.1, 50);
  camera.position.set(1.9, 1.1, 1.6);
  camera.lookAt(0, 0.3, 0);

  if (mode === 'three') {
    const gltf = await new GLTFLoader().loadAsync(URL_FOX);
    gltf.scene.scale.setScalar(SCALE);
    gltf.scene.traverse((object) => { if (object.isMesh) { object.castShadow = true; object.receiveShadow = true; } });
    scene.add(gltf.scene);
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(THREE.AnimationClip.findByName(gltf.animations, clip));
    action.play();
    mixer.setTime(time);
  } else if (mode === 'crowd') {
    fox ??= loadCharacter(URL_FOX);
    const character = await fox;
    // The glTF material's roughness and metalness (what GLTFLoader reads), on a node material of ours.
    const gltfMaterial = new THREE.MeshStandardNodeMaterial({ metalness: 0, roughness: 0.58 });
    const crowd = (current = crowds.createCrowd(character, { capacity: 4, shading: 'three', material: params.get('material') === 'default' ? undefined : gltfMaterial }));
    if (gltfMaterial.map === null && params.get('material') !== 'default') {
      const image = character.textures.values().next().value;
      const map = new THREE.Texture(image);
      map.flipY = false;
      map.colorSpace = THREE.SRGBColorSpace;
      map.needsUpdate = true;
      gltfMaterial.map = map;
    }
    scene.add(crowds.sceneObject(crowd));
    const id = crowd.add({ clipA: clip, timeA: time });
    crowd.setPlacement(id, 0, 0, 0, 0, SCALE);
    crowd.update(0);
    Object.assign(window, { crowd });
  }

  await new Promise((done) => {
    let frames = 0;
    renderer.setAnimationLoop(() => {
      crowds.render(scene, camera);
      if (++frames < 2) return;
      renderer.setAnimationLoop(null);
      done();
    });
  });
}

/** The Fox, loaded once for the page's crowd cases, and the crowd of the case on the canvas. */
let fox, current;

async function main() {
  const renderer = new THREE.WebGPURenderer({ antialias: true });
  renderer.setPixelRatio(1);
  renderer.setSize(innerWidth, innerHeight);
  renderer.shadowMap.enabled = true;
  renderer.toneMapping = THREE.ACESFilmicToneMapping;
  document.body.append(renderer.domElement);
  await renderer.init();
  const crowds = new ThreeCrowdRenderer(renderer);
  // One case at a time; body.dataset.error says why one failed.
  let last = Promise.resolve();
  window.draw = (query) => (last = last.then(() => drawCase(renderer, crowds, query)).catch((error) => {
    console.error(error);
    document.body.dataset.error = String(error?.message ?? error);
  }));
  if (location.search) await window.draw(location.search);
  document.body.dataset.done = '1';
}

main().catch((error) => {
  console.error(error);
  document.body.dataset.error = String(error?.message ?? error);
});
