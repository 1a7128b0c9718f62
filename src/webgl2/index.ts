/**
 * `crowd-skin/webgl2`: the WebGL 2 backend's classes, for a page that makes its crowd on its own
 * WebGL 2 context (`new GLCrowd(gl, character, options)`) or checks `instanceof GLCanvasCrowd`.
 * `createCrowd` (from `crowd-skin`) does not need this entry: it loads the same code through a
 * dynamic import when it picks WebGL 2, so a page that runs on WebGPU never downloads it
 * (docs/webgl2.md, "Loaded on demand"). The main entry exports these as types only, for the same reason.
 */
export { GLCrowd, type GLCrowdOptions } from './gl-crowd';
export { GLCanvasCrowd } from './gl-canvas-crowd';
export type { GLShadowMap } from './gl-shadow-pass';
