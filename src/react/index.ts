/**
 * crowd-skin/react: `<CrowdSkin>`, a crowd in a React Three Fiber `<Canvas>` drawn by three's
 * WebGPURenderer, on WebGPU or on three's WebGL 2 fallback (where three draws it: shading 'three'). react (19) and @react-three/fiber (9) are optional peer dependencies, as three
 * is for crowd-skin/three; nothing else in crowd-skin imports them. docs/three.md, "In React
 * Three Fiber".
 *
 *   import { CrowdSkin } from 'crowd-skin/react';
 *
 *   <Canvas gl={async (props) => { const r = new WebGPURenderer({ canvas: props.canvas }); await r.init(); return r; }}>
 *     <directionalLight position={[-4, 10, 6]} intensity={2} />
 *     <CrowdSkin character="/models/Fox/Fox.glb" options={{ capacity: 100 }}
 *       onCrowd={(crowd) => { crowd.add({ clipA: 'Walk' }); }}
 *       onClick={(event) => console.log(event.instanceId)} />
 *   </Canvas>
 *
 * How: every <CrowdSkin> of one Canvas shares one ThreeCrowdRenderer on R3F's renderer (made by
 * the first, disposed with the last). Each updates its crowd in a useFrame of priority 1 (after
 * your own useFrame callbacks of priority 0, where you place instances); the first mounted one
 * renders the scene with its crowds at priority 2, in place of R3F's gl.render (a priority above
 * 0 tells R3F to leave rendering to it). Pointer events reach the crowd's instances through a
 * CrowdObject3D (`event.instanceId`), as for an InstancedMesh.
 */
import { createElement, Fragment, useEffect, useImperativeHandle, useRef, useState, type ReactElement, type Ref } from 'react';
import { useFrame, useThree, type EventHandlers, type RootState } from '@react-three/fiber';
import type { Object3D, Renderer } from 'three/webgpu';
import { loadCharacter, type Character } from '../index';
import { CrowdObject3D, ThreeCrowdRenderer, type ThreeCrowd, type ThreeCrowdOptions, type ThreeCrowdRendererOptions } from '../three/index';

/** Props of `<CrowdSkin>`: what to draw, how, and the hooks into its crowd; R3F's pointer events (EventHandlers) reach its instances. */
export interface CrowdSkinProps extends EventHandlers {
  /** The character: a loaded Character, or a glTF/GLB URL loaded with loadCharacter. A new value makes a new crowd. */
  character: Character | string;
  /**
   * Who shades the crowd (createCrowd's `shading`): 'crowd' (our skin pass, lit by the scene's
   * lights; the default on WebGPU) or 'three' (three draws it: its lights, shadows, fog; the
   * default, and the only one, on three's WebGL 2 backend). A change makes a new crowd.
   */
  shading?: 'crowd' | 'three';
  /**
   * The rest of createCrowd's options (capacity, shadows, material, castShadow, ...), read when
   * the crowd is made: give the component a new React `key` to make it again with others.
   */
  options?: Omit<ThreeCrowdOptions, 'shading'>;
  /**
   * Called with the crowd once it is made (again after a change of character or shading): add
   * its instances and make its features here. May return a cleanup, called before the crowd is
   * removed.
   */
  onCrowd?: (crowd: ThreeCrowd) => void | (() => void);
  /**
   * Called each frame before `crowd.update(delta)`, with the crowd, the seconds that update will
   * advance (0 while paused) and R3F's state: move instances here.
   */
  onFrame?: (crowd: ThreeCrowd, delta: number, state: RootState) => void;
  /** Holds the crowd clock (crowd.update(0) each frame) while true. Default false. */
  paused?: boolean;
  /**
   * Options of the Canvas's shared ThreeCrowdRenderer (samples, transparentAfterCrowds, lights),
   * taken by the first <CrowdSkin> mounted in it (the one that makes it).
   */
  renderer?: ThreeCrowdRendererOptions;
  /** Receives the crowd (null until it is made, and after it is removed): for per-instance calls from elsewhere. */
  ref?: Ref<ThreeCrowd | null>;
}

/** One Canvas's shared ThreeCrowdRenderer and the <CrowdSkin>s using it (the first renders). */
interface Shared {
  crowds: ThreeCrowdRenderer;
  members: symbol[];
}

/** Per R3F renderer (`state.gl`): its shared ThreeCrowdRenderer. */
const shared = new WeakMap<object, Shared>();

function join(gl: object, member: symbol, options: ThreeCrowdRendererOptions | undefined): Shared {
  let entry = shared.get(gl);
  if (!entry) {
    // R3F types `gl` as a WebGLRenderer; here it is the WebGPURenderer of the Canvas's `gl` factory
    // (ThreeCrowdRenderer names what is wrong when it is not).
    entry = { crowds: new ThreeCrowdRenderer(gl as unknown as Renderer, options), members: [] };
    shared.set(gl, entry);
  }
  entry.members.push(member);
  return entry;
}

function leave(gl: object, entry: Shared, member: symbol): void {
  entry.members.splice(entry.members.indexOf(member), 1);
  if (entry.members.length > 0) return;
  shared.delete(gl);
  entry.crowds.dispose();
}

