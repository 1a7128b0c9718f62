/**
 * A React Three Fiber <Canvas> drawn by three's WebGPURenderer (R3F 9's async `gl` factory; on WebGPU, or on its WebGL 2 fallback), with
 * a crowd of Foxes from crowd-skin walking in a ring. <CrowdSkin> from 'crowd-skin/react' is the
 * whole integration: it makes a ThreeCrowdRenderer on R3F's renderer, loads the character, hands
 * the crowd over (`onCrowd`, `ref`), updates it each frame and renders the scene with it (in place
 * of R3F's gl.render). The Foxes are lit by the scene's lights below and clickable through R3F's
 * own raycasting: the event carries `instanceId`, as for an InstancedMesh. JSX, as an app with
 * Vite would have it.
 */
import React, { useEffect, useState } from 'react'; // React: in scope for a classic JSX transform too
import { createRoot } from 'react-dom/client';
import { Canvas, useFrame } from '@react-three/fiber';
import { PCFShadowMap, WebGPURenderer } from 'three/webgpu';
import { CrowdSkin } from 'crowd-skin/react';

const FOX_HEIGHT = 0.8; // metres, rest pose
const COUNT = 12;
const RADIUS = 3; // metres
/**
 * `?shading=three` has three draw and light the Foxes (createCrowd's shading), `?shading=crowd` crowd-skin's skin pass, lit by the
 * same scene lights; without it, the renderer's default: 'crowd' on WebGPU, 'three' on three's WebGL 2 fallback (where it is the only one).
 */
const PARAM = new URLSearchParams(location.search).get('shading');
const SHADING = PARAM === 'three' || PARAM === 'crowd' ? PARAM : undefined;
/**
 * For the browser console and the tests: `paused` stops the ring (and the clips) so a click can
 * aim; `remount()` mounts the app anew (every <CrowdSkin> unmounted: crowd removed, renderer
 * disposed) and `unmount()` takes it away.
 */
const example = { paused: false, frames: 0, unplacedFrames: 0, remount() {}, unmount() {} };
Object.assign(window, { reactExample: example });

/** The Foxes: `COUNT` instances added when the crowd is made, walking in a ring of RADIUS metres. */
function Ring({ onSelect }) {
  const [paused, setPaused] = useState(false);
  const [ring] = useState(() => ({ ids: [], scale: 1, lift: 0, angle: 0, placed: false }));
  // For the tests: frames drawn (after <CrowdSkin>'s render, priority 2) with the ring's Foxes added but not yet placed by onFrame.
  useFrame(() => { if (ring.ids.length > 0 && !ring.placed) example.unplacedFrames++; }, 3);
  // The install test sets `window.reactExample.paused`: hold the crowd clock and the ring with it.
  useEffect(() => { Object.defineProperty(example, 'paused', { get: () => paused, set: setPaused, configurable: true }); }, [paused]);
  return (
    <CrowdSkin
      character="/models/Fox/Fox.glb"
      shading={SHADING}
      options={{ capacity: COUNT }}
      paused={paused}
      onCrowd={(crowd) => {
        const { bounds } = crowd.character;
        ring.scale = FOX_HEIGHT / (bounds.max[1] - bounds.min[1]);
        ring.lift = -bounds.min[1] * ring.scale;
        ring.ids = [];
        ring.placed = false;
        for (let i = 0; i < COUNT; i++) ring.ids.push(crowd.add({ clipA: 'Walk', timeA: i * 0.37 }));
      }}
      onFrame={(crowd, delta) => {
        example.frames++;
        ring.angle += (delta * 0.9) / RADIUS; // 0.9 m/s along the ring
        ring.ids.forEach((id, i) => {
          const a = ring.angle + (2 * Math.PI * i) / ring.ids.length;
          crowd.setPlacement(id, RADIUS * Math.cos(a), ring.lift, -RADIUS * Math.sin(a), a + Math.PI, ring.scale);
        });
        ring.placed = true;
      }}
      onClick={(event) => { event.stopPropagation(); onSelect(event.instanceId); }}
    />
  );
}

function App() {
  const [selected, setSelected] = useState(null);
  return (
    <>
      <Canvas
        flat
        // No shadows here; R3F's default shadow type (PCFSoftShadowMap) is one three's WebGPURenderer replaces with a warning.
        shadows={{ enabled: false, type: PCFShadowMap }}
        camera={{ position: [0, 4, 9], fov: 45 }}
        gl={async (props) => {
          const renderer = new WebGPURenderer({ canvas: /** @type {HTMLCanvasElement} */ (/** @type {unknown} */ (props.canvas)), antialias: true, powerPreference: 'high-performance' });
          await renderer.init(); // picks WebGPU, or three's WebGL 2 fallback where there is none: the crowd draws on either
          return renderer;
        }}
        onCreated={({ camera }) => camera.lookAt(0, 0.5, 0)}
      >
        <color attach="background" args={[0xc9d3c4]} />
        <hemisphereLight args={[0xffffff, 0x667755, 1.2]} />
        <directionalLight position={[-4, 10, 6]} intensity={2} />
        <mesh position={[0, 0.5, 0]}>
          <boxGeometry args={[1, 1, 1]} />
          <meshStandardMaterial color={0x3366cc} />
        </mesh>
        <Ring onSelect={setSelected} />
      </Canvas>
      {selected !== null && <div id="selected" style={{ position: 'absolute', left: 12, bottom: 10 }}>selected #{selected}</div>}
    </>
  );
}

window.addEventListener('error', (event) => {
  const message = document.getElementById('message');
  message.textContent = String(event.error ?? event.message);
  message.hidden = false;
});
const root = createRoot(document.getElementById('root'));
root.render(<App />);
let mounts = 0;
example.remount = () => root.render(<App key={++mounts} />);
example.unmount = () => root.unmount();
