/**
 * A three.js scene (WebGPURenderer, on WebGPU or its WebGL 2 fallback; a camera, lights, a ground and a box) with a crowd of 100
 * Foxes from crowd-skin walking in rings around the box. The crowd shares three's GPUDevice,
 * camera and depth buffer, so foxes pass behind and in front of the box. three draws the Foxes
 * (shading 'three'): the scene's sun and sky light them, they cast shadows on the ground and the
 * box's shadow falls on them. `?shading=crowd` draws them with crowd-skin's own skin pass instead
 * (one fixed light, no shadows from three; WebGPU only); `?foxes=10000` is the large preset. Either way the
 * crowd is culled and picks mesh and animation LOD with three's camera (ThreeCrowdRenderer.render
 * hands it over); the overlay shows the cull counts. Units: metres, seconds.
 * Plain JavaScript, as an app that installed crowd-skin and three would have it (the install
 * tests build it with Vite, esbuild and webpack).
 */
import * as THREE from 'three/webgpu';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { loadCharacter, MeshoptSimplifier } from 'crowd-skin';
import { ThreeCrowdRenderer } from 'crowd-skin/three';

const params = new URLSearchParams(location.search);
/** Foxes: 100, or the preset `?foxes=10000` (any count from 1 to 10,000). */
const COUNT = Math.min(10_000, Math.max(1, Math.floor(Number(params.get('foxes')) || 100)));
const FOX_HEIGHT = 0.8; // metres, rest pose
const FIRST_RING = 3; // metres from the box
const RING_STEP = 1.4;
const GAP = 1.9; // metres of ring per fox (a Fox is ~1.6 m long at this height)

