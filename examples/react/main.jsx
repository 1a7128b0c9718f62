/**
 * A React Three Fiber <Canvas> drawn by three's WebGPURenderer (R3F 9's async `gl` factory), with
 * a crowd of Foxes from crowd-skin walking in a ring. <CrowdSkin> below is the whole integration:
 * it makes a ThreeCrowdRenderer on R3F's renderer, loads the character, adds the instances, and
 * takes over rendering in a useFrame of priority 1 (crowds.render(scene, camera) in place of R3F's
 * gl.render). Its CrowdObject3D makes the Foxes clickable through R3F's own raycasting: the event
 * carries `instanceId`, as for an InstancedMesh. JSX, as an app with Vite would have it.
 */
import React, { useEffect, useMemo, useState } from 'react'; // React: in scope for a classic JSX transform too
import { createRoot } from 'react-dom/client';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { PCFShadowMap, WebGPURenderer } from 'three/webgpu';
import { loadCharacter } from 'crowd-skin';
import { CrowdObject3D, ThreeCrowdRenderer } from 'crowd-skin/three';

const FOX_HEIGHT = 0.8; // metres, rest pose
/** For the browser console and the install test: `paused` stops the ring (and the clips) so a click can aim. */
const example = { paused: false, frames: 0 };
Object.assign(window, { reactExample: example });

/**
 * `count` copies of the character at `url`, walking in a ring of `radius` metres, drawn into the
 * <Canvas> it is in. `onSelect(id)` is called with the instance clicked.
 */
function CrowdSkin({ url, count, radius = 3, onSelect }) {
  // R3F types `gl` as a WebGLRenderer; here it is the WebGPURenderer the `gl` factory made.
  const gl = /** @type {import('three/webgpu').WebGPURenderer} */ (/** @type {unknown} */ (useThree((state) => state.gl)));
  const crowds = useMemo(() => new ThreeCrowdRenderer(gl), [gl]);
  useEffect(() => () => crowds.dispose(), [crowds]);
  const [state, setState] = useState(null);

  useEffect(() => {
    let alive = true;
    loadCharacter(url).then((character) => {
      if (!alive) return;
      const crowd = crowds.createCrowd(character, { capacity: count });
      const scale = FOX_HEIGHT / (character.bounds.max[1] - character.bounds.min[1]);
      const lift = -character.bounds.min[1] * scale;
      const ids = [];
      for (let i = 0; i < count; i++) ids.push(crowd.add({ clipA: 'Walk', timeA: i * 0.37 }));
      setState({ crowd, ids, scale, lift, angle: 0, object: new CrowdObject3D(crowd) });
    });
    return () => { alive = false; };
  }, [crowds, url, count]);

  // Priority 1: R3F leaves rendering to us; the crowd is drawn with three's scene and camera.
  useFrame(({ scene, camera }, frameDelta) => {
    const delta = example.paused ? 0 : frameDelta;
    example.frames++;
    if (state) {
      const { crowd, ids, scale, lift } = state;
      state.angle += (delta * 0.9) / radius; // 0.9 m/s along the ring
      ids.forEach((id, i) => {
        const a = state.angle + (2 * Math.PI * i) / ids.length;
        crowd.setPlacement(id, radius * Math.cos(a), lift, -radius * Math.sin(a), a + Math.PI, scale);
      });
      crowd.update(delta);
    }
    crowds.render(scene, camera);
  }, 1);

  if (!state) return null;
  return <primitive object={state.object} onClick={(event) => { event.stopPropagation(); onSelect?.(event.instanceId); }} />;
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
          await renderer.init(); // picks WebGPU; ThreeCrowdRenderer refuses the WebGL 2 fallback by name
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
        <CrowdSkin url="/models/Fox/Fox.glb" count={12} onSelect={setSelected} />
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
createRoot(document.getElementById('root')).render(<App />);