/** The crowd of a <CrowdSkin>, its raycasting stand-in and (shading 'three') three's object of it. */
interface Made {
  crowd: ThreeCrowd;
  picking: CrowdObject3D;
  sceneObject: Object3D | undefined;
}

/**
 * A crowd of `character` in the enclosing React Three Fiber `<Canvas>` (whose `gl` must be an
 * initialised three.js WebGPURenderer, on WebGPU or its WebGL 2 fallback), drawn with the scene by a ThreeCrowdRenderer; see
 * CrowdSkinProps. Renders nothing until the character is loaded; a load or renderer error is
 * thrown from render, to the nearest error boundary.
 */
export function CrowdSkin(props: CrowdSkinProps): ReactElement | null {
  const { character, shading, options, onCrowd, onFrame, paused = false, renderer, ref, ...events } = props;
  const gl = useThree((state) => state.gl);
  const [member] = useState(() => Symbol('CrowdSkin'));
  const [entry, setEntry] = useState<Shared>();
  const [loaded, setLoaded] = useState<Character>();
  const [made, setMade] = useState<Made>();
  const [error, setError] = useState<unknown>();
  // The latest callbacks and flags, read by the frame loop and effects without re-subscribing.
  const latest = useRef({ onCrowd, onFrame, paused, options, made, entry });
  latest.current = { onCrowd, onFrame, paused, options, made, entry };

  // Declared before the effect that joins the shared renderer: on unmount React runs cleanups in
  // this order, so the crowd is removed before the last member's leave disposes the renderer.
  useEffect(() => {
    if (!entry || !loaded) return undefined;
    let crowd: ThreeCrowd;
    let cleanup: void | (() => void);
    try {
      crowd = entry.crowds.createCrowd(loaded, { ...latest.current.options, shading } as ThreeCrowdOptions);
    } catch (caught) {
      setError(caught);
      return undefined;
    }
    try {
      // Every crowd on WebGL 2 is drawn by three, as shading 'three' on WebGPU: its scene object goes into the scene.
      const drawnByThree = shading === 'three' || entry.crowds.backend === 'webgl2';
      const next = { crowd, picking: new CrowdObject3D(crowd), sceneObject: drawnByThree ? entry.crowds.sceneObject(crowd) : undefined };
      setMade(next);
      // The frame loop reads `latest` now, not at the next render: the shared renderer draws every
      // crowd it holds from the next frame, and that frame's update (onFrame first) must run
      // before it, or instances added in onCrowd are drawn where onFrame has not placed them yet
      // (examples/react's ring drew its Foxes at the origin, at the model's size, for a frame).
      latest.current.made = next;
      cleanup = latest.current.onCrowd?.(crowd);
    } catch (caught) {
      entry.crowds.removeCrowd(crowd);
      setError(caught);
      return undefined;
    }
    return () => {
      setMade(undefined);
      // No frame updates the crowd once it is removed, before the next render catches up.
      latest.current.made = undefined;
      if (typeof cleanup === 'function') cleanup();
      entry.crowds.removeCrowd(crowd);
    };
  }, [entry, loaded, shading]);

  useEffect(() => {
    let joined: Shared;
    try {
      joined = join(gl, member, renderer);
    } catch (caught) {
      setError(caught);
      return undefined;
    }
    setEntry(joined);
    return () => {
      setEntry(undefined);
      leave(gl, joined, member);
    };
  }, [gl, member]); // `renderer` options: taken by the one that makes the shared renderer, not followed

  useEffect(() => {
    if (typeof character !== 'string') {
      setLoaded(character);
      return undefined;
    }
    let alive = true;
    setLoaded(undefined);
    loadCharacter(character).then((c) => { if (alive) setLoaded(c); }, (caught: unknown) => { if (alive) setError(caught); });
    return () => { alive = false; };
  }, [character]);

  useImperativeHandle<ThreeCrowd | null, ThreeCrowd | null>(ref, () => made?.crowd ?? null, [made]);

  // Priority 1: after the app's own useFrame callbacks (priority 0), before the render below.
  useFrame((state, frameDelta) => {
    const { made: current, paused: holding, onFrame: each } = latest.current;
    if (!current) return;
    const delta = holding ? 0 : frameDelta;
    each?.(current.crowd, delta, state);
    current.crowd.update(delta);
  }, 1);

  // Priority 2: the first member of the Canvas's shared renderer draws the scene with every crowd in it.
  useFrame((state) => {
    const current = latest.current.entry;
    if (current) {
      if (current.members[0] === member) current.crowds.render(state.scene, state.camera);
    } else if (!shared.has(state.gl)) {
      state.gl.render(state.scene, state.camera); // no shared renderer yet: R3F's own render, which a priority above 0 turned off
    }
  }, 2);

  if (error !== undefined) throw error;
  if (!made) return null;
  return createElement(Fragment, null,
    createElement('primitive', { object: made.picking, ...events }),
    made.sceneObject ? createElement('primitive', { object: made.sceneObject }) : null);
}