async function main() {
  const shading = params.get('shading') === 'crowd' ? 'crowd' : 'three';
  showControls(shading);
  const renderer = await makeRenderer({});
  document.body.append(renderer.domElement);
  // On WebGPU, or on three's WebGL 2 fallback (no WebGPU here): there the crowd is posed by crowd-skin's GL pose pass and drawn by three.
  const crowds = new ThreeCrowdRenderer(renderer);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xb3c4d6);
  const sky = new THREE.HemisphereLight(0xffffff, 0x667755, 1.2);
  sky.name = 'sky';
  scene.add(sky);
  const sun = new THREE.DirectionalLight(0xffffff, 2);
  sun.name = 'sun';
  sun.position.set(-4, 10, 6);
  sun.castShadow = true;
  sun.shadow.mapSize.set(2048, 2048);
  sun.shadow.normalBias = 0.03; // metres: no acne on the 200 m ground
  Object.assign(sun.shadow.camera, { left: -16, right: 16, top: 16, bottom: -16, near: 1, far: 40 });
  scene.add(sun);
  const ground = new THREE.Mesh(new THREE.PlaneGeometry(400, 400), new THREE.MeshStandardMaterial({ color: 0x8f9a94 }));
  ground.rotation.x = -Math.PI / 2;
  ground.receiveShadow = true;
  scene.add(ground);
  const box = new THREE.Mesh(new THREE.BoxGeometry(2, 2, 2), new THREE.MeshStandardMaterial({ color: 0x3366cc }));
  box.position.y = 1;
  box.castShadow = box.receiveShadow = true;
  scene.add(box);

  const camera = new THREE.PerspectiveCamera(45, innerWidth / innerHeight, 0.1, 400);
  camera.position.set(0, 7, 17);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(0, 0.6, 0);
  controls.update();

  // Mesh LOD levels (meshoptimizer's simplifier, opt-in): far Foxes of the 10,000 draw coarser meshes.
  const fox = await loadCharacter('/models/Fox/Fox.glb', { lod: { simplifier: MeshoptSimplifier } });
  // shading 'three': three draws the crowd with a MeshStandardNodeMaterial, in its lights and shadows.
  const crowd = crowds.createCrowd(fox, { capacity: COUNT, shading });
  if (shading === 'three') scene.add(crowds.sceneObject(crowd));
  const scale = FOX_HEIGHT / (fox.bounds.max[1] - fox.bounds.min[1]);
  const lift = -fox.bounds.min[1] * scale; // feet on the ground

  // Rings around the box, each fox walking counter-clockwise; outer rings blend towards Run.
  const ids = new Int32Array(COUNT);
  const radius = new Float32Array(COUNT);
  const angle = new Float32Array(COUNT);
  const speed = new Float32Array(COUNT); // metres per second along the ring
  /** Puts fox `i` at its angle on its ring, facing along it. */
  const place = (i) => {
    const a = angle[i];
    // Position (r cos a, -r sin a) moves along (-sin a, -cos a) as a grows; yaw y faces (sin y, cos y).
    crowd.setPlacement(ids[i], radius[i] * Math.cos(a), lift, -radius[i] * Math.sin(a), a + Math.PI, scale);
  };
  for (let i = 0, r = FIRST_RING; i < COUNT; r += RING_STEP) {
    const inRing = Math.min(COUNT - i, Math.floor((2 * Math.PI * r) / GAP));
    const blend = Math.min(1, (r - FIRST_RING) / (4 * RING_STEP));
    for (let k = 0; k < inRing; k++, i++) {
      ids[i] = crowd.add({ clipA: 'Walk', clipB: 'Run', blend, timeA: i * 0.37, timeB: i * 0.37 });
      radius[i] = r;
      angle[i] = (2 * Math.PI * k) / inRing;
      speed[i] = 0.9 + 2.4 * blend;
      place(i);
    }
  }

  // Exposed for the end-to-end test and the browser console.
  const example = { THREE, renderer, scene, camera, box, crowd, crowds, ids, scale, lift, frames: 0, paused: false, restored: 0 };
  Object.assign(window, { threeExample: example });

  addEventListener('resize', () => {
    camera.aspect = innerWidth / innerHeight;
    camera.updateProjectionMatrix();
    example.renderer.setSize(innerWidth, innerHeight);
  });

  // On three's WebGL 2 backend, a lost context (a GPU reset, too many contexts) does not come back in
  // three's renderer: once the canvas's context is restored, a new renderer on the same canvas adopts
  // the crowd (GLCrowd.restore: every Fox as it was) and its scene object, and the loop goes on there.
  renderer.domElement.addEventListener('webglcontextrestored', async () => {
    const lost = example.crowds;
    example.renderer.setAnimationLoop(null);
    const next = await makeRenderer({ canvas: renderer.domElement, forceWebGL: true });
    const crowds = new ThreeCrowdRenderer(next);
    lost.removeCrowd(crowd, false);
    crowds.adoptCrowd(crowd);
    Object.assign(example, { renderer: next, crowds, restored: example.restored + 1 });
    next.setAnimationLoop(frame);
  });

  const counts = document.getElementById('counts');
  let last = performance.now();
  const frame = (now) => {
    const dt = example.paused ? 0 : Math.min((now - last) / 1000, 0.1);
    last = now;
    for (let i = 0; i < COUNT && dt > 0; i++) {
      angle[i] += (dt * speed[i]) / radius[i];
      place(i);
    }
    crowd.update(dt);
    example.crowds.render(scene, camera); // in place of renderer.render(scene, camera): it also culls the crowd for this camera
    document.body.dataset.frames = String(++example.frames);
    // The cull counts of a recent frame (read back without stalling); held while paused, so screenshots compare.
    const stats = crowd.cullStats;
    if (stats && !example.paused && example.frames % 10 === 0) counts.textContent = `${stats.visible.toLocaleString('en')} / ${crowd.count.toLocaleString('en')} visible, ${stats.posed.toLocaleString('en')} posed`;
  };
  renderer.setAnimationLoop(frame);
}

/** three's renderer with the example's settings (shadows, pixel ratio, window size), initialised: WebGPU, or its WebGL 2 fallback. */
async function makeRenderer(options) {
  const renderer = new THREE.WebGPURenderer({ antialias: true, ...options });
  renderer.shadowMap.enabled = true;
  renderer.setPixelRatio(Math.min(devicePixelRatio, 2));
  renderer.setSize(innerWidth, innerHeight);
  await renderer.init();
  return renderer;
}

/** The overlay's links: the shading ('crowd' / 'three') and the number of Foxes (100 / the 10,000 preset), each reloading with the other kept. */
function showControls(shading) {
  const link = (key, value, label, current) => {
    const next = new URLSearchParams(location.search);
    next.set(key, value);
    return `<a href="?${next}"${current ? ' class="on"' : ''}>${label}</a>`;
  };
  document.getElementById('controls').innerHTML =
    `shading ${link('shading', 'three', 'three', shading === 'three')} ${link('shading', 'crowd', 'crowd', shading === 'crowd')} · ` +
    `Foxes ${link('foxes', '100', '100', COUNT === 100)} ${link('foxes', '10000', '10,000', COUNT === 10_000)}`;
  document.getElementById('title').textContent = `${COUNT.toLocaleString('en')} Foxes`;
}

main().catch((error) => {
  const message = document.getElementById('message');
  message.textContent = `${error.name}: ${error.message}`;
  message.hidden = false;
  console.error(error);
});
