/**
 * The types of crowd-skin/three's ThreeCrowdRenderer (index.ts re-exports them): its options,
 * createCrowd's options and what createCrowd returns on each of three's backends.
 */
import type { Crowd, CrowdOptions, CrowdTargetFormats } from '../index';
import type { GLCrowd } from '../webgl2/gl-crowd';
import type { ThreeCrowdLights } from './scene-lights';
import type { ThreeShadingOptions } from './three-shading';

/** Options of a ThreeCrowdRenderer (all optional). */
export interface ThreeCrowdRendererOptions {
  /**
   * MSAA samples of the scene target: 1 or 4. Default: the renderer's (`renderer.samples`, 4 with
   * `antialias: true`, otherwise 1).
   */
  samples?: 1 | 4;
  /**
   * Draw three's transparent objects after the crowds (default true), which costs a second
   * `renderer.render` of the scene (opaque objects off) in each frame whose first render found
   * transparent objects in view (none: no second render). Pass false to draw them before the
   * crowds, in one render: they then do not blend over characters.
   */
  transparentAfterCrowds?: boolean;
  /**
   * Where crowds with shading 'crowd' take their lights: 'scene' (default) reads the scene's
   * DirectionalLight, AmbientLight, HemisphereLight and `scene.environment` at every render and
   * sets them with crowd.setLights when they changed (docs/three.md says what is ignored); 'own'
   * leaves the lights to CrowdOptions.lights and crowd.setLights, as before. Shading 'three' is
   * lit by three either way.
   */
  lights?: ThreeCrowdLights;
  /**
   * The backend three must be running ('webgpu' or 'webgl2'), checked (refused by name when it
   * runs the other): createCrowd is then typed as that backend's crowd (Crowd or GLCrowd) rather
   * than ThreeCrowd. Default: either.
   */
  backend?: 'webgpu' | 'webgl2';
}

/**
 * createCrowd's options: CrowdOptions but the formats, and how the crowd is shaded: 'crowd'
 * (the default on WebGPU: our skin pass, lit by the scene's lights unless the renderer's `lights` is 'own', drawn
 * after three's opaque objects) or 'three' (the default, and the only one, on three's WebGL 2 backend: three
 * draws it with a NodeMaterial: the scene's lights, shadows, fog; add `crowds.sceneObject(crowd)`
 * to the scene). docs/three.md says what each costs and what 'three' leaves out (props
 * are drawn by our own pass after three's). Both are culled with the render call's camera.
 */
export type ThreeCrowdOptions = Omit<CrowdOptions, keyof ThreeCrowdFormats> & (
  {
    /** Our skin pass draws the crowd (the default). */
    shading?: 'crowd';
  } | ({
    /** three draws the crowd with a NodeMaterial, lit, fogged and shadowed by the scene. */
    shading: 'three';
  } & ThreeShadingOptions)
);

/** Crowd options chosen by the bridge: the formats and samples of its scene target. */
export type ThreeCrowdFormats = CrowdTargetFormats;

/**
 * What createCrowd makes: a Crowd on three's WebGPU backend, a GLCrowd (the same instance API,
 * ids and errors: docs/webgl2.md) on its WebGL 2 backend (ThreeCrowdRenderer.backend says which).
 */
export type ThreeCrowd = Crowd | GLCrowd;

/** The crowd createCrowd makes on backend B: Crowd on 'webgpu', GLCrowd on 'webgl2', ThreeCrowd when either. */
export type ThreeCrowdOf<B extends 'webgpu' | 'webgl2'> = B extends 'webgpu' ? Crowd : GLCrowd;
