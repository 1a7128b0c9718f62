/**
 * One Fox in one three.js scene lit by a DirectionalLight, a HemisphereLight, an AmbientLight and
 * scene.environment (a procedural equirectangular sky, linear floats), on black, no tone mapping,
 * no shadows. Two crowds of the same Fox are made in one ThreeCrowdRenderer: one with shading
 * 'three' (three draws it with a MeshStandardNodeMaterial of the glTF's texture, roughness and
 * metalness), one with shading 'crowd' (our skin pass, lit by the scene's lights through
 * ThreeCrowdRenderer's lights 'scene'). `window.show('three' | 'crowd' | 'own')` draws two frames
 * with only that one in view and resolves; no frame is drawn between two calls. 'own' is the
 * made-up violation: the Fox of a second ThreeCrowdRenderer on the same renderer, made with
 * { lights: 'own' } (the scene's lights ignored). `?lights=own` makes the first renderer so
 * instead. Sets body.dataset.ready (or body.dataset.error).
 */
import * as THREE from 'three/webgpu';
import { loadCharacter } from 'crowd-skin';
import { ThreeCrowdRenderer } from 'crowd-skin/three';

const URL_FOX = '/models/Fox/Fox.glb';
const SCALE = 0.01; // the Fox is ~79 model units tall: 0.79 m
const ENV_WIDTH = 64;
const ENV_HEIGHT = 32;

/**
 * A smooth sky, rows for three's DataTexture (row 0 is v = 0, the bottom: down): a gradient, a
 * darker ground across the horizon and one broad warm blob up and to the camera's side.
 */
function environmentTexture() {
  const data = new Float32Array(ENV_WIDTH * ENV_HEIGHT * 4);
  const blob = [0.45, 0.55, 0.7];
  const blobLength = Math.hypot(...blob);
  for (let y = 0; y < ENV_HEIGHT; y++) {
    for (let x = 0; x < ENV_WIDTH; x++) {
      const elevation = ((y + 0.5) / ENV_HEIGHT - 0.5) * Math.PI; // row 0 at the bottom
      const phi = ((x + 0.5) / ENV_WIDTH - 0.5) * 2 * Math.PI;
      const d = [Math.cos(elevation) * Math.cos(phi), Math.sin(elevation), Math.cos(elevation) * Math.sin(phi)];
      const t = Math.min(Math.max((d[1] + 0.2) / 0.4, 0), 1);
      const sky = [0.5 - 0.3 * d[1], 0.6 - 0.25 * d[1], 0.9];
      const ground = [0.3, 0.25, 0.18];
      const w = 3 * Math.exp(-6 * (1 - (d[0] * blob[0] + d[1] * blob[1] + d[2] * blob[2]) / blobLength));
      const c = [0, 1, 2].map((i) => ground[i] + (sky[i] - ground[i]) * t * t * (3 - 2 * t) + w * [1, 0.7, 0.35][i]);
      data.set([...c, 1], (y * ENV_WIDTH + x) * 4);
    }
  }
  const texture = new THREE.DataTexture(data, ENV_WIDTH, ENV_HEIGHT, THREE.RGBAFormat, THREE.FloatType);
  texture.mapping = THREE.EquirectangularReflectionMapping;
  texture.colorSpace = THREE.LinearSRGBColorSpace;
  texture.magFilter = THREE.LinearFilter;
  texture.minFilter = THREE.LinearFilter;
  texture.needsUpdate = true;
  return texture;
}

async function main() {
  const params = new URLSearchParams(location.search);
  const renderer = new THREE.WebGPURenderer({ antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(innerWidth, innerHeight);
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.setClearColor(0x000000, 1);
  document.body.append(renderer.domElement);
  await renderer.init();
  const crowds = new ThreeCrowdRenderer(renderer, { lights: params.get('lights') === 'own' ? 'own' : 'scene' });

  const scene = new THREE.Scene();
  // A warm sun from the left, a strong blue sky over a red-brown ground (so that sky and ground
  // swapped shows), a dim ambient and the environment.
  const sun = new THREE.DirectionalLight(0xffe0c0, 2);
  sun.position.set(-2, 3, 1.5);
  scene.add(sun, new THREE.HemisphereLight(0x6080ff, 0x803010, 1.6), new THREE.AmbientLight(0xffffff, 0.2));
  scene.environment = environmentTexture();
  scene.environmentIntensity = 0.5;

  const camera = new THREE.PerspectiveCamera(35, innerWidth / innerHeight, 0.1, 20);
  camera.position.set(1.1, 0.75, 1.5);
  camera.lookAt(0, 0.38, 0);

  const fox = await loadCharacter(URL_FOX);
  // The glTF material's roughness and metalness (what GLTFLoader reads) and its texture, for three.
  const image = fox.textures.values().next().value;
  const map = new THREE.Texture(image);
  map.flipY = false;
  map.colorSpace = THREE.SRGBColorSpace;
  map.needsUpdate = true;
  const material = new THREE.MeshStandardNodeMaterial({ metalness: 0, roughness: 0.58, map });
  const byThree = crowds.createCrowd(fox, { capacity: 1, shading: 'three', material, castShadow: false, receiveShadow: false });
  const threeObject = crowds.sceneObject(byThree);
  scene.add(threeObject);
  const byCrowd = crowds.createCrowd(fox, { capacity: 1 });
  const ids = new Map([[byThree, byThree.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 })], [byCrowd, byCrowd.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 })]]);

  /**
   * The made-up violation on this page: a second ThreeCrowdRenderer on the same renderer, made
   * with { lights: 'own' } (the scene's lights ignored), and its crowd of the same Fox; made at
   * the first show('own').
   */
  let own;
  const ownCrowds = () => {
    if (!own) {
      const renderer2 = new ThreeCrowdRenderer(renderer, { lights: 'own' });
      const crowd = renderer2.createCrowd(fox, { capacity: 1 });
      own = { crowds: renderer2, crowd, id: crowd.add({ clipA: 'Walk', timeA: 0.3, speedA: 0 }) };
    }
    return own;
  };

  /** Only `which`'s Fox at the origin ('own': the lights-'own' renderer's crowd); the others far below, out of view (and three's object hidden). */
  function place(which) {
    for (const [crowd, id] of ids) crowd.setPlacement(id, 0, (crowd === byThree) === (which === 'three') && which !== 'own' ? 0 : -100, 0, 0, SCALE);
    threeObject.visible = which === 'three';
    byThree.update(0);
    byCrowd.update(0);
    if (which === 'own') {
      const { crowd, id } = ownCrowds();
      crowd.setPlacement(id, 0, 0, 0, 0, SCALE);
      crowd.update(0);
    }
    drawing = which === 'own' ? own.crowds : crowds;
  }
  let drawing = crowds;

  let frames = 0;
  let waiting;
  // Two frames: the first compiles pipelines; the screenshot is of the second. The loop runs only
  // for them: the canvas keeps showing the second, and the screenshot waits for no further frame
  // (SwiftShader drawing frames nobody looks at took most of a screenshot's time).
  const loop = () => {
    drawing.render(scene, camera);
    frames++;
    if (waiting && frames >= waiting.at) {
      renderer.setAnimationLoop(null);
      waiting.done();
      waiting = undefined;
    }
  };
  window.show = (which) => new Promise((done) => {
    place(which);
    waiting = { at: frames + 2, done };
    renderer.setAnimationLoop(loop);
  });
  document.body.dataset.ready = '1';
}

main().catch((error) => {
  console.error(error);
  document.body.dataset.error = String(error?.message ?? error);
});
