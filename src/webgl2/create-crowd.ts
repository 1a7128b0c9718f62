import type { Character } from '../character/character';
import { show } from '../math/show';
import { checkObject } from '../runtime/input';
import { requiredCrowdLimits } from '../runtime/limits';
import { GPUCanvasCrowd, type ClearColor } from './canvas-crowd';
import type { GLCanvasCrowd } from './gl-canvas-crowd';
import type { GLCrowdOptions } from './gl-crowd';

/** The two backends a crowd runs on. */
export type CrowdBackend = 'webgpu' | 'webgl2';

/** createCrowd's options: the crowd's (CrowdOptions without the render-pass formats, which it picks), the backend and the clear colour. */
export interface CanvasCrowdOptions extends GLCrowdOptions {
  /** 'auto' (default): WebGPU where it works, else WebGL 2; 'webgpu' or 'webgl2' forces one (and fails, naming why, where it cannot run). */
  backend?: 'auto' | CrowdBackend;
  /** What each frame clears the canvas to: RGBA in [0, 1] as the canvas stores it (display values: the canvas is not sRGB-encoding; default opaque black). */
  clearColor?: ClearColor;
}

/**
 * A crowd drawing into a canvas, on either backend: `backend` says which. Both have the same
 * instance API (add, addMany, setAnimation, setBlend, setLayers, setPlacement, setTransform,
 * remove, ...; the same ids and named errors) and the same frame loop:
 * `crowd.update(dt); crowd.setCamera(viewProjection, eye); crowd.render(viewProjection);`.
 */
export type CanvasCrowd = GPUCanvasCrowd | GLCanvasCrowd;

/** Thrown by createCrowd when the backend asked for (or neither, under 'auto') cannot run here; `reasons` says why for each tried. */
export class BackendUnavailableError extends Error {
  /** Why each backend tried could not run, one sentence each. */
  readonly reasons: string[];

  constructor(message: string, reasons: string[]) {
    super(message);
    this.reasons = reasons;
    this.name = 'BackendUnavailableError';
  }
}

/**
 * Makes a crowd of `character` that draws into `canvas`, on WebGPU where it works and on WebGL 2
 * where it does not (docs/webgl2.md), or on the backend `options.backend` forces. Under 'auto',
 * WebGPU is tried first (an adapter, a device with the crowd's limits, the crowd); any failure
 * there falls back to WebGL 2 before the canvas is given a context; the WebGL 2 backend is a dynamic import,
 * fetched only when it is chosen. A canvas keeps the kind of
 * context it got first, so make one crowd per canvas. Throws a BackendUnavailableError naming
 * what is missing when neither can run; a bad option throws as Crowd / GLCrowd would.
 *
 * @example
 * ```ts
 * const crowd = await createCrowd(canvas, character, { capacity: 1000 });
 * console.log(crowd.backend); // 'webgpu' or 'webgl2'
 * crowd.add({ clipA: 'Walk' });
 * function frame(dt: number) {
 *   crowd.update(dt);
 *   crowd.setCamera(viewProjection, eye);
 *   crowd.render(viewProjection);
 * }
 * ```
 */
export async function createCrowd(canvas: HTMLCanvasElement | OffscreenCanvas, character: Character, options: CanvasCrowdOptions = {}): Promise<CanvasCrowd> {
  checkObject(options, 'options', '{ backend, clearColor, capacity, ... } (CanvasCrowdOptions)');
  if (typeof (canvas as { getContext?: unknown } | null)?.getContext !== 'function') throw new TypeError(`canvas must be an HTMLCanvasElement or OffscreenCanvas, got ${show(canvas)}`);
  const { backend = 'auto', clearColor = [0, 0, 0, 1], ...crowdOptions } = options;
  if (backend !== 'auto' && backend !== 'webgpu' && backend !== 'webgl2') throw new RangeError(`backend must be 'auto', 'webgpu' or 'webgl2', got ${show(backend)}`);
  if (!Array.isArray(clearColor) || clearColor.length !== 4 || clearColor.some((c) => typeof c !== 'number' || !(c >= 0 && c <= 1))) {
    throw new RangeError(`clearColor must be 4 numbers in [0, 1] (RGBA), got ${show(clearColor)}`);
  }
  const reasons: string[] = [];
  if (backend !== 'webgl2') {
    const made = await tryWebGpu(canvas, character, crowdOptions, clearColor, reasons, backend === 'webgpu');
    if (made) return made;
    if (backend === 'webgpu') throw new BackendUnavailableError(`WebGPU cannot run this crowd here: ${reasons.join('; ')}`, reasons);
  }
  const gl = canvas.getContext('webgl2', { antialias: true, alpha: false, depth: true, premultipliedAlpha: false }) as WebGL2RenderingContext | null;
  if (!gl) {
    reasons.push("WebGL 2: canvas.getContext('webgl2') returned null (WebGL 2 is off here, or the canvas already has a context of another kind)");
    throw new BackendUnavailableError(`no backend can run this crowd here: ${reasons.join('; ')}`, reasons);
  }
  // The WebGL 2 backend is loaded only here, when it is chosen: a bundler splits it into a chunk
  // of its own, so a page that runs on WebGPU never downloads it (docs/webgl2.md, "Loaded on demand").
  const { GLCanvasCrowd } = await import('./gl-canvas-crowd');
  return new GLCanvasCrowd(canvas, gl, character, crowdOptions, clearColor);
}

/** A WebGPU canvas crowd, or undefined (with the reason pushed) where WebGPU cannot make one; `rethrow`: a crowd's own refusal (a bad option) is thrown, not fallen back from. */
async function tryWebGpu(canvas: HTMLCanvasElement | OffscreenCanvas, character: Character, options: GLCrowdOptions, clearColor: ClearColor, reasons: string[], rethrow: boolean): Promise<GPUCanvasCrowd | undefined> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) {
    reasons.push('WebGPU: navigator.gpu is missing (this browser does not offer WebGPU, or the page is not a secure context)');
    return undefined;
  }
  const adapter = await gpu.requestAdapter().catch((error: Error) => { reasons.push(`WebGPU: requestAdapter() failed: ${error.message}`); return null; });
  if (!adapter) {
    if (reasons.length === 0) reasons.push('WebGPU: requestAdapter() found no usable GPU adapter');
    return undefined;
  }
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ label: 'crowd-skin', requiredLimits: requiredCrowdLimits(adapter) });
  } catch (error) {
    reasons.push(`WebGPU: requestDevice() failed: ${(error as Error).message}`);
    return undefined;
  }
  try {
    return new GPUCanvasCrowd(device, canvas, character, { ...options, colorFormat: gpu.getPreferredCanvasFormat(), depthFormat: 'depth24plus' }, clearColor);
  } catch (error) {
    device.destroy();
    // A limit of this device is a reason to try WebGL 2; a bad option is the caller's to fix.
    if (rethrow || !/limit|getContext/i.test((error as Error).message)) throw error;
    reasons.push(`WebGPU: ${(error as Error).message}`);
    return undefined;
  }
}
